"""Pasur's card values and points (``docs/rules.md`` §1, §6) over the shared card ids.

The ids, codes and parsers are :mod:`pasur_env.core.cards` (re-exported here, so
``pasur_env.pasur.cards`` is the one place Pasur code reads cards from). A numeral's
value is ``id // 4 + 1``: the engine relies on that to find capture options with plain
bit arithmetic.
"""

from __future__ import annotations

import numpy as np

from pasur_env.core.cards import (  # noqa: F401 - re-exported: Pasur reads its cards here
    ACE_BITS,
    ALL_BITS,
    CLUB_BITS,
    JACK,
    JACK_BITS,
    KING,
    KING_BITS,
    NUM_CARDS,
    NUMERAL_BITS,
    QUEEN,
    QUEEN_BITS,
    RANK_OF,
    RANKS,
    SUIT_OF,
    SUIT_SYMBOLS,
    SUITS,
    card_code,
    card_id,
    card_str,
    cards_of,
    cards_str,
    mask_of,
    parse_card,
    parse_cards,
    parse_deck,
)

#: numeral value (A=1 .. 10=10), 0 for court cards
VALUE_OF = np.where(RANK_OF < JACK, RANK_OF + 1, 0).astype(np.int64)

#: the two cards worth more than one point at the count (docs/rules.md §6)
TEN_DIAMONDS = 4 * 9 + 1
TWO_CLUBS = 4 * 1 + 0
TEN_DIAMONDS_POINTS = 3
TWO_CLUBS_POINTS = 2
#: points a card is worth by itself at the count (10♦ 3, 2♣ 2, aces and jacks 1)
POINTS_OF = np.zeros(NUM_CARDS, dtype=np.int64)
POINTS_OF[RANK_OF == 0] = 1
POINTS_OF[RANK_OF == JACK] = 1
POINTS_OF[TEN_DIAMONDS] = TEN_DIAMONDS_POINTS
POINTS_OF[TWO_CLUBS] = TWO_CLUBS_POINTS
TEN_DIAMONDS_BIT = 1 << TEN_DIAMONDS
TWO_CLUBS_BIT = 1 << TWO_CLUBS
