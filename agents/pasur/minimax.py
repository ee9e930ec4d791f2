"""Exact minimax of a 2-player round's last deal: the solver itself, over full moves.

Once the stock is empty, each player of a 2-player round knows every card, and what is
left is a perfect-information zero-sum game of at most 8 full moves (4 cards each, a
capture's choice of sets part of the move). :func:`solve_moves` values every full move
of a position by minimax on the round's final point difference (the engine's own round
scoring: card points, surs, the clubs award, the leftover table to the last capturer),
with alpha-beta pruning and the captures tried first; :func:`solve_value` values the
position itself. The position must be fully dealt: a seat's decision (read through its
information set, :mod:`agents.pasur.endgame`) or a rollout's determinization that has
reached the last deal (:func:`agents.pasur.ismcts.rollout_value`).
"""

from __future__ import annotations

import numpy as np

from agents.pasur.moves import MOVE_BUF, ROW0, decision_moves, play_full_move, popcnt
from pasur_env.core.compile import njit
from pasur_env.pasur import kernels as K

__all__ = ["MAX_DEPTH", "is_solvable", "solve_moves", "solve_value"]

#: full moves left in a 2-player last deal at most (4 cards each), and a margin
MAX_DEPTH = 10
INF = 1e18


@njit(cache=True)
def is_solvable(st: np.ndarray, b: int, params: np.ndarray) -> bool:
    """Whether game ``b``'s decision is in a 2-player round's last deal (stock empty),
    where its mover knows every card: the cards it cannot see are the opponent's hand."""
    return (
        params[K.P_PLAYERS] == 2
        and st[b, K.PHASE] != K.DONE
        and st[b, K.STOCK_POS] >= 52
    )


@njit(cache=True)
def _order(cards: np.ndarray, capts: np.ndarray, n: int, key: np.ndarray) -> None:
    """Sort the ``n`` moves captures first, the most cards taken first (insertion sort):
    the likely best moves first make alpha-beta cut more."""
    for i in range(n):
        key[i] = popcnt(capts[i])
    for i in range(1, n):
        c, k, v = cards[i], capts[i], key[i]
        j = i - 1
        while j >= 0 and key[j] < v:
            cards[j + 1], capts[j + 1], key[j + 1] = cards[j], capts[j], key[j]
            j -= 1
        cards[j + 1], capts[j + 1], key[j + 1] = c, k, v


@njit(cache=True)
def _result(info: np.ndarray, root: int) -> float:
    """Seat ``root``'s round points minus the other seat's, from a round-ending step's
    ``info``."""
    return float(info[0, K.I_POINTS + root] - info[0, K.I_POINTS + 1 - root])


@njit(cache=True)
def _play(states: np.ndarray, info: np.ndarray, d: int, card: int, capt: int,
          rparams: np.ndarray) -> bool:
    """``states[d + 1]`` = ``states[d]`` after full move ``(card, capt)``; whether the
    round ended on it (``info`` then holds its scoring)."""
    for k in range(K.NCOL):
        states[d + 1, k] = states[d, k]
    ended = play_full_move(states[d + 1 : d + 2], card, capt, rparams, info)
    return ended or states[d + 1, K.PHASE] == K.DONE


@njit(cache=True)
def _minimax(
    states: np.ndarray, info: np.ndarray, cards: np.ndarray, capts: np.ndarray,
    key: np.ndarray, rparams: np.ndarray, root: int,
) -> float:
    """Value for seat ``root`` (its round points minus the other's) of the position
    ``states[1]`` with both seats playing their best: alpha-beta, depth first, with an
    explicit stack (one row of ``states``/``cards``/``capts`` per depth; numba's cached
    recursive functions are not reliable)."""
    n = np.zeros(MAX_DEPTH, dtype=np.int64)
    nxt = np.zeros(MAX_DEPTH, dtype=np.int64)
    alpha = np.empty(MAX_DEPTH, dtype=np.float64)
    beta = np.empty(MAX_DEPTH, dtype=np.float64)
    best = np.empty(MAX_DEPTH, dtype=np.float64)
    d = 1
    alpha[d], beta[d] = -INF, INF
    opened = True
    v = 0.0
    while True:
        if opened:  # a new node at depth d: list its moves
            n[d] = decision_moves(states[d : d + 1], ROW0, cards[d], capts[d])
            if n[d] <= 0:
                raise ValueError("endgame search: a position without moves")
            _order(cards[d], capts[d], n[d], key[d])
            nxt[d] = 0
            best[d] = -INF if states[d, K.MOVER] == root else INF
            opened = False
        if nxt[d] < n[d] and alpha[d] < beta[d]:
            m = nxt[d]
            nxt[d] += 1
            if _play(states, info, d, cards[d, m], capts[d, m], rparams):
                v = _result(info, root)
            else:
                if d + 1 >= MAX_DEPTH:  # not a last deal: refuse rather than guess
                    raise ValueError("endgame search: the position is not a 2-player last deal")
                alpha[d + 1], beta[d + 1] = alpha[d], beta[d]
                d += 1
                opened = True
                continue
        else:  # node d is done: its value goes to its parent
            v = best[d]
            if d == 1:
                return v
            d -= 1
        if states[d, K.MOVER] == root:
            best[d] = max(best[d], v)
            alpha[d] = max(alpha[d], v)
        else:
            best[d] = min(best[d], v)
            beta[d] = min(beta[d], v)


@njit(cache=True)
def _buffers() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The solver's work arrays: a position per depth (and the root's), a step's info,
    and per depth the moves (cards, capture sets) and their ordering keys."""
    return (np.empty((MAX_DEPTH + 1, K.NCOL), dtype=np.int64),
            np.empty((1, K.NINFO), dtype=np.int64),
            np.empty((MAX_DEPTH, MOVE_BUF), dtype=np.int64),
            np.empty((MAX_DEPTH, MOVE_BUF), dtype=np.int64),
            np.empty((MAX_DEPTH, MOVE_BUF), dtype=np.int64))


@njit(cache=True)
def solve_moves(
    row: np.ndarray, rparams: np.ndarray, cards: np.ndarray, capts: np.ndarray, n: int,
    values: np.ndarray,
) -> int:
    """Exact minimax value of each of the ``n`` full moves ``(cards[i], capts[i])`` of the
    one-game position ``row`` (shape ``(1, NCOL)``, every card known) into ``values``:
    the mover's round points minus the other's, both playing their best. Returns the
    index of the best move (the first of the best)."""
    states, info, bc, bk, key = _buffers()
    for k in range(K.NCOL):
        states[0, k] = row[0, k]
    root = row[0, K.MOVER]
    best = -1
    for i in range(n):
        if _play(states, info, 0, cards[i], capts[i], rparams):
            values[i] = _result(info, root)
        else:
            values[i] = _minimax(states, info, bc, bk, key, rparams, root)
        if best < 0 or values[i] > values[best]:
            best = i
    return best


@njit(cache=True)
def solve_value(row: np.ndarray, rparams: np.ndarray, root: int) -> float:
    """Exact minimax value for seat ``root`` (its round points minus the other seat's) of
    the one-game position ``row`` (shape ``(1, NCOL)``, a PLAY decision of a 2-player last
    deal, every card known), both seats playing their best."""
    states, info, bc, bk, key = _buffers()
    for k in range(K.NCOL):
        states[1, k] = row[0, k]
    return _minimax(states, info, bc, bk, key, rparams, root)
