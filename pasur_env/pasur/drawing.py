"""Pictures of the table: one drawing, as SVG (web page, notebooks) or pixels (rgb_array).

:func:`table_scene` lays out a Pasur game of the engine as a :class:`Scene` of the shared
drawing primitives (:mod:`pasur_env.core.drawing`: the cards, :func:`to_svg`,
:func:`to_rgb`), so the env's ``rgb_array`` frames and the web page show the same
drawing.

The picture is laid out like a card table seen from the viewing seat: that seat at the
bottom, the others around the table in play order (at four, the partner opposite), each
named and called *you*, *partner* or *opponent*; the table's cards in the middle, the
last move (:class:`LastMove`: the card, what it took, a sur) above them, and at a
round's end the cards left going to the last capturer. It is 480 units wide, so a phone
shows the cards at about three quarters of their size.

The picture shows only what the viewing seat may see: other seats' cards face down
(their Ru Baaz face-up card excepted), the stock as a face-down pile with its size.
``reveal=True`` shows every hand (replays of finished games, demos).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pasur_env.core.drawing import (  # noqa: F401 - re-exported: the picture API of Pasur
    CARD_H,
    CARD_W,
    FELT,
    INK,
    PALE,
    Group,
    Rect,
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

__all__ = ["Scene", "LastMove", "places", "relation", "table_scene", "card_scene", "to_svg",
           "to_rgb", "CARD_W", "CARD_H"]


# ---- the table ------------------------------------------------------------------------------
#: the drawing's size: narrow enough that a phone (390 px) shows the cards at about 3/4 scale
WIDTH, HEIGHT = 480, 640
LAST_RING, HOT, GOLD = "#e67e22", "#c0392b", "#f1c40f"


@dataclass(frozen=True)
class LastMove:
    """A move to show on the table: who played which card, what it took, a sur.

    ``leftover`` (with ``leftover_to``, the seat of the last capturer, or None) are the
    cards left on the table at a round's end, which go to the last capturer's side.
    """

    seat: int
    card: int
    taken: tuple[int, ...] = ()
    sur: bool = False
    leftover: tuple[int, ...] | None = None
    leftover_to: int | None = None


def places(num_players: int, viewer: int) -> dict[int, str]:
    """Where each seat sits seen from ``viewer`` (at the bottom): play goes clockwise,
    so the next seat is on the left and, at four, the partner opposite (top)."""
    spots = {2: ["top"], 3: ["left", "right"], 4: ["left", "top", "right"]}[num_players]
    out = {viewer: "bottom"}
    for k, spot in enumerate(spots, start=1):
        out[(viewer + k) % num_players] = spot
    return out


def relation(engine: Engine, seat: int, viewer: int | None) -> str:
    """``you``, ``partner`` or ``opponent`` seen from ``viewer`` (else ``player_k``)."""
    if viewer is None:
        return f"player_{seat}"
    if seat == viewer:
        return "you"
    return "partner" if engine.rules.side_of(seat) == engine.rules.side_of(viewer) else "opponent"


def _cards(cards: list[int], x: float, y: float, dx: float, dy: float,
           visible: Callable[[int], bool], attrs: Callable[[int], dict[str, str]],
           marks: dict[int, str]) -> list[Any]:
    """A fan of cards from (x, y), each ``dx``, ``dy`` further; face down unless visible."""
    out = []
    for k, c in enumerate(cards):
        up = visible(c)
        out.append(card_scene(c, x + k * dx, y + k * dy, face_up=up,
                              attrs=attrs(c) if up else {"class": "back"},
                              ring=marks.get(c) if up else None))
    return out


def _seat(engine: Engine, game: int, seat: int, spot: str, viewer: int | None, reveal: bool,
          names: list[str] | None, marks: dict[int, str], hands: bool) -> list[Any]:
    """A seat at its place: its name (agent), who it is to the viewer, its side's counts
    and its hand (face down unless the viewer may see it)."""
    st = engine.state[game]
    side = engine.rules.side_of(seat)
    pile = cards_of(int(st[K.PILE + side]))
    who = names[seat] if names else f"player_{seat}"
    who = "You" if who == "you" else who
    moving = bool(hands and int(st[K.MOVER]) == seat and st[K.PHASE] != K.DONE)
    tags = [] if who == "You" else [relation(engine, seat, viewer)]
    tags += ["dealer"] * (hands and int(st[K.DEALER]) == seat) + ["to move"] * moving
    stats = [f"score {int(st[K.SCORE + side])}"]
    if hands:
        stats += [f"pile {len(pile)}", f"clubs {sum(1 for c in pile if c % 4 == 0)}",
                  f"surs {int(st[K.SURS + side])}"]
    color = GOLD if moving else INK
    hand = engine.hand(game, seat) if hands else []
    faceup = engine.faceup(game)[seat]

    def visible(c: int) -> bool:
        return reveal or viewer is None or viewer == seat or c == faceup

    def attrs(c: int) -> dict[str, str]:
        return {"class": "card hand", "data-card": str(c)}

    title, cx = " · ".join([who, *tags]), WIDTH / 2
    if spot == "bottom":
        x0 = cx - (len(hand) * (CARD_W + 8) - 8) / 2
        return [Text(cx, HEIGHT - 24, title, 15, color, "middle", bold=True),
                Text(cx, HEIGHT - 8, " · ".join(stats), 12, PALE, "middle"),
                *_cards(hand, x0, HEIGHT - 122, CARD_W + 8, 0, visible, attrs, marks)]
    if spot == "top":
        dx = CARD_W + 4 if reveal or viewer is None or faceup >= 0 else 22
        x0 = cx - ((len(hand) - 1) * dx + CARD_W) / 2
        return [Text(cx, 16, who, 14, color, "middle", bold=True),
                Text(cx, 30, " · ".join(tags + stats[:1]), 11, color, "middle"),
                Text(cx, 43, " · ".join(stats[1:]), 11, PALE, "middle"),
                *_cards(hand, x0, 50, dx, 0, visible, attrs, marks)]
    x, anchor = (8, "start") if spot == "left" else (WIDTH - 8, "end")
    lines = [who, *tags, " · ".join(stats[0:4:3]), " · ".join(stats[1:3])]
    out: list[Any] = [Text(x, 150 + 14 * k, t, 14 if k == 0 else 11, color if k == 0 else PALE,
                           anchor, bold=k == 0) for k, t in enumerate(lines) if t]
    y = 150 + 14 * len(lines) - 6
    cards_x = 8 if spot == "left" else WIDTH - 8 - CARD_W
    return out + _cards(hand, cards_x, y, 0, 26, visible, attrs, marks)


def _table_cards(cards: list[int], x0: float, x1: float, y0: float, y1: float,
                 marks: dict[int, str], attrs: bool = True) -> list[Any]:
    """The table's cards in rows between x0..x1, y0..y1 (overlapping when they are many)."""
    if not cards:
        return []
    per_row = max(1, int((x1 - x0 + 6) // (CARD_W + 6)))
    rows = -(-len(cards) // per_row)
    max_rows = max(1, int((y1 - y0 - CARD_H) // 40) + 1)
    if rows > max_rows:  # more cards than fit side by side: overlap them in each row
        rows = max_rows
        per_row = -(-len(cards) // rows)
    dx = min(CARD_W + 6, (x1 - x0 - CARD_W) / max(1, per_row - 1))
    dy = min(CARD_H + 8, (y1 - y0 - CARD_H) / max(1, rows - 1))
    out = []
    for k, c in enumerate(cards):
        r, i = divmod(k, per_row)
        n = min(per_row, len(cards) - r * per_row)
        x = (x0 + x1) / 2 - ((n - 1) * dx + CARD_W) / 2 + i * dx
        a = {"class": "card table", "data-card": str(c)} if attrs else {"class": "past"}
        out.append(card_scene(c, x, y0 + r * dy, attrs=a, ring=marks.get(c)))
    return out


def _badge(x: float, y: float, text: str, fill: str) -> list[Any]:
    w = 9 * len(text) + 12
    return [Rect(x, y - 15, w, 20, fill, rx=10), Text(x + w / 2, y, text, 13, INK, "middle",
                                                     bold=True)]


def _last_move(engine: Engine, last: LastMove, viewer: int | None, names: list[str] | None,
               x0: float, x1: float, y: float) -> list[Any]:
    """The last move in a strip above the table: who, the card played, what it took."""
    who = names[last.seat] if names else f"player_{last.seat}"
    rel = relation(engine, last.seat, viewer)
    who = "You" if who == "you" else f"{who} ({rel})" if viewer is not None else who
    verb = "played" if last.taken or last.leftover is not None else "laid"
    items: list[Any] = [Text(x0, y + 12, f"{who} {verb}", 13, INK, bold=True)]
    items.append(card_scene(last.card, x0, y + 20, ring=LAST_RING,
                            attrs={"class": "played", "data-played": str(last.card)}))
    x = x0 + CARD_W + 14
    if last.taken:
        items.append(Text(x, y + 40, "took", 12, PALE))
        for k, c in enumerate(last.taken):
            items.append(card_scene(c, x + 34 + k * min(30, (x1 - x - 34 - CARD_W) /
                                                        max(1, len(last.taken) - 1)),
                                    y + 20, attrs={"class": "taken"}))
    elif last.leftover is None:
        items.append(Text(x, y + 60, "on the table", 12, PALE))
    if last.sur:
        items += _badge(x1 - 50, y + 12, "SUR", HOT)
    return items


def _leftover(engine: Engine, last: LastMove, viewer: int | None, names: list[str] | None,
              x0: float, x1: float, y0: float, y1: float) -> list[Any]:
    """A round's end: the cards left on the table and whose side they go to."""
    left = list(last.leftover or ())
    if last.leftover_to is None:
        text = "Nobody captured: the cards stay uncounted" if left else ""
    else:
        rel = relation(engine, last.leftover_to, viewer)
        who = names[last.leftover_to] if names else f"player_{last.leftover_to}"
        owner = "your side" if rel in ("you", "partner") else f"{who} ({rel})"
        n = len(left)
        text = (f"The {n} card{'s' * (n != 1)} left go{'es' * (n == 1)} to {owner}, "
                "the last capturer" if left else "The table is empty")
    return [Text(WIDTH / 2, y0 + 4, "Round over", 16, GOLD, "middle", bold=True),
            Text(WIDTH / 2, y0 + 22, text, 12, INK, "middle"),
            *_table_cards(left, x0, x1, y0 + 32, y1, {c: GOLD for c in left}, attrs=False)]


def table_scene(engine: Engine, game: int = 0, viewer: int | None = None, *,
                reveal: bool = False, names: list[str] | None = None,
                marks: dict[int, str] | None = None, caption: str = "",
                last: LastMove | None = None) -> Scene:
    """The table of one game as seen by ``viewer`` (None or ``reveal``: every hand).

    The viewer sits at the bottom, the others around the table in play order (the
    partner opposite at four); ``names`` labels the seats (their agents); ``marks``
    outlines cards with a colour (the web page's legal cards); ``last`` shows a move
    on the table (the card, what it took, a sur), and with ``leftover`` set, a round's
    end: the hands are not drawn (the next deal is not shown yet), the cards left on
    the table go to the last capturer. ``caption`` is a line of text at the bottom.
    """
    P = engine.num_players
    st = engine.state[game]
    marks = dict(marks or {})
    ended = last is not None and last.leftover is not None
    me = viewer if viewer is not None else 0
    spots = places(P, me)
    items: list[Any] = [Text(WIDTH - 8, 16, "round over" if ended else
                             f"round {int(st[K.ROUND]) + 1}", 12, PALE, "end")]
    items += [] if ended else [Text(WIDTH - 8, 30, f"deal {int(st[K.DEAL]) + 1}", 12, PALE, "end")]
    stock = 0 if ended else 52 - int(st[K.STOCK_POS])
    if stock:
        items.append(Group([Rect(8, 8, 34, 48, "#24457a", rx=4, stroke="#0e1f3a"),
                            Rect(12, 12, 26, 40, "#3a66a8", rx=3),
                            Text(25, 70, f"stock {stock}", 10, PALE, "middle")],
                           {"class": "stock"}))
    for seat, spot in spots.items():
        items += _seat(engine, game, seat, spot, viewer, reveal, names, marks, not ended)
    x0, x1 = (8.0, WIDTH - 8.0) if P == 2 else (CARD_W + 40.0, WIDTH - CARD_W - 40.0)
    y_last, y_table, y_end = 140, 254, HEIGHT - 132
    pend = int(st[K.PENDING]) if st[K.PHASE] == K.CAPTURE else -1
    if pend >= 0:
        last = LastMove(int(st[K.MOVER]), pend)
        items += [Text(x0, y_last + 12, f"{relation(engine, last.seat, viewer)} is playing",
                       13, INK, bold=True), card_scene(pend, x0, y_last + 20, ring=GOLD)]
    elif last is not None:
        items += _last_move(engine, last, viewer, names, x0, x1, y_last)
        if not last.taken and not ended:
            marks.setdefault(last.card, LAST_RING)
    if ended:
        assert last is not None
        items += _leftover(engine, last, viewer, names, x0, x1, y_table, y_end)
    else:
        items += _table_cards(cards_of(int(st[K.TABLE])), x0, x1, y_table, y_end, marks)
    height = HEIGHT
    if caption:
        height += 24
        items.append(Text(8, height - 7, caption, 13, PALE))
    return Scene(WIDTH, height, items)
