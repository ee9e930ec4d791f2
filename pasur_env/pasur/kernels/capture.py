"""Capture options and surs (docs/rules.md §4, §5, §9): what a played card may take.

An option of a numeral of value v is a set of table numerals summing to 11 - v; a
jack's single option is every numeral and jack on the table; a king or queen takes
one card of its rank. Options are chosen one table card at a time in ascending id
order (the action interface of §9), so :func:`take_bits` (the legal next takes) is
the primitive from which everything else here is built.
"""

from __future__ import annotations

import numpy as np

from pasur_env.core.bits import highest, lowest, popcount
from pasur_env.core.compile import njit
from pasur_env.pasur.kernels.state import (
    JACK_BITS,
    NUMERAL_BITS,
    P_JACK_SUR,
    SUM_BITS,
    TABLE,
    is_last_deal,
)


@njit(cache=True)
def take_bits(table: int, card: int, selection: int) -> int:
    """Table cards ``t`` that may be added to ``selection`` when ``card`` is played (§9).

    ``t`` is legal iff some capture option O of ``card`` has ``selection | {t}`` equal to
    its ``|selection| + 1`` smallest ids. For a numeral of value v the options are the
    sets of table numerals summing to 11 - v, so ``t`` must exceed every selected id and
    the rest of the sum must be reachable with table numerals of higher id: a subset-sum
    bitset over sums 0..10, built while scanning the table from the highest id down.
    Kings and queens: every table card of the same rank. A jack's single option never
    goes through a selection; this returns 0 for it.
    """
    rank = card >> 2
    if rank >= 11:
        if selection != 0:
            return 0
        return table & (0xF << (4 * rank))
    if rank == 10:
        return 0
    need = 10 - rank
    top = -1
    s = selection
    while s:
        c = lowest(s)
        need -= (c >> 2) + 1
        top = c
        s &= s - 1
    if need <= 0:
        return 0
    nums = table & NUMERAL_BITS & ~selection
    reach = 1
    out = 0
    while nums:
        t = highest(nums)
        if t <= top:
            break
        nums &= ~(1 << t)
        v = (t >> 2) + 1
        rem = need - v
        if rem >= 0 and (reach >> rem) & 1:
            out |= 1 << t
        reach = (reach | (reach << v)) & SUM_BITS
    return out


@njit(cache=True, inline="always")
def is_complete(card: int, selection: int) -> bool:
    """Whether ``selection`` (a legal selection for ``card``) is a whole capture option."""
    rank = card >> 2
    if rank >= 11:
        return selection != 0
    total = 0
    s = selection
    while s:
        total += (lowest(s) >> 2) + 1
        s &= s - 1
    return total == 10 - rank


@njit(cache=True)
def resolve_play(table: int, card: int) -> tuple[int, int]:
    """What playing ``card`` on ``table`` does: ``(n, captured)``.

    ``n`` is 0 (no option: the card is laid), 1 (one option: ``captured`` is it) or 2
    (two or more options: the CAPTURE phase follows). A single option is found by
    following the only legal take at each step; a step with two legal takes means at
    least two options, since each option is exactly one take sequence.
    """
    rank = card >> 2
    if rank == 10:
        grab = table & (NUMERAL_BITS | JACK_BITS)
        return (1, grab) if grab else (0, 0)
    sel = 0
    while True:
        takes = take_bits(table, card, sel)
        if takes == 0:
            return 0, 0  # only reachable with sel == 0
        if takes & (takes - 1):
            return 2, 0
        sel |= takes
        if is_complete(card, sel):
            return 1, sel


@njit(cache=True)
def enumerate_options(table: int, card: int, out: np.ndarray) -> int:
    """:func:`enumerate_options_into` with its own search stack."""
    return enumerate_options_into(table, card, out, np.empty(256, dtype=np.int64))


@njit(cache=True)
def enumerate_options_into(table: int, card: int, out: np.ndarray, stack: np.ndarray) -> int:
    """Write every capture option of ``card`` (as masks) to ``out``; return their number.

    Depth-first over take sequences, so each option appears once. Returns -1 if ``out``
    is too small.
    """
    rank = card >> 2
    if rank == 10:
        grab = table & (NUMERAL_BITS | JACK_BITS)
        if grab:
            out[0] = grab
            return 1
        return 0
    stack[0] = 0
    depth = 1
    n = 0
    while depth:
        depth -= 1
        sel = stack[depth]
        takes = take_bits(table, card, sel)
        while takes:
            t = lowest(takes)
            takes &= takes - 1
            nxt = sel | (1 << t)
            if is_complete(card, nxt):
                if n >= out.shape[0]:
                    return -1
                out[n] = nxt
                n += 1
            else:
                if depth >= stack.shape[0]:
                    return -1
                stack[depth] = nxt
                depth += 1
    return n


@njit(cache=True)
def sur_on_table(
    st: np.ndarray, b: int, params: np.ndarray, table: int, card: int, captured: int
) -> bool:
    """Whether capturing ``captured`` with ``card`` from ``table`` in game ``b``'s deal
    is a sur (§5); ``table`` need not be the game's current one (lookahead)."""
    if (table & ~captured) != 0 or is_last_deal(st, b):
        return False
    if (card >> 2) != 10:
        return True
    return params[P_JACK_SUR] == 1 and popcount(table) == 1 and (table & JACK_BITS) != 0


@njit(cache=True)
def capture_is_sur(st: np.ndarray, b: int, params: np.ndarray, card: int, captured: int) -> bool:
    """Whether capturing ``captured`` with ``card`` in game ``b`` is a sur (§5)."""
    return sur_on_table(st, b, params, st[b, TABLE], card, captured)
