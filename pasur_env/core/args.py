"""Checks of the arguments every batched engine takes: game indices and action arrays.

Both games' engines (:class:`pasur_env.Engine`, :class:`pasur_env.rummy.RummyEngine`)
address a subset of their games and receive one action per game; the checks (and
their error messages) are written once here.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["game_indices", "action_array", "take_indices"]


def game_indices(games: Any, all_games: np.ndarray) -> np.ndarray:
    """``games`` as ascending, distinct, in-range int64 indices (None: ``all_games``)."""
    if games is None:
        return all_games
    n = all_games.shape[0]
    idx = np.ascontiguousarray(games, dtype=np.int64).reshape(-1)
    if idx.size and (idx[0] < 0 or idx[-1] >= n or (np.diff(idx) <= 0).any()):
        raise ValueError(f"games must be ascending distinct indices in 0..{n - 1}")
    return idx


def action_array(actions: Any, n: int) -> np.ndarray:
    """``actions`` as an (n,) int64 array (a scalar is accepted for one game)."""
    acts = np.asarray(actions)
    if acts.dtype.kind not in "iu":
        raise TypeError(f"actions must be an integer array, got dtype {acts.dtype}")
    if acts.shape != (n,):
        if n == 1 and acts.shape == ():
            acts = acts.reshape(1)
        else:
            raise ValueError(f"actions must have shape ({n},), got {acts.shape}")
    return acts.astype(np.int64, copy=False)


def take_indices(indices: Any, num_games: int) -> np.ndarray:
    """Indices for ``take()``: at least one, each in range (repeats allowed)."""
    idx = np.asarray(indices, dtype=np.int64).reshape(-1)
    if idx.size == 0:
        raise ValueError("take() needs at least one game index")
    if idx.min() < 0 or idx.max() >= num_games:
        raise ValueError(f"game indices must be in 0..{num_games - 1}")
    return idx
