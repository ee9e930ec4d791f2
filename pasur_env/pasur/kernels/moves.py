"""Full moves and information sets, for search: move enumeration and determinization.

A *full move* is a played card with the capture set it takes (empty when the card
is laid). :func:`decision_moves` lists the full moves open at any decision (in the
CAPTURE phase: the pending card's options that extend the cards taken so far) and
:func:`move_actions` the actions that play one from there: the one implementation
the built-in agents, the agents' toolkit and :mod:`pasur_env.pasur.moves` read.
Determinization re-deals the cards a seat cannot see (docs/rules.md §7 for the Ru Baaz
face-up cards) so search can sample positions consistent with a seat's view.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from pasur_env.core.bits import lowest
from pasur_env.core.compile import njit
from pasur_env.pasur.kernels.capture import (
    enumerate_options,
    enumerate_options_into,
    resolve_play,
    take_bits,
)
from pasur_env.pasur.kernels.rng import random_below
from pasur_env.pasur.kernels.state import (
    CAPTURE,
    DECK,
    HAND,
    MOVER,
    NCOL,
    ORDER,
    PENDING,
    PHASE,
    PLAY,
    RNG,
    SELECTION,
    STOCK_POS,
    TABLE,
    TAKE_OFFSET,
)


@njit(cache=True)
def enumerate_moves(st: np.ndarray, b: int, cards: np.ndarray, captured: np.ndarray) -> int:
    """Every full move of game ``b``'s mover in the PLAY phase: (card, captured set).

    A card with options yields one move per option; a card without yields one move
    with ``captured = 0`` (laid). Returns the number of moves, -1 if the buffers are
    too small or the game is not in the PLAY phase.
    """
    if st[b, PHASE] != PLAY:
        return -1
    hand = st[b, HAND + st[b, MOVER]]
    table = st[b, TABLE]
    opts = np.empty(256, dtype=np.int64)
    stack = np.empty(256, dtype=np.int64)  # one search stack for every card
    n = 0
    while hand:
        c = lowest(hand)
        hand &= hand - 1
        k = enumerate_options_into(table, c, opts, stack)
        if k < 0:
            return -1
        if k == 0:
            if n >= cards.shape[0]:
                return -1
            cards[n] = c
            captured[n] = 0
            n += 1
        for i in range(k):
            if n >= cards.shape[0]:
                return -1
            cards[n] = c
            captured[n] = opts[i]
            n += 1
    return n


@njit(cache=True)
def option_extends(table: int, card: int, sel: int, option: int) -> bool:
    """Whether capture ``option`` of ``card`` can still be reached from the selection
    ``sel`` by legal TAKEs: which whole moves stay open in the CAPTURE phase.

    Checked with the rules' own legality (``take_bits``): each remaining card of the
    option, in ascending id order, must be a legal take.
    """
    if (option & sel) != sel:
        return False
    s = sel
    rest = option & ~sel
    while rest:
        t = lowest(rest)
        if (take_bits(table, card, s) >> t) & 1 == 0:
            return False
        s |= 1 << t
        rest &= rest - 1
    return True


@njit(cache=True)
def decision_moves(st: np.ndarray, b: int, cards: np.ndarray, capts: np.ndarray) -> int:
    """The full moves open to game ``b``'s mover at this decision, written to ``cards``
    and ``capts`` (the card played, the set captured): in the PLAY phase every full
    move (:func:`enumerate_moves`); in the CAPTURE phase the options of the pending
    card that extend the current selection (the cards already taken included). In
    card id order, then the options' order. Returns the number of moves, 0 in the
    DONE phase, -1 if the buffers are too small.
    """
    phase = st[b, PHASE]
    if phase == PLAY:
        return enumerate_moves(st, b, cards, capts)
    if phase != CAPTURE:
        return 0
    card = st[b, PENDING]
    sel = st[b, SELECTION]
    table = st[b, TABLE]
    k = enumerate_options(table, card, capts)
    if k < 0:
        return -1
    n = 0
    for i in range(k):
        o = capts[i]
        if option_extends(table, card, sel, o):
            capts[n] = o
            cards[n] = card
            n += 1
    return n


@njit(cache=True)
def move_actions(st: np.ndarray, b: int, card: int, captured: int, out: np.ndarray) -> int:
    """Write the actions that play full move ``(card, captured)`` of game ``b`` from
    this decision into ``out``; return how many. The PLAY (in the PLAY phase), then,
    when the card has two or more options (``resolve_play``), the TAKEs of the cards
    not yet selected in ascending id order: each option is exactly one such sequence."""
    n = 0
    if st[b, PHASE] == PLAY:
        out[0] = card
        n = 1
        k, _ = resolve_play(st[b, TABLE], card)
        if k < 2:
            return n
    rest = captured & ~st[b, SELECTION]
    while rest:
        out[n] = TAKE_OFFSET + lowest(rest)
        rest &= rest - 1
        n += 1
    return n


@njit(cache=True)
def hidden_slots(st: np.ndarray, b: int, seat: int, open_hand: bool, cols: np.ndarray) -> int:
    """State columns of game ``b`` that hold cards ``seat`` cannot see; returns their number.

    The hidden places are other seats' hand slots and the stock. Under ``open_hand``
    each opponent's face-up card (its earliest-dealt card still in hand) is visible.
    Table, piles and the pending card are public. ``cols`` needs room for 52 entries.
    """
    n = 0
    for p in range(4):
        if p == seat:
            continue
        first = True
        for j in range(4):
            if st[b, ORDER + 4 * p + j] < 0:
                continue
            if not (open_hand and first):
                cols[n] = ORDER + 4 * p + j
                n += 1
            first = False
    for i in range(st[b, STOCK_POS], 52):
        cols[n] = DECK + i
        n += 1
    return n


@njit(cache=True)
def hidden_from(st: np.ndarray, b: int, seat: int, open_hand: bool) -> int:
    """Cards of game ``b`` that ``seat`` cannot see (see :func:`hidden_slots`), as a mask."""
    cols = np.empty(52, dtype=np.int64)
    hidden = 0
    for k in range(hidden_slots(st, b, seat, open_hand, cols)):
        hidden |= 1 << st[b, cols[k]]
    return hidden


@njit(cache=True)
def determinize_kernel(
    st: np.ndarray, b: int, seat: int, open_hand: bool, seeds: np.ndarray, out: np.ndarray
) -> None:
    """Copies of game ``b`` with the cards hidden from ``seat`` dealt anew at random.

    Every hidden slot (another seat's unseen hand card, a stock position) receives a
    uniformly random permutation of the hidden cards, so each copy is a position
    consistent with everything ``seat`` has seen. Copy ``i`` uses stream ``seeds[i]``.
    """
    cols = np.empty(52, dtype=np.int64)
    n = hidden_slots(st, b, seat, open_hand, cols)
    for i in prange(out.shape[0]):
        for k in range(NCOL):
            out[i, k] = st[b, k]
        out[i, RNG] = seeds[i]
        for k in range(n - 1, 0, -1):  # Fisher-Yates over the hidden slots
            j = random_below(out, i, k + 1)
            tmp = out[i, cols[k]]
            out[i, cols[k]] = out[i, cols[j]]
            out[i, cols[j]] = tmp
        for p in range(4):
            if p == seat:
                continue
            hand = 0
            for j in range(4):
                c = out[i, ORDER + 4 * p + j]
                if c >= 0:
                    hand |= 1 << c
            out[i, HAND + p] = hand
