"""Per-seat rewards and infos from the engine's per-team round results.

Shared by the AEC env and the single-agent env so both pay exactly the same rewards
(``docs/persian_rummy.md``, "Environments").
"""

from __future__ import annotations

import numpy as np

from pasur_env.core.options import REWARD_MODES
from pasur_env.rummy.engine import RummyStepInfo

#: team of each seat: partners sit opposite
SEAT_TEAM = np.array([0, 1, 0, 1], dtype=np.int64)


def seat_rewards(info: RummyStepInfo, reward: str) -> np.ndarray:
    """Reward of every seat of every stepped game: float32 (n, 4).

    ``win``: +1 to the winning team's seats and -1 to the others at a game's end (0 for
    a draw); ``points``: each seat's team's round points at a round's end; ``diff``:
    its team's round points minus the other team's (zero-sum).
    """
    if reward == "win":
        won = info.winner[:, None] == SEAT_TEAM[None, :]
        out = np.where(won, 1.0, -1.0) * (info.game_end & (info.winner >= 0))[:, None]
        return out.astype(np.float32)
    pts = info.round_points.astype(np.float32) * info.round_end[:, None]
    if reward == "points":
        return pts[:, SEAT_TEAM]
    if reward == "diff":
        return (pts - pts[:, ::-1])[:, SEAT_TEAM]
    raise ValueError(f"reward must be one of {REWARD_MODES}, got {reward!r}")


def round_infos(info: RummyStepInfo) -> tuple[np.ndarray, np.ndarray]:
    """Per seat (n, 4): its team's points in the round just ended, and its game total."""
    return info.round_points[:, SEAT_TEAM], info.scores[:, SEAT_TEAM]
