"""Expert-rules agent: immediate value minus the expected best reply of the next player.

Every full move open to the mover is scored from what the mover may see (own hand,
table, piles, scores, stock size, turn, last capturer, the Ru Baaz face-up card, and
the *set* of unseen cards from ``pasur_env.pasur.kernels.hidden_from``), and the best
score is played. The score of a move ``(card, captured)`` that leaves table ``T'``:

* **gain**: points won (10♦ 3, 2♣ 2, aces, jacks; the played card included) plus
  ``sur_points`` for a sur (``capture_is_sur``), plus the change in the *club value*;
* **club value**: ``clubs_points × (P(my side ends with strictly most clubs) −
  P(the strongest other side does))`` with the clubs not yet captured split evenly
  at random (binomial). A club is worth most while the majority is open and nothing
  once a side holds 7 of 13;
* **threat**: the expected value of the next player's best reply on ``T'``: the
  next player's hand is treated as a uniformly random draw of its size from the
  unseen cards (plus their known face-up card under ``open_hand``); each card's
  reply value is its best capture on ``T'`` (points, sur via ``capture_is_sur`` on a
  copy of the state with table ``T'``, club value), 0 if it captures nothing; the
  expectation of the maximum over the hand is exact (hypergeometric order
  statistics). This single term makes the agent avoid leaving surs (a table whose
  numerals sum to 10 or less that an unseen card completes, a lone king or queen),
  avoid laying point cards where they are easy to take, and prefer lays that leave
  nothing to capture;
* **jacks**: capturing with a jack costs ``jack_cost`` (its value for a later, fuller
  table); ``last_deal_jack_cost`` in the last deal;
* **end of round**: the last deal is never a sur; at the last two turns the leftover
  cards go to the last capturer, which is scored exactly (my last capture takes the
  table; the final reply takes it all; a final lay hands it to the last capturer);
* **setup**: ``setup`` × my best capture value on ``T'`` with my remaining hand
  (a small bonus for lays that prepare a capture I hold).

The score is ``gain − threat_weight × threat − jack term + setup term``; ties go to
the first move in engine order. Each rule is a compiled function of its own
(:func:`club_value`, :func:`move_gain`, :func:`reply_threat`, :func:`final_reply_threat`,
:func:`leftover_value`, :func:`setup_value`; :func:`heuristic_scores` combines them),
so it can be tested alone; the whole runs as one compiled kernel over the batch.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import prange

from agents.core.base import Agent
from agents.pasur.moves import (
    EMPTY,
    MOVE_BUF,
    ROW0,
    decision_moves,
    emit_action,
    low,
    popcnt,
    side_of,
)
from pasur_env.core.compile import njit
from pasur_env.core.policy import GameView, check_actions
from pasur_env.pasur import kernels as K

__all__ = ["HeuristicAgent", "DEFAULT_PARAMS", "heuristic_action"]

# ---- tunable weights (index into the float64 vector passed to the kernels) -------------
H_THREAT, H_JACK, H_SETUP, H_CLUB, H_LASTDEAL_JACK = 0, 1, 2, 3, 4
#: defaults, tuned with duplicate-deal matches against the greedy agent
DEFAULT_PARAMS: dict[str, float] = {
    "threat_weight": 2.0,
    "jack_cost": 1.5,
    "setup": 0.4,
    "club_weight": 0.75,
    "last_deal_jack_cost": 1.0,
}
_ORDER = ("threat_weight", "jack_cost", "setup", "club_weight", "last_deal_jack_cost")

_BINOM = np.zeros((53, 53), dtype=np.float64)
for _n in range(53):
    _BINOM[_n, 0] = 1.0
    for _k in range(1, _n + 1):
        _BINOM[_n, _k] = _BINOM[_n - 1, _k - 1] + (_BINOM[_n - 1, _k] if _k <= _n - 1 else 0.0)

#: batch size from which the heuristic kernel runs on several threads
PARALLEL_MIN = 64
#: scratch arrays of the reply computations: best value per rank and club-ness, rank
#: has a capture, options, sorted reply values, the option search's stack (made once per
#: scoring: a heuristic move asks for the options of up to 13 ranks twice per move, and
#: an allocation costs about as much as a small search)
ReplyBuffers = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


@njit("float64(int64, int64, int64, float64)", cache=True)
def club_value(me: int, op: int, rem: int, award: float) -> float:
    """``award × (P(me strictly most) − P(op strictly most))``, ``rem`` clubs split 50/50."""
    if award == 0.0:
        return 0.0
    v = 0.0
    scale = 0.5**rem
    for x in range(rem + 1):
        a = me + x
        o = op + rem - x
        if a > o:
            v += _BINOM[rem, x] * scale
        elif o > a:
            v -= _BINOM[rem, x] * scale
    return award * v


@njit(cache=True)
def hand_size(st: np.ndarray, b: int, seat: int, num_players: int, hand: int = 4) -> int:
    """Cards in ``seat``'s hand, from public turn counts (the ``hand`` cards dealt, 4 but
    in a small variant, minus turns played this deal)."""
    t = st[b, K.TURN] % (hand * num_players)
    pos = (seat - st[b, K.DEALER] - 1) % num_players
    played = (t - pos + num_players - 1) // num_players if t > pos else 0
    if st[b, K.PHASE] == K.CAPTURE and st[b, K.MOVER] == seat:
        played += 1  # the pending card has left the hand
    return hand - played


@njit("void(float64[::1], int64, float64)", cache=True)
def _insert_desc(vals: np.ndarray, n: int, v: float) -> None:
    """Insert ``v`` into the descending prefix ``vals[:n]``."""
    i = n
    while i > 0 and vals[i - 1] < v:
        vals[i] = vals[i - 1]
        i -= 1
    vals[i] = v


@njit(cache=True)
def _reply_values(
    scratch: np.ndarray,
    params: np.ndarray,
    table: int,
    opd: np.ndarray,
    best: np.ndarray,
    has: np.ndarray,
    opts: np.ndarray,
    ranks: int,
    stack: np.ndarray,
) -> None:
    """Best capture value on ``table`` for a card of each rank in ``ranks`` (bit r).

    ``best[r, 0]``: played card not a club; ``best[r, 1]``: a club (its own club counts).
    ``opd[k]``: value of winning k clubs for the replying side. Sur status comes from
    ``capture_is_sur`` on ``scratch`` (a copy of the game with table ``table``).
    """
    sur_pts = params[K.P_SUR_POINTS]
    scratch[0, K.TABLE] = table
    for r in range(13):
        has[r] = False
        if not (ranks >> r) & 1:
            continue
        card = 4 * r + 1
        if r != 10 and K.take_bits(table, card, EMPTY) == 0:
            continue
        k = K.enumerate_options_into(table, card, opts, stack)
        if k <= 0:
            continue
        has[r] = True
        b0 = -1e9
        b1 = -1e9
        for i in range(k):
            o = opts[i]
            base = float(K.card_points(o))
            if K.capture_is_sur(scratch, ROW0, params, card, o):
                base += sur_pts
            kc = popcnt(o & K.CLUB_BITS)
            v0 = base + opd[kc]
            v1 = base + opd[kc + 1]
            if v0 > b0:
                b0 = v0
            if v1 > b1:
                b1 = v1
        best[r, 0] = b0
        best[r, 1] = b1


# ---- the rules, one function each ------------------------------------------------------
@njit(cache=True)
def club_standing(st: np.ndarray, b: int, sides: int, side: int,
                  deck_clubs: int = 13) -> tuple[int, int, int]:
    """(clubs of my side, clubs of the strongest other side, clubs not yet captured, of
    the ``deck_clubs`` in play)."""
    my_clubs = 0
    op_clubs = 0
    all_clubs = 0
    for s in range(sides):
        c = popcnt(st[b, K.PILE + s] & K.CLUB_BITS)
        all_clubs += c
        if s == side:
            my_clubs = c
        elif c > op_clubs:
            op_clubs = c
    return my_clubs, op_clubs, deck_clubs - all_clubs


@njit(cache=True)
def located_cards(st: np.ndarray, b: int, sides: int, hand: int, unseen: int) -> int:
    """Cards whose place the mover knows or has drawn as unseen: table, own hand, the
    unseen set, the pending card, the piles. The rest are other seats' face-up cards."""
    located = st[b, K.TABLE] | hand | unseen
    pending = st[b, K.PENDING]
    if pending >= 0:
        located |= 1 << pending
    for s in range(sides):
        located |= st[b, K.PILE + s]
    return located


@njit(cache=True)
def next_hand(
    st: np.ndarray, b: int, params: np.ndarray, seat: int, final_move: bool, open_hand: bool,
    located: int, n_unseen: int,
) -> tuple[bool, int, int]:
    """The next player's hand as the mover sees it: (a new deal comes first, its known
    face-up card or -1, how many of its cards are unknown draws from the unseen)."""
    P, hand = params[K.P_PLAYERS], params[K.P_HAND_SIZE]
    h = hand_size(st, b, (seat + 1) % P, P, hand)
    new_deal = h == 0 and not final_move
    if new_deal:
        h = hand
    faceup = -1
    if open_hand and not new_deal and h > 0:
        vis = params[K.P_DECK] & ~located  # the cards in play
        if vis:
            faceup = low(vis)
    m = h - (1 if faceup >= 0 else 0)
    if m > n_unseen:
        m = n_unseen
    return new_deal, faceup, m


@njit(cache=True)
def best_of_draw_weights(n_unseen: int, m: int, w: np.ndarray) -> None:
    """``w[i]``: probability that the i-th best unseen card is the best of ``m`` drawn
    (hypergeometric order statistics)."""
    if m > 0:
        w[0] = m / n_unseen
        for i in range(1, n_unseen):
            w[i] = w[i - 1] * (n_unseen - i - m + 1) / (n_unseen - i)


@njit(cache=True)
def rank_set(cards: int) -> int:
    """The ranks present in a card set, as bits 0..12."""
    ranks = 0
    while cards:
        ranks |= 1 << (low(cards) >> 2)
        cards &= cards - 1
    return ranks


@njit(cache=True)
def move_gain(
    st: np.ndarray, b: int, params: np.ndarray, hp: np.ndarray, c: int, cap: int,
    my_clubs: int, op_clubs: int, rem: int, award: float, v_now: float, last_deal: bool,
) -> tuple[float, int, int, int]:
    """Immediate value of move ``(c, cap)``: points won, sur, change of the club value,
    minus the cost of spending a jack. Returns (gain, my clubs after, clubs left,
    table after)."""
    table = st[b, K.TABLE]
    if cap == 0:
        return 0.0, my_clubs, rem, table | (1 << c)
    won = cap | (1 << c)
    kc = popcnt(won & K.CLUB_BITS)
    gain = float(K.card_points(won))
    if K.capture_is_sur(st, b, params, c, cap):
        gain += params[K.P_SUR_POINTS]
    a = my_clubs + kc
    r = rem - kc
    gain += club_value(a, op_clubs, r, award) - v_now
    if (c >> 2) == 10:
        gain -= hp[H_LASTDEAL_JACK] if last_deal else hp[H_JACK]
    return gain, a, r, table & ~cap


@njit(cache=True)
def leftover_value(
    t2: int, a: int, op_clubs: int, r: int, award: float, v_after: float, mine_side: bool
) -> float:
    """My move ends the round: the leftover table ``t2`` goes to the last capturer (§6),
    worth this much to me (negative when it goes to the other side)."""
    kc = popcnt(t2 & K.CLUB_BITS)
    if mine_side:
        return K.card_points(t2) + club_value(a + kc, op_clubs, r - kc, award) - v_after
    val = K.card_points(t2) + v_after - club_value(a, op_clubs + kc, r - kc, award)
    return -val


@njit(cache=True)
def replier_club_values(
    opd: np.ndarray, v_after: float, a: int, op_clubs: int, r: int, award: float
) -> None:
    """``opd[k]``: what winning k more clubs is worth to the replying side."""
    for k in range(r + 1):
        opd[k] = v_after - club_value(a, op_clubs + k, r - k, award)
    for k in range(r + 1, 15):
        opd[k] = opd[r]


@njit(cache=True)
def final_reply_threat(
    t2: int, unseen: int, faceup: int, m: int, opd: np.ndarray, a: int, op_clubs: int,
    r: int, award: float, v_after: float, mine_side: bool, nobody: bool,
) -> float:
    """The next move ends the round: a capture takes the whole table, a lay leaves table
    and card to the last capturer (no sur in the last deal). Mean over the reply cards."""
    tot = 0.0
    cnt = 0
    u = unseen | ((1 << faceup) if faceup >= 0 else 0)
    while u:
        x = low(u)
        u &= u - 1
        everything = t2 | (1 << x)
        kc = popcnt(everything & K.CLUB_BITS)
        whole = K.card_points(everything) + opd[min(kc, r)]
        nopt, _cap = K.resolve_play(t2, x)
        if nopt > 0:
            v = whole
        elif nobody:
            v = 0.0
        elif mine_side:  # they lay; the leftover comes to my side
            v = -(
                K.card_points(everything)
                + club_value(a + kc, op_clubs, r - kc, award)
                - v_after
            )
        else:
            v = whole
        if faceup >= 0 and x == faceup and m == 0:
            return v
        tot += v
        cnt += 1
    return tot / cnt


@njit(cache=True)
def reply_threat(
    scratch: np.ndarray, params: np.ndarray, t2: int, opd: np.ndarray, ranks: int,
    unseen: int, faceup: int, m: int, w: np.ndarray, buf: ReplyBuffers,
) -> float:
    """Expected value of the next player's best reply on table ``t2``: its unknown cards
    a uniform draw of ``m`` from the unseen (plus a known face-up card), exact over the
    draw (order statistics with weights ``w``)."""
    best, has, opts, vals, stack = buf
    _reply_values(scratch, params, t2, opd, best, has, opts, ranks, stack)
    nv = 0
    u = unseen
    while u:
        x = low(u)
        u &= u - 1
        rr = x >> 2
        v = 0.0
        if has[rr]:
            v = best[rr, 1 if (x & 3) == 0 else 0] + K.card_points(1 << x)
        _insert_desc(vals, nv, v)
        nv += 1
    vf = 0.0
    if faceup >= 0:
        rr = faceup >> 2
        if has[rr]:
            vf = best[rr, 1 if (faceup & 3) == 0 else 0] + K.card_points(1 << faceup)
    if m == 0:
        return vf
    threat = 0.0
    for j in range(nv):
        threat += w[j] * max(vals[j], vf)
    return threat


@njit(cache=True)
def setup_value(
    scratch: np.ndarray, params: np.ndarray, t2: int, rest: int, a: int, op_clubs: int,
    r: int, award: float, v_after: float, mine: np.ndarray, buf: ReplyBuffers,
) -> float:
    """My best capture value on ``t2`` with the cards I keep (``rest``): what a lay
    prepares for my next turn."""
    best, has, opts, _vals, stack = buf
    for k in range(r + 1):
        mine[k] = club_value(a + k, op_clubs, r - k, award) - v_after
    for k in range(r + 1, 15):
        mine[k] = mine[r]
    _reply_values(scratch, params, t2, mine, best, has, opts, rank_set(rest), stack)
    bestmine = 0.0
    q = rest
    while q:
        x = low(q)
        q &= q - 1
        rr = x >> 2
        if has[rr]:
            v = best[rr, 1 if (x & 3) == 0 else 0] + K.card_points(1 << x)
            if v > bestmine:
                bestmine = v
    return bestmine


@njit(cache=True)
def heuristic_scores(
    st: np.ndarray,
    b: int,
    params: np.ndarray,
    open_hand: bool,
    hp: np.ndarray,
    cards: np.ndarray,
    capts: np.ndarray,
    n: int,
    scores: np.ndarray,
) -> None:
    """Score the ``n`` full moves ``(cards[i], capts[i])`` of game ``b``'s mover."""
    P = params[K.P_PLAYERS]
    S = params[K.P_SIDES]
    seat = st[b, K.MOVER]
    side = side_of(seat, P)
    hand = st[b, K.HAND + seat]
    unseen = K.hidden_from(st, b, seat, open_hand)
    my_clubs, op_clubs, rem = club_standing(st, b, S, side, popcnt(params[K.P_DECK] & K.CLUB_BITS))
    award = float(params[K.P_CLUBS_POINTS] if params[K.P_CLUBS_RULE] == 0 else 7)
    award *= hp[H_CLUB]
    v_now = club_value(my_clubs, op_clubs, rem, award)
    last_deal = st[b, K.STOCK_POS] >= 52
    turns_left = K.turns_per_round(params) - st[b, K.TURN]
    final_move = turns_left == 1  # my move ends the round
    final_reply = turns_left == 2  # the next player's move ends it
    last_cap = st[b, K.LAST_CAP]
    n_unseen = popcnt(unseen)
    located = located_cards(st, b, S, hand, unseen)
    new_deal, faceup, m = next_hand(st, b, params, seat, final_move, open_hand, located, n_unseen)
    scratch = st[b : b + 1].copy()
    if new_deal:
        scratch[0, K.STOCK_POS] = min(52, st[b, K.STOCK_POS] + params[K.P_HAND_SIZE] * P)
    w = np.zeros(53, dtype=np.float64)
    best_of_draw_weights(n_unseen, m, w)
    ranks = rank_set(unseen)
    if faceup >= 0:
        ranks |= 1 << (faceup >> 2)
    buf = (np.zeros((13, 2), dtype=np.float64), np.zeros(13, dtype=np.bool_),
           np.empty(256, dtype=np.int64), np.empty(53, dtype=np.float64),
           np.empty(256, dtype=np.int64))
    opd = np.zeros(15, dtype=np.float64)
    mine = np.zeros(15, dtype=np.float64)
    for i in range(n):
        c = cards[i]
        cap = capts[i]
        gain, a, r, t2 = move_gain(
            st, b, params, hp, c, cap, my_clubs, op_clubs, rem, award, v_now, last_deal
        )
        cap_after = seat if cap != 0 else last_cap
        v_after = club_value(a, op_clubs, r, award)
        mine_side = cap_after >= 0 and side_of(cap_after, P) == side
        nobody = cap_after < 0
        if final_move:
            if t2 != 0 and not nobody:
                gain += leftover_value(t2, a, op_clubs, r, award, v_after, mine_side)
            scores[i] = gain
            continue
        replier_club_values(opd, v_after, a, op_clubs, r, award)
        threat = 0.0
        if final_reply:
            if n_unseen + (1 if faceup >= 0 else 0) > 0:
                threat = final_reply_threat(
                    t2, unseen, faceup, m, opd, a, op_clubs, r, award, v_after, mine_side,
                    nobody,
                )
        elif t2 != 0 and (m > 0 or faceup >= 0):
            threat = reply_threat(scratch, params, t2, opd, ranks, unseen, faceup, m, w, buf)
        score = gain - hp[H_THREAT] * threat
        if hp[H_SETUP] != 0.0 and t2 != 0:
            rest = hand & ~(1 << c)
            if rest:
                bestmine = setup_value(
                    scratch, params, t2, rest, a, op_clubs, r, award, v_after, mine, buf
                )
                score += hp[H_SETUP] * bestmine
        scores[i] = score


@njit(cache=True)
def heuristic_action(
    st: np.ndarray,
    b: int,
    params: np.ndarray,
    open_hand: bool,
    hp: np.ndarray,
    cards: np.ndarray,
    capts: np.ndarray,
    scores: np.ndarray,
) -> int:
    """The heuristic's action for game ``b`` (buffers are scratch space)."""
    n = decision_moves(st, b, cards, capts)
    if n <= 0:
        return K.pick_legal(st, b, 0.0)
    if n == 1:
        return emit_action(st, b, cards[0], capts[0])
    heuristic_scores(st, b, params, open_hand, hp, cards, capts, n, scores)
    bi = 0
    for i in range(1, n):
        if scores[i] > scores[bi]:
            bi = i
    return emit_action(st, b, cards[bi], capts[bi])


@njit(cache=True, parallel=False, nogil=True)
def heuristic_kernel(
    st: np.ndarray,
    games: np.ndarray,
    params: np.ndarray,
    open_hand: bool,
    hp: np.ndarray,
    out: np.ndarray,
) -> None:
    for i in prange(games.shape[0]):
        cards = np.empty(MOVE_BUF, dtype=np.int64)
        capts = np.empty(MOVE_BUF, dtype=np.int64)
        scores = np.empty(MOVE_BUF, dtype=np.float64)
        out[i] = heuristic_action(st, games[i], params, open_hand, hp, cards, capts, scores)


_HEURISTIC = K.BatchKernel(heuristic_kernel, PARALLEL_MIN)


def heuristic_params(**overrides: float) -> np.ndarray:
    """The weight vector for the kernels: :data:`DEFAULT_PARAMS` with ``overrides``."""
    unknown = sorted(set(overrides) - set(DEFAULT_PARAMS))
    if unknown:
        raise TypeError(f"unknown heuristic weight(s) {unknown}; known: {list(_ORDER)}")
    vals = {**DEFAULT_PARAMS, **overrides}
    return np.array([float(vals[k]) for k in _ORDER], dtype=np.float64)


def heuristic_actions(engine: Any, games: np.ndarray, hp: np.ndarray) -> np.ndarray:
    """Heuristic actions for ``engine``'s games at ``games``."""
    games = np.ascontiguousarray(games, dtype=np.int64)
    out = np.empty(len(games), dtype=np.int64)
    _HEURISTIC.for_batch(len(games))(
        engine.state, games, engine.params, bool(engine.rules.open_hand), hp, out
    )
    return out


class HeuristicAgent(Agent):
    """Expert rules: immediate value minus the expected best reply (module docstring).

    Args:
        seed: unused (the agent is deterministic); accepted for the registry.
        **weights: overrides of :data:`DEFAULT_PARAMS`.
    """

    name = "heuristic"
    game_ids = ("pasur",)

    def __init__(self, seed: int | None = None, **weights: float) -> None:
        self.hp = heuristic_params(**weights)

    def act(self, obs: np.ndarray | None, mask: np.ndarray, view: GameView) -> np.ndarray:
        acts = heuristic_actions(view.engine, view.games, self.hp)
        return check_actions(acts, np.asarray(mask), self.name)
