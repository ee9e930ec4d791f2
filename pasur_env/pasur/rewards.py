"""Per-seat rewards from the engine's per-side round results (``docs/rules.md`` §10).

Shared by the AEC env, the single-agent env and the vector env so that the three
pay exactly the same rewards.
"""

from __future__ import annotations

import functools

import numpy as np

from pasur_env.core.options import REWARD_MODES
from pasur_env.pasur.engine import StepInfo
from pasur_env.pasur.rules import Rules


@functools.lru_cache(maxsize=64)
def seat_sides(rules: Rules) -> np.ndarray:
    """Side of every seat (P,)."""
    return np.array([rules.side_of(s) for s in range(rules.num_players)], dtype=np.int64)


def seat_rewards(info: StepInfo, rules: Rules, reward: str) -> np.ndarray:
    """Reward of every seat of every game for one engine step: float32 (n, P).

    ``win`` pays +1 to the winning side's seats and -1 to the others where a game (or,
    for one-round episodes, a round) ended with a winner, 0 on a tie; ``points`` pays
    each seat its side's round points at round ends; ``diff`` pays its side's round
    points minus the mean of the other sides' (zero-sum between sides).
    """
    sides = seat_sides(rules)
    S = rules.num_sides
    if reward == "win":
        won = info.winner[:, None] == sides[None, :]
        out = np.where(won, 1.0, -1.0) * (info.game_end & (info.winner >= 0))[:, None]
        return out.astype(np.float32)
    pts = info.round_points.astype(np.float32) * info.round_end[:, None]
    if reward == "points":
        return pts[:, sides]
    if reward == "diff":
        others = (pts.sum(axis=1, keepdims=True) - pts) / (S - 1)
        return (pts - others)[:, sides]
    raise ValueError(f"reward must be one of {REWARD_MODES}, got {reward!r}")


def round_infos(info: StepInfo, rules: Rules) -> tuple[np.ndarray, np.ndarray]:
    """Per seat (n, P): its side's points in the round just ended, and its game score.

    What the envs report as ``infos["round_points"]`` and ``infos["scores"]``.
    """
    sides = seat_sides(rules)
    return info.round_points[:, sides], info.scores[:, sides]
