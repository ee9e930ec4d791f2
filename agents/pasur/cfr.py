"""``cfr:PATH``: play a policy solved by ``python -m train.cfr`` on a small variant.

The policy is indexed by information sets, whose key is the player's observation
sequence: its own cards of each deal, the first table, and every action of the round
(all public in two-player Pasur). The engine does not store the round's actions, so
the agent rebuilds them from what it sees at its decisions, per game:

* at its first decision of a round: its hand as dealt, the first table (the table
  slots of the deal, public), and, when it moves second, the opponent's first turn
  (the table and the opponent's pile before and after);
* at every later decision: its own last action, whose public effect it replays with
  the kernel on its copy of the position it acted in, then the opponent's turn, read
  from the table and the opponent's pile (the card played is the one that appeared on
  the table or in the pile without coming from the table; a capture with several
  options is its TAKEs in ascending order), and the new deal's cards when one came.

A position the agent cannot place (it did not see the round from its start) is
played uniformly at random and counted in ``unknown``. A policy file of another
variant is refused when the agent meets an engine of different rules.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from agents.core.base import Agent
from agents.pasur.solver import OBS_ACTION, OBS_CARDS, OBS_TABLE, variant_signature
from pasur_env.core.policy import GameView
from pasur_env.pasur import kernels as K

__all__ = ["CFRAgent", "most_probable"]


def most_probable(policy: np.ndarray, first: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The pure policy that plays each information set's most probable action of
    ``policy`` (the first of equals); the sets' actions are ``first[s]`` onwards,
    ``counts[s]`` of them."""
    seg = np.repeat(np.arange(counts.size), counts)
    top = np.maximum.reduceat(policy, first) if policy.size else policy
    at_top = np.flatnonzero(policy == top[seg])
    _, pick = np.unique(seg[at_top], return_index=True)
    pure = np.zeros_like(policy)
    pure[at_top[pick]] = 1.0
    return pure


class CFRAgent(Agent):
    """A saved CFR policy (``runs/<name>/cfr_policy.npz``) as an agent.

    Args:
        path: the policy file written by ``python -m train.cfr``.
        seed: seed of the sampling of the mixed policy.
        greedy: play the most probable action instead of sampling.
    """

    name = "cfr"
    game_ids = ("pasur",)
    #: the solver plays two-player one-round variants
    player_counts = (2,)

    def __init__(self, path: str | Path, seed: int | None = None, greedy: bool = False) -> None:
        path = Path(path)
        if not path.is_file():
            raise ValueError(f"no CFR policy file at {str(path)!r} (python -m train.cfr writes "
                             "runs/<name>/cfr_policy.npz)")
        with np.load(path) as f:
            self.policy = f["policy"]
            self.signature = f["signature"]
            self.preset = str(f["preset"])
            self.iset_first, self.iset_n = f["iset_first"], f["iset_n"]
            self.iset_actions = f["iset_actions"].astype(np.int64)
            iset_trie = f["iset_trie"]
            parent, kind, value = f["trie_parent"], f["trie_kind"], f["trie_value"]
            self.root_dealer = int(f["root_dealer"])
        self.path, self.greedy = path, bool(greedy)
        self._iset_order = np.argsort(iset_trie, kind="stable")
        self._iset_sorted = iset_trie[self._iset_order]
        order = np.argsort(parent, kind="stable")
        self._child_order = order
        self._child_start = np.searchsorted(parent[order], np.arange(parent.size + 1))
        self._kind, self._value = kind, value
        self._games: dict[tuple[int, int, int], dict[str, Any]] = {}
        #: decisions placed in an information set of the policy, and those not placed
        self.found = self.unknown = 0
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def tree_policy(self, tree: Any) -> np.ndarray:
        """The policy over ``tree``'s information-set actions (the tree of the same
        variant, enumerated in the same order): what exploitability evaluates. With
        ``greedy``, the pure policy the agent then plays: each information set's most
        probable action (the first of equals, as :meth:`act` picks it)."""
        if (not np.array_equal(variant_signature(tree.params), self.signature)
                or tree.iset_actions.shape != self.policy.shape
                or not np.array_equal(tree.iset_actions, self.iset_actions)):
            raise ValueError(f"{self.path} was solved for another variant than this tree's")
        if not self.greedy:
            return self.policy.copy()
        return most_probable(self.policy, self.iset_first, self.iset_n)

    # ---- the observation trie -------------------------------------------------------------
    def _child(self, node: int, kind: int, value: int) -> int:
        if node < 0:
            return -1
        kids = self._child_order[self._child_start[node]: self._child_start[node + 1]]
        hit = kids[(self._kind[kids] == kind) & (self._value[kids] == value)]
        return int(hit[0]) if hit.size else -1

    def _iset(self, node: int) -> int:
        i = int(np.searchsorted(self._iset_sorted, node))
        if node < 0 or i >= self._iset_sorted.size or self._iset_sorted[i] != node:
            return -1
        return int(self._iset_order[i])

    # ---- rebuilding the observation sequence ------------------------------------------------
    def _check_engine(self, engine: Any) -> None:
        if not np.array_equal(variant_signature(engine.params), self.signature):
            raise ValueError(
                f"{self.path} is a policy of the {self.preset!r} variant; this game's rules "
                f"differ (preset {getattr(engine.rules, 'preset', '?')!r}): it cannot play them")

    def _opponent_turn(self, node: int, before: np.ndarray, row: np.ndarray,
                       opp: int) -> int:
        """Extend ``node`` by the opponent's turn from position ``before`` to ``row``."""
        t1, t2 = int(before[K.TABLE]), int(row[K.TABLE])
        gained = int(row[K.PILE + opp]) & ~int(before[K.PILE + opp])
        taken = t1 & ~t2
        card = K.lowest(gained & ~taken) if gained else K.lowest(t2 & ~t1)
        node = self._child(node, OBS_ACTION, card)
        if gained and K.resolve_play(t1, card)[0] == 2:
            while taken:
                node = self._child(node, OBS_ACTION, K.TAKE_OFFSET + K.lowest(taken))
                taken &= taken - 1
        return node

    def _first_node(self, row: np.ndarray, params: np.ndarray, role: int, seat: int) -> int:
        """The round's start: own hand as dealt, the first table, an opponent's first turn."""
        node = self._child(role, OBS_CARDS, int(row[K.HAND + seat]))
        hand, table_size = int(params[K.P_HAND_SIZE]), int(params[K.P_TABLE_SIZE])
        start = 52 - K.popcount(int(params[K.P_DECK])) + 2 * hand
        table = 0
        for i in range(start, start + table_size):  # the first table as dealt (public)
            table |= 1 << int(row[K.DECK + i])
        node = self._child(node, OBS_TABLE, table)
        if row[K.TURN] == 1:
            first = row.copy()
            first[K.TABLE], first[K.PILE + 1 - seat] = table, 0
            node = self._opponent_turn(node, first, row, 1 - seat)
        return node

    def _node(self, key: tuple[int, int, int], row: np.ndarray, params: np.ndarray,
              role: int, seat: int) -> int:
        rec = self._games.get(key)
        turn = int(row[K.TURN])
        if rec is not None and int(rec["row"][K.TURN]) == turn and row[K.PHASE] == K.CAPTURE:
            return self._child(rec["node"], OBS_ACTION, rec["action"])  # my capture goes on
        if rec is None or int(rec["row"][K.TURN]) + 2 != turn:
            return self._first_node(row, params, role, seat) if turn <= 1 else -1
        node = self._child(rec["node"], OBS_ACTION, rec["action"])
        mine = rec["row"].copy()
        info = np.zeros((1, K.NINFO), dtype=np.int64)
        K.apply_action(mine.reshape(1, -1), 0, rec["action"], params, info, 0, False)
        if mine[K.DEAL] != rec["row"][K.DEAL]:
            node = self._child(node, OBS_CARDS, int(row[K.HAND + seat]))
        node = self._opponent_turn(node, mine, row, 1 - seat)
        if row[K.DEAL] != mine[K.DEAL]:
            node = self._child(node, OBS_CARDS, int(row[K.HAND + seat]))
        return node

    def last_policy(self, engine: Any, g: int) -> tuple[np.ndarray, np.ndarray] | None:
        """The actions and probabilities of the information set of game ``g``'s decision
        that :meth:`act` has just played (the engine not stepped since), or ``None``
        where it was not placed in one (played at random)."""
        rec = self._games.get((id(engine), int(g), int(engine.state[g, K.MOVER])))
        s = -1 if rec is None else self._iset(rec["node"])
        if s < 0:
            return None
        a, n = self.iset_first[s], self.iset_n[s]
        return self.iset_actions[a: a + n], self.policy[a: a + n]

    # ---- acting ----------------------------------------------------------------------------
    def act(self, obs: np.ndarray | None, mask: np.ndarray, view: GameView) -> np.ndarray:
        engine = view.engine
        self._check_engine(engine)
        out = np.empty(len(view.games), dtype=np.int64)
        for i, g in enumerate(view.games):
            row = engine.state[g]
            seat = int(row[K.MOVER])
            role = (seat - int(row[K.DEALER]) - 1) % 2  # 0: moves first, as seat 0 in the tree
            key = (id(engine), int(g), seat)
            node = self._node(key, row, engine.params, role, seat)
            s = self._iset(node)
            legal = np.flatnonzero(mask[i])
            if s >= 0 and not np.array_equal(
                    self.iset_actions[self.iset_first[s]: self.iset_first[s] + self.iset_n[s]],
                    legal):
                s = -1  # a key that is not this position's (never expected): played randomly
            if s < 0:
                self.unknown += 1
                out[i] = legal[self.rng.integers(legal.size)]
            else:
                self.found += 1
                a, n = self.iset_first[s], self.iset_n[s]
                acts, probs = self.iset_actions[a: a + n], self.policy[a: a + n]
                j = int(np.argmax(probs)) if self.greedy else int(
                    self.rng.choice(probs.size, p=probs / probs.sum()))
                out[i] = acts[j]
            self._games[key] = {"node": node, "row": row.copy(), "action": int(out[i])}
        return out
