"""The Persian Rummy toolkit for writing agents: the options of a decision, what each
puts on the table and the actions that play it.

The engine's actions are small steps (a meld is its PICKs in ascending card id order,
then MELD; a lay-off onto one of several melds is LAY_OFF then TARGET), but an agent
thinks in *options*: draw from the stock, take the discard pile from a card up, pass,
lay a meld, lay off a card onto a table meld, discard a card. :func:`turn_options`
lists them at any decision of a game, the middle of a meld included (cards already
picked: the melds that finish it), each as an :class:`Option` with its cards, points
and the action sequence that plays it from here. An agent is called at every
decision, so it returns ``option.action`` (the first action) and is called again for
the rest; a deterministic choice picks the same meld again.

The options are found by the engine's compiled rules: the legal sets of
:mod:`pasur_env.rummy.kernels.legal` (draws, lay-offs, discards), and each candidate
meld is played PICK by PICK on a scratch copy of the game through the engine's
``is_legal`` and ``apply_action``, so an option exists exactly when the engine accepts
its actions; a meld's points are :func:`agents.rummy.plan.meld_points`, what the
built-in agents plan with. ``tests/test_toolkit.py`` checks the options against a
search over the engine's legal actions.

Example (meld the most points, else discard the most valuable card)::

    from agents.rummy.toolkit import choose_actions

    def best_points(options):
        return max(options, key=lambda o: (o.kind in ("meld", "layoff"), o.points,
                                           o.kind == "discard" and o.value, -o.action))

    actions = choose_actions(view, best_points)  # one legal action per decision
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from agents.core.toolkit import (
    MAX_ACTIONS,
    ActionSequence,
    choose_with,
    engine_games,
    per_decision,
    row_packer,
)
from agents.rummy.plan import meld_points
from pasur_env.core.bits import highest, lowest, popcount
from pasur_env.core.compile import njit
from pasur_env.core.policy import GameView
from pasur_env.rummy import kernels as K
from pasur_env.rummy.cards import card_code, cards_of
from pasur_env.rummy.engine import RummyEngine
from pasur_env.rummy.kernels.legal import (
    discard_cards,
    is_legal,
    layoff_cards,
    layoff_count,
    pile_index,
    take_cards,
    target_ok,
)
from pasur_env.rummy.kernels.melds import SUIT0_BITS, card_at, extends, mask_value, run_places
from pasur_env.rummy.kernels.step import apply_action

__all__ = ["Option", "KINDS", "turn_options", "options_of_view", "choose_actions",
           "option_arrays", "game_options"]

#: the option kinds, by their number in :func:`option_arrays`
KINDS = ("draw", "take", "pass", "meld", "layoff", "discard")
_DRAW, _TAKE, _PASS, _MELD, _LAYOFF, _DISCARD = range(6)
#: options of one decision the buffers hold: every meld of a hand (at most 14 rank
#: nibbles x 5 sets and 4 suits x 66 runs), every lay-off (card x meld), every discard
OPTION_BUF = 2048
#: columns of the per-option facts: kind, cards (mask), card, meld, points, value,
#: goes out, number of actions
F_KIND, F_CARDS, F_CARD, F_MELD, F_POINTS, F_VALUE, F_OUT, F_NACTS = range(8)
NFACTS = 8


@dataclass(frozen=True)
class Option(ActionSequence):
    """One option of the mover at a decision.

    Attributes:
        kind: ``"draw"`` (the stock's top card), ``"take"`` (the discard pile from
            ``card`` up), ``"pass"`` (stock empty), ``"meld"`` (a new meld from the hand),
            ``"layoff"`` (``card`` onto table meld ``meld``) or ``"discard"`` (``card``,
            ending the turn).
        cards: the cards it moves, ascending ids: the cards taken, the meld's cards
            (those already picked included), the card laid off or discarded; ``()`` for
            a draw or a pass.
        card: the card the option is about: the target of a take (it must then be
            melded this turn), the card laid off or discarded; -1 otherwise.
        meld: the index (table order) of the meld a lay-off extends; -1 otherwise.
        points: points put on the table: a meld's card values (a four-set laid at once
            counts double when the rule says so), a lay-off's card value; 0 otherwise
            (the 25 for going out are not in here: see ``goes_out``).
        value: the card values of ``cards`` (what a discard keeps out of the hand's
            count, what a take adds to it).
        goes_out: whether the option empties the hand and so ends the round.
        actions: the action ids that play it from this decision, in order.
    """

    kind: str
    cards: tuple[int, ...]
    card: int
    meld: int
    points: int
    value: int
    goes_out: bool
    actions: tuple[int, ...]

    def __str__(self) -> str:
        codes = " ".join(card_code(c) for c in self.cards)
        if self.kind in ("draw", "pass"):
            return self.kind
        if self.kind == "take":
            return f"take {card_code(self.card)} ({codes})"
        if self.kind == "layoff":
            return f"lay off {card_code(self.card)} on meld {self.meld}"
        return f"{self.kind} {codes}"


@njit(cache=True)
def _put(facts: np.ndarray, acts: np.ndarray, n: int, kind: int, cards: int, card: int,
         meld: int, points: int, out: bool, action: int) -> int:
    """Write one option's facts and first action in row ``n``; return ``n + 1``."""
    if n >= facts.shape[0]:
        raise ValueError("more options than the option buffer holds")
    facts[n, F_KIND], facts[n, F_CARDS], facts[n, F_CARD] = kind, cards, card
    facts[n, F_MELD], facts[n, F_POINTS], facts[n, F_OUT] = meld, points, 1 if out else 0
    facts[n, F_VALUE] = mask_value(cards)
    facts[n, F_NACTS] = 1
    acts[n, 0] = action
    return n + 1


@njit(cache=True)
def _draw_options(st: np.ndarray, b: int, facts: np.ndarray, acts: np.ndarray) -> int:
    """DRAW_STOCK or PASS, and a take of every pile card the engine allows."""
    if st[b, K.STOCK_POS] < K.NUM_CARDS:
        n = _put(facts, acts, 0, _DRAW, 0, -1, -1, 0, False, K.DRAW_STOCK)
    else:
        n = _put(facts, acts, 0, _PASS, 0, -1, -1, 0, False, K.PASS)
    takes = take_cards(st, b)
    while takes:
        c = lowest(takes)
        takes &= takes - 1
        taken = 0
        for k in range(pile_index(st, b, c), st[b, K.PILE_N]):
            taken |= 1 << st[b, K.PILE + k]
        n = _put(facts, acts, n, _TAKE, taken, c, -1, 0, False, K.TAKE0 + c)
    return n


@njit(cache=True)
def _meld_candidates(pool: int, out: np.ndarray) -> int:
    """Every set-shaped (3+ cards of a rank nibble, jokers included) and run-shaped (3+
    consecutive places of a suit) subset of ``pool``; which are melds the engine says."""
    n = 0
    for r in range(14):
        nib = pool & (0xF << (4 * r))
        sub = nib
        while sub:
            if popcount(sub) >= 3:
                out[n] = sub
                n += 1
            sub = (sub - 1) & nib
    for s in range(4):
        p = run_places(pool & (SUIT0_BITS << s), s)
        for lo in range(13):
            m = 0
            for hi in range(lo, 13):
                if not (p >> hi) & 1:
                    break
                m |= 1 << card_at(s, hi)
                if hi - lo >= 2:
                    out[n] = m
                    n += 1
    return n


@njit(cache=True)
def _plays_meld(st: np.ndarray, b: int, params: np.ndarray, m: int, work: np.ndarray,
                info: np.ndarray, acts: np.ndarray) -> int:
    """Play meld ``m`` from game ``b``'s decision on the scratch row ``work``: each PICK
    and the MELD must be legal (the engine's ``is_legal``). Writes the actions to
    ``acts``; returns their number, 0 if the engine refuses one."""
    work[0, :] = st[b, :]
    rest = m & ~st[b, K.PICKED]
    n = 0
    while rest:
        a = K.PICK0 + lowest(rest)
        rest &= rest - 1
        if not is_legal(work, 0, a):
            return 0
        apply_action(work, 0, a, params, info, False)
        acts[n] = a
        n += 1
    if not is_legal(work, 0, K.MELD_ACTION):
        return 0
    acts[n] = K.MELD_ACTION
    return n + 1


@njit(cache=True)
def _meld_options(st: np.ndarray, b: int, params: np.ndarray, facts: np.ndarray,
                  acts: np.ndarray, n: int) -> int:
    """Every meld the engine lets the mover lay from here (finishing the picked one)."""
    hand = st[b, K.HAND + st[b, K.MOVER]]
    picked = st[b, K.PICKED]
    pool = picked | (hand & ~((1 << (highest(picked) + 1)) - 1)) if picked else hand
    cands = np.empty(512, dtype=np.int64)
    work = np.empty((1, K.NCOL), dtype=np.int64)
    info = np.zeros(K.NINFO, dtype=np.int64)
    seq = np.empty(MAX_ACTIONS, dtype=np.int64)
    fd = params[K.P_FOUR_DOUBLE] != 0
    for i in range(_meld_candidates(pool, cands)):
        m = cands[i]
        if (m & picked) != picked:
            continue
        k = _plays_meld(st, b, params, m, work, info, seq)
        if k:
            n = _put(facts, acts, n, _MELD, m, -1, -1, meld_points(m, fd), (hand & ~m) == 0,
                     seq[0])
            facts[n - 1, F_NACTS] = k
            acts[n - 1, :k] = seq[:k]
    return n


@njit(cache=True)
def _layoff_options(st: np.ndarray, b: int, facts: np.ndarray, acts: np.ndarray,
                    n: int) -> int:
    """Every (card, meld) lay-off: LAY_OFF, then TARGET when the card extends several
    melds; in the CHOOSE phase the pending card's TARGETs."""
    hand = st[b, K.HAND + st[b, K.MOVER]]
    choose = st[b, K.PHASE] == K.CHOOSE
    cand = (1 << st[b, K.PENDING]) if choose else layoff_cards(st, b)
    while cand:
        c = lowest(cand)
        cand &= cand - 1
        several = layoff_count(st, b, c) > 1
        for m in range(st[b, K.NMELDS]):
            if not (target_ok(st, b, m) if choose else extends(st[b, K.MELD + m], c)):
                continue
            n = _put(facts, acts, n, _LAYOFF, 1 << c, c, m, mask_value(1 << c),
                     hand == (1 << c), K.TARGET0 + m if choose else K.LAYOFF0 + c)
            if several and not choose:
                acts[n - 1, 1] = K.TARGET0 + m
                facts[n - 1, F_NACTS] = 2
    return n


@njit(cache=True)
def game_options(st: np.ndarray, b: int, params: np.ndarray, facts: np.ndarray,
                  acts: np.ndarray) -> int:
    """Every option of game ``b``'s mover, for compiled agents: row ``i`` of ``facts``
    holds option ``i``'s kind (an index into :data:`KINDS`), cards (mask), card, meld,
    points, value, goes-out flag and number of actions (columns ``F_*``), row ``i`` of ``acts`` its
    actions (buffers of :data:`OPTION_BUF` rows; a ``ValueError`` if they overflow).
    Returns the number of options, 0 when DONE."""
    ph = st[b, K.PHASE]
    if ph == K.DRAW:
        return _draw_options(st, b, facts, acts)
    if ph == K.CHOOSE:
        return _layoff_options(st, b, facts, acts, 0)
    if ph != K.MELDING:
        return 0
    n = _meld_options(st, b, params, facts, acts, 0)
    if st[b, K.PICKED]:
        return n
    n = _layoff_options(st, b, facts, acts, n)
    hand = st[b, K.HAND + st[b, K.MOVER]]
    last_out = params[K.P_DISCARD_OUT] != 0
    discards = discard_cards(st, b)
    while discards:
        c = lowest(discards)
        discards &= discards - 1
        n = _put(facts, acts, n, _DISCARD, 1 << c, c, -1, 0, last_out and hand == (1 << c),
                 K.DISCARD0 + c)
    return n


_PACK = row_packer(game_options, OPTION_BUF)


def option_arrays(engine_or_view: RummyEngine | GameView, games: Sequence[int] | np.ndarray
                  ) -> dict[str, np.ndarray]:
    """The options of several games as arrays, for batched agents (one compiled pass).

    Returns a dict of ``offsets`` (game ``games[i]``'s options are rows
    ``offsets[i]:offsets[i + 1]``) and per option ``kind`` (an index into
    :data:`KINDS`), ``cards`` (a card mask), ``card``, ``meld``, ``points``, ``value``,
    ``goes_out``, ``num_actions`` and ``actions`` (rows padded with -1).
    """
    eng, idx = engine_games(engine_or_view, games, RummyEngine, "Persian Rummy")
    offsets, f, acts = _PACK(eng, idx, NFACTS)
    return {"offsets": offsets, "kind": f[:, F_KIND], "cards": f[:, F_CARDS],
            "card": f[:, F_CARD], "meld": f[:, F_MELD], "points": f[:, F_POINTS],
            "value": f[:, F_VALUE], "goes_out": f[:, F_OUT].astype(bool),
            "num_actions": f[:, F_NACTS], "actions": acts}


def _options_from(arr: dict[str, np.ndarray]) -> list[Option]:
    """The :class:`Option` of every row of :func:`option_arrays`."""
    cols = {k: v.tolist() for k, v in arr.items() if k != "offsets"}
    return [
        Option(kind=KINDS[kind], cards=tuple(cards_of(cards)), card=card, meld=meld,
               points=pts, value=value, goes_out=out, actions=tuple(acts[:k]))
        for kind, cards, card, meld, pts, value, out, k, acts in zip(
            cols["kind"], cols["cards"], cols["card"], cols["meld"], cols["points"],
            cols["value"], cols["goes_out"], cols["num_actions"], cols["actions"], strict=True)
    ]


def turn_options(engine_or_view: RummyEngine | GameView, game: int = 0) -> list[Option]:
    """Every option open to the mover of ``game`` (an index into the engine) now.

    At the start of a turn: the draw (or the pass) and every take the engine allows.
    In the meld phase: every meld (only those containing the target while it must be
    melded; only the melds that finish the picked cards once a meld is begun), every
    lay-off, and every discard (once the target is melded). In the CHOOSE phase (a
    lay-off card that extends several melds): a lay-off per meld. Empty when DONE.
    """
    return _options_from(option_arrays(engine_or_view, [game]))


def options_of_view(view: GameView) -> list[list[Option]]:
    """:func:`turn_options` of every decision of ``view`` (one list per ``view.games``)."""
    return per_decision(view, option_arrays, _options_from)


def choose_actions(view: GameView, choose: Callable[[list[Option]], Option]) -> np.ndarray:
    """One action per decision of ``view``: ``choose(options)`` picks one of the
    decision's options and its :attr:`Option.action` is played. What a
    one-decision-at-a-time agent's ``act`` returns (an agent that needs more than the
    options loops over :func:`options_of_view` itself)."""
    return choose_with(view, options_of_view(view), choose)
