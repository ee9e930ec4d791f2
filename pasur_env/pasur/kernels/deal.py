"""Shuffling and dealing (docs/rules.md §3): rounds, games and the initial-table check.

The cards in play are the last ``n`` slots of ``DECK`` (all 52 in the full game; a
small variant's deck, ``params[P_DECK]``, leaves its other cards in the first ``52 - n``
slots, out of play as if dealt): the stock is always ``DECK[STOCK_POS:52]``, so the
last deal, the stock size and the hidden cards read the same columns in every variant.
"""

from __future__ import annotations

import numpy as np

from pasur_env.core.bits import lowest, popcount
from pasur_env.core.compile import njit
from pasur_env.pasur.kernels.rng import random_below
from pasur_env.pasur.kernels.state import (
    DEAL,
    DEALER,
    DECK,
    HAND,
    JACK_BITS,
    KING_BITS,
    LAST_CAP,
    MOVER,
    ORDER,
    P_DECK,
    P_HAND_SIZE,
    P_INITIAL_JACKS,
    P_PLAYERS,
    P_TABLE_SIZE,
    PENDING,
    PHASE,
    PILE,
    PLAY,
    PLAYED,
    QUEEN_BITS,
    ROUND,
    SCORE,
    SELECTION,
    START_DEALER,
    STOCK_POS,
    SURS,
    TABLE,
    TURN,
)


@njit(cache=True, inline="always")
def deck_start(params: np.ndarray) -> int:
    """Slot of ``DECK`` holding the top card of a fresh deck: 52 minus the cards in play."""
    return 52 - popcount(params[P_DECK])


@njit(cache=True)
def shuffle(st: np.ndarray, b: int, first: int) -> None:
    """Fisher-Yates over game ``b``'s cards in play (``DECK[first:]``), from its own stream."""
    for i in range(51, first, -1):
        j = first + random_below(st, b, i + 1 - first)
        tmp = st[b, DECK + i]
        st[b, DECK + i] = st[b, DECK + j]
        st[b, DECK + j] = tmp


@njit(cache=True)
def deal_hands(st: np.ndarray, b: int, num_players: int, hand_size: int) -> None:
    """``hand_size`` cards to each seat in turn, starting after the dealer."""
    pos = st[b, STOCK_POS]
    dealer = st[b, DEALER]
    for k in range(num_players):
        seat = (dealer + 1 + k) % num_players
        hand = 0
        for j in range(hand_size):
            c = st[b, DECK + pos]
            pos += 1
            hand |= 1 << c
            st[b, ORDER + 4 * seat + j] = c
        st[b, HAND + seat] = hand
    st[b, STOCK_POS] = pos


#: verdicts of :func:`table_check` on a first table (§3)
TABLE_OK, TABLE_REDEAL, TABLE_BURY = 0, 1, 2


@njit(cache=True)
def table_check(table: int, bury: bool) -> int:
    """The initial-table check (§3) of a first table: :data:`TABLE_REDEAL` (reshuffle and
    deal again), :data:`TABLE_BURY` (bury its lone jack) or :data:`TABLE_OK`."""
    jacks = popcount(table & JACK_BITS)
    if not bury:
        return TABLE_REDEAL if jacks > 0 else TABLE_OK
    if jacks >= 2 or popcount(table & QUEEN_BITS) >= 3 or popcount(table & KING_BITS) >= 3:
        return TABLE_REDEAL
    return TABLE_BURY if jacks else TABLE_OK


@njit(cache=True)
def bury_jack_at(st: np.ndarray, b: int, table: int, pos: int, table_size: int, k: int) -> int:
    """The top stock card takes the lone jack's place; the jack goes into the stock at
    position ``k`` (0 = on top; the stock without the top card has ``51 - pos`` cards, so
    ``0 <= k <= 51 - pos``). Returns the new table. The engine draws ``k`` uniformly;
    the OpenSpiel game makes it a chance node."""
    jack = lowest(table & JACK_BITS)
    top = st[b, DECK + pos]
    table = (table & ~(1 << jack)) | (1 << top)
    for i in range(pos - table_size, pos):  # keep DECK a permutation: top takes the slot
        if st[b, DECK + i] == jack:
            st[b, DECK + i] = top
    for i in range(k):
        st[b, DECK + pos + i] = st[b, DECK + pos + 1 + i]
    st[b, DECK + pos + k] = jack
    return table


@njit(cache=True)
def first_table(st: np.ndarray, b: int, params: np.ndarray) -> int:
    """Deal the hands and the table cards from the deck's first slot; the table as a mask
    (STOCK_POS is left after the hands)."""
    st[b, STOCK_POS] = deck_start(params)
    deal_hands(st, b, params[P_PLAYERS], params[P_HAND_SIZE])
    pos = st[b, STOCK_POS]
    table = 0
    for j in range(params[P_TABLE_SIZE]):
        table |= 1 << st[b, DECK + pos + j]
    return table


@njit(cache=True)
def first_deal(st: np.ndarray, b: int, params: np.ndarray) -> None:
    """Deal hands and the table, then apply the initial-table check (§3)."""
    table_size = params[P_TABLE_SIZE]
    bury = params[P_INITIAL_JACKS] == 0
    first = deck_start(params)
    while True:
        table = first_table(st, b, params)
        pos = st[b, STOCK_POS] + table_size
        verdict = table_check(table, bury)
        while verdict == TABLE_BURY:
            k = random_below(st, b, 52 - pos)  # 52 - pos places in the stock
            table = bury_jack_at(st, b, table, pos, table_size, k)
            verdict = table_check(table, bury)
        if verdict == TABLE_REDEAL:
            shuffle(st, b, first)
            continue
        st[b, TABLE] = table
        st[b, STOCK_POS] = pos
        return


@njit(cache=True)
def start_round(st: np.ndarray, b: int, params: np.ndarray, shuffle_deck: bool) -> None:
    """Clear the round state, shuffle (unless the deck is given) and deal (§3)."""
    num_players = params[P_PLAYERS]
    for s in range(3):
        st[b, PILE + s] = 0
        st[b, SURS + s] = 0
    for i in range(16):
        st[b, ORDER + i] = -1
    for p in range(4):
        st[b, HAND + p] = 0
    if shuffle_deck:
        # from a fixed order (the cards out of play, then the deck, ascending): the
        # deal depends only on the stream
        deck = params[P_DECK]
        out, first = 0, deck_start(params)
        for c in range(52):
            if (deck >> c) & 1:
                st[b, DECK + first] = c
                first += 1
            else:
                st[b, DECK + out] = c
                out += 1
        shuffle(st, b, deck_start(params))
    first_deal(st, b, params)
    st[b, MOVER] = (st[b, DEALER] + 1) % num_players
    st[b, PHASE] = PLAY
    st[b, PENDING] = -1
    st[b, SELECTION] = 0
    st[b, TURN] = 0
    st[b, DEAL] = 0
    st[b, LAST_CAP] = -1
    for s in range(4):
        st[b, PLAYED + s] = 0


@njit(cache=True)
def new_game(st: np.ndarray, b: int, params: np.ndarray, shuffle_deck: bool) -> None:
    """Zero the scores and deal the first round with the game's first dealer."""
    for s in range(3):
        st[b, SCORE + s] = 0
    st[b, ROUND] = 0
    st[b, DEALER] = st[b, START_DEALER]
    start_round(st, b, params, shuffle_deck)
