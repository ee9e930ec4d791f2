"""Persian Rummy's per-seat rewards: the shared reward modes
(:mod:`pasur_env.core.rewards`) over the two teams (``docs/persian_rummy.md``,
"Environments").

Shared by the AEC env, the single-agent env and the vector env so that all pay
exactly the same rewards. With two teams ``diff`` is own team's round points minus
the other team's.
"""

from __future__ import annotations

import numpy as np

from pasur_env.core import rewards as core_rewards
from pasur_env.rummy.engine import RummyStepInfo

__all__ = ["SEAT_TEAM", "seat_rewards", "round_infos"]

#: team of each seat: partners sit opposite
SEAT_TEAM = np.array([0, 1, 0, 1], dtype=np.int64)


def seat_rewards(info: RummyStepInfo, reward: str) -> np.ndarray:
    """Reward of every seat of every stepped game: float32 (n, 4)."""
    return core_rewards.seat_rewards(info, SEAT_TEAM, 2, reward)


def round_infos(info: RummyStepInfo) -> tuple[np.ndarray, np.ndarray]:
    """Per seat (n, 4): its team's points in the round just ended, and its game total."""
    return core_rewards.round_infos(info, SEAT_TEAM)
