"""Which actions are legal (``docs/persian_rummy.md`` §5 and §8), each rule stated once.

One predicate per action kind (:func:`take_ok`, :func:`pick_ok`, :func:`meld_ok`,
:func:`layoff_ok`, :func:`target_ok`, :func:`discard_ok`); :func:`is_legal` checks
one action with them (the step's validation). The whole legal set of a decision is
:func:`legal_sets`: one card mask per action kind (the cards to TAKE, PICK, LAY_OFF or
DISCARD, the melds to TARGET) built by the same predicates or tests (:func:`take_cards`),
or the mask the predicate reads one bit of (:func:`layoff_cards`, :func:`discard_cards`),
so the mask and the step can never disagree; the one exception,
:func:`first_picks` (every first pick at once, bit-parallel), is tested equal to
:func:`pick_ok` card by card. :func:`fill_mask` spreads the sets over a mask row;
:func:`nth_legal` picks the k-th legal action without one, which is how random play
(:mod:`.playout`) draws in O(1) memory: the engine's speed lives in this module.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from pasur_env.core.bits import highest, lowest, nth_lowest, popcount
from pasur_env.core.compile import njit
from pasur_env.rummy.kernels.melds import (
    can_complete,
    extends,
    from_places,
    is_meld,
    meld_ext,
    meld_partners,
    to_places,
)
from pasur_env.rummy.kernels.state import (
    CHOOSE,
    DISCARD0,
    DRAW,
    DRAW_STOCK,
    HAND,
    LAYOFF0,
    MELD,
    MELD_ACTION,
    MELDING,
    MOVER,
    NMELDS,
    NUM_ACTIONS,
    NUM_CARDS,
    PASS,
    PENDING,
    PHASE,
    PICK0,
    PICKED,
    PILE,
    PILE_N,
    STOCK_POS,
    TAKE0,
    TARGET,
    TARGET0,
)

#: bits of the ``specials`` mask of :func:`legal_sets`: the actions that are not per card
SP_DRAW_STOCK, SP_PASS, SP_MELD = 1, 2, 4
#: place-layout masks (:func:`~pasur_env.rummy.kernels.melds.to_places`): places 2..J
#: (a run can start there from the hand cards above it), and the aces
PLACES_BELOW_Q = (1 << 40) - 1
PLACE_ACE = 0xF << 48


@njit(cache=True)
def pile_index(st: np.ndarray, b: int, c: int) -> int:
    """Position of card ``c`` in game ``b``'s discard pile (bottom = 0), -1 if absent."""
    for i in range(st[b, PILE_N]):
        if st[b, PILE + i] == c:
            return i
    return -1


@njit(cache=True)
def layoff_count(st: np.ndarray, b: int, c: int) -> int:
    """Number of table melds that card ``c`` extends."""
    n = 0
    for m in range(st[b, NMELDS]):
        if extends(st[b, MELD + m], c):
            n += 1
    return n


@njit(cache=True)
def table_ext(st: np.ndarray, b: int) -> int:
    """The cards that extend some meld on game ``b``'s table (lay-off candidates)."""
    out = 0
    for m in range(st[b, NMELDS]):
        out |= meld_ext(st[b, MELD + m])
    return out


@njit(cache=True, inline="always")
def _meldable_at_once(c: int, avail: int, ext: int) -> bool:
    """Whether pile card ``c`` can be melded in the turn that takes it: a new meld from
    ``avail`` (the hand plus the cards taken: ``can_complete(1 << c, avail)``, asked as
    :func:`~pasur_env.rummy.kernels.melds.meld_partners`) or a lay-off (``ext``:
    :func:`table_ext`)."""
    return ((meld_partners(avail) | ext) >> c) & 1 == 1


@njit(cache=True)
def take_ok(st: np.ndarray, b: int, c: int) -> bool:
    """TAKE_DISCARD ``c``: ``c`` is in the pile and can be melded at once (a new meld
    from the hand plus the cards taken, or a lay-off)."""
    i = pile_index(st, b, c)
    if i < 0:
        return False
    avail = st[b, HAND + st[b, MOVER]]
    for k in range(i + 1, st[b, PILE_N]):
        avail |= 1 << st[b, PILE + k]
    return _meldable_at_once(c, avail, table_ext(st, b))


@njit(cache=True)
def take_cards(st: np.ndarray, b: int) -> int:
    """The pile cards :func:`take_ok` allows, as a mask (one pass down from the top)."""
    avail = st[b, HAND + st[b, MOVER]]
    ext = table_ext(st, b)
    out = 0
    for i in range(st[b, PILE_N] - 1, -1, -1):
        c = st[b, PILE + i]
        if _meldable_at_once(c, avail, ext):
            out |= 1 << c
        avail |= 1 << c
    return out


@njit(cache=True)
def pick_ok(st: np.ndarray, b: int, c: int) -> bool:
    """PICK ``c``: a hand card above the last pick whose meld can still be completed from
    the hand cards above it (around the target while the obligation stands)."""
    hand = st[b, HAND + st[b, MOVER]]
    picked = st[b, PICKED]
    if not (hand >> c) & 1 or (picked and c <= highest(picked)):
        return False
    q = picked | (1 << c)
    avail = hand & ~((1 << (c + 1)) - 1)
    t = st[b, TARGET]
    if t >= 0:
        if not ((q | avail) >> t) & 1:
            return False
        q |= 1 << t
    return can_complete(q, avail)


@njit(cache=True, inline="always")
def first_picks(hand: int) -> int:
    """:func:`pick_ok` of every card at once when nothing is picked and no target binds:
    a card with two more of its rank (jokers) above it in the hand, or a card starting
    a run of 3 with the next two places (an ace: ending one, after the Q and K).

    The common case of a meld decision, so it is done bit-parallel; a test checks it
    against :func:`pick_ok` card by card.
    """
    # in each rank's nibble: the cards with at least two higher cards of the nibble
    up1 = (hand >> 1) & 0x77777777777777
    up2 = (hand >> 2) & 0x33333333333333
    up3 = (hand >> 3) & 0x11111111111111
    sets = (up1 & up2) | (up1 & up3) | (up2 & up3)
    p = to_places(hand)
    runs = (p & (p >> 4) & (p >> 8) & PLACES_BELOW_Q) | (p & (p << 4) & (p << 8) & PLACE_ACE)
    return hand & (sets | from_places(runs))


@njit(cache=True)
def pick_cards(st: np.ndarray, b: int) -> int:
    """The hand cards :func:`pick_ok` allows, as a mask."""
    cand = st[b, HAND + st[b, MOVER]]
    picked = st[b, PICKED]
    if picked:
        cand &= ~((1 << (highest(picked) + 1)) - 1)
    elif st[b, TARGET] < 0:
        return first_picks(cand)
    out = 0
    while cand:
        c = lowest(cand)
        cand &= cand - 1
        if pick_ok(st, b, c):
            out |= 1 << c
    return out


@njit(cache=True)
def meld_ok(st: np.ndarray, b: int) -> bool:
    """MELD: the picked cards form a meld (containing the target under the obligation)."""
    p = st[b, PICKED]
    t = st[b, TARGET]
    return is_meld(p) and (t < 0 or (p >> t) & 1 == 1)


@njit(cache=True)
def layoff_cards(st: np.ndarray, b: int) -> int:
    """The cards LAY_OFF allows, as a mask: with nothing picked, the hand cards (only the
    target under the obligation) that extend some meld on the table."""
    if st[b, PICKED]:
        return 0
    cand = st[b, HAND + st[b, MOVER]]
    t = st[b, TARGET]
    if t >= 0:
        cand &= 1 << t
    return cand & table_ext(st, b) if cand else 0


@njit(cache=True)
def layoff_ok(st: np.ndarray, b: int, c: int) -> bool:
    """LAY_OFF ``c``: nothing picked, ``c`` in hand (the target under the obligation)
    and it extends some meld on the table."""
    return (layoff_cards(st, b) >> c) & 1 == 1


@njit(cache=True, inline="always")
def discard_cards(st: np.ndarray, b: int) -> int:
    """The cards DISCARD allows, as a mask: the hand, once nothing is picked and the
    obligation is met."""
    return st[b, HAND + st[b, MOVER]] if st[b, PICKED] == 0 and st[b, TARGET] < 0 else 0


@njit(cache=True)
def discard_ok(st: np.ndarray, b: int, c: int) -> bool:
    """DISCARD ``c``: nothing picked, the obligation met, ``c`` in hand."""
    return (discard_cards(st, b) >> c) & 1 == 1


@njit(cache=True)
def target_ok(st: np.ndarray, b: int, m: int) -> bool:
    """TARGET ``m``: the pending lay-off card extends meld ``m``."""
    return m < st[b, NMELDS] and extends(st[b, MELD + m], st[b, PENDING])


@njit(cache=True)
def is_legal(st: np.ndarray, b: int, a: int) -> bool:
    """Whether action ``a`` is legal for game ``b``'s mover."""
    ph = st[b, PHASE]
    if a < 0 or a >= NUM_ACTIONS:
        return False
    if ph == DRAW:
        stock = st[b, STOCK_POS] < NUM_CARDS
        if a == DRAW_STOCK:
            return stock
        if a == PASS:
            return not stock
        return a < PASS and take_ok(st, b, a - TAKE0)
    if ph == CHOOSE:
        return a >= TARGET0 and a < DISCARD0 and target_ok(st, b, a - TARGET0)
    if ph != MELDING:
        return False
    if PICK0 <= a < MELD_ACTION:
        return pick_ok(st, b, a - PICK0)
    if a == MELD_ACTION:
        return meld_ok(st, b)
    if st[b, PICKED]:
        return False
    if LAYOFF0 <= a < TARGET0:
        return layoff_ok(st, b, a - LAYOFF0)
    if a >= DISCARD0:
        return discard_ok(st, b, a - DISCARD0)
    return False


@njit(cache=True)
def legal_sets(st: np.ndarray, b: int) -> tuple[int, int, int, int, int, int]:
    """Game ``b``'s legal actions as ``(specials, takes, picks, layoffs, targets,
    discards)``: ``specials`` has the bits ``SP_*`` (DRAW_STOCK, PASS, MELD), the others
    are card masks (``targets``: meld indices). All zero when DONE."""
    ph = st[b, PHASE]
    if ph == DRAW:
        sp = SP_DRAW_STOCK if st[b, STOCK_POS] < NUM_CARDS else SP_PASS
        return sp, take_cards(st, b), 0, 0, 0, 0
    if ph == CHOOSE:
        targets = 0
        for m in range(st[b, NMELDS]):
            if target_ok(st, b, m):
                targets |= 1 << m
        return 0, 0, 0, 0, targets, 0
    if ph == MELDING:
        sp = SP_MELD if st[b, PICKED] != 0 and meld_ok(st, b) else 0
        return sp, 0, pick_cards(st, b), layoff_cards(st, b), 0, discard_cards(st, b)
    return 0, 0, 0, 0, 0, 0


@njit(cache=True, inline="always")
def _set_bits(out: np.ndarray, offset: int, bits: int) -> None:
    while bits:
        out[offset + lowest(bits)] = True
        bits &= bits - 1


@njit(cache=True)
def fill_mask(st: np.ndarray, b: int, out: np.ndarray) -> None:
    """Write game ``b``'s legal actions into the bool row ``out`` (all False when DONE)."""
    out[:] = False
    sp, takes, picks, layoffs, targets, discards = legal_sets(st, b)
    out[DRAW_STOCK] = sp & SP_DRAW_STOCK != 0
    out[PASS] = sp & SP_PASS != 0
    out[MELD_ACTION] = sp & SP_MELD != 0
    _set_bits(out, TAKE0, takes)
    _set_bits(out, PICK0, picks)
    _set_bits(out, LAYOFF0, layoffs)
    _set_bits(out, TARGET0, targets)
    _set_bits(out, DISCARD0, discards)


@njit(cache=True)
def nth_legal(st: np.ndarray, b: int, u: float) -> int:
    """The legal action at quantile ``u`` in [0, 1) of game ``b``'s legal actions in
    ascending id order: the ``min(floor(u * n), n - 1)``-th of the ``n`` (-1 if none),
    the action :func:`pasur_env.rummy.kernels.playout.pick_legal` picks from the mask."""
    sp, takes, picks, layoffs, targets, discards = legal_sets(st, b)
    n = (popcount(sp) + popcount(takes) + popcount(picks) + popcount(layoffs)
         + popcount(targets) + popcount(discards))
    if n == 0:
        return -1
    k = min(int(u * n), n - 1)
    # the kinds in ascending id order: DRAW_STOCK, TAKE, PASS, PICK, MELD, LAY_OFF,
    # TARGET, DISCARD (a special is a one-card mask at its own id)
    for off, bits in ((DRAW_STOCK, sp & SP_DRAW_STOCK), (TAKE0, takes),
                      (PASS, (sp & SP_PASS) >> 1), (PICK0, picks),
                      (MELD_ACTION, (sp & SP_MELD) >> 2), (LAYOFF0, layoffs),
                      (TARGET0, targets), (DISCARD0, discards)):
        n = popcount(bits)
        if k < n:
            return off + nth_lowest(bits, k)
        k -= n
    return -1


@njit(cache=True, parallel=False, nogil=True)
def legal_mask_kernel(st: np.ndarray, games: np.ndarray, out: np.ndarray) -> None:
    """Masks of ``games`` into ``out`` (row ``i`` = game ``games[i]``)."""
    for i in prange(games.shape[0]):
        fill_mask(st, games[i], out[i])
