"""Shuffling and dealing (docs/rules.md §3): rounds, games and the initial-table check."""

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
    P_INITIAL_JACKS,
    P_PLAYERS,
    PENDING,
    PHASE,
    PILE,
    PLAY,
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


@njit(cache=True)
def shuffle(st: np.ndarray, b: int) -> None:
    """Fisher-Yates over game ``b``'s deck, from its own stream."""
    for i in range(51, 0, -1):
        j = random_below(st, b, i + 1)
        tmp = st[b, DECK + i]
        st[b, DECK + i] = st[b, DECK + j]
        st[b, DECK + j] = tmp


@njit(cache=True)
def deal_hands(st: np.ndarray, b: int, num_players: int) -> None:
    """Four cards to each seat in turn, starting after the dealer."""
    pos = st[b, STOCK_POS]
    dealer = st[b, DEALER]
    for k in range(num_players):
        seat = (dealer + 1 + k) % num_players
        hand = 0
        for j in range(4):
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
def bury_jack_at(st: np.ndarray, b: int, table: int, pos: int, k: int) -> int:
    """The top stock card takes the lone jack's place; the jack goes into the stock at
    position ``k`` (0 = on top; the stock without the top card has ``51 - pos`` cards, so
    ``0 <= k <= 51 - pos``). Returns the new table. The engine draws ``k`` uniformly;
    the OpenSpiel game makes it a chance node."""
    jack = lowest(table & JACK_BITS)
    top = st[b, DECK + pos]
    table = (table & ~(1 << jack)) | (1 << top)
    for i in range(pos - 4, pos):  # keep DECK a permutation: top takes the slot
        if st[b, DECK + i] == jack:
            st[b, DECK + i] = top
    for i in range(k):
        st[b, DECK + pos + i] = st[b, DECK + pos + 1 + i]
    st[b, DECK + pos + k] = jack
    return table


@njit(cache=True)
def first_table(st: np.ndarray, b: int, num_players: int) -> int:
    """Deal the hands and the four table cards from DECK; the table as a mask (STOCK_POS
    is left after the hands)."""
    st[b, STOCK_POS] = 0
    deal_hands(st, b, num_players)
    pos = st[b, STOCK_POS]
    table = 0
    for j in range(4):
        table |= 1 << st[b, DECK + pos + j]
    return table


@njit(cache=True)
def first_deal(st: np.ndarray, b: int, params: np.ndarray) -> None:
    """Deal hands and the table, then apply the initial-table check (§3)."""
    num_players = params[P_PLAYERS]
    bury = params[P_INITIAL_JACKS] == 0
    while True:
        table = first_table(st, b, num_players)
        pos = st[b, STOCK_POS] + 4
        verdict = table_check(table, bury)
        while verdict == TABLE_BURY:
            k = random_below(st, b, 52 - pos)  # 52 - pos places in the stock
            table = bury_jack_at(st, b, table, pos, k)
            verdict = table_check(table, bury)
        if verdict == TABLE_REDEAL:
            shuffle(st, b)
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
        for i in range(52):  # from a fixed order: the deal depends only on the stream
            st[b, DECK + i] = i
        shuffle(st, b)
    first_deal(st, b, params)
    st[b, MOVER] = (st[b, DEALER] + 1) % num_players
    st[b, PHASE] = PLAY
    st[b, PENDING] = -1
    st[b, SELECTION] = 0
    st[b, TURN] = 0
    st[b, DEAL] = 0
    st[b, LAST_CAP] = -1


@njit(cache=True)
def new_game(st: np.ndarray, b: int, params: np.ndarray, shuffle_deck: bool) -> None:
    """Zero the scores and deal the first round with the game's first dealer."""
    for s in range(3):
        st[b, SCORE + s] = 0
    st[b, ROUND] = 0
    st[b, DEALER] = st[b, START_DEALER]
    start_round(st, b, params, shuffle_deck)
