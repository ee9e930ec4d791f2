"""``pasur eval --game persian_rummy A B``: the Persian Rummy branch of the eval command.

Kept out of :mod:`agents.apps.cli` so the shared command file only dispatches here. Options
that only mean something in Pasur (``--players`` other than 4, ``--preset``,
``--games``, ``--mode game``, ``--save-games``) are refused with a clear message.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from agents.evaluation.rummy_match import evaluate_rummy

__all__ = ["eval_rummy"]


def eval_rummy(args: argparse.Namespace, out: TextIO, flags: dict[str, Any]) -> int:
    """Run the evaluation the parsed ``args`` ask for; print the summary (and JSON)."""
    refused = [name for name, bad in (
        ("--players", args.players not in (2, 4)),  # 2 is the parser's default
        ("--preset", args.preset is not None),
        ("--games", args.games is not None),
        ("--mode game", args.mode != "round"),
        ("--save-games", args.save_games is not None),
    ) if bad]
    if refused:
        raise ValueError(f"--game persian_rummy does not take {', '.join(refused)} "
                         "(Persian Rummy is 4 players in teams, one-round deals)")
    res = evaluate_rummy(args.a, args.b, rounds=args.rounds, seed=args.seed, batch=args.batch,
                         **flags)
    print(res.summary(), file=out)
    if args.json is not None:
        text = json.dumps(res.to_json(), indent=2)
        if args.json == "-":
            print(text, file=sys.stdout)
        else:
            with open(args.json, "w", encoding="utf-8") as fh:
                fh.write(text + "\n")
            print(f"wrote {args.json}", file=out)
    return 0
