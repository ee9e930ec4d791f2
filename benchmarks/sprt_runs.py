"""The sequential test of ``pasur eval --sprt`` against fixed-size matches of equal power,
over repeated runs (docs/results.md, "Sequential tests")::

    python benchmarks/sprt_runs.py --runs 20 --elo 0,10
    python benchmarks/sprt_runs.py --runs 20 --elo 60,90 --pair heuristic greedy

For each pair, ``--runs`` sequential matches (seeds 0, 1, ...; at most ``--max-rounds``)
give the decisions and the rounds they used. The fixed-size match of the same error
rates is a one-sided z-test of the mean group score (:func:`agents.evaluation.sprt.
fixed_groups`): its size needs the standard deviation of a duplicate group's score,
taken from one long match of the pair (seed 1000, ``--sd-rounds``) or, where that is 0
(two copies of a deterministic agent: every group scores exactly 1/2), from the first
pair's (the figure a tester would plan with). The fixed-size matches are played on the
same seeds and decide H1 when the mean group score reaches ``score0 + z(1 - alpha) sd /
sqrt(n)``.
"""

from __future__ import annotations

import argparse
import json
import math
from statistics import NormalDist

import numpy as np

from agents.evaluation.match import evaluate
from agents.evaluation.sprt import Sprt, elo_to_score, fixed_groups, parse_bounds

PAIRS = (("heuristic", "greedy"), ("greedy", "greedy"), ("random", "random"))


def group_sd(a: str, b: str, rounds: int) -> float:
    """The standard deviation of a duplicate group's score in a long match of A and B."""
    res = evaluate(a, b, rounds=rounds, seed=1000, progress=False)
    return float(np.std(res.group_win_sum / res.group_rounds, ddof=1))


def measure(a: str, b: str, test: Sprt, runs: int, max_rounds: int,
            sd: float) -> dict[str, object]:
    """Decisions and rounds of ``runs`` sequential and fixed-size matches of A and B."""
    seq = [evaluate(a, b, rounds=max_rounds, seed=s, sprt=test, progress=False).sprt
           for s in range(runs)]
    n = fixed_groups(sd, test.elo0, test.elo1, test.alpha, test.beta)
    cut = elo_to_score(test.elo0) + NormalDist().inv_cdf(1 - test.alpha) * sd / math.sqrt(n)
    fixed = []
    for s in range(runs):
        res = evaluate(a, b, rounds=2 * n, seed=s, progress=False)
        fixed.append("H1" if res.round_win_rate >= cut else "H0")
    rounds = [r["rounds"] for r in seq]
    return {"pair": f"{a} vs {b}", "sd": sd, "sprt_decisions": _count(r["decision"] for r in seq),
            "sprt_mean_rounds": float(np.mean(rounds)), "sprt_max_rounds": max(rounds),
            "fixed_rounds": 2 * n, "fixed_decisions": _count(fixed)}


def _count(decisions: object) -> dict[str, int]:
    out: dict[str, int] = {}
    for d in decisions:  # type: ignore[attr-defined]
        out[d] = out.get(d, 0) + 1
    return dict(sorted(out.items()))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--elo", default="0,10", help="ELO0,ELO1 (default 0,10)")
    p.add_argument("--alpha", type=float, default=0.05)
    p.add_argument("--beta", type=float, default=0.05)
    p.add_argument("--max-rounds", type=int, default=20_000)
    p.add_argument("--sd-rounds", type=int, default=20_000)
    p.add_argument("--pair", nargs=2, action="append", metavar=("A", "B"),
                   help="a pair to measure (repeatable; default: heuristic greedy, greedy "
                   "greedy, random random)")
    args = p.parse_args()
    test = Sprt(*parse_bounds(args.elo), alpha=args.alpha, beta=args.beta)
    planning = None
    for a, b in args.pair or PAIRS:
        sd = group_sd(a, b, args.sd_rounds)
        planning = sd if planning is None else planning
        row = measure(a, b, test, args.runs, args.max_rounds, sd if sd > 0 else planning)
        row["sd_measured"] = sd
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
