"""Fit the opponent model of ``net-ismcts``'s inference to an agent's plays.

``net-ismcts`` weights each determinization by how likely the opponent was to make its
plays of the deal with the hand the determinization gives it (:mod:`agents.pasur.inference`).
The model of the opponent is the heuristic: a play's probability is
``(1 - floor) * softmax(beta * heuristic score) + floor / moves``. ``beta`` says how
closely the opponent follows the heuristic's scores (in points), ``floor`` how often it
makes a play the heuristic would not (then the play discounts a hand instead of ruling
it out). A model sharper than the opponent is worse than none: it drops the opponent's
true hand whenever it deviates.

This script lets the agent (its argument) play rounds against itself, records every full move it
makes at a decision with a choice (the position and the card with the set it took),
scores every move open there with the heuristic, and prints the mean log-likelihood of
the plays made for a grid of ``(beta, floor)``, beside the uniform model's (the
information a play gives about the hand is the difference). The shipped defaults
(``infer_beta=1.25``, ``infer_floor=0.2``) are the best of the default grid for
``ismcts`` (``python -m train.opponent_fit ismcts --seed 101``; docs/agents.md).
``--json PATH`` also writes the grid as JSON (``-``: stdout, the text then goes to stderr).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import tyro

from agents import make_agent
from agents.pasur.heuristic import heuristic_params, heuristic_scores
from agents.pasur.inference import model_log_prob
from agents.pasur.moves import MOVE_BUF, decision_moves
from pasur_env import Engine, GameView
from pasur_env.core.loop import play
from pasur_env.pasur import kernels as K
from train.common.config import parse_config_args


@dataclass
class Args:
    config: str = "default"
    """named configuration whose values replace the defaults below: ``default`` or
    ``tiny`` (flags given on the command line still win)"""
    agent: Annotated[str, tyro.conf.Positional, tyro.conf.arg(metavar="AGENT")] = "ismcts"
    """the registered agent whose plays are modelled (it plays both seats)"""
    game: str = "pasur"
    """the game (the model is of Pasur's heuristic: ``pasur`` only)"""
    rounds: int = 400
    """rounds of self-play (about 36 decisions with a choice each)"""
    seed: int = 0
    """seeds the deals and the agent (default 0, as in every command: the same command
    gives the same result; the shipped model was fitted with ``--seed 101``)"""
    betas: tuple[float, ...] = (0.0, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0, 5.0)
    """the values of ``beta`` tried (0: the uniform model)"""
    floors: tuple[float, ...] = (0.0, 0.05, 0.1, 0.2, 0.3)
    """the values of ``floor`` tried"""
    json: str | None = None
    """also write the grid as JSON to this path (``-``: stdout)"""


#: named configurations (``--config``); the defaults above are ``default``
CONFIGS: dict[str, dict[str, Any]] = {
    "default": {},
    "tiny": {"rounds": 4},  # tests and smoke runs
}


def parse_args(argv: list[str] | None = None) -> Args:
    """Command line -> :class:`Args` (tyro): ``--config`` picks the defaults, flags win."""
    return parse_config_args(Args, CONFIGS, argv, "python -m train.opponent_fit", __doc__,
                             games=("pasur",))


class PlayRecorder:
    """The play loop's decision hook: each full move made at a PLAY decision, as (the
    state row before it, the card, the table cards it took). A capture with several
    options is completed by the TAKE decisions that follow it."""

    def __init__(self, params: np.ndarray) -> None:
        self.params = params  # the rules, to score the moves
        self.rows: list[np.ndarray] = []
        self.cards: list[int] = []
        self.taken: list[int] = []
        self._open: dict[int, int] = {}  # game -> index of its capture being completed

    def __call__(self, k: int, view: GameView, obs: np.ndarray | None, mask: np.ndarray,
                 actions: np.ndarray) -> None:
        st = view.engine.state
        for g, a in zip(view.games.tolist(), actions.tolist(), strict=True):
            if st[g, K.PHASE] == K.CAPTURE:
                self.taken[self._open[g]] |= 1 << (a - K.TAKE_OFFSET)
                continue
            _, captured = K.resolve_play(int(st[g, K.TABLE]), a)
            self._open[g] = len(self.rows)
            self.rows.append(st[g].copy())
            self.cards.append(a)
            self.taken.append(captured)


def record_plays(agent: str, rounds: int, seed: int) -> PlayRecorder:
    """``agent``'s full moves in ``rounds`` rounds of self-play (2 players, classic)."""
    engine = Engine(rounds, episode="round", seed=seed, auto_reset=False)
    recorder = PlayRecorder(engine.params)
    play(engine, [make_agent(agent, seed=seed)], np.zeros((rounds, 2), dtype=np.int64),
         on_decisions=recorder)
    return recorder


def play_scores(rec: PlayRecorder) -> list[tuple[np.ndarray, int]]:
    """For every recorded play with a choice: the heuristic's scores of the moves open
    there and the index of the move made."""
    hp = heuristic_params()
    cards, capts = np.empty(MOVE_BUF, np.int64), np.empty(MOVE_BUF, np.int64)
    scores = np.empty(MOVE_BUF, np.float64)
    out = []
    for row, card, taken in zip(rec.rows, rec.cards, rec.taken, strict=True):
        one = row[None].copy()
        m = decision_moves(one, 0, cards, capts)
        if m <= 1:
            continue
        heuristic_scores(one, 0, rec.params, False, hp, cards, capts, m, scores)
        made = np.flatnonzero((cards[:m] == card) & (capts[:m] == taken))
        if made.size != 1:
            raise RuntimeError(f"play ({card}, {taken:#x}) is not a move of its position")
        out.append((scores[:m].copy(), int(made[0])))
    return out


def log_likelihood(plays: list[tuple[np.ndarray, int]], beta: float, floor: float) -> float:
    """Mean log-probability of the plays made under the model with ``beta``, ``floor``."""
    return sum(model_log_prob(s, s.size, i, beta, floor) for s, i in plays) / len(plays)


def main(argv: list[str] | None = None) -> tuple[float, float]:
    args = parse_args(argv)
    out = sys.stderr if args.json == "-" else sys.stdout
    plays = play_scores(record_plays(args.agent, args.rounds, args.seed))
    uniform = -float(np.mean([np.log(s.size) for s, _ in plays]))
    agree = float(np.mean([s[i] >= s.max() for s, i in plays]))
    print(f"{args.agent}: {len(plays):,} plays with a choice in {args.rounds} rounds "
          f"(seed {args.seed}); the heuristic's best move made in {agree:.1%}", file=out)
    print(f"mean log-likelihood per play; uniform model {uniform:.4f}", file=out)
    print("beta  " + "".join(f"  floor {f:<5}" for f in args.floors), file=out)
    best, grid = (-np.inf, 0.0, 0.0), []
    for beta in args.betas:
        lls = [log_likelihood(plays, beta, f) for f in args.floors]
        grid.append(lls)
        print(f"{beta:<5} " + "".join(f"  {v:11.4f}" for v in lls), file=out)
        best = max(best, *((v, beta, f) for v, f in zip(lls, args.floors, strict=True)))
    print(f"best: beta {best[1]}, floor {best[2]} ({best[0]:.4f}, {best[0] - uniform:+.4f} "
          "nats per play over the uniform model)", file=out)
    if args.json is not None:
        result = {"agent": args.agent, "rounds": args.rounds, "seed": args.seed,
                  "plays": len(plays), "uniform": uniform, "betas": list(args.betas),
                  "floors": list(args.floors), "log_likelihood": grid,
                  "best": {"beta": best[1], "floor": best[2], "log_likelihood": best[0]}}
        text = json.dumps(result, indent=2) + "\n"
        if args.json == "-":
            sys.stdout.write(text)
        else:
            Path(args.json).write_text(text)
    return best[1], best[2]


if __name__ == "__main__":
    main()
