"""Pasur's per-game random streams (column ``RNG`` of the state): the draws of a deal.

The generator is :mod:`pasur_env.core.rng` (splitmix64, shared with Persian Rummy and
the search agents); this module reads and advances the stream a Pasur game carries in
its own state row, so a game's trajectory depends only on its seed and actions.
"""

from __future__ import annotations

import numpy as np

from pasur_env.core.compile import njit
from pasur_env.core.rng import (  # noqa: F401 - re-exported: the kernels' generator
    GOLDEN,
    mix64,
    seed_stream_column,
    splitmix_next,
    stream_base,
    unit_float,
)
from pasur_env.pasur.kernels.state import RNG


@njit(cache=True, inline="always")
def next_random(st: np.ndarray, b: int) -> np.uint64:
    """The next 64 random bits of game ``b``'s stream (advances it in the state)."""
    z = np.uint64(st[b, RNG]) + GOLDEN
    st[b, RNG] = np.int64(z)
    return mix64(z)


@njit(cache=True, inline="always")
def random_below(st: np.ndarray, b: int, n: int) -> int:
    """Uniform integer in [0, n) from game ``b``'s stream (n < 2**11)."""
    z = next_random(st, b) >> np.uint64(11)
    return np.int64((z * np.uint64(n)) >> np.uint64(53))


@njit(cache=True)
def seed_streams(st: np.ndarray, base: np.uint64, offset: int) -> None:
    """Give game ``b`` the stream ``mix64(base + (offset + b) * GOLDEN)``."""
    seed_stream_column(st, RNG, base, offset)
