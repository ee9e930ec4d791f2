"""Candidate actions of Persian Rummy's turn-shaping decisions and their features: what
the Rummy move-scoring network sees of each candidate.

The decisions the network takes are the ones the ``rollout`` agent searches
(:func:`agents.rummy.rollout.candidate_actions`): the draw, when a discard-pile card can be
taken (every legal draw), and the discard, once melding is over or instead of it
(greedy's action, which may start a meld or lay a card off, and every legal discard).
Every other decision (picks, melds, lay-offs, meld choice) is greedy's, as in
``rollout``. Each candidate is a row of :data:`MOVE_WIDTH` numbers:

============  =====  ================================================================
block         size   meaning
============  =====  ================================================================
``kind``      7      draw from the stock, take from the pile, pass, discard, start a
                     meld, lay off (one-hot); greedy's own choice?
``card``      56     the action's card (the pile card taken, the card discarded,
                     picked or laid off; none for the stock and a pass)
``gained``    56     the cards a take brings into the hand (the card and those above)
``hand``      56     the mover's hand after the action
``scalars``   9      greedy's plan of the turn on the hand after the action
                     (:func:`agents.rummy.plan.plan_turn`: points put down / 100,
                     value kept / 100), the card's value / 20, the card extends a
                     meld on the table (a gift to the next player)?, cards of its
                     rank left in the hand / 4, cards gained / 10, hand size after /
                     14, the pile's size / 20, the stock left / 27
============  =====  ================================================================

Every number is a function of what the mover sees. The decision's observation vector
(:mod:`pasur_env.rummy.observation`) goes with the rows: the network reads both.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import prange

from agents.rummy.plan import plan_turn
from agents.rummy.rollout import candidate_actions
from pasur_env.core.bits import popcount
from pasur_env.core.compile import BatchKernel, njit
from pasur_env.core.symmetry import plane_permutation
from pasur_env.rummy import kernels as K
from pasur_env.rummy.cards import VALUE_OF
from pasur_env.rummy.kernels.melds import extends
from pasur_env.rummy.symmetry import check_permutation

__all__ = ["MOVE_WIDTH", "MOVE_SCALARS", "candidate_actions", "candidate_features",
           "move_row_permutation"]

MOVE_KINDS = 7
MOVE_SCALARS = 9
_C = MOVE_KINDS  # offset of the card plane
_G = _C + K.NUM_CARDS  # the cards gained
_H = _G + K.NUM_CARDS  # the hand after
_S = _H + K.NUM_CARDS  # the scalars
MOVE_WIDTH = _S + MOVE_SCALARS
_VALUE = VALUE_OF.copy()


@njit(cache=True)
def _row(st: np.ndarray, b: int, a: int, greedy: int, fd: bool, row: np.ndarray) -> None:
    """Fill ``row`` with the features of action ``a`` in game ``b``."""
    row[:] = 0.0
    hand = st[b, K.HAND + st[b, K.MOVER]]
    card, gained, kind, need = -1, 0, 0, 0
    if a == K.DRAW_STOCK:
        kind = 0
    elif a == K.PASS:
        kind = 2
    elif K.TAKE0 <= a < K.PASS:
        kind, card = 1, a - K.TAKE0
        for i in range(st[b, K.PILE_N] - 1, -1, -1):
            gained |= 1 << st[b, K.PILE + i]
            if st[b, K.PILE + i] == card:
                break
        need = 1 << card
    elif a >= K.DISCARD0:
        kind, card = 3, a - K.DISCARD0
    elif K.PICK0 <= a < K.MELD_ACTION:
        kind, card = 4, a - K.PICK0
    elif K.LAYOFF0 <= a < K.TARGET0:
        kind, card = 5, a - K.LAYOFF0
    after = hand | gained
    if kind == 3:
        after = hand & ~(1 << card)
    row[kind] = 1.0
    row[6] = 1.0 if a == greedy else 0.0
    nm = st[b, K.NMELDS]
    table = st[b, K.MELD:K.MELD + K.MAX_MELDS]
    pts, kept = plan_turn(after, table, nm, need, fd)
    row[_S] = pts / 100.0
    row[_S + 1] = kept / 100.0
    if card >= 0:
        row[_C + card] = 1.0
        row[_S + 2] = _VALUE[card] / 20.0
        for m in range(nm):
            if extends(table[m], card):
                row[_S + 3] = 1.0
                break
        row[_S + 4] = popcount(after & (0xF << (4 * (card >> 2)))) / 4.0 if card < 52 else 0.0
    for c in range(K.NUM_CARDS):
        row[_G + c] = (gained >> c) & 1
        row[_H + c] = (after >> c) & 1
    row[_S + 5] = popcount(gained) / 10.0
    row[_S + 6] = popcount(after) / 14.0
    row[_S + 7] = (st[b, K.PILE_N] - popcount(gained)) / 20.0
    row[_S + 8] = (K.NUM_CARDS - st[b, K.STOCK_POS]) / 27.0


@njit(cache=True, parallel=False, nogil=True)
def _fill_kernel(st: np.ndarray, games: np.ndarray, params: np.ndarray, offsets: np.ndarray,
                 actions: np.ndarray, greedy: np.ndarray, feats: np.ndarray) -> None:
    fd = params[K.P_FOUR_DOUBLE] != 0
    for i in prange(games.shape[0]):
        for r in range(offsets[i], offsets[i + 1]):
            _row(st, games[i], actions[r], greedy[i], fd, feats[r])


_FILL = BatchKernel(_fill_kernel, 64)


def candidate_features(engine: Any, games: np.ndarray, offsets: np.ndarray,
                       actions: np.ndarray, greedy: np.ndarray) -> np.ndarray:
    """float32 ``(len(actions), MOVE_WIDTH)``: the features of every candidate row."""
    games = np.ascontiguousarray(games, dtype=np.int64)
    feats = np.empty((int(offsets[-1]), MOVE_WIDTH), dtype=np.float32)
    _FILL.for_batch(len(games))(engine.state, games, engine.params, offsets,
                                np.ascontiguousarray(actions, dtype=np.int64),
                                np.ascontiguousarray(greedy, dtype=np.int64), feats)
    return feats


def move_row_permutation(perm: np.ndarray) -> np.ndarray:
    """Column index that relabels move rows by card permutation ``perm`` (a symmetry of
    the rules, :mod:`pasur_env.rummy.symmetry`): ``rows[:, ix]`` are the rows of the
    relabelled position (the three card planes move; the kinds and scalars do not)."""
    return plane_permutation(MOVE_WIDTH, [_C, _G, _H], check_permutation(perm))
