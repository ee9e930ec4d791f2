"""Pasur's per-seat rewards: the shared reward modes (:mod:`pasur_env.core.rewards`)
over the seats' sides (``docs/rules.md`` §10).

Shared by the AEC env, the single-agent env and the vector env so that the three
pay exactly the same rewards.
"""

from __future__ import annotations

import functools

import numpy as np

from pasur_env.core import rewards as core_rewards
from pasur_env.pasur.engine import StepInfo
from pasur_env.pasur.rules import Rules

__all__ = ["seat_sides", "seat_rewards", "round_infos"]


@functools.lru_cache(maxsize=64)
def seat_sides(rules: Rules) -> np.ndarray:
    """Side of every seat (P,)."""
    return np.array([rules.side_of(s) for s in range(rules.num_players)], dtype=np.int64)


def seat_rewards(info: StepInfo, rules: Rules, reward: str) -> np.ndarray:
    """Reward of every seat of every game for one engine step: float32 (n, P)
    (the modes of :func:`pasur_env.core.rewards.seat_rewards`)."""
    return core_rewards.seat_rewards(info, seat_sides(rules), rules.num_sides, reward)


def round_infos(info: StepInfo, rules: Rules) -> tuple[np.ndarray, np.ndarray]:
    """Per seat (n, P): its side's points in the round just ended, and its game score."""
    return core_rewards.round_infos(info, seat_sides(rules))
