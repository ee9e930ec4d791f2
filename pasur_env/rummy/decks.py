"""Scripted deals: the deck order that deals given hands (tests, docs, examples).

The deal (``docs/persian_rummy.md`` §3) gives one card at a time from the seat after
the dealer, then turns up the first discard; :func:`deck_for` inverts it, so a test
names the hands, the up card and the top of the stock instead of 56 positions.
"""

from __future__ import annotations

from collections.abc import Sequence

from pasur_env.core.args import check_dealer, check_deck_sequence
from pasur_env.rummy.cards import NUM_CARDS, card_code, parse_card, parse_deck

__all__ = ["deck_for"]


def deck_for(hands: Sequence[Sequence[str | int] | str], up: str | int,
             stock: Sequence[str | int] | str = (), dealer: int = 3) -> list[str]:
    """The 56 codes (top first) that deal ``hands[s]`` to seat ``s`` (7 cards each),
    turn up ``up`` and put ``stock`` on top of the stock (top first); the cards not
    named follow in id order. Raises ``ValueError`` for a card named twice."""
    dealer = check_dealer(dealer, 4)
    hs = [check_deck_sequence(h) for h in hands]
    if len(hs) != 4 or any(len(h) != 7 for h in hs):
        raise ValueError("deck_for needs 4 hands of 7 cards")
    st = check_deck_sequence(stock)
    order = [parse_card(hs[(dealer + 1 + k) % 4][k // 4]) for k in range(28)]
    order.append(parse_card(up))
    order += [parse_card(c) for c in st]
    twice = sorted({card_code(c) for c in order if order.count(c) > 1})
    if twice:
        raise ValueError(f"deck_for: cards named more than once: {twice}")
    order += [c for c in range(NUM_CARDS) if c not in set(order)]
    return [card_code(c) for c in parse_deck(order)]
