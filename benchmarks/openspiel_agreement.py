"""Agreement of the OpenSpiel games with the engines, over many random playouts.

Each playout goes through the OpenSpiel state (uniform chance outcomes, uniformly
random legal actions) and is replayed through a fresh engine dealt the same deck
(:func:`pasur_env.openspiel.agreement`); prints, per game and player count, the
decisions compared and how many legal-action sets and returns differed (0 and 0 when
the two agree)::

    python benchmarks/openspiel_agreement.py --playouts 10000
"""

from __future__ import annotations

import argparse
import json
import time

from pasur_env.openspiel import agreement

#: (game, parameters) checked
CASES = [
    ("pasur", {"players": 2}),
    ("pasur", {"players": 3}),
    ("pasur", {"players": 4}),
    ("pasur", {"preset": "cfr_paper"}),
    ("pasur", {"preset": "mini"}),
    ("pasur", {"preset": "small"}),
    ("persian_rummy", {}),
]


def main(argv: list[str] | None = None) -> int:
    """Run every case; exit 1 if any playout disagrees."""
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("--playouts", type=int, default=10_000, help="playouts per case")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    bad = 0
    for game, params in CASES:
        start = time.perf_counter()
        result = agreement(game, args.playouts, seed=args.seed, **params)
        result["seconds"] = round(time.perf_counter() - start, 1)
        bad += result["legal_mismatches"] + result["return_mismatches"]
        print(json.dumps(result), flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
