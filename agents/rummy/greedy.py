"""Greedy Persian Rummy agent: most points on the table this turn, then least value kept.

The agent is stateless and compiled (one kernel over a batch of games):

* **draw**: every legal draw is scored by :func:`agents.rummy.plan.plan_turn` on the
  hand it would give (the stock's unknown card is left out): the most points put down
  this turn, then the least value kept after the discard; ties go to the stock;
* **meld**: the best new meld (:func:`~agents.rummy.plan.meld_now`) or lay-off
  (:func:`~agents.rummy.plan.best_layoff`), the meld on a tie, the target's while it
  must be melded; a meld is emitted as its PICKs in ascending id order, then MELD
  (the meld is recomputed at each pick: the best one containing the cards picked so
  far, which is the same one when the agent picked them, and a legal finish of a meld
  another policy or a person began); with nothing to meld, discard the most valuable
  card (highest id on ties);
* **choose**: the first meld the card extends.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import prange

from agents.core.base import Agent
from agents.rummy.plan import best_layoff, meld_now, plan_turn
from pasur_env.core.bits import lowest
from pasur_env.core.compile import BatchKernel, njit
from pasur_env.core.policy import GameView, check_actions
from pasur_env.rummy import kernels as K
from pasur_env.rummy.cards import VALUE_OF
from pasur_env.rummy.kernels.legal import take_ok, target_ok

__all__ = ["RummyGreedyAgent", "greedy_rummy_actions"]

_VALUE = VALUE_OF.copy()


@njit(cache=True)
def _draw_action(st: np.ndarray, b: int, fd: bool) -> int:
    seat = st[b, K.MOVER]
    hand = st[b, K.HAND + seat]
    nm = st[b, K.NMELDS]
    table = st[b, K.MELD:K.MELD + K.MAX_MELDS]
    pts, kept = plan_turn(hand, table, nm, 0, fd)
    best_a = K.DRAW_STOCK if st[b, K.STOCK_POS] < K.NUM_CARDS else K.PASS
    best_key = pts * 1000 - kept
    taken = 0
    for i in range(st[b, K.PILE_N] - 1, -1, -1):  # from the top: the cards above accumulate
        c = st[b, K.PILE + i]
        taken |= 1 << c
        if take_ok(st, b, c):
            p, k = plan_turn(hand | taken, table, nm, 1 << c, fd)
            if p * 1000 - k > best_key:
                best_key, best_a = p * 1000 - k, K.TAKE0 + c
    return best_a


@njit(cache=True)
def _meld_action(st: np.ndarray, b: int, fd: bool) -> int:
    hand = st[b, K.HAND + st[b, K.MOVER]]
    t = st[b, K.TARGET]
    need = (1 << t) if t >= 0 else 0
    picked = st[b, K.PICKED]
    m, mv = meld_now(hand, picked, t, fd)
    if picked == 0:
        c, _, cv = best_layoff(hand, st[b, K.MELD:K.MELD + K.MAX_MELDS], st[b, K.NMELDS], need)
        if cv > mv:
            return K.LAYOFF0 + c
        if mv == 0:  # nothing to meld: discard the most valuable card
            best_c, best_v = -1, -1
            h = hand
            while h:
                x = lowest(h)
                h &= h - 1
                if _VALUE[x] >= best_v:
                    best_c, best_v = x, _VALUE[x]
            return K.DISCARD0 + best_c
    rest = m & ~picked  # all above the last pick (meld_now)
    return K.MELD_ACTION if rest == 0 else K.PICK0 + lowest(rest)


@njit(cache=True)
def greedy_rummy_action(st: np.ndarray, b: int, params: np.ndarray) -> int:
    """The greedy action of game ``b``'s mover (-1 when the game is DONE)."""
    fd = params[K.P_FOUR_DOUBLE] != 0
    ph = st[b, K.PHASE]
    if ph == K.DRAW:
        return _draw_action(st, b, fd)
    if ph == K.MELDING:
        return _meld_action(st, b, fd)
    if ph == K.CHOOSE:
        for m in range(st[b, K.NMELDS]):
            if target_ok(st, b, m):
                return K.TARGET0 + m
    return -1


@njit(cache=True, parallel=False, nogil=True)
def greedy_rummy_kernel(st: np.ndarray, games: np.ndarray, params: np.ndarray,
                        out: np.ndarray) -> None:
    """Greedy action for each game in ``games``."""
    for i in prange(games.shape[0]):
        out[i] = greedy_rummy_action(st, games[i], params)


_GREEDY = BatchKernel(greedy_rummy_kernel, 256)


def greedy_rummy_actions(engine: Any, games: np.ndarray) -> np.ndarray:
    """Greedy actions for a :class:`pasur_env.rummy.RummyEngine`'s ``games``."""
    games = np.ascontiguousarray(games, dtype=np.int64)
    out = np.empty(len(games), dtype=np.int64)
    _GREEDY.for_batch(len(games))(engine.state, games, engine.params, out)
    return out


class RummyGreedyAgent(Agent):
    """Most points on the table this turn, then least value kept (see the module doc)."""

    name = "greedy"
    game_ids = ("persian_rummy",)

    def __init__(self, seed: int | None = None) -> None:
        pass

    def act(self, obs: np.ndarray | None, mask: np.ndarray, view: GameView) -> np.ndarray:
        acts = greedy_rummy_actions(view.engine, view.games)
        return check_actions(acts, np.asarray(mask), self.name)
