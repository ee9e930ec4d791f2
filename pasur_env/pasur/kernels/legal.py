"""Legal actions (docs/rules.md §9): masks, checks and uniformly random legal play."""

from __future__ import annotations

import numpy as np
from numba import prange

from pasur_env.core.bits import lowest, popcount
from pasur_env.core.compile import njit
from pasur_env.pasur.kernels.capture import take_bits
from pasur_env.pasur.kernels.state import (
    CAPTURE,
    DONE,
    HAND,
    MOVER,
    NUM_ACTIONS,
    PENDING,
    PHASE,
    PLAY,
    SELECTION,
    TABLE,
    TAKE_OFFSET,
)


@njit(cache=True, inline="always")
def legal_bits(st: np.ndarray, b: int) -> int:
    """Legal actions of game ``b`` as a mask: cards to PLAY, or table cards to TAKE."""
    phase = st[b, PHASE]
    if phase == PLAY:
        return st[b, HAND + st[b, MOVER]]
    if phase == CAPTURE:
        return take_bits(st[b, TABLE], st[b, PENDING], st[b, SELECTION])
    return 0


@njit(cache=True, inline="always")
def action_offset(st: np.ndarray, b: int) -> int:
    """Action id of card 0 in game ``b``'s phase: 0 (PLAY) or ``TAKE_OFFSET`` (CAPTURE)."""
    return TAKE_OFFSET if st[b, PHASE] == CAPTURE else 0


@njit(cache=True, inline="always")
def legal_row(st: np.ndarray, b: int, out: np.ndarray) -> None:
    """Fill ``out`` (104,) with game ``b``'s mover's legal actions (1/True) and 0 elsewhere."""
    out[:] = 0
    bits = legal_bits(st, b)
    off = action_offset(st, b)
    while bits:
        out[off + lowest(bits)] = 1
        bits &= bits - 1


@njit(cache=True, parallel=False, nogil=True)
def legal_mask_kernel(st: np.ndarray, games: np.ndarray, out: np.ndarray) -> None:
    """Fill row ``i`` of ``out`` (n, 104) bool with the legal actions of game ``games[i]``."""
    for i in prange(games.shape[0]):
        legal_row(st, games[i], out[i])


@njit(cache=True, inline="always")
def action_is_legal(st: np.ndarray, b: int, a: int) -> bool:
    """Whether action ``a`` is legal in game ``b`` (-1 is the only legal one in DONE)."""
    phase = st[b, PHASE]
    if phase == DONE:
        return a == -1
    if phase == PLAY:
        if a < 0 or a >= TAKE_OFFSET:
            return False
    else:
        if a < TAKE_OFFSET or a >= NUM_ACTIONS:
            return False
        a -= TAKE_OFFSET
    return (legal_bits(st, b) >> a) & 1 == 1


@njit(cache=True)
def pick_legal(st: np.ndarray, b: int, u: float) -> int:
    """The legal action of game ``b`` at quantile ``u`` in [0, 1) (uniform for uniform u)."""
    bits = legal_bits(st, b)
    n = popcount(bits)
    if n == 0:
        return -1
    k = min(int(u * n), n - 1)
    for _ in range(k):
        bits &= bits - 1
    return lowest(bits) + action_offset(st, b)


@njit(cache=True, parallel=False, nogil=True)
def random_actions_kernel(st: np.ndarray, games: np.ndarray, u: np.ndarray,
                          out: np.ndarray) -> None:
    """A uniformly random legal action for each of ``games`` from uniforms ``u`` (n,)
    (-1 for a game waiting in DONE)."""
    for i in prange(games.shape[0]):
        out[i] = pick_legal(st, games[i], u[i])
