"""Speed of the agent-writing toolkits: decisions listed per second.

For each game, positions of seeded random play in a batch of B games; then, each the
median of ``--repeats`` runs of ``--seconds``:

* ``one``: ``full_moves(engine, g)`` / ``turn_options(engine, g)`` one game at a time
  (what a Python agent pays per decision when it lists one game);
* ``view``: ``moves_of_view`` / ``options_of_view`` of all B games in one call (one
  compiled pass, then the Python objects);
* ``arrays``: ``move_arrays`` / ``option_arrays`` of all B games (the compiled pass and
  numpy arrays only, what a batched agent reads).

Run::

    python benchmarks/bench_toolkit.py --batch 256 --seconds 1 --repeats 3
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np


def _rate(fn: Callable[[], int], seconds: float, repeats: int) -> float:
    """Median over ``repeats`` runs of ``seconds`` of the decisions ``fn`` lists per second."""
    fn()  # compile and warm up
    rates = []
    for _ in range(repeats):
        n, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            n += fn()
        rates.append(n / (time.perf_counter() - t0))
    return statistics.median(rates)


def toolkit_rates(batch: int, seconds: float, repeats: int) -> dict[str, dict[str, float]]:
    """Decisions/s of each toolkit's three entry points on random-play positions."""
    from agents.pasur import toolkit as pasur
    from agents.rummy import toolkit as rummy
    from pasur_env import Engine, GameView
    from pasur_env.rummy import RummyEngine

    out = {}
    games = np.arange(batch, dtype=np.int64)
    for name, eng, one, view, arrays in (
        ("pasur", Engine(batch, seed=0), pasur.full_moves, pasur.moves_of_view,
         pasur.move_arrays),
        ("persian_rummy", RummyEngine(batch, seed=0), rummy.turn_options,
         rummy.options_of_view, rummy.option_arrays),
    ):
        rng = np.random.default_rng(0)
        for _ in range(40):
            eng.step(eng.random_actions(rng))
        v = GameView(eng, games)
        out[name] = {
            "one": _rate(lambda e=eng, f=one: sum(1 for g in range(batch) if f(e, g) or 1),
                         seconds, repeats),
            "view": _rate(lambda f=view, v=v: len(f(v)), seconds, repeats),
            "arrays": _rate(lambda e=eng, f=arrays: len(f(e, games)["offsets"]) - 1,
                            seconds, repeats),
        }
    return out


def main(argv: Any = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    print(json.dumps(toolkit_rates(args.batch, args.seconds, args.repeats), indent=1))


if __name__ == "__main__":
    main()
