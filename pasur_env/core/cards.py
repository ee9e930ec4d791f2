"""The 52 ordinary card ids both games use, their text codes and bit sets.

A card id is ``4 * rank_index + suit_index`` with ranks ``A 2 .. 10 J Q K`` (0..12)
and suits clubs, diamonds, hearts, spades (0..3), so every numeral (A..10) has an id
below 40. Pasur (``docs/rules.md`` §1) uses exactly these 52 ids; Persian Rummy
(``docs/persian_rummy.md``) adds four jokers above them.

Both engines store sets of cards as integers (bit ``c`` set = card ``c`` present);
:func:`mask_of` and :func:`cards_of` convert between the two views.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import numpy as np

from pasur_env.core.args import check_deck_sequence

RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS: tuple[str, ...] = ("C", "D", "H", "S")
SUIT_SYMBOLS: tuple[str, ...] = ("♣", "♦", "♥", "♠")
NUM_CARDS = 52

JACK, QUEEN, KING = 10, 11, 12

#: rank index of every card id
RANK_OF = np.arange(NUM_CARDS, dtype=np.int64) // 4
#: suit index of every card id
SUIT_OF = np.arange(NUM_CARDS, dtype=np.int64) % 4


def _bits(ids: Iterable[int]) -> int:
    out = 0
    for c in ids:
        out |= 1 << int(c)
    return out


#: bit masks of card groups, the one definition used by the kernels, encoders and agents
NUMERAL_BITS = _bits(range(40))
JACK_BITS = _bits(range(40, 44))
QUEEN_BITS = _bits(range(44, 48))
KING_BITS = _bits(range(48, 52))
CLUB_BITS = _bits(range(0, 52, 4))
ACE_BITS = _bits(range(0, 4))
ALL_BITS = (1 << NUM_CARDS) - 1

_TEXT_TO_ID: dict[str, int] = {}
for _r, _rank in enumerate(RANKS):
    for _s, _suit in enumerate(SUITS):
        _TEXT_TO_ID[_rank + _suit] = 4 * _r + _s
        _TEXT_TO_ID[_rank + SUIT_SYMBOLS[_s]] = 4 * _r + _s
        if _rank == "10":
            _TEXT_TO_ID["T" + _suit] = 4 * _r + _s
            _TEXT_TO_ID["T" + SUIT_SYMBOLS[_s]] = 4 * _r + _s


def card_id(rank: int, suit: int) -> int:
    """Return the id of the card with rank index ``rank`` (A=0..K=12) and suit index ``suit``."""
    if not (0 <= rank < 13 and 0 <= suit < 4):
        raise ValueError(f"rank must be in 0..12 and suit in 0..3, got rank={rank}, suit={suit}")
    return 4 * rank + suit


def parse_card(card: str | int | np.integer) -> int:
    """Parse a text code (``"10D"``, ``"TD"``, ``"KS"``, ``"10♦"``; case-insensitive) or an id.

    Raises ``ValueError`` naming the bad input, so a typo in a scripted deck never
    silently becomes another card.
    """
    if isinstance(card, (bool, np.bool_)):
        raise TypeError(f"a card must be a text code or an id, got {card!r}")
    if isinstance(card, (int, np.integer)):
        if not 0 <= int(card) < NUM_CARDS:
            raise ValueError(f"card id must be in 0..51, got {card}")
        return int(card)
    if not isinstance(card, str):
        raise TypeError(f"a card must be a text code or an id, got {type(card).__name__}")
    key = card.strip().upper()
    if key not in _TEXT_TO_ID:
        raise ValueError(
            f"unknown card code {card!r}: expected rank A,2..10 (or T),J,Q,K then suit C,D,H,S"
        )
    return _TEXT_TO_ID[key]


def parse_cards(cards: str | Iterable[str | int]) -> list[int]:
    """Parse several cards: a list of codes/ids or one string of space-separated codes."""
    if isinstance(cards, str):
        cards = cards.replace(",", " ").split()
    return [parse_card(c) for c in cards]


def card_code(c: int) -> str:
    """Text code of card id ``c`` (``37 -> "10D"``)."""
    c = parse_card(c)
    return RANKS[c // 4] + SUITS[c % 4]


def card_str(c: int) -> str:
    """Pretty form of card id ``c`` with a suit symbol (``37 -> "10♦"``)."""
    c = parse_card(c)
    return RANKS[c // 4] + SUIT_SYMBOLS[c % 4]


def cards_str(cards: Iterable[int], sep: str = " ") -> str:
    """Pretty form of several card ids, sorted by rank then suit."""
    return sep.join(card_str(c) for c in sorted(int(c) for c in cards))


#: a card code inside a text: rank (T for ten) and suit letter, as a word of its own
_CODE_IN_TEXT = re.compile(r"\b(10|[2-9AJQKT])([CDHS])\b")


def with_symbols(text: str) -> str:
    """``text`` with every card code written as :func:`card_str` writes it (``"PLAY
    10D"`` -> ``"PLAY 10♦"``, jokers as they are): the one card notation of the text
    the project shows people (the terminal games, ``pasur demo``, ``pasur replay``);
    codes stay the notation of what is typed and of JSON, records and action ids."""
    return _CODE_IN_TEXT.sub(lambda m: ("10" if m.group(1) == "T" else m.group(1))
                             + SUIT_SYMBOLS[SUITS.index(m.group(2))], text)


def mask_of(cards: Iterable[str | int]) -> int:
    """52-bit set of the given cards (codes or ids)."""
    return _bits(parse_card(c) for c in cards)


def cards_of(mask: int | np.integer) -> list[int]:
    """Card ids in a 52-bit set, ascending."""
    m = int(mask)
    if m < 0 or m >> NUM_CARDS:
        raise ValueError(f"not a 52-bit card set: {m:#x}")
    return [c for c in range(NUM_CARDS) if (m >> c) & 1]


def parse_deck(deck: Sequence[str | int] | np.ndarray,
               cards: Sequence[int] | None = None) -> np.ndarray:
    """Validate a deck order (index 0 = top) and return it as an int64 array of ids.

    A deck must hold each of its cards exactly once: the 52 cards, or the ids ``cards``
    (a game played with a smaller deck); anything else raises a ``ValueError`` that
    names the problem (length, unknown code, duplicates, missing, foreign cards).
    """
    seq = check_deck_sequence(deck)
    full = range(NUM_CARDS) if cards is None else cards
    if len(seq) != len(full):
        raise ValueError(f"a deck must have {len(full)} cards, got {len(seq)}")
    ids = [parse_card(c) for c in seq]
    seen: dict[int, int] = {}
    dupes = []
    for c in ids:
        seen[c] = seen.get(c, 0) + 1
        if seen[c] == 2:
            dupes.append(card_code(c))
    allowed = set(full)
    foreign = [card_code(c) for c in seen if c not in allowed]
    if dupes or foreign:
        missing = [card_code(c) for c in full if c not in seen]
        extra = f" and cards not in the game's deck {foreign}" if foreign else ""
        raise ValueError(f"deck has duplicate cards {dupes}{extra} and lacks {missing}")
    return np.asarray(ids, dtype=np.int64)
