"""Which actions are legal (``docs/persian_rummy.md`` §5 and §8), each rule stated once.

One predicate per action kind (:func:`take_ok`, :func:`pick_ok`, :func:`meld_ok`,
:func:`layoff_ok`, :func:`target_ok`, :func:`discard_ok`); :func:`is_legal` checks
one action with them (the step's validation) and :func:`fill_mask` writes a whole
mask with them, so the mask and the step can never disagree.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from pasur_env.core.bits import highest, lowest
from pasur_env.core.compile import njit
from pasur_env.rummy.kernels.melds import can_complete, extends, is_meld
from pasur_env.rummy.kernels.state import (
    CHOOSE,
    DISCARD0,
    DRAW,
    DRAW_STOCK,
    HAND,
    LAYOFF0,
    MELD,
    MELD_ACTION,
    MELDING,
    MOVER,
    NMELDS,
    NUM_ACTIONS,
    NUM_CARDS,
    PASS,
    PENDING,
    PHASE,
    PICK0,
    PICKED,
    PILE,
    PILE_N,
    STOCK_POS,
    TAKE0,
    TARGET,
    TARGET0,
)


@njit(cache=True)
def pile_index(st: np.ndarray, b: int, c: int) -> int:
    """Position of card ``c`` in game ``b``'s discard pile (bottom = 0), -1 if absent."""
    for i in range(st[b, PILE_N]):
        if st[b, PILE + i] == c:
            return i
    return -1


@njit(cache=True)
def layoff_count(st: np.ndarray, b: int, c: int) -> int:
    """Number of table melds that card ``c`` extends."""
    n = 0
    for m in range(st[b, NMELDS]):
        if extends(st[b, MELD + m], c):
            n += 1
    return n


@njit(cache=True)
def take_ok(st: np.ndarray, b: int, c: int) -> bool:
    """TAKE_DISCARD ``c``: ``c`` is in the pile and can be melded at once (a new meld
    from the hand plus the cards taken, or a lay-off)."""
    i = pile_index(st, b, c)
    if i < 0:
        return False
    avail = st[b, HAND + st[b, MOVER]]
    for k in range(i + 1, st[b, PILE_N]):
        avail |= 1 << st[b, PILE + k]
    return can_complete(1 << c, avail) or layoff_count(st, b, c) > 0


@njit(cache=True)
def pick_ok(st: np.ndarray, b: int, c: int) -> bool:
    """PICK ``c``: a hand card above the last pick whose meld can still be completed from
    the hand cards above it (around the target while the obligation stands)."""
    hand = st[b, HAND + st[b, MOVER]]
    picked = st[b, PICKED]
    if not (hand >> c) & 1 or (picked and c <= highest(picked)):
        return False
    q = picked | (1 << c)
    avail = hand & ~((1 << (c + 1)) - 1)
    t = st[b, TARGET]
    if t >= 0:
        if not ((q | avail) >> t) & 1:
            return False
        q |= 1 << t
    return can_complete(q, avail)


@njit(cache=True)
def meld_ok(st: np.ndarray, b: int) -> bool:
    """MELD: the picked cards form a meld (containing the target under the obligation)."""
    p = st[b, PICKED]
    t = st[b, TARGET]
    return is_meld(p) and (t < 0 or (p >> t) & 1 == 1)


@njit(cache=True)
def layoff_ok(st: np.ndarray, b: int, c: int) -> bool:
    """LAY_OFF ``c``: nothing picked, ``c`` in hand (the target under the obligation)
    and it extends some meld on the table."""
    t = st[b, TARGET]
    if st[b, PICKED] or not (st[b, HAND + st[b, MOVER]] >> c) & 1 or (t >= 0 and c != t):
        return False
    return layoff_count(st, b, c) > 0


@njit(cache=True)
def discard_ok(st: np.ndarray, b: int, c: int) -> bool:
    """DISCARD ``c``: nothing picked, the obligation met, ``c`` in hand."""
    return st[b, PICKED] == 0 and st[b, TARGET] < 0 and (st[b, HAND + st[b, MOVER]] >> c) & 1 == 1


@njit(cache=True)
def target_ok(st: np.ndarray, b: int, m: int) -> bool:
    """TARGET ``m``: the pending lay-off card extends meld ``m``."""
    return m < st[b, NMELDS] and extends(st[b, MELD + m], st[b, PENDING])


@njit(cache=True)
def is_legal(st: np.ndarray, b: int, a: int) -> bool:
    """Whether action ``a`` is legal for game ``b``'s mover."""
    ph = st[b, PHASE]
    if a < 0 or a >= NUM_ACTIONS:
        return False
    if ph == DRAW:
        stock = st[b, STOCK_POS] < NUM_CARDS
        if a == DRAW_STOCK:
            return stock
        if a == PASS:
            return not stock
        return a < PASS and take_ok(st, b, a - TAKE0)
    if ph == CHOOSE:
        return a >= TARGET0 and a < DISCARD0 and target_ok(st, b, a - TARGET0)
    if ph != MELDING:
        return False
    if PICK0 <= a < MELD_ACTION:
        return pick_ok(st, b, a - PICK0)
    if a == MELD_ACTION:
        return meld_ok(st, b)
    if st[b, PICKED]:
        return False
    if LAYOFF0 <= a < TARGET0:
        return layoff_ok(st, b, a - LAYOFF0)
    if a >= DISCARD0:
        return discard_ok(st, b, a - DISCARD0)
    return False


@njit(cache=True)
def fill_mask(st: np.ndarray, b: int, out: np.ndarray) -> None:
    """Write game ``b``'s legal actions into the bool row ``out`` (all False when DONE)."""
    out[:] = False
    ph = st[b, PHASE]
    if ph == DRAW:
        if st[b, STOCK_POS] < NUM_CARDS:
            out[DRAW_STOCK] = True
        else:
            out[PASS] = True
        for i in range(st[b, PILE_N]):
            c = st[b, PILE + i]
            out[TAKE0 + c] = take_ok(st, b, c)
    elif ph == CHOOSE:
        for m in range(st[b, NMELDS]):
            out[TARGET0 + m] = target_ok(st, b, m)
    elif ph == MELDING:
        hand = st[b, HAND + st[b, MOVER]]
        h = hand
        while h:
            c = lowest(h)
            h &= h - 1
            out[PICK0 + c] = pick_ok(st, b, c)
            if not st[b, PICKED]:
                out[LAYOFF0 + c] = layoff_ok(st, b, c)
                out[DISCARD0 + c] = discard_ok(st, b, c)
        out[MELD_ACTION] = st[b, PICKED] != 0 and meld_ok(st, b)


@njit(cache=True, parallel=False)
def legal_mask_kernel(st: np.ndarray, games: np.ndarray, out: np.ndarray) -> None:
    """Masks of ``games`` into ``out`` (row ``i`` = game ``games[i]``)."""
    for i in prange(games.shape[0]):
        fill_mask(st, games[i], out[i])
