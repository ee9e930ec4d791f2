"""Greedy agent: the full move with the most immediate points, as one compiled kernel.

A *full move* is a played card plus the capture set it takes (``captured = 0`` when
the card is laid). The greedy order (higher is better):

1. captures before lays;
2. among captures: immediate points of the cards won, the played card included
   (10♦ 3, 2♣ 2, each ace 1, each jack 1) plus ``sur_points`` when the capture is a
   sur (``pasur_env.pasur.kernels.capture_is_sur``); then clubs won; then cards won;
3. among lays (no card in hand captures): the least valuable card: lowest point
   value, then a non-club before a club, then the highest rank (K, Q, then 10 down to
   ace), then the highest card id;
4. remaining ties: the first move in ``enumerate_moves`` order (card id ascending,
   then the engine's option order).

The agent is stateless: in the CAPTURE phase it re-ranks the options of the pending
card that extend the current selection with the same key (the table has not
changed, so the option chosen at PLAY time is still the best) and emits the next
TAKE of that option in ascending id order.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import prange

from agents.core.base import Agent
from agents.pasur.moves import MOVE_BUF, decision_moves, emit_action, popcnt
from pasur_env.core.compile import njit
from pasur_env.core.policy import GameView, check_actions
from pasur_env.pasur import kernels as K

__all__ = ["GreedyAgent", "greedy_action", "greedy_actions"]

#: batch size from which the greedy kernel runs on several threads
PARALLEL_MIN = 256


@njit(cache=True)
def greedy_key(st: np.ndarray, b: int, params: np.ndarray, card: int, captured: int) -> int:
    """Greedy rank of a full move (larger is better; see the module docstring)."""
    if captured == 0:
        pts = K.card_points(1 << card)
        club = 1 if card % 4 == 0 else 0
        return -1 - (pts * 200 + club * 100 + (51 - card))
    won = captured | (1 << card)
    pts = K.card_points(won)
    if K.capture_is_sur(st, b, params, card, captured):
        pts += params[K.P_SUR_POINTS]
    return pts * 10000 + popcnt(won & K.CLUB_BITS) * 100 + popcnt(won)


@njit(cache=True)
def greedy_action(
    st: np.ndarray, b: int, params: np.ndarray, cards: np.ndarray, capts: np.ndarray
) -> int:
    """Greedy action of game ``b``'s mover (``cards``/``capts``: scratch buffers)."""
    n = decision_moves(st, b, cards, capts)
    if n <= 0:  # DONE phase, or (pathological) more options than the buffers hold
        return K.pick_legal(st, b, 0.0)
    best = 0
    best_key = greedy_key(st, b, params, cards[0], capts[0])
    for i in range(1, n):
        key = greedy_key(st, b, params, cards[i], capts[i])
        if key > best_key:
            best_key = key
            best = i
    return emit_action(st, b, cards[best], capts[best])


@njit(cache=True, parallel=False, nogil=True)
def greedy_kernel(st: np.ndarray, games: np.ndarray, params: np.ndarray, out: np.ndarray) -> None:
    """Greedy action for each game in ``games``."""
    for i in prange(games.shape[0]):
        cards = np.empty(MOVE_BUF, dtype=np.int64)
        capts = np.empty(MOVE_BUF, dtype=np.int64)
        out[i] = greedy_action(st, games[i], params, cards, capts)


_GREEDY = K.BatchKernel(greedy_kernel, PARALLEL_MIN)


def greedy_actions(engine: Any, games: np.ndarray) -> np.ndarray:
    """Greedy actions for ``engine``'s games at ``games`` (int64 array)."""
    games = np.ascontiguousarray(games, dtype=np.int64)
    out = np.empty(len(games), dtype=np.int64)
    _GREEDY.for_batch(len(games))(engine.state, games, engine.params, out)
    return out


class GreedyAgent(Agent):
    """Most immediate points now (deterministic; see the module docstring)."""

    name = "greedy"
    game_ids = ("pasur",)

    def __init__(self, seed: int | None = None) -> None:
        pass

    def act(self, obs: np.ndarray | None, mask: np.ndarray, view: GameView) -> np.ndarray:
        acts = greedy_actions(view.engine, view.games)
        return check_actions(acts, np.asarray(mask), self.name)
