"""Greedy meld planning on card masks (compiled): the best meld, the best lay-off, and a
whole turn's melds, as the greedy Persian Rummy agent scores them.

"Best" is the most points put on the table: a meld is worth its cards' values (a
four-set laid at once twice, when the rule says so), a lay-off its card's value.
A candidate meld is always the largest of its kind: all the cards of a rank (3 or 4),
all the jokers, or a whole maximal run, since a bigger meld puts more points down.
"""

from __future__ import annotations

import numpy as np

from pasur_env.core.bits import highest, lowest, popcount
from pasur_env.core.compile import njit
from pasur_env.rummy.cards import JOKER_BITS, VALUE_OF
from pasur_env.rummy.kernels.melds import (
    SUIT0_BITS,
    card_at,
    extends,
    is_four_set,
    mask_value,
    run_places,
)

_VALUE = VALUE_OF.copy()


@njit(cache=True)
def meld_points(m: int, four_double: bool) -> int:
    """Points a new meld puts on the table."""
    v = mask_value(m)
    return 2 * v if four_double and is_four_set(m) else v


@njit(cache=True)
def _runs_of_suit(pool: int, s: int, need: int, four_double: bool) -> tuple[int, int]:
    """The best maximal run of suit ``s`` in ``pool`` (containing ``need`` if set)."""
    p = run_places(pool & (SUIT0_BITS << s), s)
    best, best_v = 0, 0
    pos = 0
    while pos < 13:
        if not (p >> pos) & 1:
            pos += 1
            continue
        m = 0
        while pos < 13 and (p >> pos) & 1:
            m |= 1 << card_at(s, pos)
            pos += 1
        if popcount(m) >= 3 and (need == 0 or m & need):
            v = mask_value(m)
            if v > best_v:
                best, best_v = m, v
    return best, best_v


@njit(cache=True)
def best_meld(pool: int, need: int, four_double: bool) -> tuple[int, int]:
    """The highest-scoring new meld in ``pool`` (containing ``need`` when not 0):
    ``(mask, points)``, ``(0, 0)`` if none. Ties: the first found (jokers, ranks A..K,
    then runs by suit)."""
    best, best_v = 0, 0
    j = pool & JOKER_BITS
    if popcount(j) >= 3 and (need == 0 or j & need):
        best, best_v = j, meld_points(j, four_double)
    for r in range(13):
        m = pool & (0xF << (4 * r))
        if popcount(m) >= 3 and (need == 0 or m & need):
            v = meld_points(m, four_double)
            if v > best_v:
                best, best_v = m, v
    for s in range(4):
        m, v = _runs_of_suit(pool, s, need, four_double)
        if v > best_v:
            best, best_v = m, v
    return best, best_v


@njit(cache=True)
def best_layoff(pool: int, melds: np.ndarray, nm: int, need: int) -> tuple[int, int, int]:
    """The most valuable card of ``pool`` (``need`` only, when set) that extends a meld:
    ``(card, meld index, points)``; card -1 if none. Ties: the highest card id, first meld."""
    cand = need if need else pool
    best_c, best_m, best_v = -1, -1, 0
    while cand:
        c = highest(cand)
        cand &= ~(1 << c)
        if _VALUE[c] <= best_v:
            continue
        for m in range(nm):
            if extends(melds[m], c):
                best_c, best_m, best_v = c, m, _VALUE[c]
                break
    return best_c, best_m, best_v


@njit(cache=True)
def plan_turn(pool: int, table: np.ndarray, nm: int, need: int, four_double: bool
              ) -> tuple[int, int]:
    """Greedy melds of a whole turn from ``pool``: ``(points put down, value kept)``.

    Meld or lay off the best move while any exists (the ``need`` card first), then
    discard the most valuable card left; going out adds its 25 points.
    """
    melds = np.zeros(nm + 20, dtype=np.int64)
    melds[:nm] = table[:nm]
    points = 0
    while pool:
        m, mv = best_meld(pool, need, four_double)
        c, k, cv = best_layoff(pool, melds, nm, need)
        if mv == 0 and cv == 0:
            break
        if mv >= cv:
            melds[nm] = m
            nm += 1
            pool &= ~m
            points += mv
        else:
            melds[k] |= 1 << c
            pool &= ~(1 << c)
            points += cv
        need = 0
    if pool == 0:
        return points + 25, 0
    keep = mask_value(pool)
    top = 0
    h = pool
    while h:
        c = lowest(h)
        h &= h - 1
        top = max(top, _VALUE[c])
    return points, keep - top
