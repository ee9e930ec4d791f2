"""OpenSpiel's exact algorithms on ``python_pasur`` against the project's exact solver.

On tiny decks of the redeal presets (a jack, a queen and a king in each), prints per
deck the NashConv of the uniform policy and of ``greedy`` (OpenSpiel's
``exploitability.nash_conv`` over :class:`pasur_env.openspiel.AgentPolicy`, and
:func:`agents.evaluation.exploitability.exploitability`), and of the average policy
after the same iterations of OpenSpiel's ``cfr.CFRPlusSolver`` and the project's
:class:`agents.pasur.solver.CFRPlus`, with the largest difference and the times::

    python benchmarks/openspiel_exact.py
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

#: (preset, cards, hand size, table size, CFR+ iterations): OpenSpiel's Python CFR takes
#: 0.4 to 7 s an iteration on these decks
DECKS = [
    ("mini", "AC 5C JS QH KH", 1, 1, 20),
    ("mini", "AC 10D JS QH KS", 2, 1, 25),
    ("mini", "2C 9D JS QH KS", 2, 1, 25),
    ("cfr_paper", "AC 9D 10D JS QH KS", 2, 2, 2),
]


def _timed(fn: Any, *args: Any) -> tuple[Any, float]:
    start = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - start


def compare(preset: str, cards: str, hand: int, table: int, iterations: int) -> dict[str, Any]:
    """Both sides' NashConv of uniform, greedy and CFR+ on one deck."""
    from open_spiel.python import policy as os_policy
    from open_spiel.python.algorithms import cfr, exploitability

    from agents.evaluation.exploitability import exploitability as project_exploitability
    from agents.evaluation.exploitability import variant_tree
    from agents.pasur.solver import CFRPlus
    from agents.registry import build_agent
    from pasur_env.openspiel import AgentPolicy, load_game

    game = load_game("pasur", preset=preset, cards=cards, hand_size=hand, table_size=table)
    flags = {"cards": tuple(cards.split()), "hand_size": hand, "table_size": table}
    row: dict[str, Any] = {"preset": preset, "cards": cards, "hand_size": hand,
                           "table_size": table}
    for agent, policy in (("uniform", os_policy.UniformRandomPolicy(game)),
                          ("greedy", AgentPolicy(game, build_agent("greedy", seed=0)))):
        theirs, seconds = _timed(exploitability.nash_conv, game, policy)
        ours = project_exploitability("random" if agent == "uniform" else agent,
                                      preset=preset, **flags).nash_conv
        row[agent] = {"openspiel": theirs, "project": ours, "openspiel_seconds": seconds}
    solver = cfr.CFRPlusSolver(game)
    _, seconds = _timed(lambda: [solver.evaluate_and_update_policy()
                                 for _ in range(iterations)])
    ours_cfr = CFRPlus(variant_tree(preset, **flags)[1])
    ours_cfr.run(iterations)
    row["cfr_plus"] = {"iterations": iterations,
                       "openspiel": exploitability.nash_conv(game, solver.average_policy()),
                       "project": ours_cfr.nash_conv()["nash_conv"],
                       "openspiel_seconds": seconds}
    row["max_abs_difference"] = max(abs(row[k]["openspiel"] - row[k]["project"])
                                    for k in ("uniform", "greedy", "cfr_plus"))
    return row


def main(argv: list[str] | None = None) -> int:
    """Every deck; exit 1 if any figure differs by more than 1e-9."""
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("--iterations", type=int, default=None,
                   help="CFR+ iterations on every deck (default: the deck's own)")
    args = p.parse_args(argv)
    worst = 0.0
    for *deck, iterations in DECKS:
        row = compare(*deck, args.iterations or iterations)
        worst = max(worst, row["max_abs_difference"])
        print(json.dumps(row), flush=True)
    return 1 if worst > 1e-9 else 0


if __name__ == "__main__":
    raise SystemExit(main())
