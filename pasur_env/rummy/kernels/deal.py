"""Shuffling and dealing (``docs/persian_rummy.md`` §3), from each game's own stream.

The random numbers come from the splitmix64 streams shared with the Pasur engine
(:mod:`pasur_env.core.rng`); each game keeps its stream in its own ``RNG`` column,
so a game's deals never depend on the batch size or on the other games.
"""

from __future__ import annotations

import numpy as np

from pasur_env.core.bits import popcount
from pasur_env.core.compile import njit
from pasur_env.core.rng import seed_stream_column, splitmix_next
from pasur_env.rummy.kernels.state import (
    BONUS,
    CREDIT,
    DEAL,
    DEALER,
    DECK,
    DRAW,
    HAND,
    HAND_SIZE,
    MOVER,
    NMELDS,
    NUM_CARDS,
    PASSES,
    PENDING,
    PHASE,
    PICKED,
    PILE,
    PILE_N,
    RNG,
    SCORE,
    START_DEALER,
    STOCK_POS,
    TAKEN,
    TARGET,
    TURNS,
)


@njit(cache=True)
def random_below(st: np.ndarray, b: int, n: int) -> int:
    """Uniform integer in [0, n) from game ``b``'s stream (advances it)."""
    z, x = splitmix_next(np.uint64(st[b, RNG]))
    st[b, RNG] = np.int64(z)
    return np.int64(((x >> np.uint64(11)) * np.uint64(n)) >> np.uint64(53))


@njit(cache=True)
def seed_streams(st: np.ndarray, base: np.uint64, offset: int) -> None:
    """Give game ``b`` the stream ``mix64(base + (offset + b) * GOLDEN)`` (as Pasur)."""
    seed_stream_column(st, RNG, base, offset)


@njit(cache=True)
def shuffle(st: np.ndarray, b: int) -> None:
    """A fresh order of all 56 cards: Fisher-Yates over the sorted deck."""
    for i in range(NUM_CARDS):
        st[b, DECK + i] = i
    for i in range(NUM_CARDS - 1, 0, -1):
        j = random_below(st, b, i + 1)
        tmp = st[b, DECK + i]
        st[b, DECK + i] = st[b, DECK + j]
        st[b, DECK + j] = tmp


@njit(cache=True)
def deal(st: np.ndarray, b: int) -> None:
    """Deal DECK: seven cards one at a time from the seat after the dealer, then one card
    face up starts the discard pile; the rest is the stock. Clears the deal's table."""
    for k in range(4):
        st[b, HAND + k] = 0
        st[b, TAKEN + k] = 0
    dealer = st[b, DEALER]
    for k in range(4 * HAND_SIZE):
        seat = (dealer + 1 + k) % 4
        st[b, HAND + seat] |= 1 << st[b, DECK + k]
    st[b, PILE] = st[b, DECK + 4 * HAND_SIZE]
    st[b, PILE_N] = 1
    st[b, STOCK_POS] = 4 * HAND_SIZE + 1
    st[b, NMELDS] = 0
    for k in range(2):
        st[b, CREDIT + k] = 0
        st[b, BONUS + k] = 0
    st[b, PICKED] = 0
    st[b, TARGET] = -1
    st[b, PENDING] = -1
    st[b, PASSES] = 0
    st[b, TURNS] = 0
    st[b, MOVER] = (dealer + 1) % 4
    st[b, PHASE] = DRAW


@njit(cache=True)
def start_game(st: np.ndarray, b: int, shuffled: bool) -> None:
    """A new game: scores 0, first deal by START_DEALER (``shuffled``: shuffle first,
    else DECK already holds a given order)."""
    st[b, SCORE] = 0
    st[b, SCORE + 1] = 0
    st[b, DEAL] = 0
    st[b, DEALER] = st[b, START_DEALER]
    if shuffled:
        shuffle(st, b)
    deal(st, b)


@njit(cache=True)
def next_deal(st: np.ndarray, b: int) -> None:
    """The next deal of a game: the next seat deals a reshuffled deck."""
    st[b, DEAL] += 1
    st[b, DEALER] = (st[b, DEALER] + 1) % 4
    shuffle(st, b)
    deal(st, b)


@njit(cache=True)
def reset_kernel(st: np.ndarray, games: np.ndarray, shuffled: np.ndarray) -> None:
    """Start a new game in each of ``games`` (``shuffled[i]`` False: DECK is given)."""
    for i in range(games.shape[0]):
        start_game(st, games[i], shuffled[i])


@njit(cache=True)
def determinize(st: np.ndarray, b: int, seat: int, z: np.uint64) -> np.uint64:
    """Deal the cards ``seat`` cannot see at random, keeping every size and public card.

    Returns the advanced random state.
    """
    unseen = 0  # as a set, so the sample depends on what is hidden, not on where it is
    for o in range(4):
        if o != seat:
            unseen |= st[b, HAND + o] & ~st[b, TAKEN + o]
    for p in range(st[b, STOCK_POS], NUM_CARDS):
        unseen |= 1 << st[b, DECK + p]
    hidden = np.empty(NUM_CARDS, dtype=np.int64)
    n = 0
    for c in range(NUM_CARDS):
        if (unseen >> c) & 1:
            hidden[n] = c
            n += 1
    for i in range(n - 1, 0, -1):
        z, x = splitmix_next(z)
        j = np.int64(((x >> np.uint64(11)) * np.uint64(i + 1)) >> np.uint64(53))
        hidden[i], hidden[j] = hidden[j], hidden[i]
    k = 0
    for o in range(4):
        if o != seat:
            need = popcount(st[b, HAND + o] & ~st[b, TAKEN + o])
            h = st[b, TAKEN + o]
            for _ in range(need):
                h |= 1 << hidden[k]
                k += 1
            st[b, HAND + o] = h
    for p in range(st[b, STOCK_POS], NUM_CARDS):
        st[b, DECK + p] = hidden[k]
        k += 1
    return z


@njit(cache=True)
def determinize_kernel(st: np.ndarray, b: int, seat: int, seeds: np.ndarray, out: np.ndarray
                       ) -> None:
    """Copies of game ``b`` (rows of ``out``) with the cards hidden from ``seat`` dealt
    anew by :func:`determinize`, copy ``i`` from stream ``seeds[i]``, which then stays
    the copy's random stream."""
    for i in range(out.shape[0]):
        for k in range(out.shape[1]):
            out[i, k] = st[b, k]
        out[i, RNG] = np.int64(determinize(out, i, seat, np.uint64(seeds[i])))
