"""Uniformly random legal play."""

from __future__ import annotations

import numpy as np

from .base import Agent, GameView

__all__ = ["RandomAgent"]


class RandomAgent(Agent):
    """Picks uniformly among the legal actions of each decision (seeded numpy Generator)."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, obs: np.ndarray | None, mask: np.ndarray, view: GameView) -> np.ndarray:
        mask = np.asarray(mask, dtype=np.bool_)
        counts = mask.sum(axis=1)
        if (counts == 0).any():
            i = int(np.flatnonzero(counts == 0)[0])
            raise ValueError(f"decision {i} has no legal action")
        k = np.minimum((self.rng.random(len(mask)) * counts).astype(np.int64), counts - 1)
        # index of the k-th legal action: first column where the running count exceeds k
        return np.argmax(np.cumsum(mask, axis=1) > k[:, None], axis=1).astype(np.int64)
