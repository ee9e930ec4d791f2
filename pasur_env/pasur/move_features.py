"""Move features of the observation: what each hand card would capture now, and what it
leaves to the next player (the ``moves`` block of :mod:`pasur_env.pasur.observation`).

Everything here is a function of what the observing seat sees (its hand, the table,
the *set* of unseen cards, the deal), computed with the rules' own option enumeration
(:mod:`pasur_env.pasur.kernels.capture`), so a learner need not rediscover the sums-to-11
arithmetic or the one-card lookahead that keeps a table safe.
"""

from __future__ import annotations

import numpy as np

from pasur_env.core.bits import lowest, popcount
from pasur_env.core.compile import njit
from pasur_env.pasur.kernels.capture import capture_is_sur, enumerate_options_into, sur_on_table
from pasur_env.pasur.kernels.moves import hidden_from
from pasur_env.pasur.kernels.score import card_points
from pasur_env.pasur.kernels.state import CLUB_BITS, HAND, P_SUR_POINTS, TABLE

MOVE_FEATURES = 10


@njit(cache=True)
def reply_summary(
    st: np.ndarray,
    b: int,
    params: np.ndarray,
    table: int,
    unseen: int,
    opts: np.ndarray,
    stack: np.ndarray,
) -> tuple[float, float, float, float]:
    """How an unseen card answers a table: (share of unseen cards that capture on it,
    mean and max best reply value over unseen cards, share that make a sur).

    A reply's value is the card points of the replying and taken cards plus
    ``sur_points`` for a sur. Capture options depend on the rank only, so each unseen
    rank is enumerated once.
    """
    n_unseen = popcount(unseen)
    if n_unseen == 0 or table == 0:
        return 0.0, 0.0, 0.0, 0.0
    any_n = 0
    sur_n = 0
    total = 0.0
    top = 0.0
    for r in range(13):
        of_rank = unseen & (0xF << (4 * r))
        if of_rank == 0:
            continue
        n = enumerate_options_into(table, 4 * r, opts, stack)
        if n <= 0:
            continue
        best = -1
        sur = False
        for i in range(n):
            v = card_points(opts[i])
            if sur_on_table(st, b, params, table, 4 * r, opts[i]):
                v += params[P_SUR_POINTS]
                sur = True
            best = max(best, v)
        cards = of_rank
        while cards:
            u = lowest(cards)
            cards &= cards - 1
            v = best + card_points(1 << u)
            total += v
            top = max(top, float(v))
            any_n += 1
            sur_n += 1 if sur else 0
    return any_n / n_unseen, total / n_unseen, top, sur_n / n_unseen


@njit(cache=True)
def move_summary(
    st: np.ndarray,
    b: int,
    params: np.ndarray,
    seat: int,
    open_hand: bool,
    out: np.ndarray,
    off: int,
    opts: np.ndarray,
    stack: np.ndarray,
) -> None:
    """What each card in ``seat``'s hand would do now, as 10 planes of 52 from ``off``.

    Plane k, entry c, for a card c in the hand:

    * what c captures (zero if nothing): 0 has an option; 1 number of options / 4
      (capped at 1); 2 best immediate points of a capture with c (card points of c and
      the captured cards, plus ``sur_points`` if it is a sur) / 10, capped; 3 some
      option is a sur; 4 most clubs taken (c included) / 4, capped; 5 most cards
      taken / 6, capped;
    * what it leaves to the next player, on the table after c is played (its best
      capture from plane 2, or laid): 6 share of the cards unseen by ``seat`` that
      capture something there; 7 their mean best reply value / 10 and 8 the largest
      / 10 (reply value = card points taken + ``sur_points`` for a sur; capped); 9
      share of unseen cards that would make a sur.

    Everything here is a function of what the seat sees (its hand, the table, the
    set of unseen cards, the deal), and the options come from the rules' own
    enumeration, so a learner need not rediscover the sums-to-11 arithmetic or the
    one-card lookahead that keeps a table safe. ``opts`` and ``stack`` are scratch
    buffers of 256 entries (allocated once per batch by the caller).
    """
    hand = st[b, HAND + seat]
    table = st[b, TABLE]
    unseen = hidden_from(st, b, seat, open_hand)
    while hand:
        c = lowest(hand)
        hand &= hand - 1
        n = enumerate_options_into(table, c, opts, stack)
        if n > 0:
            best = -1
            best_opt = 0
            sur = 0
            clubs = 0
            most = 0
            for i in range(n):
                taken = opts[i] | (1 << c)
                v = card_points(taken)
                if capture_is_sur(st, b, params, c, opts[i]):
                    v += params[P_SUR_POINTS]
                    sur = 1
                if v > best:
                    best = v
                    best_opt = opts[i]
                clubs = max(clubs, popcount(taken & CLUB_BITS))
                most = max(most, popcount(opts[i]))
            out[off + c] = 1.0
            out[off + 52 + c] = min(n / 4.0, 1.0)
            out[off + 104 + c] = min(best / 10.0, 1.0)
            out[off + 156 + c] = sur
            out[off + 208 + c] = min(clubs / 4.0, 1.0)
            out[off + 260 + c] = min(most / 6.0, 1.0)
            after = table & ~best_opt
        else:
            after = table | (1 << c)
        r_any, r_mean, r_top, r_sur = reply_summary(st, b, params, after, unseen, opts, stack)
        out[off + 312 + c] = r_any
        out[off + 364 + c] = min(r_mean / 10.0, 1.0)
        out[off + 416 + c] = min(r_top / 10.0, 1.0)
        out[off + 468 + c] = r_sur


@njit(cache=True)
def move_summary_kernel(
    st: np.ndarray,
    games: np.ndarray,
    seats: np.ndarray,
    params: np.ndarray,
    open_hand: bool,
    out: np.ndarray,
) -> None:
    """:func:`move_summary` for a batch of (game, seat) pairs into ``out`` (n, 520)."""
    opts = np.empty(256, dtype=np.int64)
    stack = np.empty(256, dtype=np.int64)
    for i in range(games.shape[0]):
        out[i, :] = 0.0
        move_summary(st, games[i], params, seats[i], open_hand, out[i], 0, opts, stack)
