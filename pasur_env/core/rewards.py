"""Per-seat rewards and round infos from per-side round results, for both games.

Both engines report a step's round results per side (Pasur's sides, Persian Rummy's
teams); every env pays a seat its side's result. These two functions are the one
definition of the three reward modes (``win``, ``points``, ``diff``) for the AEC env,
the single-agent env and the vector env of either game, so that all of them pay
exactly the same rewards. Each game binds them to its seat-to-side table
(:mod:`pasur_env.pasur.rewards`, :mod:`pasur_env.rummy.rewards`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pasur_env.core.options import REWARD_MODES

__all__ = ["seat_rewards", "round_infos"]


def seat_rewards(info: Any, sides: np.ndarray, num_sides: int, reward: str) -> np.ndarray:
    """Reward of every seat of every stepped game: float32 (n, P).

    ``info`` is an engine's step report (``winner``, ``game_end``, ``round_end``,
    ``round_points`` per side); ``sides[s]`` is seat ``s``'s side. ``win`` pays +1 to
    the winning side's seats and -1 to the others where a game (or, for one-round
    episodes, a round) ended with a winner, 0 on a tie; ``points`` pays each seat its
    side's round points at round ends; ``diff`` pays its side's round points minus the
    mean of the other sides' (zero-sum between sides).
    """
    if reward == "win":
        won = info.winner[:, None] == sides[None, :]
        out = np.where(won, 1.0, -1.0) * (info.game_end & (info.winner >= 0))[:, None]
        return out.astype(np.float32)
    pts = info.round_points.astype(np.float32) * info.round_end[:, None]
    if reward == "points":
        return pts[:, sides]
    if reward == "diff":
        others = (pts.sum(axis=1, keepdims=True) - pts) / (num_sides - 1)
        return (pts - others)[:, sides]
    raise ValueError(f"reward must be one of {REWARD_MODES}, got {reward!r}")


def round_infos(info: Any, sides: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per seat (n, P): its side's points in the round just ended, and its game score.

    What the envs report as ``infos["round_points"]`` and ``infos["scores"]``.
    """
    return info.round_points[:, sides], info.scores[:, sides]
