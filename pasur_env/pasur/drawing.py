"""Pictures of the table: one drawing, as SVG (web page, notebooks) or pixels (rgb_array).

:func:`table_scene` lays out a Pasur game of the engine as a :class:`Scene` of the shared
drawing primitives (:mod:`pasur_env.core.drawing`: the cards, :func:`to_svg`,
:func:`to_rgb`), so the env's ``rgb_array`` frames and the web page show the same
drawing.

The picture shows only what the viewing seat may see: other seats' cards face down
(their Ru Baaz face-up card excepted), the stock as a face-down pile with its size.
``reveal=True`` shows every hand (replays of finished games, demos).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pasur_env.core.drawing import (  # noqa: F401 - re-exported: the picture API of Pasur
    CARD_H,
    CARD_W,
    FELT,
    INK,
    PALE,
    Group,
    Scene,
    Text,
    card_scene,
    to_rgb,
    to_svg,
)
from pasur_env.pasur import kernels as K
from pasur_env.pasur.cards import cards_of

if TYPE_CHECKING:
    from pasur_env.pasur.engine import Engine

__all__ = ["Scene", "table_scene", "card_scene", "to_svg", "to_rgb", "CARD_W", "CARD_H"]


# ---- the table ------------------------------------------------------------------------------
def _row(cards: list[int], x: float, y: float, step: float) -> list[tuple[int, float, float]]:
    return [(c, x + k * step, y) for k, c in enumerate(cards)]


def _seat_box(engine: Engine, game: int, seat: int, x: float, y: float, viewer: int | None,
              reveal: bool, names: list[str] | None, marks: dict[int, str]) -> list[Any]:
    """A seat's name, hand (face down unless visible) and side's counts."""
    st = engine.state[game]
    side = engine.rules.side_of(seat)
    pile = cards_of(int(st[K.PILE + side]))
    clubs = sum(1 for c in pile if c % 4 == 0)
    who = names[seat] if names else f"player_{seat}"
    mover = "  (to move)" if int(st[K.MOVER]) == seat and st[K.PHASE] != K.DONE else ""
    items: list[Any] = [
        Text(x, y, f"{who}{mover}", 15, INK, bold=True),
        Text(x, y + 18, f"score {int(st[K.SCORE + side])} · pile {len(pile)} · clubs {clubs}"
             f" · surs {int(st[K.SURS + side])}", 12, PALE),
    ]
    faceup = engine.faceup(game)[seat]
    for c, cx, cy in _row(engine.hand(game, seat), x, y + 28, CARD_W + 6):
        visible = reveal or viewer is None or viewer == seat or c == faceup
        attrs = {"class": "card hand", "data-card": str(c)} if visible else {"class": "back"}
        items.append(card_scene(c, cx, cy, face_up=visible, attrs=attrs, ring=marks.get(c)))
    return items


def table_scene(engine: Engine, game: int = 0, viewer: int | None = None, *,
                reveal: bool = False, names: list[str] | None = None,
                marks: dict[int, str] | None = None, caption: str = "") -> Scene:
    """The table of one game as seen by ``viewer`` (None or ``reveal``: every hand).

    ``marks`` outlines cards with a colour (the web page's legal cards and selection);
    ``names`` labels the seats; ``caption`` is a line of text at the bottom.
    """
    P = engine.num_players
    st = engine.state[game]
    marks = marks or {}
    width, row_h = 900, CARD_H + 52
    height = 90 + row_h * (P if P > 2 else 2) + CARD_H + 40
    items: list[Any] = [Text(20, 28, f"round {int(st[K.ROUND]) + 1} · deal {int(st[K.DEAL]) + 1}"
                             f" · stock {52 - int(st[K.STOCK_POS])} · dealer player_"
                             f"{int(st[K.DEALER])}", 15, PALE)]
    me = viewer if viewer is not None else 0
    order = [(me + k) % P for k in range(1, P)] + [me]  # the viewer at the bottom
    y = 50
    for seat in order[:-1]:
        items += _seat_box(engine, game, seat, 20, y, viewer, reveal, names, marks)
        y += row_h
    table = cards_of(int(st[K.TABLE]))
    items.append(Text(20, y + 14, "table", 13, PALE))
    pend = int(st[K.PENDING]) if st[K.PHASE] == K.CAPTURE else -1
    for c, cx, cy in _row(table, 20, y + 22, CARD_W + 6):
        items.append(card_scene(c, cx, cy, attrs={"class": "card table", "data-card": str(c)},
                                ring=marks.get(c)))
    right = width - CARD_W - 24
    stock = 52 - int(st[K.STOCK_POS])
    if stock:
        items.append(card_scene(0, right, 50, face_up=False, attrs={"class": "stock"}))
        items.append(Text(right + CARD_W / 2, 50 + CARD_H + 16, f"stock {stock}", 12, PALE,
                          "middle"))
    if pend >= 0:
        items.append(Text(right - CARD_W - 20, 44, "playing", 13, PALE))
        items.append(card_scene(pend, right - CARD_W - 20, 50, ring="#f1c40f"))
    y += CARD_H + 52
    items += _seat_box(engine, game, order[-1], 20, y, viewer, reveal, names, marks)
    if caption:
        items.append(Text(20, height - 12, caption, 13, PALE))
    return Scene(width, height, items)


