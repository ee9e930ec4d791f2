"""A round's score sheet: each side's points by category, as the rules count them (§6).

The engine reports, for the step that ends a round, each side's points, surs, clubs,
the cards it had at the count (after the leftovers' sweep) and the club points it won.
:func:`round_sheet` breaks the points down from those, so a table can show *why* a side
scored what it did: clubs, 10♦, 2♣, aces, jacks and surs (after cancellation and the
80% cutoff). The categories always add up to the engine's total.
"""

from __future__ import annotations

from typing import Any

from pasur_env.pasur.cards import (
    ACE_BITS,
    CLUB_BITS,
    JACK_BITS,
    POINTS_OF,
    TEN_DIAMONDS,
    TWO_CLUBS,
    cards_of,
)
from pasur_env.pasur.engine import StepInfo
from pasur_env.pasur.rules import Rules

__all__ = ["round_sheet"]


def round_sheet(info: StepInfo, row: int, rules: Rules) -> list[dict[str, Any]]:
    """One dict per side for the round that ended at row ``row`` of a step's info.

    Keys: ``side``, ``seats``, ``cards`` (captured), ``clubs`` (count), ``club_points``,
    ``ten_diamonds``, ``two_clubs``, ``aces``, ``jacks`` (points of each), ``surs``
    (made this round), ``sur_points`` (scored, after cancellation/cutoff), ``total``.
    """
    if not info.round_end[row]:
        raise ValueError(f"row {row} of this step did not end a round")
    out = []
    for s in range(rules.num_sides):
        pile = int(info.piles[row, s])
        ids = cards_of(pile)
        card_pts = int(sum(POINTS_OF[c] for c in ids))
        club_pts = int(info.club_points[row, s])
        total = int(info.round_points[row, s])
        out.append({
            "side": s,
            "seats": [p for p in range(rules.num_players) if rules.side_of(p) == s],
            "cards": len(ids),
            "clubs": bin(pile & CLUB_BITS).count("1"),
            "club_points": club_pts,
            "ten_diamonds": int(POINTS_OF[TEN_DIAMONDS]) if (pile >> TEN_DIAMONDS) & 1 else 0,
            "two_clubs": int(POINTS_OF[TWO_CLUBS]) if (pile >> TWO_CLUBS) & 1 else 0,
            "aces": bin(pile & ACE_BITS).count("1"),
            "jacks": bin(pile & JACK_BITS).count("1"),
            "surs": int(info.surs[row, s]),
            "sur_points": total - card_pts - club_pts,
            "total": total,
        })  # fmt: skip
    return out
