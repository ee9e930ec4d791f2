"""What the search agents of both games share: budgets, per-decision seeds, and the
visit bookkeeping of a search tree (UCB with availability counts).

It imports neither game's agents, so Pasur's :mod:`agents.pasur.ismcts` and Persian
Rummy's :mod:`agents.rummy.ismcts` build on the same pieces.

The tree (:func:`new_tree`) is a set of flat arrays, one node per row: ``child[node, a]``
(the node reached by action ``a``, -1 while unexpanded), ``visits``, ``total`` (sum of
the results backed up through the node) and ``avail`` (how often the node's action
was legal when its parent was visited: in an information-set tree an action is not
legal in every determinization, so its exploration term counts the visits in which
it *could* have been chosen, as in Cowling, Powley and Whitehouse's ISMCTS).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from pasur_env.core.compile import njit

__all__ = [
    "check_budget", "decision_seeds", "new_tree", "add_child", "ucb_score", "backup",
    "root_means",
]


def check_budget(budget: Any, name: str = "budget") -> int:
    """A positive int (a number of rollouts), or ``ValueError`` naming it."""
    if isinstance(budget, bool) or not isinstance(budget, (int, np.integer)) or budget < 1:
        raise ValueError(f"{name} must be a positive int, got {budget!r}")
    return int(budget)


def decision_seeds(rng: np.random.Generator, n: int) -> np.ndarray:
    """One 63-bit stream seed per decision of a batch, drawn from the agent's generator."""
    return rng.integers(0, 2**63 - 1, size=n, dtype=np.int64)


@njit(cache=True)
def new_tree(max_nodes: int, num_actions: int) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                         np.ndarray]:
    """An empty tree with room for ``max_nodes`` nodes (node 0, the root, exists):
    ``(child, visits, total, avail)``."""
    child = np.full((max_nodes, num_actions), -1, dtype=np.int32)
    visits = np.zeros(max_nodes, dtype=np.float64)
    total = np.zeros(max_nodes, dtype=np.float64)
    avail = np.zeros(max_nodes, dtype=np.float64)
    return child, visits, total, avail


@njit(cache=True)
def add_child(child: np.ndarray, node: int, a: int, n_nodes: int) -> int:
    """Expand action ``a`` of ``node`` as node ``n_nodes``; returns the new node count."""
    child[node, a] = n_nodes
    return n_nodes + 1


@njit(cache=True)
def ucb_score(total: float, visits: float, avail: float, c: float) -> float:
    """UCB1 with availability: mean result plus ``c * sqrt(ln(avail) / visits)``."""
    return total / visits + c * math.sqrt(math.log(max(avail, 1.0)) / visits)


@njit(cache=True)
def backup(path: np.ndarray, depth: int, value: float, visits: np.ndarray,
           total: np.ndarray) -> None:
    """Count one visit of result ``value`` in the first ``depth`` nodes of ``path``."""
    for k in range(depth):
        visits[path[k]] += 1.0
        total[path[k]] += value


@njit(cache=True)
def root_means(child: np.ndarray, visits: np.ndarray, total: np.ndarray,
               out: np.ndarray) -> int:
    """The mean result of each root action into ``out`` (NaN if never tried); returns
    the most visited action (the better mean on a tie), -1 if none was tried."""
    best = -1
    for a in range(child.shape[1]):
        ch = child[0, a]
        if ch < 0 or visits[ch] == 0:
            out[a] = np.nan
            continue
        out[a] = total[ch] / visits[ch]
        if best < 0:
            best = a
            continue
        b = child[0, best]
        if visits[ch] > visits[b] or (visits[ch] == visits[b] and out[a] > out[best]):
            best = a
    return best
