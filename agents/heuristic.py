"""Expert-rules agent: immediate value minus the expected best reply of the next player.

Every full move open to the mover is scored from what the mover may see (own hand,
table, piles, scores, stock size, turn, last capturer, the Ru Baaz face-up card, and
the *set* of unseen cards from ``pasur_env._kernels.hidden_from``), and the best
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
the first move in engine order. Everything is one compiled kernel over the batch.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, prange

from pasur_env import _kernels as K

from .base import Agent, GameView, check_actions
from .greedy import (
    EMPTY,
    MOVE_BUF,
    ROW0,
    card_points,
    decision_moves,
    emit_action,
    low,
    parallel_twin,
    popcnt,
    side_of,
    use_parallel,
)

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

ALL_BITS = (1 << 52) - 1


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
def hand_size(st: np.ndarray, b: int, seat: int, num_players: int) -> int:
    """Cards in ``seat``'s hand, from public turn counts (4 minus turns played this deal)."""
    t = st[b, K.TURN] % (4 * num_players)
    pos = (seat - st[b, K.DEALER] - 1) % num_players
    played = (t - pos + num_players - 1) // num_players if t > pos else 0
    if st[b, K.PHASE] == K.CAPTURE and st[b, K.MOVER] == seat:
        played += 1  # the pending card has left the hand
    return 4 - played


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
        k = K.enumerate_options(table, card, opts)
        if k <= 0:
            continue
        has[r] = True
        b0 = -1e9
        b1 = -1e9
        for i in range(k):
            o = opts[i]
            base = float(card_points(o))
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
    table = st[b, K.TABLE]
    unseen = K.hidden_from(st, b, seat, open_hand)
    pending = st[b, K.PENDING]
    public = table | hand | unseen
    if pending >= 0:
        public |= 1 << pending
    my_clubs = 0
    op_clubs = 0
    all_clubs = 0
    for s in range(S):
        pile = st[b, K.PILE + s]
        public |= pile
        c = popcnt(pile & K.CLUB_BITS)
        all_clubs += c
        if s == side:
            my_clubs = c
        elif c > op_clubs:
            op_clubs = c
    rem = 13 - all_clubs
    award = float(params[K.P_CLUBS_POINTS] if params[K.P_CLUBS_RULE] == 0 else 7)
    award *= hp[H_CLUB]
    v_now = club_value(my_clubs, op_clubs, rem, award)
    sur_pts = params[K.P_SUR_POINTS]
    stock = 52 - st[b, K.STOCK_POS]
    last_deal = stock == 0
    turn = st[b, K.TURN]
    final_move = turn == 4 * 12 - 1  # 48 turns per round: my move ends the round
    final_reply = turn == 4 * 12 - 2  # the next player's move ends the round
    last_cap = st[b, K.LAST_CAP]
    nxt = (seat + 1) % P
    h = hand_size(st, b, nxt, P)
    new_deal = h == 0 and not final_move
    scratch = st[b : b + 1].copy()
    if new_deal:
        scratch[0, K.STOCK_POS] = min(52, st[b, K.STOCK_POS] + 4 * P)
        h = 4
    # the next player's known face-up card (Ru Baaz): visible, not mine, not public
    faceup = -1
    if open_hand and not new_deal and h > 0:
        vis = ALL_BITS & ~public
        if vis:
            faceup = low(vis)
    n_unseen = popcnt(unseen)
    m = h - (1 if faceup >= 0 else 0)
    if m > n_unseen:
        m = n_unseen
    # w[i]: probability that the i-th best unseen card is the best of the m drawn
    w = np.zeros(53, dtype=np.float64)
    if m > 0:
        w[0] = m / n_unseen
        for i in range(1, n_unseen):
            w[i] = w[i - 1] * (n_unseen - i - m + 1) / (n_unseen - i)
    ranks = 0
    u = unseen
    while u:
        ranks |= 1 << (low(u) >> 2)
        u &= u - 1
    if faceup >= 0:
        ranks |= 1 << (faceup >> 2)
    opts = np.empty(256, dtype=np.int64)
    best = np.zeros((13, 2), dtype=np.float64)
    has = np.zeros(13, dtype=np.bool_)
    opd = np.zeros(15, dtype=np.float64)
    vals = np.empty(53, dtype=np.float64)
    mine = np.zeros(15, dtype=np.float64)
    for i in range(n):
        c = cards[i]
        cap = capts[i]
        cbit = 1 << c
        is_jack = (c >> 2) == 10
        a = my_clubs
        r = rem
        gain = 0.0
        if cap != 0:
            won = cap | cbit
            kc = popcnt(won & K.CLUB_BITS)
            gain = float(card_points(won))
            if K.capture_is_sur(st, b, params, c, cap):
                gain += sur_pts
            a = my_clubs + kc
            r = rem - kc
            gain += club_value(a, op_clubs, r, award) - v_now
            t2 = table & ~cap
            cap_after = seat
            if is_jack:
                gain -= hp[H_LASTDEAL_JACK] if last_deal else hp[H_JACK]
        else:
            t2 = table | cbit
            cap_after = last_cap
        v_after = club_value(a, op_clubs, r, award)
        mine_side = cap_after >= 0 and side_of(cap_after, P) == side
        nobody = cap_after < 0
        if final_move:
            # leftover goes to the last capturer (after my move)
            if t2 != 0 and not nobody:
                kc = popcnt(t2 & K.CLUB_BITS)
                if mine_side:
                    val = card_points(t2) + club_value(a + kc, op_clubs, r - kc, award) - v_after
                else:
                    val = card_points(t2) + v_after - club_value(a, op_clubs + kc, r - kc, award)
                    val = -val
                gain += val
            scores[i] = gain
            continue
        # value (for the replier) of winning k clubs
        for k in range(r + 1):
            opd[k] = v_after - club_value(a, op_clubs + k, r - k, award)
        for k in range(r + 1, 15):
            opd[k] = opd[r]
        threat = 0.0
        if final_reply:
            # the reply ends the round: a capture takes the whole table, a lay leaves
            # table + card to the last capturer
            # (no sur in the last deal)
            if n_unseen + (1 if faceup >= 0 else 0) > 0:
                tot = 0.0
                cnt = 0
                u = unseen | ((1 << faceup) if faceup >= 0 else 0)
                while u:
                    x = low(u)
                    u &= u - 1
                    everything = t2 | (1 << x)
                    kc = popcnt(everything & K.CLUB_BITS)
                    whole = card_points(everything) + opd[min(kc, r)]
                    nopt, _cap = K.resolve_play(t2, x)
                    if nopt > 0:
                        v = whole
                    elif nobody:
                        v = 0.0
                    elif mine_side:
                        # they lay; the leftover comes to my side
                        v = -(
                            card_points(everything)
                            + club_value(a + kc, op_clubs, r - kc, award)
                            - v_after
                        )
                    else:
                        v = whole
                    if faceup >= 0 and x == faceup and m == 0:
                        tot = v
                        cnt = 1
                        break
                    tot += v
                    cnt += 1
                threat = tot / cnt
        elif t2 != 0 and (m > 0 or faceup >= 0):
            _reply_values(scratch, params, t2, opd, best, has, opts, ranks)
            nv = 0
            u = unseen
            while u:
                x = low(u)
                u &= u - 1
                rr = x >> 2
                v = 0.0
                if has[rr]:
                    v = best[rr, 1 if (x & 3) == 0 else 0] + card_points(1 << x)
                _insert_desc(vals, nv, v)
                nv += 1
            vf = 0.0
            if faceup >= 0:
                rr = faceup >> 2
                if has[rr]:
                    vf = best[rr, 1 if (faceup & 3) == 0 else 0] + card_points(1 << faceup)
            if m == 0:
                threat = vf
            else:
                for j in range(nv):
                    threat += w[j] * max(vals[j], vf)
        score = gain - hp[H_THREAT] * threat
        if hp[H_SETUP] != 0.0 and t2 != 0:
            rest = hand & ~cbit
            if rest:
                for k in range(r + 1):
                    mine[k] = club_value(a + k, op_clubs, r - k, award) - v_after
                for k in range(r + 1, 15):
                    mine[k] = mine[r]
                bestmine = 0.0
                rr_bits = 0
                q = rest
                while q:
                    rr_bits |= 1 << (low(q) >> 2)
                    q &= q - 1
                _reply_values(scratch, params, t2, mine, best, has, opts, rr_bits)
                q = rest
                while q:
                    x = low(q)
                    q &= q - 1
                    rr = x >> 2
                    if has[rr]:
                        v = best[rr, 1 if (x & 3) == 0 else 0] + card_points(1 << x)
                        if v > bestmine:
                            bestmine = v
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


@njit(cache=True, parallel=False)
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


_heuristic_par: Any = None


def heuristic_params(**overrides: float) -> np.ndarray:
    """The weight vector for the kernels: :data:`DEFAULT_PARAMS` with ``overrides``."""
    unknown = sorted(set(overrides) - set(DEFAULT_PARAMS))
    if unknown:
        raise TypeError(f"unknown heuristic weight(s) {unknown}; known: {list(_ORDER)}")
    vals = {**DEFAULT_PARAMS, **overrides}
    return np.array([float(vals[k]) for k in _ORDER], dtype=np.float64)


def heuristic_actions(engine: Any, games: np.ndarray, hp: np.ndarray) -> np.ndarray:
    """Heuristic actions for ``engine``'s games at ``games``."""
    global _heuristic_par
    games = np.ascontiguousarray(games, dtype=np.int64)
    out = np.empty(len(games), dtype=np.int64)
    args = (engine.state, games, engine.params, bool(engine.rules.open_hand), hp, out)
    if use_parallel(len(games), 64):
        if _heuristic_par is None:
            _heuristic_par = parallel_twin(heuristic_kernel)
        _heuristic_par(*args)
    else:
        heuristic_kernel(*args)
    return out


class HeuristicAgent(Agent):
    """Expert rules: immediate value minus the expected best reply (module docstring).

    Args:
        seed: unused (the agent is deterministic); accepted for the registry.
        **weights: overrides of :data:`DEFAULT_PARAMS`.
    """

    name = "heuristic"

    def __init__(self, seed: int | None = None, **weights: float) -> None:
        self.hp = heuristic_params(**weights)

    def act(self, obs: np.ndarray | None, mask: np.ndarray, view: GameView) -> np.ndarray:
        acts = heuristic_actions(view.engine, view.games, self.hp)
        return check_actions(acts, np.asarray(mask), self.name)
