"""Greedy meld planning on card masks (compiled): the best meld, the best lay-off, and a
whole turn's melds, as the greedy Persian Rummy agent scores them.

:func:`meld_now` is the meld to lay at any point of a turn, whoever began it: with
cards already picked (by the agent, another policy or a person), the best meld that
contains them and can still be finished by legal picks (every agent that melds by
greedy's picks: ``greedy``, ``rollout``, ``net``, and ``ismcts``'s playouts).

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
    """The best maximal run of suit ``s`` in ``pool`` containing every card of ``need``."""
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
        if popcount(m) >= 3 and (m & need) == need:
            v = mask_value(m)
            if v > best_v:
                best, best_v = m, v
    return best, best_v


@njit(cache=True)
def best_meld(pool: int, need: int, four_double: bool) -> tuple[int, int]:
    """The highest-scoring new meld in ``pool`` containing every card of ``need``:
    ``(mask, points)``, ``(0, 0)`` if none. Ties: the first found (jokers, ranks A..K,
    then runs by suit)."""
    best, best_v = 0, 0
    j = pool & JOKER_BITS
    if popcount(j) >= 3 and (j & need) == need:
        best, best_v = j, meld_points(j, four_double)
    for r in range(13):
        m = pool & (0xF << (4 * r))
        if popcount(m) >= 3 and (m & need) == need:
            v = meld_points(m, four_double)
            if v > best_v:
                best, best_v = m, v
    for s in range(4):
        m, v = _runs_of_suit(pool, s, need, four_double)
        if v > best_v:
            best, best_v = m, v
    return best, best_v


@njit(cache=True)
def meld_now(hand: int, picked: int, target: int, four_double: bool) -> tuple[int, int]:
    """The best meld to lay from this point of the turn: ``(mask, points)``.

    It contains the ``picked`` cards and the ``target`` (the pile card still to be
    melded, -1 if none), and its other cards are hand cards above the last pick, since
    picks go in ascending id order: so it is finished by picking them, lowest first,
    then MELD, whoever picked the cards before. The rules let a card be picked only if
    such a meld exists, so there is one whenever cards are picked.
    With nothing picked it is :func:`best_meld` of the hand; with the agent's own
    picks, the meld it began (the largest of its kind in the hand, all of it above).
    """
    pool = hand
    if picked:
        pool = picked | (hand & ~((1 << (highest(picked) + 1)) - 1))
    need = (picked | (1 << target)) if target >= 0 else picked
    return best_meld(pool, need, four_double)


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
