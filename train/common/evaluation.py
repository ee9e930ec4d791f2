"""Evaluating a trained agent: the one path from the training scripts to the evaluation API.

Every evaluation a pipeline runs (the periodic ones during training and the final one)
plays duplicate-deal matches through :func:`evaluate_game`, which calls the project's
evaluation API for the game. :func:`evaluate_against` plays one agent against a list of
named opponents; :func:`final_evaluation` does that at the end of a run, prints each
result and writes ``final_eval.json``. Results carry ``a``, ``b``, ``rounds``,
``mean_point_diff``, ``ci95``, ``round_win_rate``, ``seconds``, ``to_json()`` and
``summary()`` in both games (one ``EvalResult``).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agents.evaluation.results import EvalResult

__all__ = ["evaluate_game", "evaluate_against", "final_evaluation", "parse_opponents"]


def evaluate_game(a: Any, b: Any, *, game: str, rounds: int, seed: int,
                  progress: bool = False, **kwargs: Any) -> EvalResult:
    """One duplicate-deal match of ``a`` against ``b`` in ``game``: the evaluation API
    (:func:`agents.evaluation.match.evaluate`); ``kwargs`` go to it (``players``,
    ``games``)."""
    from agents.apps.flags import whole_deals
    from agents.evaluation.match import evaluate, seatings
    from pasur_env.games import game_info

    n = len(seatings(kwargs.get("players") or game_info(game).players[0]))
    played = whole_deals("rounds", None, rounds, n)  # rounded up to whole deals, as the CLI
    if played != rounds and not kwargs.get("games"):  # said, never silently changed
        print(f"evaluation vs {b if isinstance(b, str) else type(b).__name__}: {rounds} rounds "
              f"played as {played}, whole deals of {n} seatings", file=sys.stderr)
    return evaluate(a, b, game=game, rounds=rounds, seed=seed, progress=progress, **kwargs)


def parse_opponents(text: str | Sequence[str], rounds: int) -> list[tuple[str, int]]:
    """``"random,greedy,ismcts:400"`` -> ``[("random", rounds), ("greedy", rounds),
    ("ismcts", 400)]``: a ``:R`` suffix plays only R rounds against that opponent (for
    the slow ones). Blank items are skipped."""
    items = text.split(",") if isinstance(text, str) else list(text)
    out = []
    for item in items:
        name, _, r = item.strip().partition(":")
        if name:
            out.append((name, int(r) if r else rounds))
    return out


def evaluate_against(agent: Any, opponents: str | Sequence[str], *, game: str, rounds: int,
                     seed: int, progress: bool = False, skip: Sequence[str] = (),
                     **kwargs: Any) -> list[EvalResult]:
    """``agent`` against every opponent of ``opponents`` (see :func:`parse_opponents`),
    each match with the same ``seed`` (the same deals); opponents named in ``skip`` are
    left out."""
    return [evaluate_game(agent, name, game=game, rounds=r, seed=seed, progress=progress,
                          **kwargs)
            for name, r in parse_opponents(opponents, rounds) if name not in skip]


def final_evaluation(agent: Any, opponents: str | Sequence[str], run_dir: Path, *, game: str,
                     rounds: int, seed: int, progress: bool = False, skip: Sequence[str] = (),
                     **kwargs: Any) -> list[EvalResult]:
    """The end of a run: ``agent`` against every opponent (confidence intervals
    included), each summary printed, all of them written to ``run_dir/final_eval.json``."""
    results = evaluate_against(agent, opponents, game=game, rounds=rounds, seed=seed,
                               progress=progress, skip=skip, **kwargs)
    for r in results:
        print(r.summary())
    (run_dir / "final_eval.json").write_text(json.dumps([r.to_json() for r in results],
                                                        indent=2))
    return results
