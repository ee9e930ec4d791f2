"""What a meld is (``docs/persian_rummy.md`` §4), on 56-bit card masks, compiled.

Every rule about melds lives here once: :func:`is_meld` (a set or a run),
:func:`can_complete` (whether some meld can still be built around given cards: the
PICK mask and the discard-pile draw both ask it), :func:`extends` (lay-off) and
:func:`mask_value` (the count). Runs use the aces-high places of
:data:`pasur_env.rummy.cards.RUN_POS`; jokers only form joker sets.
"""

from __future__ import annotations

from pasur_env.core.bits import highest, lowest, popcount
from pasur_env.core.compile import njit
from pasur_env.rummy.cards import JOKER_BITS, RUN_POS, VALUE_OF

#: the cards of one suit (bit 4r + s for every rank r), shifted left by the suit index
SUIT0_BITS = sum(1 << (4 * r) for r in range(13))
_VALUE = VALUE_OF.copy()
_RUN_POS = RUN_POS.copy()


@njit(cache=True, inline="always")
def rank_bits(r: int) -> int:
    """The four cards of rank index ``r`` (A=0 .. K=12)."""
    return 0xF << (4 * r)


@njit(cache=True)
def mask_value(m: int) -> int:
    """Sum of the card values (§1) of a mask."""
    total = 0
    while m:
        c = lowest(m)
        total += _VALUE[c]
        m &= m - 1
    return total


@njit(cache=True)
def run_places(m: int, s: int) -> int:
    """The run places (2 -> bit 0 ... A -> bit 12) of the suit-``s`` cards of ``m``."""
    out = 0
    for r in range(13):
        if (m >> (4 * r + s)) & 1:
            out |= 1 << _RUN_POS[4 * r + s]
    return out


@njit(cache=True)
def is_meld(m: int) -> bool:
    """A set of 3-4 cards of one rank, a set of 3-4 jokers, or a run of 3+ in one suit."""
    n = popcount(m)
    if n < 3:
        return False
    if m & JOKER_BITS:
        return m == (m & JOKER_BITS)
    c = lowest(m)
    if (m & rank_bits(c // 4)) == m:
        return True
    s = c % 4
    if (m & (SUIT0_BITS << s)) != m:
        return False
    p = run_places(m, s)
    p >>= lowest(p)
    return (p & (p + 1)) == 0


@njit(cache=True)
def can_complete(q: int, avail: int) -> bool:
    """Whether a meld ``M`` exists with ``q <= M <= q | avail`` (``q`` not empty).

    This is the one "can this still become a meld" test: picks must pass it (with
    ``avail`` the hand cards above the last pick), and a discard-pile draw passes it
    with ``q`` = the target and ``avail`` = the hand plus the cards taken.
    """
    a = q | avail
    if q & JOKER_BITS:
        return q == (q & JOKER_BITS) and popcount(a & JOKER_BITS) >= 3
    c = lowest(q)
    rb = rank_bits(c // 4)
    if (q & rb) == q and popcount(a & rb) >= 3:
        return True
    s = c % 4
    if (q & (SUIT0_BITS << s)) != q:
        return False
    pa = run_places(a & ~JOKER_BITS, s)
    pq = run_places(q, s)
    lo, hi = lowest(pq), highest(pq)
    span = ((1 << (hi + 1)) - 1) & ~((1 << lo) - 1)
    if (pa & span) != span:
        return False
    while lo > 0 and (pa >> (lo - 1)) & 1:
        lo -= 1
    while hi < 12 and (pa >> (hi + 1)) & 1:
        hi += 1
    return hi - lo + 1 >= 3


@njit(cache=True, inline="always")
def extends(meld: int, c: int) -> bool:
    """Whether card ``c`` laid off on ``meld`` leaves a valid meld."""
    return is_meld(meld | (1 << c))


@njit(cache=True, inline="always")
def is_four_set(m: int) -> bool:
    """Four of a kind or four jokers (what counts double when laid at once, §7)."""
    return popcount(m) == 4 and (m == (m & JOKER_BITS) or (m & rank_bits(lowest(m) // 4)) == m)


def meld_kind(m: int) -> str:
    """``"set"``, ``"run"`` or ``"jokers"`` for a valid meld (rendering)."""
    if m & JOKER_BITS:
        return "jokers"
    c = (m & -m).bit_length() - 1
    return "set" if (m & (0xF << (4 * (c // 4)))) == m else "run"


__all__ = ["SUIT0_BITS", "rank_bits", "mask_value", "run_places", "is_meld", "can_complete",
           "extends", "is_four_set", "meld_kind"]
