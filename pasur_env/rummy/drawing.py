"""A picture of a Persian Rummy table (the envs' ``rgb_array`` render and ``svg()``).

It reuses Pasur's drawing (:mod:`pasur_env.core.drawing`: the same card faces, scene
primitives, SVG and Pillow painters) and adds what this game needs: jokers, the melds
on the table with the team credited for each card, and the discard pile. Like the text
render, it shows a viewer only what that seat may see: other hands face down, except
the cards they took from the discard pile (public knowledge).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pasur_env.core.drawing import (
    CARD_H,
    CARD_W,
    INK,
    PALE,
    RED,
    Group,
    Rect,
    Scene,
    Text,
    card_scene,
)
from pasur_env.rummy.kernels import state as S

if TYPE_CHECKING:
    from pasur_env.rummy.engine import RummyEngine

__all__ = ["rummy_table_scene"]

_JOKER_FIRST = 52
_STEP = CARD_W * 0.45  # cards of one hand or meld overlap


def _card(card: int, x: float, y: float, *, face_up: bool = True) -> Group:
    """A card, a joker (ids 52..55), or a card back."""
    if card < _JOKER_FIRST or not face_up:
        return card_scene(min(card, _JOKER_FIRST - 1), x, y, face_up=face_up)
    return Group([Rect(x, y, CARD_W, CARD_H, "#fffdf7", rx=6, stroke="#6b6b6b"),
                  Text(x + CARD_W / 2, y + CARD_H / 2 + 5, "JOKER", 11, RED, "middle",
                       bold=True)], {})


def _fan(cards: list[int], x: float, y: float, face_up: Any = True) -> list[Any]:
    shown = face_up if callable(face_up) else (lambda c: face_up)
    return [_card(c, x + k * _STEP, y, face_up=shown(c)) for k, c in enumerate(cards)]


def rummy_table_scene(eng: RummyEngine, game: int = 0, viewer: int | None = None) -> Scene:
    """The table of one game as ``viewer`` sees it (None: every hand face up)."""
    st = eng.state[game]
    credit0 = int(st[S.CREDIT])
    items: list[Any] = [Text(20, 26, (
        f"deal {int(st[S.DEAL]) + 1} · dealer player_{int(st[S.DEALER])} · stock "
        f"{eng.stock_size[game]} · team 0: {int(st[S.SCORE])} · team 1: "
        f"{int(st[S.SCORE + 1])} · to move player_{int(st[S.MOVER])} "
        f"({S.PHASE_NAMES[int(st[S.PHASE])]})"), 14, PALE)]
    y = 44
    for seat in range(4):
        hand, known = eng.hand(game, seat), set(eng.taken(game, seat))
        visible = viewer is None or viewer == seat
        items.append(Text(20, y + 14, f"player_{seat} (team {seat % 2}) · {len(hand)} cards",
                          13, INK, bold=True))
        items += _fan(hand, 20, y + 20, face_up=lambda c, v=visible, k=known: v or c in k)
        y += CARD_H + 30
    x0 = 20 + _STEP * 15 + CARD_W + 30
    pile = eng.pile(game)
    items.append(Text(x0, 58, f"discard pile ({len(pile)})", 13, PALE))
    items += _fan(pile[-12:], x0, 64)
    items.append(Text(x0, 64 + CARD_H + 26, "melds (team credited)", 13, PALE))
    my = 64 + CARD_H + 32
    for m, cards in enumerate(eng.melds(game)):
        col, row = m % 2, m // 2
        mx, yy = x0 + col * 300, my + row * (CARD_H + 22)
        teams = "".join("0" if (credit0 >> c) & 1 else "1" for c in cards)
        items += _fan(cards, mx, yy)
        items.append(Text(mx, yy + CARD_H + 14, f"teams {teams}", 11, PALE))
    height = max(y + 10, my + ((len(eng.melds(game)) + 1) // 2) * (CARD_H + 22) + 10)
    return Scene(int(x0 + 620), int(height), items)

