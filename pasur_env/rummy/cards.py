"""Persian Rummy cards: the Pasur card ids plus four jokers (``docs/persian_rummy.md`` §1).

The 52 ordinary cards keep the Pasur ids and codes (:mod:`pasur_env.pasur.cards`), so the
two games share one card vocabulary; the jokers are ids 52..55 (codes ``JK1``..``JK4``).
A set of cards is a 56-bit mask, which still fits an ``int64``.

Rummy ranks aces *high*: :data:`RUN_POS` gives each ordinary card's place in a run
(2 -> 0 ... K -> 11, A -> 12), the one definition the kernels and agents use.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from pasur_env.core.args import check_deck_sequence
from pasur_env.core.cards import NUM_CARDS as NUM_ORDINARY
from pasur_env.core.cards import card_code as ordinary_code
from pasur_env.core.cards import card_str as ordinary_str
from pasur_env.core.cards import parse_card as parse_ordinary

__all__ = [
    "NUM_CARDS", "JOKERS", "JOKER_BITS", "ALL_BITS", "VALUE_OF", "RUN_POS",
    "parse_card", "card_code", "card_str", "cards_of", "mask_of", "parse_deck",
]

NUM_CARDS = 56
#: the joker ids
JOKERS = (52, 53, 54, 55)
JOKER_BITS = 0xF << NUM_ORDINARY
ALL_BITS = (1 << NUM_CARDS) - 1

_RANK = np.arange(NUM_CARDS) // 4
#: card values at the count: joker 20, ace 15, 10/J/Q/K 10, 2..9 face value
VALUE_OF = np.where(_RANK >= 9, 10, _RANK + 1).astype(np.int64)
VALUE_OF[_RANK == 0] = 15
VALUE_OF[NUM_ORDINARY:] = 20
#: place of each ordinary card in a run (aces high); -1 for jokers
RUN_POS = np.where(_RANK == 0, 12, _RANK - 1).astype(np.int64)
RUN_POS[NUM_ORDINARY:] = -1


def parse_card(card: str | int | np.integer) -> int:
    """Parse a code (``"10D"``, ``"JK2"``) or an id (0..55); ``ValueError`` names bad input."""
    if isinstance(card, str) and card.strip().upper().startswith("JK"):
        tail = card.strip()[2:]
        if tail in ("1", "2", "3", "4"):
            return NUM_ORDINARY + int(tail) - 1
        raise ValueError(f"unknown joker code {card!r}: expected JK1, JK2, JK3 or JK4")
    if isinstance(card, (int, np.integer)) and not isinstance(card, (bool, np.bool_)):
        if not 0 <= int(card) < NUM_CARDS:
            raise ValueError(f"card id must be in 0..55, got {card}")
        return int(card)
    return parse_ordinary(card)


def card_code(c: int) -> str:
    """Text code of card id ``c`` (``53 -> "JK2"``)."""
    c = parse_card(c)
    return f"JK{c - NUM_ORDINARY + 1}" if c >= NUM_ORDINARY else ordinary_code(c)


def card_str(c: int) -> str:
    """Pretty form of card id ``c`` (suit symbols; jokers as ``JK1``)."""
    c = parse_card(c)
    return card_code(c) if c >= NUM_ORDINARY else ordinary_str(c)


def cards_of(mask: int | np.integer) -> list[int]:
    """Card ids in a 56-bit set, ascending."""
    m = int(mask)
    if m < 0 or m >> NUM_CARDS:
        raise ValueError(f"not a 56-bit card set: {m:#x}")
    return [c for c in range(NUM_CARDS) if (m >> c) & 1]


def mask_of(cards: Iterable[str | int]) -> int:
    """56-bit set of the given cards (codes or ids)."""
    out = 0
    for c in cards:
        out |= 1 << parse_card(c)
    return out


def parse_deck(deck: Sequence[str | int] | np.ndarray | str) -> np.ndarray:
    """Validate a deck order (index 0 = top): 56 valid codes or ids, each exactly once.

    Anything else raises ``ValueError`` naming the problem (length, unknown code,
    duplicates and what is missing), so a scripted test deck can never silently
    become another deal.
    """
    seq = check_deck_sequence(deck)
    if len(seq) != NUM_CARDS:
        raise ValueError(f"a Persian Rummy deck must have 56 cards (52 + 4 jokers), got {len(seq)}")
    ids = [parse_card(c) for c in seq]
    counts = np.bincount(np.asarray(ids, dtype=np.int64), minlength=NUM_CARDS)
    if (counts != 1).any():
        dupes = [card_code(c) for c in np.flatnonzero(counts > 1)]
        missing = [card_code(c) for c in np.flatnonzero(counts == 0)]
        raise ValueError(f"deck has duplicate cards {dupes} and lacks {missing}")
    return np.asarray(ids, dtype=np.int64)
