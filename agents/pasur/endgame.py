"""Exact play of the last deal of a 2-player round, at a seat's decision.

Once the stock is empty, a player of a 2-player round can see everything: the cards
hidden from it are exactly the opponent's hand (52 cards minus the table, both piles,
its own hand and the cards played, which it saw), and the rest of the round is solved
exactly by :mod:`agents.pasur.minimax` (alpha-beta over full moves on the engine's own
round scoring). :func:`endgame_values` values every move of a batch of such decisions.

Searches use it instead of rollouts there: rollouts value a move by one continuation
(the heuristic at both seats), minimax by the best play of both. The position solved is
the seat's information set, dealt by the search's determinization (:mod:`agents.pasur.ismcts`;
at this point it can deal the hidden cards only one way), so nothing the seat cannot
see is read.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from agents.pasur.ismcts import _determinizations
from agents.pasur.minimax import is_solvable, solve_moves
from agents.pasur.moves import MOVE_BUF, ROW0, decision_moves, round_params
from pasur_env.core.compile import njit
from pasur_env.pasur import kernels as K

__all__ = ["is_solvable", "solve_moves", "endgame_values"]


@njit(cache=True, parallel=False, nogil=True)
def endgame_kernel(
    st: np.ndarray, games: np.ndarray, params: np.ndarray, rparams: np.ndarray,
    open_hand: bool, offsets: np.ndarray, solved: np.ndarray, values_out: np.ndarray,
) -> None:
    """Per decision of ``games``: ``solved[i]`` whether it is a last-deal decision, and
    then the exact value of each of its moves into ``values_out[offsets[i]:offsets[i+1]]``
    (moves in :func:`agents.pasur.moves.decision_moves` order)."""
    for i in prange(games.shape[0]):
        g = games[i]
        solved[i] = is_solvable(st, g, params)
        if not solved[i]:
            continue
        row, _ = _determinizations(st, g, st[g, K.MOVER], open_hand, 1, np.uint64(0))
        cards = np.empty(MOVE_BUF, dtype=np.int64)
        capts = np.empty(MOVE_BUF, dtype=np.int64)
        values = np.empty(MOVE_BUF, dtype=np.float64)
        n = decision_moves(row, ROW0, cards, capts)
        if n != offsets[i + 1] - offsets[i]:
            raise ValueError("endgame search: the move lists disagree")
        solve_moves(row, rparams, cards, capts, n, values)
        for m in range(n):
            values_out[offsets[i] + m] = values[m]


def endgame_values(
    engine: object, games: np.ndarray, offsets: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """For a batch of decisions (moves listed as
    :func:`agents.pasur.moves.decision_moves` lists them, ``offsets`` as
    :func:`agents.pasur.move_net.features.candidate_moves` gives them): which are in a
    2-player last deal (bool per decision) and the exact value of each of their moves
    (NaN for the others)."""
    games = np.ascontiguousarray(games, dtype=np.int64)
    solved = np.zeros(games.shape[0], dtype=np.bool_)
    out = np.full(int(offsets[-1]), np.nan)
    endgame_kernel(
        engine.state, games, engine.params, round_params(engine),  # type: ignore[attr-defined]
        bool(engine.rules.open_hand), np.ascontiguousarray(offsets, dtype=np.int64),  # type: ignore[attr-defined]
        solved, out,
    )  # fmt: skip
    return solved, out
