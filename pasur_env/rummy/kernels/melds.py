"""What a meld is (``docs/persian_rummy.md`` §4), on 56-bit card masks, compiled.

Every rule about melds lives here once: :func:`is_meld` (a set or a run),
:func:`can_complete` (whether some meld can still be built around given cards: the
PICK mask and the discard-pile draw both ask it; :func:`meld_partners` asks it of every
card at once), :func:`extends` (lay-off; :func:`meld_ext`: every card that extends a
meld) and :func:`mask_value` (the count). Runs use the aces-high places of
:data:`pasur_env.rummy.cards.RUN_POS`, computed by bit arithmetic: the *place layout*
(:func:`to_places`) puts the card of place ``p`` of suit ``s`` at bit ``4p + s``, so
runs are shifts by 4 in every suit at once; ``tests/test_rummy_kernels.py`` checks it
against RUN_POS. Jokers only form joker sets.
"""

from __future__ import annotations

from pasur_env.core.bits import highest, lowest, popcount
from pasur_env.core.compile import njit
from pasur_env.rummy.cards import JOKER_BITS, VALUE_OF

#: the cards of one suit (bit 4r + s for every rank r), shifted left by the suit index
SUIT0_BITS = sum(1 << (4 * r) for r in range(13))
#: the 52 ordinary cards (no jokers)
ORDINARY_BITS = (1 << 52) - 1
_VALUE = VALUE_OF.copy()


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


@njit(cache=True, inline="always")
def suit_ranks(m: int, s: int) -> int:
    """The ranks (A -> bit 0 ... K -> bit 12) of the suit-``s`` cards of ``m``.

    Card ``4r + s`` moves to bit ``r`` by four shift-and-mask steps (each halves the gaps
    between the kept bits) instead of a loop over the 13 ranks: the meld tests run in
    every legal-action check.
    """
    x = (m >> s) & SUIT0_BITS
    x = (x | (x >> 3)) & 0x0303030303030303
    x = (x | (x >> 6)) & 0x000F000F000F000F
    x = (x | (x >> 12)) & 0x000000FF000000FF
    return (x | (x >> 24)) & 0xFFFF


@njit(cache=True, inline="always")
def run_places(m: int, s: int) -> int:
    """The run places (2 -> bit 0 ... A -> bit 12) of the suit-``s`` cards of ``m``."""
    r = suit_ranks(m, s)
    return (r >> 1) | ((r & 1) << 12)


@njit(cache=True, inline="always")
def card_at(s: int, place: int) -> int:
    """The card of suit ``s`` at run place ``place`` (place 12 is the ace, rank 0)."""
    return 4 * ((place + 1) % 13) + s


@njit(cache=True, inline="always")
def to_places(m: int) -> int:
    """The ordinary cards of ``m`` in the *place layout*: card of suit ``s`` at run place
    ``p`` -> bit ``4p + s`` (the aces move above the kings), so the next card of a run
    is always 4 bits up, in every suit at once."""
    return ((m & ORDINARY_BITS) >> 4) | ((m & 0xF) << 48)


@njit(cache=True, inline="always")
def from_places(p: int) -> int:
    """The cards of a place-layout mask (the inverse of :func:`to_places`)."""
    return ((p & ((1 << 48) - 1)) << 4) | (p >> 48)


@njit(cache=True)
def is_meld(m: int) -> bool:
    """A set of 3-4 cards of one rank, a set of 3-4 jokers, or a run of 3+ in one suit."""
    n = popcount(m)
    if n < 3:
        return False
    if m & JOKER_BITS:
        return m == (m & JOKER_BITS)
    c = lowest(m)
    if (m & rank_bits(c >> 2)) == m:
        return True
    if (m & (SUIT0_BITS << (c & 3))) != m:
        return False
    p = to_places(m)  # one suit: consecutive places are 4 bits apart
    ends = p & ~(p >> 4)  # the top place of each block
    return (ends & (ends - 1)) == 0


@njit(cache=True)
def can_complete(q: int, avail: int) -> bool:
    """Whether a meld ``M`` exists with ``q <= M <= q | avail`` (``q`` not empty).

    This is the one "can this still become a meld" test: picks must pass it (with
    ``avail`` the hand cards above the last pick), and a discard-pile draw passes it
    with ``q`` = the target and ``avail`` = the hand plus the cards taken. A run is
    possible when ``avail`` fills the places between ``q``'s lowest and highest and the
    block of places around them is 3 long: with fewer than 3 places spanned, one or two
    neighbours are tested (in the place layout, :func:`to_places`) instead of walking
    the block.
    """
    a = q | avail
    if q & JOKER_BITS:
        return q == (q & JOKER_BITS) and popcount(a & JOKER_BITS) >= 3
    c = lowest(q)
    rb = rank_bits(c >> 2)
    if (q & rb) == q and popcount(a & rb) >= 3:
        return True
    suit = SUIT0_BITS << (c & 3)
    if (q & suit) != q:
        return False
    pa = to_places(a) & suit
    pq = to_places(q)
    lo, hi = lowest(pq), highest(pq)
    span = ((1 << (hi + 1)) - (1 << lo)) & suit
    if (pa & span) != span:
        return False
    if hi - lo >= 8:
        return True
    below1 = ((pa << 8) >> (lo + 4)) & 1  # place lo - 1 (0 below place 0)
    above1 = (pa >> (hi + 4)) & 1
    if hi > lo:
        return below1 + above1 >= 1
    below2 = ((pa << 8) >> lo) & 1
    above2 = (pa >> (hi + 8)) & 1
    return (below1 & below2) + (below1 & above1) + (above1 & above2) >= 1


@njit(cache=True, inline="always")
def meld_partners(avail: int) -> int:
    """The cards ``c`` outside ``avail`` with ``can_complete(1 << c, avail)``: the cards
    with two more of their rank (jokers) in ``avail``, or two places next to theirs in
    their suit (both below, both above, or one each side).

    All 56 answers at once, so a discard-pile draw tests its cards without a loop.
    """
    one = 0x11111111111111  # bit 0 of each rank's nibble (jokers: the 14th)
    n0, n1, n2, n3 = avail & one, (avail >> 1) & one, (avail >> 2) & one, (avail >> 3) & one
    two = (n0 & (n1 | n2 | n3)) | (n1 & (n2 | n3)) | (n2 & n3)  # >= 2 cards in the nibble
    p = to_places(avail)
    up, down = p >> 4, p << 4  # bit 4q+s: place q+1 (q-1) of suit s is in avail
    runs = ((down & (p << 8)) | (down & up) | (up & (p >> 8))) & ORDINARY_BITS
    return (two * 0xF | from_places(runs)) & ~avail


@njit(cache=True, inline="always")
def extends(meld: int, c: int) -> bool:
    """Whether card ``c`` laid off on ``meld`` leaves a valid meld."""
    return is_meld(meld | (1 << c))


@njit(cache=True, inline="always")
def meld_ext(m: int) -> int:
    """The cards that extend the valid meld ``m``: ``{c not in m : is_meld(m | c)}``.

    A set takes the missing cards of its rank (the jokers are the 14th rank's nibble),
    a run the card on either end of its suit (in the place layout: one place up or down,
    not in the run). Both answers are computed and one is kept, without a branch: the
    table's melds come in any order, so a branch on the kind would be mispredicted. One
    mask per table meld answers every lay-off question of a decision at once, where
    :func:`extends` answers one card for one meld.
    """
    rb = rank_bits(lowest(m) >> 2)
    p = to_places(m)
    run_ends = from_places(((p << 4) | (p >> 4)) & ~p & ORDINARY_BITS)
    return (rb & ~m) if (m & rb) == m else run_ends


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


__all__ = ["SUIT0_BITS", "ORDINARY_BITS", "rank_bits", "mask_value", "suit_ranks", "run_places",
           "card_at", "to_places", "from_places", "is_meld", "can_complete", "meld_partners",
           "extends", "meld_ext", "is_four_set", "meld_kind"]
