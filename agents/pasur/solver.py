"""Exact solving of small two-player Pasur variants: the game tree, CFR+, best response.

The tree of one round (zero-sum: player 0's payoff is its points minus player 1's) is
enumerated once by compiled code that steps the engine's kernels on state rows
(``apply_action``; no second copy of the rules) into flat arrays: per node its kind
(player to act, chance, terminal), information set, block of children, the probability
of the chance edge into it and the payoff at terminals. Children of a node are
contiguous and numbered after it, so a reverse sweep over the nodes is a bottom-up
pass and a forward sweep a top-down one: CFR+ and best response run over the arrays
without recursion.

Chance is the deal. The first deal is enumerated as sets (each seat's hand, the table
cards) with equal probabilities, conditioned on a jack-free table (the ``redeal``
rule); each later deal as the sets each seat receives from the unseen cards, written
into the stock before the action that triggers it, so the kernel deals them.

Information sets have perfect recall and exact keys: a player's information state is a
node of a trie of observations (own cards of each deal, the first table, every action,
all of which are public in two-player Pasur), keyed by ``(parent, kind, value)`` in a
dictionary: no hashing of histories, no collisions. Histories of one information set
have the same depth, which the best response uses to decide level by level.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np
from numba import types
from numba.typed import Dict

from pasur_env.core.compile import njit
from pasur_env.pasur import kernels as K

__all__ = [
    "GameTree",
    "build_tree",
    "variant_tree",
    "uniform_policy",
    "expected_value",
    "best_response_value",
    "nash_conv",
    "CFRPlus",
]

#: node kinds besides the seat to act (0 or 1)
CHANCE, TERMINAL = 2, 3
#: observation kinds of the information-state trie
OBS_ACTION, OBS_CARDS, OBS_TABLE = 0, 1, 2
_KEY = types.UniTuple(types.int64, 3)


@njit(cache=True)
def _subsets(mask: int, k: int, out: np.ndarray) -> int:
    """Every ``k``-card subset of ``mask`` into ``out`` (ascending lexicographic); count."""
    ids = np.empty(64, dtype=np.int64)
    n = 0
    m = mask
    while m:
        ids[n] = K.lowest(m)
        m &= m - 1
        n += 1
    if k > n:
        return 0
    idx = np.arange(k)
    count = 0
    while True:
        s = 0
        for j in range(k):
            s |= 1 << ids[idx[j]]
        out[count] = s
        count += 1
        j = k - 1
        while j >= 0 and idx[j] == n - k + j:
            j -= 1
        if j < 0:
            return count
        idx[j] += 1
        for q in range(j + 1, k):
            idx[q] = idx[q - 1] + 1


@njit(cache=True)
def _comb(n: int, k: int) -> int:
    """Binomial coefficient (the length of a subset buffer)."""
    if k < 0 or k > n:
        return 0
    r = 1
    for i in range(min(k, n - k)):
        r = r * (n - i) // (i + 1)
    return r


@njit(cache=True)
def _first_deals(cards: int, fixed_table: int, h: int, t: int, jack_free: bool,
                 dealer: int) -> np.ndarray:
    """The first deals as rows ``(hand of seat 0, hand of seat 1, table cards)``."""
    first = (dealer + 1) % 2
    n = K.popcount(cards)
    a = np.empty(max(_comb(n, h), 1), dtype=np.int64)
    b = np.empty(max(_comb(n, h), 1), dtype=np.int64)
    c = np.empty(max(_comb(n, t), 1), dtype=np.int64)
    na = _subsets(cards, h, a)
    count = 0
    rows = np.empty((0, 3), dtype=np.int64)
    for pass_ in range(2):
        if pass_ == 1:
            rows = np.empty((count, 3), dtype=np.int64)
            count = 0
        for i in range(na):
            nb = _subsets(cards & ~a[i], h, b)
            for j in range(nb):
                nc = _subsets(cards & ~a[i] & ~b[j], t, c)
                for q in range(nc):
                    if jack_free and ((c[q] | fixed_table) & K.JACK_BITS):
                        continue
                    if pass_ == 1:
                        rows[count, first] = a[i]
                        rows[count, 1 - first] = b[j]
                        rows[count, 2] = c[q]
                    count += 1
    return rows


@njit(cache=True)
def _write_first_deal(row: np.ndarray, hands: np.ndarray, table: int, cards: int) -> None:
    """Put a first deal into a round-start state row: hands, table, the rest in the stock."""
    for seat in range(2):
        for j in range(4):
            row[K.ORDER + 4 * seat + j] = -1
        hand = hands[seat]
        row[K.HAND + seat] = hand
        j = 0
        while hand:
            row[K.ORDER + 4 * seat + j] = K.lowest(hand)
            hand &= hand - 1
            j += 1
    row[K.TABLE] |= table
    rest = cards & ~(hands[0] | hands[1] | table)
    pos = row[K.STOCK_POS]
    while rest:
        row[K.DECK + pos] = K.lowest(rest)
        rest &= rest - 1
        pos += 1


@njit(cache=True)
def _write_stock(row: np.ndarray, first_hand: int, second_hand: int, rest: int) -> None:
    """Order the stock so the next deal gives ``first_hand`` to the seat dealt first."""
    pos = row[K.STOCK_POS]
    for m in (first_hand, second_hand, rest):
        while m:
            row[K.DECK + pos] = K.lowest(m)
            m &= m - 1
            pos += 1


@njit(cache=True)
def _unseen_after(row: np.ndarray, params: np.ndarray, a: int, cards: int,
                  tmp: np.ndarray, info: np.ndarray) -> int:
    """Cards of the stock and the next deal once action ``a`` (which ends a deal) is
    played in ``row``: the cards in play on neither the table nor a pile."""
    tmp[:] = row
    K.apply_action(tmp.reshape(1, tmp.shape[0]), 0, a, params, info, 0, False)
    return cards & ~(tmp[K.TABLE] | tmp[K.PILE] | tmp[K.PILE + 1])


@njit(cache=True)
def _deal_and_apply(row: np.ndarray, params: np.ndarray, a: int, deal: np.ndarray,
                    unseen: int, info: np.ndarray) -> None:
    """Play ``a`` (it ends a deal) with the stock ordered so the kernel deals ``deal``
    (seat 0's cards, seat 1's)."""
    fs = (row[K.DEALER] + 1) % 2
    _write_stock(row, deal[fs], deal[1 - fs], unseen & ~(deal[0] | deal[1]))
    K.apply_action(row.reshape(1, row.shape[0]), 0, a, params, info, 0, False)


@njit(cache=True)
def _chance_outcomes(row: np.ndarray, pend: int, root_deals: np.ndarray, params: np.ndarray,
                     cards: int, h: int, tmp: np.ndarray, info: np.ndarray,
                     sub_a: np.ndarray, sub_b: np.ndarray) -> tuple[np.ndarray, int]:
    """A chance node's outcomes, rows (seat 0's cards, seat 1's, table), and the unseen
    cards a later deal draws from (``pend`` -2: the first deal)."""
    if pend == -2:
        return root_deals, 0
    unseen = _unseen_after(row, params, pend, cards, tmp, info)
    na = _subsets(unseen, h, sub_a)
    total = 0
    for i in range(na):
        total += _subsets(unseen & ~sub_a[i], h, sub_b)
    outs = np.zeros((total, 3), dtype=np.int64)
    fs = (row[K.DEALER] + 1) % 2
    q = 0
    for i in range(na):
        for j in range(_subsets(unseen & ~sub_a[i], h, sub_b)):
            outs[q, fs], outs[q, 1 - fs] = sub_a[i], sub_b[j]
            q += 1
    return outs, unseen


@njit(cache=True)
def _infoset(seat: int, tr: int, k: int, bits: int, off: int, node: int, iset_of: Any,
             out: Any, cnt: np.ndarray) -> int:
    """The information set of trie node ``tr`` (made on first sight, with its legal
    actions); -1 when its buffers are full, -2 when the legal actions disagree."""
    iset_player, iset_first, iset_n, iset_actions, iset_node, iset_trie = out[10:16]
    if tr in iset_of:
        s = iset_of[tr]
        return s if iset_n[s] == k else -2
    s, n_acts = cnt[1], cnt[2]
    if s >= iset_player.shape[0] or n_acts + k > iset_actions.shape[0]:
        return -1
    iset_of[tr] = s
    iset_player[s], iset_first[s], iset_n[s] = seat, n_acts, k
    iset_node[s], iset_trie[s] = node, tr
    for j in range(k):
        iset_actions[n_acts + j] = off + K.lowest(bits)
        bits &= bits - 1
    cnt[1], cnt[2] = s + 1, n_acts + k
    return s


@njit(cache=True)
def _observe(trie: Any, out: Any, cnt: np.ndarray, tr: np.ndarray, kind: int,
             v0: int, v1: int) -> None:
    """Extend both players' trie nodes ``tr`` by an observation (values ``v0``, ``v1``)."""
    parents, kinds, values = out[16:19]
    for p in range(2):
        if tr[p] < 0:
            continue
        key = (tr[p], kind, v0 if p == 0 else v1)
        if key in trie:
            tr[p] = trie[key]
            continue
        i = cnt[4]
        if i >= parents.shape[0]:
            tr[p] = -1
            continue
        trie[key] = i
        parents[i], kinds[i], values[i] = key
        cnt[4] = i + 1
        tr[p] = i


@njit(cache=True)
def _action_child(row: np.ndarray, a: int, c: int, params: np.ndarray, tmp: np.ndarray,
                  info: np.ndarray, out: Any) -> int:
    """Play ``a`` from ``row`` into child ``c``: a terminal (payoff), a chance node when
    the action ends a deal (``row`` is kept: the deal is enumerated from it; returns
    ``a``) or the next decision (``row`` advanced). Returns the pending action or -1."""
    kind, payoff = out[0], out[6]
    deal_before = row[K.DEAL]
    tmp[:] = row
    K.apply_action(tmp.reshape(1, tmp.shape[0]), 0, a, params, info, 0, False)
    if info[0, K.I_ROUND_END] == 1:
        kind[c] = TERMINAL
        payoff[c] = info[0, K.I_POINTS] - info[0, K.I_POINTS + 1]
        return -1
    if tmp[K.DEAL] != deal_before:
        kind[c] = CHANCE
        return a
    kind[c] = tmp[K.MOVER]
    row[:] = tmp
    return -1


@njit(cache=True)
def _enumerate(root: np.ndarray, params: np.ndarray, cards: int, h: int, t: int,
               jack_free: bool, cap: int, out: Any) -> int:
    """Depth-first enumeration from a round-start row into the arrays of ``out``: the
    number of nodes, -1 when a buffer is full (the caller doubles it), -2 when two
    histories of one information set disagree on the legal actions (never expected),
    -3 when the stack of open nodes is full."""
    kind, iset, first, nchild, prob, action, _, depth, deal_of, deals = out[:10]
    cnt = out[19]
    cnt[:] = 0
    cnt[0], cnt[4] = 1, 2  # trie nodes 0 and 1: the empty sequences of seats 0 and 1
    trie = Dict.empty(key_type=_KEY, value_type=types.int64)
    iset_of = Dict.empty(key_type=types.int64, value_type=types.int64)
    out[16][0] = out[16][1] = -1
    root_deals = _first_deals(cards, root[K.TABLE], h, t, jack_free, root[K.DEALER])
    stack_cap = root_deals.shape[0] + 4096
    rows = np.empty((stack_cap, K.NCOL), dtype=np.int64)
    s_node, s_pend = np.empty(stack_cap, dtype=np.int64), np.empty(stack_cap, dtype=np.int64)
    s_trie = np.empty((stack_cap, 2), dtype=np.int64)
    info, tmp = np.zeros((1, K.NINFO), dtype=np.int64), np.empty(K.NCOL, dtype=np.int64)
    m = max(_comb(K.popcount(cards), h), 1)
    sub_a, sub_b = np.empty(m, dtype=np.int64), np.empty(m, dtype=np.int64)
    kind[0], prob[0], action[0], depth[0], deal_of[0] = CHANCE, 1.0, -1, 0, -1
    rows[0, :], s_node[0], s_trie[0, 0], s_trie[0, 1], s_pend[0] = root, 0, 0, 1, -2
    sp = 1
    while sp:
        sp -= 1
        node, pend, row, tr = s_node[sp], s_pend[sp], rows[sp].copy(), s_trie[sp].copy()
        chance, view = kind[node] == CHANCE, row.reshape(1, K.NCOL)
        bits, off = K.legal_bits(view, 0), K.action_offset(view, 0)
        if chance:
            outs, unseen = _chance_outcomes(row, pend, root_deals, params, cards, h, tmp,
                                            info, sub_a, sub_b)
            k = outs.shape[0]
        else:
            k = K.popcount(bits)
        n_nodes = cnt[0]
        if sp + k > stack_cap or n_nodes + k > cap or cnt[3] + k > deals.shape[0]:
            return -3 if sp + k > stack_cap else -1
        first[node], nchild[node] = n_nodes, k
        if not chance:
            s = _infoset(kind[node], tr[kind[node]], k, bits, off, node, iset_of, out, cnt)
            if s < 0:
                return s
            iset[node] = s
        for j in range(k - 1, -1, -1):  # pushed in reverse: the first child pops first
            c = n_nodes + j
            depth[c], iset[c], deal_of[c], action[c] = depth[node] + 1, -1, -1, -1
            prob[c], pnd = (1.0 / k if chance else 1.0), -1
            rows[sp, :] = row
            s_trie[sp, :] = tr
            if chance:
                deal_of[c] = cnt[3] + j
                deals[cnt[3] + j, :] = outs[j]
                if pend == -2:
                    _write_first_deal(rows[sp], outs[j, :2], outs[j, 2], cards)
                else:
                    _deal_and_apply(rows[sp], params, pend, outs[j], unseen, info)
                _observe(trie, out, cnt, s_trie[sp], OBS_CARDS, outs[j, 0], outs[j, 1])
                if pend == -2:
                    tab = rows[sp, K.TABLE]
                    _observe(trie, out, cnt, s_trie[sp], OBS_TABLE, tab, tab)
                kind[c] = rows[sp, K.MOVER]
            else:
                bb = bits
                for _ in range(j):
                    bb &= bb - 1
                action[c] = off + K.lowest(bb)
                _observe(trie, out, cnt, s_trie[sp], OBS_ACTION, action[c], action[c])
                pnd = _action_child(rows[sp], action[c], c, params, tmp, info, out)
            if s_trie[sp, 0] < 0 or s_trie[sp, 1] < 0:
                return -1
            if kind[c] != TERMINAL:
                s_node[sp], s_pend[sp] = c, pnd
                sp += 1
        if chance:
            cnt[3] += k
        cnt[0] = n_nodes + k
    return cnt[0]


def _ranges(counts: np.ndarray) -> np.ndarray:
    """``0..c-1`` for every ``c`` of ``counts``, concatenated."""
    ends = np.cumsum(counts)
    return np.arange(int(ends[-1]) if counts.size else 0) - np.repeat(ends - counts, counts)


_NODE_FIELDS = (("kind", np.int8), ("iset", np.int64), ("first", np.int64),
                ("nchild", np.int64), ("prob", np.float64), ("action", np.int64),
                ("payoff", np.float64), ("depth", np.int64), ("deal_of", np.int64))


@dataclasses.dataclass
class GameTree:
    """One round of a two-player variant as flat arrays (see the module docstring).

    Nodes: ``kind`` (0/1 seat to act, 2 chance, 3 terminal), ``iset`` (-1 off decision
    nodes), children ``first .. first + nchild``, ``prob`` of the chance edge into a
    node (1 after an action), ``action`` of the edge into it (-1 after chance),
    ``payoff`` (player 0's points minus player 1's, at terminals), ``depth``,
    ``deal_of`` (row of ``deals`` for a chance edge: seat 0's cards, seat 1's, table).
    Information sets: ``iset_player``, their legal actions ``iset_actions[iset_first[s]
    : iset_first[s] + iset_n[s]]`` (ascending ids, in the order of the children),
    a representative node ``iset_node`` and the trie node ``iset_trie`` of the
    observation trie (``trie_parent``, ``trie_kind``, ``trie_value``).
    """

    kind: np.ndarray
    iset: np.ndarray
    first: np.ndarray
    nchild: np.ndarray
    prob: np.ndarray
    action: np.ndarray
    payoff: np.ndarray
    depth: np.ndarray
    deal_of: np.ndarray
    deals: np.ndarray
    iset_player: np.ndarray
    iset_first: np.ndarray
    iset_n: np.ndarray
    iset_actions: np.ndarray
    iset_node: np.ndarray
    iset_trie: np.ndarray
    trie_parent: np.ndarray
    trie_kind: np.ndarray
    trie_value: np.ndarray
    root: np.ndarray
    params: np.ndarray
    cards: int
    _parent: np.ndarray | None = dataclasses.field(default=None, repr=False)

    @property
    def num_nodes(self) -> int:
        return int(self.kind.shape[0])

    @property
    def num_infosets(self) -> int:
        return int(self.iset_player.shape[0])

    def sizes(self) -> dict[str, int]:
        """Histories (all nodes), terminal, chance and decision nodes, information sets
        (and per player): the tree sizes reported in docs/results.md."""
        k = self.kind
        return {
            "histories": self.num_nodes,
            "terminal": int((k == TERMINAL).sum()),
            "chance": int((k == CHANCE).sum()),
            "decision": int((k < 2).sum()),
            "infosets": self.num_infosets,
            "infosets_p0": int((self.iset_player == 0).sum()),
            "infosets_p1": int((self.iset_player == 1).sum()),
            "iset_actions": int(self.iset_actions.shape[0]),
        }

    def parents(self) -> np.ndarray:
        """Parent of every node (-1 at the root); computed once."""
        if self._parent is not None:
            return self._parent
        parent = np.full(self.num_nodes, -1, dtype=np.int64)
        inner = np.flatnonzero(self.nchild > 0)
        parent[np.repeat(self.first[inner], self.nchild[inner])
               + _ranges(self.nchild[inner])] = np.repeat(inner, self.nchild[inner])
        self._parent = parent
        return parent

    def states(self, nodes: np.ndarray) -> np.ndarray:
        """Engine state rows (n, NCOL) of ``nodes`` (replayed from the root)."""
        nodes = np.asarray(nodes, dtype=np.int64).reshape(-1)
        out = np.empty((nodes.shape[0], K.NCOL), dtype=np.int64)
        _replay_rows(self.root, self.params, self.cards, self.parents(), self.kind,
                     self.action, self.deal_of, self.deals, nodes, out)
        return out

    def level_order(self) -> tuple[np.ndarray, np.ndarray]:
        """Nodes sorted by depth and the start of each depth in that order."""
        order = np.argsort(self.depth, kind="stable")
        starts = np.searchsorted(self.depth[order], np.arange(int(self.depth.max()) + 2))
        return order.astype(np.int64), starts.astype(np.int64)


def build_tree(root: np.ndarray, params: np.ndarray, cards: int, hand_size: int,
               table_size: int, jack_free_table: bool, capacity: int = 1 << 16) -> GameTree:
    """Enumerate the round that starts from the round-start state row ``root``.

    ``cards`` (a mask) are the cards the first deal hands out: ``hand_size`` to each
    seat and ``table_size`` to the table (added to ``root``'s table); the rest is the
    stock. ``params`` must be one-round params (``P_EPISODE_ROUND`` = 1) of 2 players.
    """
    if int(params[K.P_PLAYERS]) != 2 or int(params[K.P_EPISODE_ROUND]) != 1:
        raise ValueError("the solver needs two players and one-round episodes")
    root = np.ascontiguousarray(root, dtype=np.int64).copy()
    cap = int(capacity)
    while True:
        arrays = [np.zeros(cap, dtype=d) for _, d in _NODE_FIELDS]
        n_isets = max(cap // 2, 16)
        rest = [np.zeros((cap, 3), dtype=np.int64),
                np.zeros(n_isets, dtype=np.int8), np.zeros(n_isets, dtype=np.int64),
                np.zeros(n_isets, dtype=np.int64), np.zeros(cap, dtype=np.int64),
                np.zeros(n_isets, dtype=np.int64), np.zeros(n_isets, dtype=np.int64),
                np.zeros(2 * cap, dtype=np.int64), np.zeros(2 * cap, dtype=np.int64),
                np.zeros(2 * cap, dtype=np.int64), np.zeros(5, dtype=np.int64)]
        out = tuple(arrays + rest)
        n = _enumerate(root, params, int(cards), int(hand_size), int(table_size),
                       bool(jack_free_table), cap, out)
        if n == -2:
            raise RuntimeError("information-set key gave two different sets of legal actions")
        if n == -3:
            raise ValueError("the variant's tree is too wide to enumerate (stack overflow)")
        if n >= 0:
            break
        cap *= 2
    nn, ni, na, nd, nt = (int(x) for x in out[-1])
    node = {name: arr[:nn].copy() for (name, _), arr in zip(_NODE_FIELDS, arrays, strict=True)}
    (deals, ip, ifirst, inum, iact, inode, itrie, tp, tk, tv, _) = rest
    return GameTree(**node, deals=deals[:nd].copy(), iset_player=ip[:ni].copy(),
                    iset_first=ifirst[:ni].copy(), iset_n=inum[:ni].copy(),
                    iset_actions=iact[:na].copy(), iset_node=inode[:ni].copy(),
                    iset_trie=itrie[:ni].copy(), trie_parent=tp[:nt].copy(),
                    trie_kind=tk[:nt].copy(), trie_value=tv[:nt].copy(), root=root,
                    params=np.asarray(params, dtype=np.int64).copy(), cards=int(cards))


def variant_tree(engine: Any) -> GameTree:
    """The tree of a variant from a two-player one-round :class:`pasur_env.Engine`
    (its rules' deck, hand and table sizes; the ``redeal`` initial-table rule)."""
    rules = engine.rules
    if rules.num_players != 2 or engine.episode != "round":
        raise ValueError("exploitability needs a two-player variant with episode='round'")
    if rules.initial_jacks != "redeal":
        raise ValueError("the solver deals the first table jack-free: it needs "
                         "initial_jacks='redeal'")
    mask, hand, table = rules.deck_mask, rules.hand_size, rules.table_size
    if rules.deals_per_round > 3 or math.comb(rules.deck_size, 2 * hand + table) > 10**6:
        raise ValueError(f"the variant is too large to solve exactly ({rules.deck_size} "
                         f"cards, {rules.deals_per_round} deals)")
    root = engine.state[0].copy()
    for col in (K.HAND, K.HAND + 1, K.TABLE):
        root[col] = 0
    n = rules.deck_size
    first_deals = math.comb(n, hand) * math.comb(n - hand, hand) * math.comb(n - 2 * hand, table)
    capacity = 1 << max(16, int(first_deals * 512).bit_length())  # one pass for mini/small
    return build_tree(root, engine.params, mask, hand, table, True, capacity)


@njit(cache=True)
def _replay_rows(root: np.ndarray, params: np.ndarray, cards: int, parent: np.ndarray,
                 kind: np.ndarray, action: np.ndarray, deal_of: np.ndarray,
                 deals: np.ndarray, targets: np.ndarray, out: np.ndarray) -> None:
    """The state row of every node of ``targets``, replayed from the root along its
    path with the kernels (the deals written as in the enumeration)."""
    path = np.empty(1024, dtype=np.int64)
    info = np.zeros((1, K.NINFO), dtype=np.int64)
    tmp = np.empty(root.shape[0], dtype=np.int64)
    for i in range(targets.shape[0]):
        m = 0
        n = targets[i]
        while n > 0:
            path[m] = n
            m += 1
            n = parent[n]
        row = out[i]
        row[:] = root
        pend = -1
        for q in range(m - 1, -1, -1):
            n = path[q]
            if deal_of[n] >= 0:
                d = deals[deal_of[n]]
                if q == m - 1:
                    _write_first_deal(row, d[:2], d[2], cards)
                else:
                    unseen = _unseen_after(row, params, pend, cards, tmp, info)
                    _deal_and_apply(row, params, pend, d, unseen, info)
            elif kind[n] == CHANCE:
                pend = action[n]
            else:
                K.apply_action(row.reshape(1, row.shape[0]), 0, action[n], params, info, 0,
                               False)


# ---- policies, values, best response ---------------------------------------------------
def uniform_policy(tree: GameTree) -> np.ndarray:
    """The uniform random policy: one probability per information-set action."""
    return 1.0 / np.repeat(tree.iset_n, tree.iset_n).astype(np.float64)


@njit(cache=True)
def _reach(kind: np.ndarray, iset: np.ndarray, first: np.ndarray, nchild: np.ndarray,
           prob: np.ndarray, iset_first: np.ndarray, policy: np.ndarray,
           out: np.ndarray) -> None:
    """Top-down reach probabilities: ``out[n] = (player 0's, player 1's, chance's)``."""
    out[0, 0] = out[0, 1] = out[0, 2] = 1.0
    for n in range(kind.shape[0]):
        k = kind[n]
        if k == TERMINAL:
            continue
        for j in range(nchild[n]):
            c = first[n] + j
            out[c, 0], out[c, 1], out[c, 2] = out[n, 0], out[n, 1], out[n, 2]
            if k == CHANCE:
                out[c, 2] *= prob[c]
            else:
                out[c, k] *= policy[iset_first[iset[n]] + j]


@njit(cache=True)
def _values(kind: np.ndarray, iset: np.ndarray, first: np.ndarray, nchild: np.ndarray,
            prob: np.ndarray, payoff: np.ndarray, iset_first: np.ndarray,
            policy: np.ndarray, v: np.ndarray) -> None:
    """Bottom-up expected payoff of player 0 under ``policy`` at every node."""
    for n in range(kind.shape[0] - 1, -1, -1):
        k = kind[n]
        if k == TERMINAL:
            v[n] = payoff[n]
            continue
        acc = 0.0
        for j in range(nchild[n]):
            c = first[n] + j
            w = prob[c] if k == CHANCE else policy[iset_first[iset[n]] + j]
            acc += w * v[c]
        v[n] = acc


def expected_value(tree: GameTree, policy: np.ndarray) -> float:
    """Player 0's expected payoff (points) when both players follow ``policy``."""
    v = np.empty(tree.num_nodes)
    _values(tree.kind, tree.iset, tree.first, tree.nchild, tree.prob, tree.payoff,
            tree.iset_first, _check_policy(tree, policy), v)
    return float(v[0])


@njit(cache=True)
def _best_response(kind: np.ndarray, iset: np.ndarray, first: np.ndarray,
                   nchild: np.ndarray, prob: np.ndarray, payoff: np.ndarray,
                   iset_first: np.ndarray, iset_n: np.ndarray, policy: np.ndarray,
                   player: int, reach: np.ndarray, order: np.ndarray, starts: np.ndarray,
                   q: np.ndarray, best: np.ndarray) -> float:
    """Value for ``player`` of its best response to ``policy``, deciding each of its
    information sets level by level (all histories of a set share a depth)."""
    sign = 1.0 if player == 0 else -1.0
    v = np.empty(kind.shape[0])
    q[:] = 0.0
    for d in range(starts.shape[0] - 2, -1, -1):
        for i in range(starts[d], starts[d + 1]):
            n = order[i]
            k = kind[n]
            if k == TERMINAL:
                v[n] = sign * payoff[n]
            elif k == player:
                w = reach[n, 1 - player] * reach[n, 2]
                s = iset[n]
                for j in range(nchild[n]):
                    q[iset_first[s] + j] += w * v[first[n] + j]
            else:
                acc = 0.0
                for j in range(nchild[n]):
                    c = first[n] + j
                    acc += (prob[c] if k == CHANCE else policy[iset_first[iset[n]] + j]) * v[c]
                v[n] = acc
        for i in range(starts[d], starts[d + 1]):
            n = order[i]
            if kind[n] == player:
                s = iset[n]
                b = 0
                for j in range(1, iset_n[s]):
                    if q[iset_first[s] + j] > q[iset_first[s] + b]:
                        b = j
                best[s] = b
                v[n] = v[first[n] + b]
    return v[0]


def _check_policy(tree: GameTree, policy: np.ndarray) -> np.ndarray:
    p = np.ascontiguousarray(policy, dtype=np.float64)
    if p.shape != tree.iset_actions.shape:
        raise ValueError(f"a policy has one probability per information-set action "
                         f"({tree.iset_actions.shape[0]}), got shape {p.shape}")
    return p


def best_response_value(tree: GameTree, policy: np.ndarray, player: int,
                        _levels: tuple[np.ndarray, np.ndarray] | None = None
                        ) -> tuple[float, np.ndarray]:
    """``player``'s value (points) of its best response to the other player's
    ``policy``, and the best action index chosen at each of its information sets."""
    if player not in (0, 1):
        raise ValueError(f"player must be 0 or 1, got {player!r}")
    p = _check_policy(tree, policy)
    reach = np.empty((tree.num_nodes, 3))
    _reach(tree.kind, tree.iset, tree.first, tree.nchild, tree.prob, tree.iset_first, p, reach)
    order, starts = _levels if _levels is not None else tree.level_order()
    q = np.zeros(p.shape[0])
    best = np.full(tree.num_infosets, -1, dtype=np.int64)
    value = _best_response(tree.kind, tree.iset, tree.first, tree.nchild, tree.prob,
                           tree.payoff, tree.iset_first, tree.iset_n, p, player, reach,
                           order, starts, q, best)
    return float(value), best


def nash_conv(tree: GameTree, policy: np.ndarray,
              _levels: tuple[np.ndarray, np.ndarray] | None = None) -> dict[str, float]:
    """NashConv of the profile in which both players follow ``policy`` (points of the
    round's point difference): the sum of both players' best-response gains."""
    levels = _levels if _levels is not None else tree.level_order()
    u0 = expected_value(tree, policy)
    br0, _ = best_response_value(tree, policy, 0, levels)
    br1, _ = best_response_value(tree, policy, 1, levels)
    gains = (br0 - u0, br1 + u0)
    return {"nash_conv": gains[0] + gains[1], "gain_p0": gains[0], "gain_p1": gains[1],
            "value_p0": u0, "br_p0": br0, "br_p1": br1}


# ---- CFR+ ----------------------------------------------------------------------------------
@njit(cache=True)
def _regret_matching(regret: np.ndarray, iset_first: np.ndarray, iset_n: np.ndarray,
                     out: np.ndarray) -> None:
    """Current strategy: positive regrets normalised, uniform where none is positive."""
    for s in range(iset_first.shape[0]):
        a, m = iset_first[s], iset_n[s]
        tot = 0.0
        for j in range(m):
            tot += max(regret[a + j], 0.0)
        for j in range(m):
            out[a + j] = max(regret[a + j], 0.0) / tot if tot > 0.0 else 1.0 / m


@njit(cache=True)
def _cfr_plus_update(kind: np.ndarray, iset: np.ndarray, first: np.ndarray,
                     nchild: np.ndarray, prob: np.ndarray, payoff: np.ndarray,
                     iset_first: np.ndarray, iset_n: np.ndarray, player: int,
                     weight: float, regret: np.ndarray, avg: np.ndarray,
                     sigma: np.ndarray, reach: np.ndarray, v: np.ndarray) -> None:
    """One CFR+ half-iteration for ``player``: regrets (floored at 0) and its average
    strategy weighted by ``weight`` (linear averaging: the iteration number)."""
    _regret_matching(regret, iset_first, iset_n, sigma)
    _reach(kind, iset, first, nchild, prob, iset_first, sigma, reach)
    _values(kind, iset, first, nchild, prob, payoff, iset_first, sigma, v)
    sign = 1.0 if player == 0 else -1.0
    for n in range(kind.shape[0]):
        if kind[n] != player:
            continue
        a = iset_first[iset[n]]
        cf = reach[n, 1 - player] * reach[n, 2]
        own = reach[n, player]
        for j in range(nchild[n]):
            regret[a + j] += cf * sign * (v[first[n] + j] - v[n])
            avg[a + j] += weight * own * sigma[a + j]
    for i in range(regret.shape[0]):
        if regret[i] < 0.0:
            regret[i] = 0.0


class CFRPlus:
    """CFR+ (regret matching+, alternating updates, linear averaging) over a
    :class:`GameTree`; ``average_policy()`` converges to a Nash equilibrium."""

    def __init__(self, tree: GameTree) -> None:
        self.tree = tree
        m = tree.iset_actions.shape[0]
        self.regret = np.zeros(m)
        self.avg = np.zeros(m)
        self.iteration = 0
        self._sigma = np.zeros(m)
        self._reach = np.empty((tree.num_nodes, 3))
        self._v = np.empty(tree.num_nodes)
        self._levels = tree.level_order()

    def run(self, iterations: int) -> None:
        """Run ``iterations`` more iterations (each updates player 0, then player 1)."""
        t = self.tree
        for _ in range(int(iterations)):
            self.iteration += 1
            for player in (0, 1):
                _cfr_plus_update(t.kind, t.iset, t.first, t.nchild, t.prob, t.payoff,
                                 t.iset_first, t.iset_n, player, float(self.iteration),
                                 self.regret, self.avg, self._sigma, self._reach, self._v)

    def current_policy(self) -> np.ndarray:
        out = np.empty_like(self.regret)
        _regret_matching(self.regret, self.tree.iset_first, self.tree.iset_n, out)
        return out

    def average_policy(self) -> np.ndarray:
        """The weighted average strategy (uniform at information sets never reached)."""
        t = self.tree
        sums = np.add.reduceat(self.avg, t.iset_first) if self.avg.size else self.avg
        tot = np.repeat(sums, t.iset_n)
        uni = 1.0 / np.repeat(t.iset_n, t.iset_n)
        return np.where(tot > 0, self.avg / np.where(tot > 0, tot, 1.0), uni)

    def nash_conv(self) -> dict[str, float]:
        """NashConv of the current average policy."""
        return nash_conv(self.tree, self.average_policy(), self._levels)


# ---- policy files ---------------------------------------------------------------------------
#: params entries that do not change the round a policy was solved for
_FREE_PARAMS = (K.P_TARGET, K.P_EPISODE_ROUND)


def variant_signature(params: np.ndarray) -> np.ndarray:
    """The rule params that fix a variant's round (target score and episode length
    masked): a policy file is refused by an engine whose signature differs."""
    sig = np.asarray(params, dtype=np.int64).copy()
    sig[list(_FREE_PARAMS)] = 0
    return sig


def save_policy(path: Any, tree: GameTree, policy: np.ndarray, preset: str | None,
                **extra: Any) -> None:
    """Write ``policy`` with what an agent needs to play it (``cfr:PATH``): the variant's
    signature, the information sets' trie keys and actions. ``extra`` arrays (CFR+
    regrets, sums, iteration) are kept for ``--resume``."""
    np.savez_compressed(
        path, policy=_check_policy(tree, policy), signature=variant_signature(tree.params),
        preset=np.array(preset or "custom"), iset_player=tree.iset_player,
        iset_first=tree.iset_first, iset_n=tree.iset_n,
        iset_actions=tree.iset_actions.astype(np.int8),
        iset_trie=tree.iset_trie, trie_parent=tree.trie_parent,
        trie_kind=tree.trie_kind.astype(np.int8), trie_value=tree.trie_value,
        root_dealer=np.array(int(tree.root[K.DEALER])), **extra)
