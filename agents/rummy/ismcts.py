"""Information-set search for Persian Rummy: ``ismcts`` (``docs/agents.md``).

At every decision of seat ``s`` with more than one legal action, in one compiled loop
over all decisions of a batch:

1. **determinizations**: the cards ``s`` cannot see (the other hands except the
   cards they took from the discard pile, which everybody saw, and the stock) are
   dealt at random in the sizes ``s`` knows (:func:`agents.rummy.rollout.determinize`);
2. **flat** (``tree=False``, the default): every legal action is played in each of
   ``budget // actions`` determinizations (common random numbers: all actions of a
   decision see the same deals), then greedy for every seat to the round's end; the
   best mean result (``s``'s team's round points minus the other team's) wins. Unlike
   ``rollout``, which searches only the draw and the discard, every decision with a
   choice is searched: which meld to lay, a lay-off, holding a meld back;
3. **tree over the turn** (``tree=True``): single-observer ISMCTS over ``s``'s own
   decisions until its turn ends (the draw, the picks and melds, lay-offs and the
   discard): each iteration draws a determinization, descends the tree by UCB among
   the actions legal in it (availability counts, :mod:`agents.core.search`), expands one
   untried action (greedy's first), and plays the round out with greedy for every
   seat; the result is backed up and the most visited root action is played. A draw is
   then judged with the discard the search would make after it. At 200 rollouts it
   measured weaker than the flat search (no common random numbers, the budget spread
   over a wide tree; ``docs/results.md``).

``budget`` is the number of rollouts per decision. :meth:`RummyISMCTSAgent.values`
gives the search's value of every action of a batch of decisions (for labelling
positions, as :class:`train.move_net.data.SearchLabeler` does with Pasur's search).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import prange

from agents.core.base import Agent
from agents.core.search import (
    add_child,
    backup,
    check_budget,
    decision_seeds,
    new_tree,
    root_means,
    ucb_score,
)
from agents.rummy.greedy import greedy_rummy_action
from agents.rummy.rollout import determinize, greedy_playout
from pasur_env.core.compile import BatchKernel, njit
from pasur_env.core.policy import GameView, check_actions
from pasur_env.core.rng import splitmix_next
from pasur_env.rummy import kernels as K
from pasur_env.rummy.kernels.step import apply_action

__all__ = ["RummyISMCTSAgent", "search_decision", "DEFAULT_BUDGET", "DEFAULT_C"]

#: rollouts per decision
DEFAULT_BUDGET = 200
#: UCB exploration constant, in team points per round
DEFAULT_C = 40.0
#: the longest action sequence of one turn (a draw, 14 cards melded by picks, a discard)
_MAX_DEPTH = 64
#: how the tree policy chose: an expanded child, a new child, the only legal action
_SELECT, _EXPAND, _FORCED = 0, 1, 2


@njit(cache=True)
def _flat(st: np.ndarray, g: int, params: np.ndarray, budget: int, z: np.uint64,
          values: np.ndarray) -> int:
    """Flat Monte Carlo over the legal actions of game ``g`` with common random numbers;
    mean results into ``values`` (NaN for illegal actions). Returns the best action."""
    seat = st[g, K.MOVER]
    team = seat % 2
    mask = np.zeros(K.NUM_ACTIONS, dtype=np.bool_)
    K.fill_mask(st, g, mask)
    acts = np.flatnonzero(mask)
    n = acts.shape[0]
    sums = np.zeros(n, dtype=np.float64)
    n_det = max(1, budget // max(n, 1))
    det = np.empty((1, K.NCOL), dtype=np.int64)
    work = np.empty((1, K.NCOL), dtype=np.int64)
    info = np.zeros(K.NINFO, dtype=np.int64)
    for _ in range(n_det):
        det[0] = st[g]
        z = determinize(det, 0, seat, z)
        for m in range(n):
            work[0] = det[0]
            info[:] = 0
            apply_action(work, 0, acts[m], params, info, False)
            sums[m] += greedy_playout(work, 0, params, info, team)
    values[:] = np.nan
    best = -1
    for m in range(n):
        values[acts[m]] = sums[m] / n_det
        if best < 0 or values[acts[m]] > values[best]:
            best = acts[m]
    return best


@njit(cache=True)
def _choose(st: np.ndarray, mask: np.ndarray, child: np.ndarray, node: int,
            visits: np.ndarray, total: np.ndarray, avail: np.ndarray, params: np.ndarray,
            c: float, z: np.uint64) -> tuple[int, int, np.uint64]:
    """The tree policy at ``node`` for the position in row 0 of ``st``: ``(action, how,
    stream)``, ``how`` one of ``_SELECT``, ``_EXPAND``, ``_FORCED`` (the only legal
    action below the root: played without a node). Untried legal actions come first
    (greedy's, else one at random); when all were tried, the best UCB score."""
    untried, legal, only = 0, 0, -1
    for a in range(K.NUM_ACTIONS):
        if mask[a]:
            legal += 1
            only = a
            ch = child[node, a]
            if ch < 0:
                untried += 1
            else:
                avail[ch] += 1.0
    if legal == 1 and node > 0:
        return only, _FORCED, z
    if untried:
        g_a = greedy_rummy_action(st, 0, params)
        if child[node, g_a] < 0:
            return g_a, _EXPAND, z
        z, x = splitmix_next(z)
        k = np.int64((x >> np.uint64(11)) % np.uint64(untried))
        for a in range(K.NUM_ACTIONS):
            if mask[a] and child[node, a] < 0:
                if k == 0:
                    return a, _EXPAND, z
                k -= 1
    best, best_s = -1, -np.inf
    for a in range(K.NUM_ACTIONS):
        if mask[a]:
            ch = child[node, a]
            s = ucb_score(total[ch], visits[ch], avail[ch], c)
            if s > best_s:
                best, best_s = a, s
    return best, _SELECT, z


@njit(cache=True)
def _tree(st: np.ndarray, g: int, params: np.ndarray, budget: int, c: float, z: np.uint64,
          values: np.ndarray) -> int:
    """ISMCTS over the mover's decisions of this turn (module docstring); root means
    into ``values`` (NaN if illegal or never tried). Returns the most visited action."""
    seat = st[g, K.MOVER]
    team = seat % 2
    child, visits, total, avail = new_tree(budget + 2, K.NUM_ACTIONS)
    n_nodes = 1
    work = np.empty((1, K.NCOL), dtype=np.int64)
    info = np.zeros(K.NINFO, dtype=np.int64)
    mask = np.zeros(K.NUM_ACTIONS, dtype=np.bool_)
    path = np.zeros(_MAX_DEPTH + 1, dtype=np.int64)
    for _ in range(budget):
        work[0] = st[g]
        z = determinize(work, 0, seat, z)
        info[:] = 0
        node, depth, how = 0, 0, _SELECT
        while how != _EXPAND and work[0, K.MOVER] == seat and work[0, K.PHASE] != K.DONE:
            K.fill_mask(work, 0, mask)
            a, how, z = _choose(work, mask, child, node, visits, total, avail, params, c, z)
            if how == _EXPAND:
                n_nodes = add_child(child, node, a, n_nodes)
                avail[child[node, a]] = 1.0
            if how != _FORCED:
                node = child[node, a]
                path[depth] = node
                depth = min(depth + 1, _MAX_DEPTH)
            info[:] = 0
            apply_action(work, 0, a, params, info, False)
        value = greedy_playout(work, 0, params, info, team)
        backup(path, depth, float(value), visits, total)
    return root_means(child, visits, total, values)


@njit(cache=True)
def search_decision(st: np.ndarray, g: int, params: np.ndarray, budget: int, tree: bool,
                    c: float, seed: np.uint64, values: np.ndarray) -> int:
    """Search game ``g``'s decision (``params``: one-round episodes): the chosen action,
    and each action's mean result in ``values`` (NaN for illegal or untried ones)."""
    if tree:
        return _tree(st, g, params, budget, c, seed, values)
    return _flat(st, g, params, budget, seed, values)


@njit(cache=True, parallel=False, nogil=True)
def ismcts_kernel(st: np.ndarray, games: np.ndarray, params: np.ndarray, budget: int,
                  tree: bool, c: float, seeds: np.ndarray, out: np.ndarray,
                  values: np.ndarray) -> None:
    """Search every decision of ``games``: ``out[i]`` the action, ``values[i]`` the
    action values (NUM_ACTIONS wide)."""
    for i in prange(games.shape[0]):
        out[i] = search_decision(st, games[i], params, budget, tree, c, np.uint64(seeds[i]),
                                 values[i])


#: a search per decision is costly: two decisions already pay for a second thread
_ISMCTS = BatchKernel(ismcts_kernel, 2)


class RummyISMCTSAgent(Agent):
    """Information-set search for Persian Rummy (module docstring).

    Args:
        seed: seed of the generator that draws each decision's determinizations.
        budget: rollouts per decision.
        tree: search a tree over the mover's turn (True) or judge each legal action
            by flat Monte Carlo with common random numbers (False).
        c: the tree's UCB exploration constant, in team points per round.
        parallel: search the decisions of a batch on several threads (``None``:
            when the batch has at least two decisions).
    """

    name = "ismcts"
    game_ids = ("persian_rummy",)

    def __init__(self, seed: int | None = None, budget: int = DEFAULT_BUDGET,
                 tree: bool = False, c: float = DEFAULT_C, parallel: bool | None = None) -> None:
        self.budget = check_budget(budget)
        if not isinstance(tree, (bool, np.bool_)):
            raise TypeError(f"tree must be True or False, got {tree!r}")
        if isinstance(c, bool) or not isinstance(c, (int, float)) or not c >= 0:
            raise ValueError(f"c must be a non-negative number, got {c!r}")
        self.tree = bool(tree)
        self.c = float(c)
        self.parallel = parallel
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def _search(self, engine: Any, games: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(actions, values)`` of the decisions of ``games``."""
        games = np.ascontiguousarray(games, dtype=np.int64)
        seeds = decision_seeds(self.rng, len(games))
        acts = np.empty(len(games), dtype=np.int64)
        values = np.empty((len(games), K.NUM_ACTIONS), dtype=np.float64)
        params = engine.rules.as_params(episode_round=True)
        _ISMCTS.for_batch(len(games), self.parallel)(
            engine.state, games, params, self.budget, self.tree, self.c, seeds, acts, values)
        return acts, values

    def act(self, obs: np.ndarray | None, mask: np.ndarray, view: GameView) -> np.ndarray:
        mask = np.asarray(mask)
        games = np.asarray(view.games, dtype=np.int64)
        out = mask.argmax(axis=1).astype(np.int64)  # the only legal action of a forced one
        todo = np.flatnonzero(mask.sum(axis=1) > 1)
        if len(todo):
            out[todo] = self._search(view.engine, games[todo])[0]
        return check_actions(out, mask, self.name)

    def values(self, mask: np.ndarray, view: GameView) -> np.ndarray:
        """The search's value of every action of each decision: ``(n, NUM_ACTIONS)``
        float64, the mean result (the mover's team's round points minus the other
        team's, greedy play after the searched turn) of the rollouts through it; NaN
        for illegal actions (and, with ``tree=True``, for actions the search never
        tried). Every decision is searched, forced ones too. Draws from the agent's
        generator as :meth:`act` does."""
        mask = np.asarray(mask, dtype=np.bool_)
        if mask.ndim != 2 or mask.shape != (len(view.games), K.NUM_ACTIONS):
            raise ValueError(f"mask must be (games, {K.NUM_ACTIONS}) bool, got {mask.shape}")
        values = self._search(view.engine, np.asarray(view.games, dtype=np.int64))[1]
        values[~mask] = np.nan
        return values
