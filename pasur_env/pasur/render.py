"""Text pictures of a game: what ``render_mode="ansi"`` shows (one seat's view, or all)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pasur_env.pasur import kernels as K
from pasur_env.pasur.cards import cards_of, cards_str

if TYPE_CHECKING:
    from pasur_env.pasur.engine import Engine


def render_text(engine: Engine, game: int = 0, viewer: int | None = None) -> str:
    """Text picture of one game; ``viewer`` hides the other seats' hidden cards.

    Shows the round, deal, stock size, dealer and mover, the table, every hand (other
    seats' cards as ``##`` when ``viewer`` is given, Ru Baaz face-up cards shown), each
    side's score, pile, clubs and surs, and a pending capture.
    """
    st = engine.state[game]
    P = engine.num_players
    lines = [
        f"round {int(st[K.ROUND]) + 1}, deal {int(st[K.DEAL]) + 1}, "
        f"stock {52 - int(st[K.STOCK_POS])}"
        f", dealer player_{int(st[K.DEALER])}, to move player_{int(st[K.MOVER])}"
        f" ({engine.phase_name(game)})",
        f"table: {cards_str(cards_of(st[K.TABLE])) or '(empty)'}",
    ]
    faceup = engine.faceup(game)
    for seat in range(P):
        cards = engine.hand(game, seat)
        if viewer is None or viewer == seat:
            shown = cards_str(cards)
        else:
            shown = " ".join(cards_str([c]) if c == faceup[seat] else "##" for c in cards)
        lines.append(f"player_{seat} hand: {shown or '(empty)'}")
    for s in range(engine.rules.num_sides):
        pile = cards_of(st[K.PILE + s])
        clubs = sum(1 for c in pile if c % 4 == 0)
        lines.append(
            f"side {s}: score {int(st[K.SCORE + s])}, captured {len(pile)} cards"
            f" ({clubs} clubs), surs {int(st[K.SURS + s])}"
        )
    if st[K.PHASE] == K.CAPTURE:
        lines.append(
            f"pending: {cards_str([int(st[K.PENDING])])} taking "
            f"[{cards_str(cards_of(st[K.SELECTION]))}]"
        )
    return "\n".join(lines)
