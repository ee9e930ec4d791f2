"""Pictures of the table: one drawing, as SVG (web page, notebooks) or pixels (rgb_array).

:func:`table_scene` lays out a Pasur game of the engine as a :class:`Scene` of the shared
drawing primitives (:mod:`pasur_env.core.drawing`: the cards, :func:`to_svg`,
:func:`to_rgb`), so the env's ``rgb_array`` frames and the web page show the same
drawing.

The picture is laid out like a card table seen from the viewing seat: that seat at the
bottom, the others around the table in play order (at four, the partner opposite), each
named and called *you*, *partner* or *opponent*; the table's cards in the middle, the
last move (:class:`LastMove`: the card, what it took, a sur) above them, and at a
round's end the cards left going to the last capturer. Its width is the layout's
(:data:`~pasur_env.core.drawing.LAYOUTS`: 480 units for a phone, which shows the cards at
about three quarters of their size, 880 for a desktop screen); no text is smaller than
:data:`~pasur_env.core.drawing.MIN_TEXT` units, so a phone shows none under 11 px.

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
    MIN_TEXT,
    PALE,
    Group,
    Rect,
    Scene,
    Text,
    card_scene,
    layout_width,
    places,
    relation_word,
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
#: the drawing's height (its width is the layout's)
HEIGHT = 680
LAST_RING, HOT, GOLD = "#e67e22", "#c0392b", "#f1c40f"
T, BIG = MIN_TEXT, MIN_TEXT + 2  # text sizes: every line, and names and titles
LINE = T + 3  # one line of text


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


def relation(engine: Engine, seat: int, viewer: int | None) -> str:
    """``you``, ``partner`` or ``opponent`` seen from ``viewer`` (else ``player_k``)."""
    same = viewer is not None and engine.rules.side_of(seat) == engine.rules.side_of(viewer)
    return relation_word(seat, viewer, same)


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


def _side_x(spot: str, width: int) -> tuple[float, float]:
    """Where the table's middle is at this width: between the side seats' columns."""
    return (8.0, width - 8.0) if spot == "two" else (CARD_W + 60.0, width - CARD_W - 60.0)


def _seat(engine: Engine, game: int, seat: int, spot: str, viewer: int | None, reveal: bool,
          names: list[str] | None, marks: dict[int, str], hands: bool,
          width: int) -> list[Any]:
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

    title, cx = " · ".join([who, *tags]), width / 2
    if spot == "bottom":
        x0 = cx - (len(hand) * (CARD_W + 8) - 8) / 2
        return [Text(cx, HEIGHT - 28, title, BIG, color, "middle", bold=True),
                Text(cx, HEIGHT - 9, " · ".join(stats), T, PALE, "middle"),
                *_cards(hand, x0, HEIGHT - 134, CARD_W + 8, 0, visible, attrs, marks)]
    if spot == "top":
        dx = CARD_W + 4 if reveal or viewer is None or faceup >= 0 else 22
        x0 = cx - ((len(hand) - 1) * dx + CARD_W) / 2
        return [Text(cx, 20, who, BIG, color, "middle", bold=True),
                Text(cx, 20 + LINE, " · ".join(tags + stats[:1]), T, color, "middle"),
                Text(cx, 20 + 2 * LINE, " · ".join(stats[1:]), T, PALE, "middle"),
                *_cards(hand, x0, 66, dx, 0, visible, attrs, marks)]
    # a side seat: a column of short lines (a phone's column is narrow), then its cards
    x, anchor = (8, "start") if spot == "left" else (width - 8, "end")
    lines = [who, *tags, *stats]
    y0 = 168
    out: list[Any] = [Text(x, y0 + LINE * k, t, BIG if k == 0 else T, color if k == 0 else PALE,
                           anchor, bold=k == 0) for k, t in enumerate(lines)]
    cards_x = 8 if spot == "left" else width - 8 - CARD_W
    return out + _cards(hand, cards_x, y0 + LINE * len(lines) - 8, 0, 26, visible, attrs, marks)


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
    w = 10 * len(text) + 14
    return [Rect(x, y - 16, w, 22, fill, rx=11), Text(x + w / 2, y, text, T, INK, "middle",
                                                     bold=True)]


def _last_move(last: LastMove, names: list[str] | None, x0: float, x1: float,
               y: float) -> list[Any]:
    """The last move in a strip above the table: who, the card played, what it took
    (the seat's place says who that is to the viewer)."""
    who = names[last.seat] if names else f"player_{last.seat}"
    who = "You" if who == "you" else who
    verb = "played" if last.taken or last.leftover is not None else "laid"
    items: list[Any] = [Text(x0, y + 14, f"{who} {verb}", T, INK, bold=True)]
    items.append(card_scene(last.card, x0, y + 22, ring=LAST_RING,
                            attrs={"class": "played", "data-played": str(last.card)}))
    x = x0 + CARD_W + 12
    if last.taken:
        items.append(Text(x, y + 42, "took", T, PALE))
        x += 40
        step = min(CARD_W + 4.0, (x1 - x - CARD_W) / max(1, len(last.taken) - 1))
        items += [card_scene(c, x + k * step, y + 22, attrs={"class": "taken"})
                  for k, c in enumerate(last.taken)]
    elif last.leftover is None:
        items.append(Text(x, y + 66, "on the table", T, PALE))
    if last.sur:
        items += _badge(x1 - 54, y + 14, "SUR", HOT)
    return items


def _leftover(engine: Engine, last: LastMove, viewer: int | None, names: list[str] | None,
              x0: float, x1: float, y0: float, y1: float) -> list[Any]:
    """A round's end: the cards left on the table and whose side they go to."""
    left = list(last.leftover or ())
    n = len(left)
    if last.leftover_to is None:
        lines = ["Nobody captured:", "the cards stay uncounted"] if left else []
    else:
        rel = relation(engine, last.leftover_to, viewer)
        who = names[last.leftover_to] if names else f"player_{last.leftover_to}"
        owner = "your side" if rel in ("you", "partner") else f"{who} ({rel})"
        lines = ([f"The {n} card{'s' * (n != 1)} left go{'es' * (n == 1)} to",
                  f"{owner}, the last capturer"] if left else ["The table is empty"])
    cx = (x0 + x1) / 2
    return [Text(cx, y0 + 4, "Round over", BIG, GOLD, "middle", bold=True),
            *[Text(cx, y0 + 4 + LINE * (k + 1), t, T, INK, "middle") for k, t in
              enumerate(lines)],
            *_table_cards(left, x0, x1, y0 + 14 + LINE * 3, y1, {c: GOLD for c in left},
                          attrs=False)]


def _corners(st: Any, ended: bool, width: int) -> list[Any]:
    """The round and deal (top right) and the stock with its size (top left)."""
    items: list[Any] = [Text(width - 8, 20, "round over" if ended else
                             f"round {int(st[K.ROUND]) + 1}", T, PALE, "end")]
    if not ended:
        items.append(Text(width - 8, 20 + LINE, f"deal {int(st[K.DEAL]) + 1}", T, PALE, "end"))
    stock = 0 if ended else 52 - int(st[K.STOCK_POS])
    if stock:
        items.append(Group([Rect(8, 8, 34, 48, "#24457a", rx=4, stroke="#0e1f3a"),
                            Rect(12, 12, 26, 40, "#3a66a8", rx=3),
                            Text(8, 56 + LINE, f"stock {stock}", T, PALE)],
                           {"class": "stock"}))
    return items


def table_scene(engine: Engine, game: int = 0, viewer: int | None = None, *,
                reveal: bool = False, names: list[str] | None = None,
                marks: dict[int, str] | None = None, caption: str = "",
                last: LastMove | None = None, layout: str = "narrow") -> Scene:
    """The table of one game as seen by ``viewer`` (None or ``reveal``: every hand).

    The viewer sits at the bottom, the others around the table in play order (the
    partner opposite at four); ``names`` labels the seats (their agents); ``marks``
    outlines cards with a colour (the web page's legal cards); ``last`` shows a move
    on the table (the card, what it took, a sur), and with ``leftover`` set, a round's
    end: the hands are not drawn (the next deal is not shown yet), the cards left on
    the table go to the last capturer. ``caption`` is a line of text at the bottom;
    ``layout`` (``narrow``, ``wide``) sets the width.
    """
    width = layout_width(layout)
    P = engine.num_players
    st = engine.state[game]
    marks = dict(marks or {})
    ended = last is not None and last.leftover is not None
    spots = places(P, viewer if viewer is not None else 0)
    items = _corners(st, ended, width)
    for seat, spot in spots.items():
        items += _seat(engine, game, seat, spot, viewer, reveal, names, marks, not ended, width)
    x0, x1 = _side_x("two" if P == 2 else "sides", width)
    y_last, y_table, y_end = 152, 266, HEIGHT - 146
    pend = int(st[K.PENDING]) if st[K.PHASE] == K.CAPTURE else -1
    if pend >= 0:
        who = relation(engine, int(st[K.MOVER]), viewer)
        items += [Text(x0, y_last + 14, f"{who} is playing", T, INK, bold=True),
                  card_scene(pend, x0, y_last + 22, ring=GOLD)]
    elif last is not None:
        items += _last_move(last, names, x0, x1, y_last)
        if not last.taken and not ended:
            marks.setdefault(last.card, LAST_RING)
    if ended:
        assert last is not None
        items += _leftover(engine, last, viewer, names, x0, x1, y_table, y_end)
    else:
        items += _table_cards(cards_of(int(st[K.TABLE])), x0, x1, y_table, y_end, marks)
    height = HEIGHT
    if caption:
        height += LINE + 8
        items.append(Text(8, height - 8, caption, T, PALE))
    return Scene(width, height, items)
