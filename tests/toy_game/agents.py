"""The toy game's one scripted player: take when a card can take, else play the lowest."""

from __future__ import annotations

import numpy as np

from pasur_env.core.policy import GameView
from toy_game.engine import TABLE

#: the other card of each card's value (``c ^ 1``)
_PARTNER = np.arange(8, dtype=np.int64) ^ 1


class ToyGreedy:
    """Plays a card that takes (the lowest such) when there is one, else its lowest card.
    Reads only the table and its own hand (the mask)."""

    name = "greedy"
    needs_observation = False

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed

    def act(self, obs: np.ndarray | None, mask: np.ndarray, view: GameView) -> np.ndarray:
        table = view.engine.state[view.games, TABLE]
        takes = mask & (((table[:, None] >> _PARTNER) & 1) == 1)
        return np.where(takes.any(axis=1), takes.argmax(axis=1), mask.argmax(axis=1))

    def reset(self, seed: int | None = None) -> None:
        self.seed = seed
