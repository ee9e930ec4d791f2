"""The observation vector of Persian Rummy, written from one seat's view (compiled).

Seats are relative to the observer (0 = self, 1 = next, 2 = partner, 3 = previous),
teams too (0 = own). Everything in it is public or the observer's own: its hand, the
table (each card's team), the discard pile in order, the cards each other player took
from the pile and still holds, sizes, the meld being built, the target, scores. It
never holds another hand's unseen cards or the stock order. Layout (offsets ``O_*``):

=============  ====  ===========================================================
block          size  content
=============  ====  ===========================================================
hand           56    own hand
table          112   cards on the table credited to own team, then to the other
extends        56    cards (anywhere) that would extend some meld on the table
pile           56    cards in the discard pile
pile_order     56    (index in the pile + 1) / 56 for cards in the pile, else 0
taken          168   per other seat (relative 1, 2, 3): cards it took and holds
picked         56    cards picked into the meld being built
target         56    the card that must be melded this turn
pending        56    the lay-off card awaiting its TARGET choice
phase          4     one-hot DRAW, MELD, CHOOSE, DONE
sizes          6     stock / 27, hand sizes / 14 (relative seats), passes / 4
scores         3     own and other team's game totals / 500, deal index
=============  ====  ===========================================================
"""

from __future__ import annotations

import numpy as np

from pasur_env.core.compile import njit
from pasur_env.rummy.kernels import state as S
from pasur_env.rummy.kernels.melds import extends

O_HAND, O_TABLE, O_EXTENDS, O_PILE, O_ORDER = 0, 56, 168, 224, 280
O_TAKEN, O_PICKED, O_TARGET, O_PENDING = 336, 504, 560, 616
O_PHASE, O_SIZES, O_SCORES = 672, 676, 682
OBS_SIZE = 685

__all__ = ["OBS_SIZE", "observe_kernel", "observe_batch"]


@njit(cache=True, inline="always")
def _bits(out: np.ndarray, off: int, m: int) -> None:
    for c in range(S.NUM_CARDS):
        out[off + c] = (m >> c) & 1


@njit(cache=True)
def observe_kernel(st: np.ndarray, b: int, seat: int, out: np.ndarray) -> None:
    """Write game ``b`` as seen by ``seat`` into the float32 row ``out`` (OBS_SIZE)."""
    team = seat % 2
    _bits(out, O_HAND, st[b, S.HAND + seat])
    _bits(out, O_TABLE, st[b, S.CREDIT + team])
    _bits(out, O_TABLE + 56, st[b, S.CREDIT + 1 - team])
    nm = st[b, S.NMELDS]
    for c in range(S.NUM_CARDS):
        x = 0.0
        for m in range(nm):
            if not (st[b, S.MELD + m] >> c) & 1 and extends(st[b, S.MELD + m], c):
                x = 1.0
                break
        out[O_EXTENDS + c] = x
        out[O_PILE + c] = 0.0
        out[O_ORDER + c] = 0.0
    for i in range(st[b, S.PILE_N]):
        c = st[b, S.PILE + i]
        out[O_PILE + c] = 1.0
        out[O_ORDER + c] = (i + 1) / 56.0
    for r in range(1, 4):
        _bits(out, O_TAKEN + 56 * (r - 1), st[b, S.TAKEN + (seat + r) % 4])
    _bits(out, O_PICKED, st[b, S.PICKED])
    t, p = st[b, S.TARGET], st[b, S.PENDING]
    _bits(out, O_TARGET, (1 << t) if t >= 0 else 0)
    _bits(out, O_PENDING, (1 << p) if p >= 0 else 0)
    for k in range(4):
        out[O_PHASE + k] = 1.0 if st[b, S.PHASE] == k else 0.0
    out[O_SIZES] = (S.NUM_CARDS - st[b, S.STOCK_POS]) / 27.0
    for r in range(4):
        h = st[b, S.HAND + (seat + r) % 4]
        n = 0
        while h:
            h &= h - 1
            n += 1
        out[O_SIZES + 1 + r] = min(n / 14.0, 1.0)
    out[O_SIZES + 5] = st[b, S.PASSES] / 4.0
    out[O_SCORES] = min(max(st[b, S.SCORE + team] / 500.0, -1.0), 1.0)
    out[O_SCORES + 1] = min(max(st[b, S.SCORE + 1 - team] / 500.0, -1.0), 1.0)
    out[O_SCORES + 2] = st[b, S.DEAL]


@njit(cache=True)
def observe_batch(st: np.ndarray, games: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
    """Row ``i`` of ``out`` = game ``games[i]`` seen by ``seats[i]``."""
    for i in range(games.shape[0]):
        observe_kernel(st, games[i], seats[i], out[i])
