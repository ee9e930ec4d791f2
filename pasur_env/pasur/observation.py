"""Vectorised observation encoder: engine state -> one float32 vector per (game, seat).

The observation is written from the observer's seat: seats are listed starting with
the observer (relative seat ``k`` is ``(seat + k) % P``) and sides starting with the
observer's own side, so one policy can play any seat. It holds only what that seat
may know: nothing here reads another seat's hand or the stock order (the ``unseen``
plane is the complement of the visible cards). Every entry lies in [0, 1].

Layout for P players and S sides (S = 2 for 4 players, else P); 52-card planes are
indexed by card id (``4 * rank + suit``, see ``cards.py``):

========================  ===========  =====================================================
field                     size         meaning
========================  ===========  =====================================================
``hand``                  52           observer's hand
``table``                 52           cards face up on the table
``pile[k]``               52 x S       captured cards of relative side k (k = 0: own side)
``unseen``                52           cards the observer cannot see: other hands (face-up
                                       Ru Baaz cards excepted) and the stock (only cards
                                       in play: a small variant's deck)
``pending``               52           card played that awaits its capture choice
``selection``             52           table cards chosen so far in the CAPTURE phase
``faceup``                52           opponents' face-up cards (``open_hand`` only)
``phase``                 2            one-hot PLAY, CAPTURE
``clubs[k]``              S            clubs captured by relative side k / 13
``surs[k]``               S            surs of relative side k this round / 4, capped at 1
``score[k]``              S            game score of relative side k / target, capped at 1
``deal``                  6            one-hot index of the current deal in the round
``stock``                 1            stock size / 48
``hand_size[k]``          P            cards in relative seat k's hand / 4
``dealer[k]``             P            one-hot relative seat of the dealer
``last_capturer[k]``      P            one-hot relative seat of the last capturer (all 0:
                                       nobody captured yet this round)
``moves``                 10 x 52      per card of the observer's hand, what it captures now:
                                       has an option; options / 4; best immediate points
                                       (card points + sur) / 10; a sur is possible; most
                                       clubs taken / 4; most cards taken / 6; and what it
                                       leaves (table after its best capture, or laid) to a
                                       reply by an unseen card: share of unseen cards that
                                       capture; mean and max reply value / 10; share that
                                       sur (:mod:`pasur_env.pasur.move_features`)
========================  ===========  =====================================================

Size: ``52 * (16 + S) + 2 + 3 * S + 7 + 3 * P`` (957 for 2 players, 1015 for 3, 963
for 4). :func:`observation_layout` returns the offsets for given rules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from pasur_env.core.compile import njit
from pasur_env.pasur import kernels as K
from pasur_env.pasur.move_features import MOVE_FEATURES, move_summary, move_summary_kernel
from pasur_env.pasur.rules import Rules

if TYPE_CHECKING:
    from pasur_env.pasur.engine import Engine

__all__ = ["encode", "encode_numpy", "observation_size", "observation_layout"]


def observation_layout(rules: Rules) -> dict[str, tuple[int, int]]:
    """``{field: (offset, size)}`` of the observation vector for ``rules``."""
    P, S = rules.num_players, rules.num_sides
    sizes = [
        ("hand", 52),
        ("table", 52),
        ("pile", 52 * S),
        ("unseen", 52),
        ("pending", 52),
        ("selection", 52),
        ("faceup", 52),
        ("phase", 2),
        ("clubs", S),
        ("surs", S),
        ("score", S),
        ("deal", 6),
        ("stock", 1),
        ("hand_size", P),
        ("dealer", P),
        ("last_capturer", P),
        ("moves", 52 * MOVE_FEATURES),
    ]
    out, off = {}, 0
    for name, size in sizes:
        out[name] = (off, size)
        off += size
    return out


def observation_size(rules: Rules) -> int:
    """Length N of the observation vector for ``rules``."""
    P, S = rules.num_players, rules.num_sides
    return 52 * (6 + S) + 2 + 3 * S + 7 + 3 * P + 52 * MOVE_FEATURES


_BIT = np.int64(1) << np.arange(64, dtype=np.int64)
_CLUBS = np.int64(K.CLUB_BITS)
_POP8 = np.array([bin(i).count("1") for i in range(256)], dtype=np.int64)


class _Plan:
    """Per-rules gather plan: which state columns each observer seat reads, in order.

    Reading everything an observation needs with one ``take_along_axis`` keeps the
    number of numpy calls (the cost for small batches) independent of P and S.
    """

    def __init__(self, rules: Rules) -> None:
        P, S = rules.num_players, rules.num_sides
        self.P, self.S = P, S
        self.size = observation_size(rules)
        self.open_hand = rules.open_hand
        self.target = float(rules.target_score)
        self.deck = np.int64(rules.deck_mask)
        cols = []
        for seat in range(P):
            side = rules.side_of(seat)
            rel_sides = [(side + k) % S for k in range(S)]
            rel_seats = [(seat + k) % P for k in range(P)]
            cols.append(
                [K.HAND + seat, K.TABLE]
                + [K.PILE + s for s in rel_sides]
                + [K.HAND + p for p in rel_seats]
                + [K.SURS + s for s in rel_sides]
                + [K.SCORE + s for s in rel_sides]
                + [K.PENDING, K.SELECTION, K.PHASE, K.DEAL, K.STOCK_POS, K.DEALER, K.LAST_CAP]
            )
        self.cols = np.array(cols, dtype=np.int64)  # (P, C)
        self.o_piles = 2
        self.o_hands = 2 + S
        self.o_surs = 2 + S + P
        self.o_scores = 2 + 2 * S + P
        self.o_tail = 2 + 3 * S + P
        self.planes = 6 + S
        self.o_scalars = 52 * (6 + S)
        self.rel = np.arange(P)


_PLANS: dict[Rules, _Plan] = {}


def _plan(rules: Rules) -> _Plan:
    plan = _PLANS.get(rules)
    if plan is None:
        plan = _PLANS[rules] = _Plan(rules)
    return plan


def encode_numpy(
    engine: Engine,
    games: np.ndarray | None = None,
    seats: np.ndarray | None = None,
    out: np.ndarray | None = None,
) -> np.ndarray:
    """Vectorised-numpy encoder: the readable reference of :func:`encode` (same output).

    Costs about 25 numpy calls whatever the batch size, which is cheap for large
    batches but dominates a one-game env step; :func:`encode` runs the same layout as
    one compiled loop. Tests check that the two agree on random states.

    Args:
        engine: the batched engine to read.
        games: int array (n,) of game indices.
        seats: int array (n,) of observer seats, or one int for all.
        out: optional float32 (n, N) buffer to fill.
    """
    plan = _plan(engine.rules)
    P, S = plan.P, plan.S
    st = engine.state if games is None else engine.state.take(games, axis=0)
    n = st.shape[0]
    if seats is None:
        seat = st[:, K.MOVER]
    else:
        seat = np.asarray(seats, dtype=np.int64)
        if seat.ndim == 0:
            seat = np.full(n, seat)
        if n and (seat.min() < 0 or seat.max() >= P):
            raise ValueError(f"observer seats must be in 0..{P - 1}")
    g = np.take_along_axis(st, plan.cols[seat], axis=1)  # (n, C)
    t = plan.o_tail
    capture = g[:, t + 2] == K.CAPTURE

    planes = np.zeros((n, plan.planes), dtype=np.int64)
    planes[:, : 2 + S] = g[:, : 2 + S]  # hand, table, piles (own side first)
    planes[:, 3 + S] = _BIT[g[:, t]] * capture  # pending (PENDING is -1 outside CAPTURE)
    planes[:, 4 + S] = g[:, t + 1] * capture  # selection
    if plan.open_hand:  # opponents' face-up card: earliest-dealt card still in hand
        order = st[:, K.ORDER : K.ORDER + 4 * P].reshape(n, P, 4)
        present = order >= 0
        first = np.take_along_axis(order, np.argmax(present, axis=2)[..., None], axis=2)[..., 0]
        up = np.where(present.any(axis=2), _BIT[np.maximum(first, 0)], 0)
        up[np.arange(n), seat] = 0
        planes[:, 5 + S] = np.bitwise_or.reduce(up, axis=1)
    # unseen: the cards in play (all 52 but in a small variant) the observer cannot see
    planes[:, 2 + S] = plan.deck & ~np.bitwise_or.reduce(planes, axis=1)
    bits = np.unpackbits(planes.view(np.uint8), axis=1, bitorder="little")

    obs = np.empty((n, plan.size), dtype=np.float32) if out is None else out
    obs[:, : plan.o_scalars] = bits.reshape(n, plan.planes, 64)[:, :, :52].reshape(n, -1)
    counted = g[:, plan.o_piles : plan.o_surs].copy()  # piles, then hands of rel. seats
    counted[:, :S] &= _CLUBS
    counts = _POP8[counted.view(np.uint8)].reshape(n, S + P, 8).sum(axis=2)
    o = plan.o_scalars
    obs[:, o] = ~capture
    obs[:, o + 1] = capture
    o += 2
    obs[:, o : o + S] = counts[:, :S] * (1.0 / 13.0)
    o += S
    obs[:, o : o + S] = np.minimum(g[:, plan.o_surs : plan.o_surs + S] * 0.25, 1.0)
    o += S
    obs[:, o : o + S] = np.minimum(g[:, plan.o_scores : plan.o_scores + S] / plan.target, 1.0)
    o += S
    obs[:, o : o + 6] = g[:, t + 3, None] == np.arange(6)
    obs[:, o + 6] = (52 - g[:, t + 4]) * (1.0 / 48.0)
    o += 7
    obs[:, o : o + P] = counts[:, S:] * 0.25
    o += P
    who = g[:, t + 5 : t + 7] - seat[:, None]  # dealer, last capturer relative to observer
    who = np.where(g[:, t + 5 : t + 7] < 0, -1, who % P)
    obs[:, o : o + 2 * P] = (who[:, :, None] == plan.rel).reshape(n, 2 * P)
    idx = np.arange(engine.num_games) if games is None else np.asarray(games, dtype=np.int64)
    move_summary_kernel(
        engine.state, idx.reshape(-1), seat, engine.params, bool(engine.rules.open_hand),
        obs[:, o + 2 * P :],
    )
    return obs


@njit(cache=True)
def _encode_kernel(st, games, seats, params, P, S, open_hand, target, out):  # noqa: ANN001
    """Compiled twin of :func:`encode_numpy`; returns the index of a bad seat, or -1."""
    n = games.shape[0]
    for i in range(n):
        if seats[i] < 0 or seats[i] >= P:
            return i
    opts = np.empty(256, dtype=np.int64)  # scratch for the move features
    stack = np.empty(256, dtype=np.int64)
    for i in range(n):
        b = games[i]
        seat = seats[i]
        o = out[i]
        o[:] = 0.0
        side = seat % 2 if P == 4 else seat
        hand = st[b, K.HAND + seat]
        capture = st[b, K.PHASE] == K.CAPTURE
        pending = (1 << st[b, K.PENDING]) if capture else 0
        selection = st[b, K.SELECTION] if capture else 0
        faceup = 0
        if open_hand:
            for p in range(P):
                if p != seat:
                    for j in range(4):
                        c = st[b, K.ORDER + 4 * p + j]
                        if c >= 0:
                            faceup |= 1 << c
                            break
        seen = hand | st[b, K.TABLE] | pending | faceup
        for k in range(S):
            seen |= st[b, K.PILE + k]
        planes = np.empty(6 + S, dtype=np.int64)
        planes[0] = hand
        planes[1] = st[b, K.TABLE]
        for k in range(S):
            planes[2 + k] = st[b, K.PILE + (side + k) % S]
        planes[2 + S] = params[K.P_DECK] & ~seen
        planes[3 + S] = pending
        planes[4 + S] = selection
        planes[5 + S] = faceup
        for q in range(6 + S):
            m = planes[q]
            while m:
                o[52 * q + K.lowest(m)] = 1.0
                m &= m - 1
        x = 52 * (6 + S)
        o[x + (1 if capture else 0)] = 1.0
        x += 2
        for k in range(S):
            sk = (side + k) % S
            o[x + k] = K.popcount(st[b, K.PILE + sk] & K.CLUB_BITS) / 13.0
            o[x + S + k] = min(st[b, K.SURS + sk] * 0.25, 1.0)
            o[x + 2 * S + k] = min(st[b, K.SCORE + sk] / target, 1.0)
        x += 3 * S
        o[x + st[b, K.DEAL]] = 1.0
        o[x + 6] = (52 - st[b, K.STOCK_POS]) / 48.0
        x += 7
        for k in range(P):
            o[x + k] = K.popcount(st[b, K.HAND + (seat + k) % P]) * 0.25
        x += P
        o[x + (st[b, K.DEALER] - seat) % P] = 1.0
        x += P
        if st[b, K.LAST_CAP] >= 0:
            o[x + (st[b, K.LAST_CAP] - seat) % P] = 1.0
        move_summary(st, b, params, seat, open_hand, o, x + P, opts, stack)
    return -1


@njit(cache=True)
def observe_one_kernel(st, params, seat, P, S, open_hand, target, with_mask, obs, mask):  # noqa: ANN001
    """Game 0's observation for ``seat`` into ``obs`` (1, N) and, if ``with_mask``, its
    mover's legal actions into ``mask`` (104,) int8 (zeros otherwise).

    The AEC env's hot path: one compiled call per observation instead of two plus the
    argument checks of :func:`encode`, which matter when a single game is stepped.
    """
    games = np.zeros(1, dtype=np.int64)
    seats = np.full(1, seat, dtype=np.int64)
    bad = _encode_kernel(st, games, seats, params, P, S, open_hand, target, obs)
    if with_mask and bad < 0:
        K.legal_row(st, 0, mask)
    else:
        mask[:] = 0
    return bad


def encode(
    engine: Engine,
    games: np.ndarray | None = None,
    seats: np.ndarray | None = None,
    out: np.ndarray | None = None,
) -> np.ndarray:
    """Observations of ``seats`` in ``games`` (defaults: every game, its mover): (n, N).

    Args:
        engine: the batched engine to read.
        games: int array (n,) of game indices (default: all games).
        seats: int array (n,) of observer seats, or one int for all (default: movers).
        out: optional float32 (n, N) buffer to fill.
    """
    rules = engine.rules
    P = rules.num_players
    if games is None:
        games = np.arange(engine.num_games, dtype=np.int64)
    else:
        games = np.asarray(games, dtype=np.int64).reshape(-1)
    n = games.shape[0]
    if seats is None:
        seats = engine.state[games, K.MOVER]
    else:
        seats = np.asarray(seats, dtype=np.int64)
        if seats.ndim == 0:
            seats = np.full(n, int(seats), dtype=np.int64)
        if seats.shape != (n,):
            raise ValueError(f"seats must have shape ({n},), got {seats.shape}")
    if out is None:
        out = np.empty((n, observation_size(rules)), dtype=np.float32)
    bad = _encode_kernel(
        engine.state,
        games,
        seats,
        engine.params,
        P,
        rules.num_sides,
        rules.open_hand,
        float(rules.target_score),
        out,
    )
    if bad >= 0:
        raise ValueError(f"observer seats must be in 0..{P - 1}, got {int(seats[bad])}")
    return out
