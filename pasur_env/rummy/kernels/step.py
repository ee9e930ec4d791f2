"""One decision of each game (``docs/persian_rummy.md`` §5-§6): the step kernel.

The kernel validates each action with :func:`pasur_env.rummy.kernels.legal.is_legal`
(an illegal one marks its game in ``bad`` and changes nothing), applies it, and
counts the round when it ends.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from pasur_env.core.compile import njit
from pasur_env.rummy.kernels.legal import is_legal, pile_index
from pasur_env.rummy.kernels.melds import is_four_set, mask_value, meld_ext
from pasur_env.rummy.kernels.score import end_round
from pasur_env.rummy.kernels.state import (
    BONUS,
    CHOOSE,
    CREDIT,
    DECK,
    DISCARD0,
    DONE,
    DRAW,
    DRAW_STOCK,
    GO_OUT_BONUS,
    HAND,
    I_ACTOR,
    I_OUT,
    I_WINNER,
    LAYOFF0,
    MELD,
    MELD_ACTION,
    MELDING,
    MOVER,
    NINFO,
    NMELDS,
    P_DISCARD_OUT,
    P_FOUR_DOUBLE,
    PASS,
    PASSES,
    PENDING,
    PHASE,
    PICK0,
    PICKED,
    PILE,
    PILE_N,
    STOCK_POS,
    TAKE0,
    TAKEN,
    TARGET,
    TARGET0,
    TURNS,
)


@njit(cache=True)
def _to_table(st: np.ndarray, b: int, cards: int) -> bool:
    """Move ``cards`` from the mover's hand to the table, credited to its team; clears
    the obligation if the target is among them. Returns whether the hand is now empty."""
    seat = st[b, MOVER]
    st[b, HAND + seat] &= ~cards
    st[b, TAKEN + seat] &= ~cards
    st[b, CREDIT + seat % 2] |= cards
    t = st[b, TARGET]
    if t >= 0 and (cards >> t) & 1:
        st[b, TARGET] = -1
    return st[b, HAND + seat] == 0


@njit(cache=True)
def _lay_off(st: np.ndarray, b: int, c: int, m: int) -> bool:
    st[b, MELD + m] |= 1 << c
    return _to_table(st, b, 1 << c)


@njit(cache=True)
def _draw(st: np.ndarray, b: int, a: int) -> None:
    """DRAW_STOCK or TAKE_DISCARD: the cards go to the hand; the meld phase starts."""
    seat = st[b, MOVER]
    if a == DRAW_STOCK:
        st[b, HAND + seat] |= 1 << st[b, DECK + st[b, STOCK_POS]]
        st[b, STOCK_POS] += 1
    else:
        c = a - TAKE0
        i = pile_index(st, b, c)
        taken = 0
        for k in range(i, st[b, PILE_N]):
            taken |= 1 << st[b, PILE + k]
        st[b, PILE_N] = i
        st[b, HAND + seat] |= taken
        st[b, TAKEN + seat] |= taken
        st[b, TARGET] = c
    st[b, PASSES] = 0
    st[b, PHASE] = MELDING


@njit(cache=True)
def _next_turn(st: np.ndarray, b: int) -> None:
    st[b, MOVER] = (st[b, MOVER] + 1) % 4
    st[b, PHASE] = DRAW


@njit(cache=True)
def _meld(st: np.ndarray, b: int, params: np.ndarray) -> bool:
    """MELD the picked cards as a new meld (a four-set counts double). Returns going out."""
    p = st[b, PICKED]
    st[b, MELD + st[b, NMELDS]] = p
    st[b, NMELDS] += 1
    st[b, PICKED] = 0
    if params[P_FOUR_DOUBLE] and is_four_set(p):
        st[b, BONUS + st[b, MOVER] % 2] += mask_value(p)
    return _to_table(st, b, p)


@njit(cache=True)
def _lay_off_action(st: np.ndarray, b: int, c: int) -> bool:
    """LAY_OFF ``c``: on its only meld at once, else wait for the TARGET choice."""
    first, n = -1, 0
    for m in range(st[b, NMELDS]):
        if (meld_ext(st[b, MELD + m]) >> c) & 1:  # c extends meld m
            n += 1
            first = m if first < 0 else first
    if n > 1:
        st[b, PENDING] = c
        st[b, PHASE] = CHOOSE
        return False
    return _lay_off(st, b, c, first) if n == 1 else False


@njit(cache=True)
def _discard(st: np.ndarray, b: int, c: int, params: np.ndarray) -> bool:
    """DISCARD ``c``: onto the pile, ending the turn. Returns going out (flag only)."""
    seat = st[b, MOVER]
    st[b, HAND + seat] &= ~(1 << c)
    st[b, TAKEN + seat] &= ~(1 << c)
    st[b, PILE + st[b, PILE_N]] = c
    st[b, PILE_N] += 1
    if params[P_DISCARD_OUT] and st[b, HAND + seat] == 0:
        return True
    _next_turn(st, b)
    return False


@njit(cache=True)
def apply_action(st: np.ndarray, b: int, a: int, params: np.ndarray, info: np.ndarray,
                 auto_reset: bool) -> None:
    """Apply legal action ``a`` to game ``b`` and end the round if it ends."""
    st[b, TURNS] += 1
    out = False
    if st[b, PHASE] == DRAW:
        if a == PASS:
            st[b, PASSES] += 1
            if st[b, PASSES] >= 4:
                end_round(st, b, params, info, auto_reset)
                return
            _next_turn(st, b)
        else:
            _draw(st, b, a)
    elif st[b, PHASE] == CHOOSE:
        c = st[b, PENDING]
        st[b, PENDING] = -1
        st[b, PHASE] = MELDING
        out = _lay_off(st, b, c, a - TARGET0)
    elif a < MELD_ACTION:
        st[b, PICKED] |= 1 << (a - PICK0)
    elif a == MELD_ACTION:
        out = _meld(st, b, params)
    elif a < TARGET0:
        out = _lay_off_action(st, b, a - LAYOFF0)
    else:
        out = _discard(st, b, a - DISCARD0, params)
    if out:
        st[b, BONUS + st[b, MOVER] % 2] += GO_OUT_BONUS
        info[I_OUT] = st[b, MOVER]
        end_round(st, b, params, info, auto_reset)


@njit(cache=True, parallel=False, nogil=True)
def step_kernel(st: np.ndarray, params: np.ndarray, games: np.ndarray, actions: np.ndarray,
                info: np.ndarray, bad: np.ndarray, auto_reset: bool) -> int:
    """Validate ``actions[i]`` for every game ``games[i]``, then (only if all are legal)
    apply them, reporting in ``info[i]``; return the number of illegal actions.

    Action -1 is the no-op of a game waiting in the DONE phase (``auto_reset`` off).
    """
    nbad = 0
    for i in prange(games.shape[0]):
        b = games[i]
        ok = is_legal(st, b, actions[i]) or (actions[i] == -1 and st[b, PHASE] == DONE)
        bad[i] = not ok
        nbad += 0 if ok else 1
    if nbad:
        return nbad
    for i in prange(games.shape[0]):
        b = games[i]
        for k in range(NINFO):
            info[i, k] = 0
        info[i, I_WINNER] = -1
        info[i, I_OUT] = -1
        info[i, I_ACTOR] = st[b, MOVER]
        if actions[i] >= 0:
            apply_action(st, b, actions[i], params, info[i], auto_reset)
    return 0
