"""Greedy agent: the full move with the most immediate points, as one compiled kernel.

A *full move* is a played card plus the capture set it takes (``captured = 0`` when
the card is laid). The greedy order (higher is better):

1. captures before lays;
2. among captures: immediate points of the cards won, the played card included
   (10♦ 3, 2♣ 2, each ace 1, each jack 1) plus ``sur_points`` when the capture is a
   sur (``pasur_env._kernels.capture_is_sur``); then clubs won; then cards won;
3. among lays (no card in hand captures): the least valuable card: lowest point
   value, then a non-club before a club, then the highest rank (K, Q, then 10 down to
   ace), then the highest card id;
4. remaining ties: the first move in ``enumerate_moves`` order (card id ascending,
   then the engine's option order).

The agent is stateless: in the CAPTURE phase it re-ranks the options of the pending
card that extend the current selection with the same key (the table has not
changed, so the option chosen at PLAY time is still the best) and emits the next
TAKE of that option in ascending id order. The helpers here (move lists for a
decision, emitting an action, card points, parallel twins) are shared by the
heuristic and ISMCTS agents.
"""

from __future__ import annotations

import types
from typing import Any

import numba
import numpy as np
from numba import njit, prange

from pasur_env import _kernels as K

from .base import Agent, GameView, check_actions

__all__ = ["GreedyAgent", "greedy_action", "decision_moves", "emit_action", "card_points"]

#: buffer length for the moves of one decision (grown on demand)
MOVE_BUF = 256
#: batch size from which the multi-threaded build of a kernel is used
PARALLEL_MIN = 256
#: row 0 of a one-game scratch state, and "no automatic reset", as *typed* (non-literal)
#: constants: a literal ``0``/``False`` argument makes numba compile a second
#: specialization of every engine kernel down the call chain
ROW0 = np.int64(0)
EMPTY = np.int64(0)  # the empty card set
NO_RESET = np.bool_(False)


def parallel_twin(dispatcher: Any) -> Any:
    """A multi-threaded build of a ``prange`` kernel, cached under its own name."""
    f = dispatcher.py_func
    g = types.FunctionType(f.__code__, f.__globals__, f.__name__ + "_par", f.__defaults__)
    g.__qualname__ = f.__qualname__ + "_par"
    g.__module__ = f.__module__
    return numba.njit(cache=True, parallel=True)(g)


def use_parallel(n: int, threshold: int = PARALLEL_MIN) -> bool:
    return n >= threshold and numba.get_num_threads() > 1


# ---- shared compiled helpers ---------------------------------------------------------
# Plain (not numba-IR-inlined) wrappers of the engine's ``inline="always"`` bit helpers:
# IR inlining at every call site makes large kernels slow to compile; LLVM still
# inlines these.
@njit("int64(int64)", cache=True)
def popcnt(x: int) -> int:
    return K.popcount(x)


@njit("int64(int64)", cache=True)
def low(x: int) -> int:
    return K.lowest(x)


@njit("int64(int64, int64)", cache=True)
def side_of(seat: int, num_players: int) -> int:
    return K.side_of(seat, num_players)


#: points of a set of cards (10♦ 3, 2♣ 2, aces, jacks), from the engine's scoring
card_points = K.card_points


@njit(cache=True)
def option_extends(table: int, card: int, sel: int, option: int) -> bool:
    """Whether ``option`` can still be reached from selection ``sel`` by legal TAKEs.

    Checked with the engine's own legality (``take_bits``): each remaining card of
    the option, in ascending id order, must be a legal take.
    """
    if (option & sel) != sel:
        return False
    s = sel
    rest = option & ~sel
    while rest:
        t = low(rest)
        if (K.take_bits(table, card, s) >> t) & 1 == 0:
            return False
        s |= 1 << t
        rest &= rest - 1
    return True


@njit(cache=True)
def decision_moves(st: np.ndarray, b: int, cards: np.ndarray, capts: np.ndarray) -> int:
    """The full moves open to game ``b``'s mover at this decision.

    PLAY phase: every full move (``enumerate_moves``). CAPTURE phase: the options of
    the pending card that extend the current selection. Returns the number of moves,
    0 in the DONE phase, -1 if the buffers are too small.
    """
    phase = st[b, K.PHASE]
    if phase == K.PLAY:
        return K.enumerate_moves(st, b, cards, capts)
    if phase != K.CAPTURE:
        return 0
    card = st[b, K.PENDING]
    sel = st[b, K.SELECTION]
    table = st[b, K.TABLE]
    k = K.enumerate_options(table, card, capts)
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
def emit_action(st: np.ndarray, b: int, card: int, captured: int) -> int:
    """The action that advances full move ``(card, captured)`` in game ``b`` now."""
    if st[b, K.PHASE] == K.PLAY:
        return card
    return 52 + low(captured & ~st[b, K.SELECTION])


@njit(cache=True)
def greedy_key(st: np.ndarray, b: int, params: np.ndarray, card: int, captured: int) -> int:
    """Greedy rank of a full move (larger is better; see the module docstring)."""
    if captured == 0:
        pts = card_points(1 << card)
        club = 1 if card % 4 == 0 else 0
        return -1 - (pts * 200 + club * 100 + (51 - card))
    won = captured | (1 << card)
    pts = card_points(won)
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


@njit(cache=True, parallel=False)
def greedy_kernel(st: np.ndarray, games: np.ndarray, params: np.ndarray, out: np.ndarray) -> None:
    """Greedy action for each game in ``games``."""
    for i in prange(games.shape[0]):
        cards = np.empty(MOVE_BUF, dtype=np.int64)
        capts = np.empty(MOVE_BUF, dtype=np.int64)
        out[i] = greedy_action(st, games[i], params, cards, capts)


_greedy_par: Any = None


def greedy_actions(engine: Any, games: np.ndarray) -> np.ndarray:
    """Greedy actions for ``engine``'s games at ``games`` (int64 array)."""
    global _greedy_par
    games = np.ascontiguousarray(games, dtype=np.int64)
    out = np.empty(len(games), dtype=np.int64)
    if use_parallel(len(games)):
        if _greedy_par is None:
            _greedy_par = parallel_twin(greedy_kernel)
        _greedy_par(engine.state, games, engine.params, out)
    else:
        greedy_kernel(engine.state, games, engine.params, out)
    return out


class GreedyAgent(Agent):
    """Most immediate points now (deterministic; see the module docstring)."""

    name = "greedy"

    def __init__(self, seed: int | None = None) -> None:
        pass

    def act(self, obs: np.ndarray | None, mask: np.ndarray, view: GameView) -> np.ndarray:
        acts = greedy_actions(view.engine, view.games)
        return check_actions(acts, np.asarray(mask), self.name)
