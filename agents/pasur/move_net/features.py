"""Candidate moves and their features: what the move-scoring network sees of each move.

A network that scores each candidate *move* from its features (DouZero's design)
needs no fixed output slot per action: a decision offers a handful of full moves
(a card and the set it takes, or the card laid), each described by a row of
:data:`MOVE_WIDTH` numbers:

========================  =====  =========================================================
block                     size   meaning
========================  =====  =========================================================
``card``                  52     the played card (one-hot)
``taken``                 52     the table cards it takes
``table_after``           52     the table it leaves
``scalars``               16     capture?, points won / 10, sur?, clubs won / 4, cards
                                 won / 6, jack?, the card's own points / 3, the card a
                                 club?, options of this card / 4, then what the next
                                 player can do on the table left (share of the unseen
                                 cards that capture there, mean and max reply value / 10,
                                 share that make a sur), the last deal?, and the
                                 ``heuristic`` agent's score of the move / 10, absolute
                                 and relative to the decision's best
========================  =====  =========================================================

Every number is a function of what the mover sees (the reply block uses the *set* of
unseen cards), computed with the rules' own kernels. The heuristic's score gives the
network the hand-written expert's judgement to start from: what it learns from search
is where that judgement is wrong. The decision's observation vector
(:mod:`pasur_env.pasur.observation`) goes with the rows: the network reads both.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from agents.pasur.heuristic import heuristic_params, heuristic_scores
from agents.pasur.moves import MOVE_BUF, decision_moves, popcnt
from pasur_env.core.compile import njit
from pasur_env.pasur import kernels as K
from pasur_env.pasur.move_features import reply_summary
from pasur_env.pasur.symmetry import plane_permutation

__all__ = ["MOVE_WIDTH", "MOVE_SCALARS", "candidate_moves", "move_row_permutation"]

MOVE_SCALARS = 16
MOVE_WIDTH = 3 * 52 + MOVE_SCALARS
_S = 3 * 52  # offset of the scalars


@njit(cache=True)
def _count_kernel(st: np.ndarray, games: np.ndarray, counts: np.ndarray) -> None:
    cards = np.empty(MOVE_BUF, dtype=np.int64)
    capts = np.empty(MOVE_BUF, dtype=np.int64)
    for i in range(games.shape[0]):
        counts[i] = max(0, decision_moves(st, games[i], cards, capts))


@njit(cache=True)
def _move_row(
    st: np.ndarray, b: int, params: np.ndarray, unseen: int, card: int, capt: int,
    n_card_opts: int, score: float, best: float, row: np.ndarray, opts: np.ndarray,
    stack: np.ndarray,
) -> None:
    """Fill ``row`` with the features of full move ``(card, capt)`` in game ``b``."""
    row[:] = 0.0
    row[card] = 1.0
    table = st[b, K.TABLE]
    c = capt
    while c:
        t = K.lowest(c)
        row[52 + t] = 1.0
        c &= c - 1
    after = table & ~capt if capt else table | (1 << card)
    c = after
    while c:
        row[104 + K.lowest(c)] = 1.0
        c &= c - 1
    bit = 1 << card
    if capt:
        won = capt | bit
        row[_S] = 1.0
        row[_S + 1] = K.card_points(won) / 10.0
        row[_S + 2] = 1.0 if K.capture_is_sur(st, b, params, card, capt) else 0.0
        row[_S + 3] = popcnt(won & K.CLUB_BITS) / 4.0
        row[_S + 4] = popcnt(won) / 6.0
    row[_S + 5] = 1.0 if (card >> 2) == 10 else 0.0
    row[_S + 6] = K.card_points(bit) / 3.0
    row[_S + 7] = 1.0 if (bit & K.CLUB_BITS) else 0.0
    row[_S + 8] = min(n_card_opts / 4.0, 1.0)
    r_any, r_mean, r_top, r_sur = reply_summary(st, b, params, after, unseen, opts, stack)
    row[_S + 9] = r_any
    row[_S + 10] = min(r_mean / 10.0, 1.0)
    row[_S + 11] = min(r_top / 10.0, 1.0)
    row[_S + 12] = r_sur
    row[_S + 13] = 1.0 if K.is_last_deal(st, b) else 0.0
    row[_S + 14] = score / 10.0
    row[_S + 15] = (score - best) / 10.0


@njit(cache=True, parallel=False, nogil=True)
def _fill_kernel(
    st: np.ndarray, games: np.ndarray, params: np.ndarray, open_hand: bool, hp: np.ndarray,
    offsets: np.ndarray, cards_out: np.ndarray, capts_out: np.ndarray, feats: np.ndarray,
) -> None:
    for i in prange(games.shape[0]):
        b = games[i]
        cards = np.empty(MOVE_BUF, dtype=np.int64)
        capts = np.empty(MOVE_BUF, dtype=np.int64)
        scores = np.empty(MOVE_BUF, dtype=np.float64)
        opts = np.empty(256, dtype=np.int64)
        stack = np.empty(256, dtype=np.int64)
        n = decision_moves(st, b, cards, capts)
        unseen = K.hidden_from(st, b, st[b, K.MOVER], open_hand)
        heuristic_scores(st, b, params, open_hand, hp, cards, capts, n, scores)
        best = scores[0]
        for m in range(1, n):
            best = max(best, scores[m])
        for m in range(n):
            same = 0
            for j in range(n):
                if cards[j] == cards[m] and capts[j] != 0:
                    same += 1
            r = offsets[i] + m
            cards_out[r] = cards[m]
            capts_out[r] = capts[m]
            _move_row(st, b, params, unseen, cards[m], capts[m], same, scores[m], best,
                      feats[r], opts, stack)


_FILL = K.BatchKernel(_fill_kernel, 64)
_HP = heuristic_params()


def candidate_moves(
    engine: object, games: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The full moves open to the mover of each game of ``games``, with their features.

    Returns ``(offsets, cards, captured, features)``: the moves of decision ``i`` are rows
    ``offsets[i]:offsets[i + 1]`` (``offsets`` has ``len(games) + 1`` entries); ``cards``
    and ``captured`` (52-bit masks, 0 for a lay) describe each move and ``features`` is
    float32 ``(n_moves, MOVE_WIDTH)``. Moves are listed in the engine's order
    (``agents.pasur.moves.decision_moves``).
    """
    st = engine.state  # type: ignore[attr-defined]
    games = np.ascontiguousarray(games, dtype=np.int64)
    counts = np.empty(games.shape[0], dtype=np.int64)
    _count_kernel(st, games, counts)
    offsets = np.zeros(games.shape[0] + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    total = int(offsets[-1])
    cards = np.empty(total, dtype=np.int64)
    capts = np.empty(total, dtype=np.int64)
    feats = np.empty((total, MOVE_WIDTH), dtype=np.float32)
    _FILL.for_batch(games.shape[0])(
        st, games, engine.params, bool(engine.rules.open_hand), _HP,  # type: ignore[attr-defined]
        offsets, cards, capts, feats,
    )
    return offsets, cards, capts, feats


def move_row_permutation(perm: np.ndarray) -> np.ndarray:
    """Column index that relabels move rows by card permutation ``perm`` (a symmetry of
    the rules, :mod:`pasur_env.pasur.symmetry`): ``rows[:, ix]`` are the rows of the relabelled
    position (the three card planes move; the scalars do not)."""
    return plane_permutation(MOVE_WIDTH, list(range(0, _S, 52)), np.asarray(perm, dtype=np.int64))
