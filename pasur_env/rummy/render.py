"""Text picture of a Persian Rummy game (the envs' ``ansi`` render)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pasur_env.rummy.cards import card_str, cards_of
from pasur_env.rummy.kernels import state as S
from pasur_env.rummy.kernels.melds import meld_kind

if TYPE_CHECKING:
    from pasur_env.rummy.engine import RummyEngine


def _cards(ids: list[int]) -> str:
    return " ".join(card_str(c) for c in ids) or "-"


def render_text(eng: RummyEngine, b: int = 0, viewer: int | None = None) -> str:
    """Scores, melds (with the team credited for each card), pile, stock and hands.

    With ``viewer`` given, other seats' hands show only their size and the cards they
    took from the discard pile (public knowledge).
    """
    st = eng.state
    credit0 = int(st[b, S.CREDIT])
    lines = [
        f"deal {int(st[b, S.DEAL]) + 1}  dealer player_{int(st[b, S.DEALER])}  "
        f"scores team0 {int(st[b, S.SCORE])} team1 {int(st[b, S.SCORE + 1])}  "
        f"phase {S.PHASE_NAMES[int(st[b, S.PHASE])]}  to move player_{int(st[b, S.MOVER])}",
        f"stock {eng.stock_size[b]}  discard pile (bottom first): {_cards(eng.pile(b))}",
    ]
    for m, cards in enumerate(eng.melds(b)):
        teams = "".join("0" if (credit0 >> c) & 1 else "1" for c in cards)
        lines.append(f"meld {m} ({meld_kind(int(st[b, S.MELD + m]))}): {_cards(cards)}"
                     f"  [teams {teams}]")
    for seat in range(4):
        hand = eng.hand(b, seat)
        if viewer is None or viewer == seat:
            shown = _cards(hand)
        else:
            shown = f"{len(hand)} cards, known: {_cards(eng.taken(b, seat))}"
        lines.append(f"player_{seat} (team {seat % 2}): {shown}")
    if st[b, S.PICKED]:
        lines.append(f"picked: {_cards(cards_of(st[b, S.PICKED]))}")
    if st[b, S.TARGET] >= 0:
        lines.append(f"must meld: {card_str(int(st[b, S.TARGET]))}")
    if st[b, S.PENDING] >= 0:
        lines.append(f"laying off {card_str(int(st[b, S.PENDING]))}: choose a meld")
    return "\n".join(lines)
