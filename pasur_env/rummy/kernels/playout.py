"""Uniformly random legal play inside the compiled code (benchmarks, property tests).

The random numbers are given by the caller (``u``: uniforms in [0, 1)), never drawn
from a game's stream, so random play does not disturb the deals. A choice is
:func:`pasur_env.rummy.kernels.legal.nth_legal`, read from the legal sets without
writing a mask row (:func:`pick_legal` makes the same choice from a mask row).
"""

from __future__ import annotations

import numpy as np
from numba import prange

from pasur_env.core.compile import njit
from pasur_env.rummy.kernels.legal import nth_legal
from pasur_env.rummy.kernels.state import NINFO
from pasur_env.rummy.kernels.step import apply_action


@njit(cache=True)
def pick_legal(row: np.ndarray, u: float) -> int:
    """The ``floor(u * n)``-th of the ``n`` True entries of a mask row (-1 if none)."""
    n = 0
    for a in range(row.shape[0]):
        n += row[a]
    if n == 0:
        return -1
    k = min(int(u * n), n - 1)
    for a in range(row.shape[0]):
        if row[a]:
            if k == 0:
                return a
            k -= 1
    return -1


@njit(cache=True, parallel=False, nogil=True)
def random_actions_kernel(st: np.ndarray, games: np.ndarray, u: np.ndarray,
                          out: np.ndarray) -> None:
    """One uniformly random legal action for each of ``games`` (-1 for a finished game)."""
    for i in prange(games.shape[0]):
        out[i] = nth_legal(st, games[i], u[i])


@njit(cache=True, parallel=False, nogil=True)
def playout_kernel(st: np.ndarray, params: np.ndarray, steps: int, seed: np.uint64,
                   auto_reset: bool) -> np.ndarray:
    """Play ``steps`` random legal decisions in every game; returns rounds ended per game.

    Each game draws its choices from its own xorshift stream seeded from ``seed`` and its
    index, so the result does not depend on the batch size either.
    """
    B = st.shape[0]
    rounds = np.zeros(B, dtype=np.int64)
    for b in prange(B):
        info = np.zeros(NINFO, dtype=np.int64)
        x = np.uint64(seed) + np.uint64(b) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(1)
        for _ in range(steps):
            x ^= x << np.uint64(13)
            x ^= x >> np.uint64(7)
            x ^= x << np.uint64(17)
            a = nth_legal(st, b, np.float64(x >> np.uint64(11)) * (1.0 / 9007199254740992.0))
            if a < 0:
                break
            info[:] = 0
            apply_action(st, b, a, params, info, auto_reset)
            rounds[b] += info[0]
    return rounds
