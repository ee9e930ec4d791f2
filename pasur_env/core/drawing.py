"""Drawing primitives both games' pictures are made of, as SVG or pixels.

A picture is a :class:`Scene` of a few primitive shapes (rounded rectangles, polygons,
circles, text). :func:`to_svg` writes it as SVG text and :func:`to_rgb` paints the same
shapes with Pillow into an ``(H, W, 3)`` uint8 array, so an env's ``rgb_array`` frames
and the web page show the same drawing. The cards are drawn here (no third-party card
art): a rounded card, the rank in the corner over a small suit, a large suit or court
letter in the middle; the suits are polygons and circles computed below. Each game
lays out its own table from these (``pasur_env.pasur.drawing``,
``pasur_env.rummy.drawing``) in one of two :data:`LAYOUTS`: ``narrow`` for a phone,
``wide`` for a desktop screen, with the seats placed by :func:`places` and named by
:func:`relation_word`, and no text smaller than :data:`MIN_TEXT`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cache, lru_cache
from html import escape
from typing import Any

import numpy as np

from pasur_env.core.cards import RANKS

__all__ = ["Scene", "Group", "Rect", "Poly", "Circle", "Text", "Sprite", "Placed", "sprite",
           "card_scene", "to_svg", "to_rgb",
           "CARD_W", "CARD_H", "LAYOUTS", "MIN_TEXT", "layout_width", "places",
           "relation_word"]

CARD_W, CARD_H = 56, 80
RED, BLACK = "#c0392b", "#1d1d1d"
FELT, INK, PALE = "#1f6b45", "#f4f1e8", "#cfe3d6"
#: a drawing's width in units for each layout: ``narrow`` is shown on a phone (390 px:
#: about 3/4 scale), ``wide`` beside the move log on a desktop screen (1280 px: about 1:1)
LAYOUTS = {"narrow": 480, "wide": 880}
#: the smallest text of a drawing, in units: at a phone's 3/4 scale it is still 11 px
MIN_TEXT = 15


def layout_width(layout: str) -> int:
    """The width of a drawing in ``layout`` (:data:`LAYOUTS`); another name is refused."""
    if not isinstance(layout, str) or layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {', '.join(LAYOUTS)}, got {layout!r}")
    return LAYOUTS[layout]


def places(num_players: int, viewer: int) -> dict[int, str]:
    """Where each seat sits seen from ``viewer`` (at the bottom): play goes clockwise,
    so the next seat is on the left and, at four, the partner opposite (top)."""
    spots = {2: ["top"], 3: ["left", "right"], 4: ["left", "top", "right"]}[num_players]
    out = {viewer: "bottom"}
    for k, spot in enumerate(spots, start=1):
        out[(viewer + k) % num_players] = spot
    return out


def relation_word(seat: int, viewer: int | None, same_side: bool) -> str:
    """``you``, ``partner`` or ``opponent`` seen from ``viewer`` (None: ``player_k``)."""
    if viewer is None:
        return f"player_{seat}"
    if seat == viewer:
        return "you"
    return "partner" if same_side else "opponent"


# ---- primitives ---------------------------------------------------------------------------
@dataclass
class Rect:
    x: float
    y: float
    w: float
    h: float
    fill: str
    rx: float = 0.0
    stroke: str | None = None
    stroke_width: float = 1.0


@dataclass
class Poly:
    points: list[tuple[float, float]]
    fill: str


@dataclass
class Circle:
    cx: float
    cy: float
    r: float
    fill: str


@dataclass
class Text:
    x: float
    y: float
    text: str
    size: float
    fill: str = INK
    anchor: str = "start"  # start, middle, end
    bold: bool = False


@dataclass
class Group:
    """Shapes that belong together; ``attrs`` become SVG attributes (``class``,
    ``data-card``: what the web page clicks on); pixels ignore them."""

    items: list[Any]
    attrs: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Sprite:
    """Shapes drawn the same wherever they stand (a card's face or back): made into SVG
    text once and shared by every :class:`Placed` copy, so a table of many cards is
    written quickly (:func:`sprite`)."""

    items: tuple[Any, ...]  # shapes, at the origin
    svg: str


@dataclass
class Placed:
    """A :class:`Sprite` with its top left corner at (x, y)."""

    sprite: Sprite
    x: float
    y: float


def sprite(items: list[Any]) -> Sprite:
    """A sprite of shapes drawn at the origin."""
    return Sprite(tuple(items), "".join(_svg_item(i) for i in items))


@dataclass
class Scene:
    width: int
    height: int
    items: list[Any]
    background: str = FELT


# ---- suits ----------------------------------------------------------------------------------
@cache
def _heart_unit() -> tuple[tuple[float, float], ...]:
    """A heart in the unit box (x, y in 0..1, y down): the classic parametric curve."""
    pts = []
    for k in range(48):
        t = 2 * math.pi * k / 48
        x = 16 * math.sin(t) ** 3
        y = 13 * math.cos(t) - 5 * math.cos(2 * t) - 2 * math.cos(3 * t) - math.cos(4 * t)
        pts.append(((x + 17) / 34, (13.5 - y) / 30))
    return tuple(pts)


def _suit_shapes(suit: int, cx: float, cy: float, size: float, fill: str) -> list[Any]:
    """Shapes of a suit symbol centred at (cx, cy), ``size`` across."""
    def place(pts: Any) -> list[tuple[float, float]]:
        return [(cx + (x - 0.5) * size, cy + (y - 0.5) * size) for x, y in pts]

    if suit == 1:  # diamonds
        return [Poly([(cx, cy - size / 2), (cx + size * 0.38, cy), (cx, cy + size / 2),
                      (cx - size * 0.38, cy)], fill)]
    if suit == 2:  # hearts
        return [Poly(place(_heart_unit()), fill)]
    stem = Poly([(cx, cy), (cx + size * 0.2, cy + size / 2), (cx - size * 0.2, cy + size / 2)],
                fill)
    if suit == 3:  # spades: a heart upside down, and a stem
        top = [(cx + (x - 0.5) * size * 0.95, cy + size * 0.18 - y * size * 0.78)
               for x, y in _heart_unit()]
        return [Poly(top, fill), stem]
    r = size * 0.22  # clubs: three leaves and a stem
    return [Circle(cx, cy - size * 0.24, r, fill),
            Circle(cx - size * 0.25, cy + size * 0.06, r, fill),
            Circle(cx + size * 0.25, cy + size * 0.06, r, fill), stem]


# ---- cards ----------------------------------------------------------------------------------
def card_scene(card: int, x: float, y: float, *, face_up: bool = True,
               attrs: dict[str, str] | None = None, ring: str | None = None) -> Group:
    """One card at (x, y): face up (rank, suits) or its back; ``ring`` outlines it."""
    return Group([Placed(_card_sprite(card if face_up else -1, ring), x, y)], dict(attrs or {}))


@lru_cache(maxsize=256)
def _card_sprite(card: int, ring: str | None) -> Sprite:
    """A card's face (``card`` -1: its back), ringed or not, at the origin."""
    x = y = 0.0
    items: list[Any] = []
    if ring:
        items.append(Rect(x - 4, y - 4, CARD_W + 8, CARD_H + 8, ring, rx=9))
    if card < 0:
        items += [Rect(x, y, CARD_W, CARD_H, "#24457a", rx=6, stroke="#0e1f3a"),
                  Rect(x + 6, y + 6, CARD_W - 12, CARD_H - 12, "#3a66a8", rx=4)]
        return sprite(items)
    rank, suit = card // 4, card % 4
    color = RED if suit in (1, 2) else BLACK
    items.append(Rect(x, y, CARD_W, CARD_H, "#fffdf7", rx=6, stroke="#6b6b6b"))
    items.append(Text(x + 5, y + 17, RANKS[rank], 15, color, bold=True))
    items += _suit_shapes(suit, x + 11, y + 28, 11, color)
    if rank >= 10:  # court cards: the letter large
        items.append(Text(x + CARD_W / 2 + 4, y + CARD_H / 2 + 14, RANKS[rank], 34, color,
                          "middle", bold=True))
    else:
        items += _suit_shapes(suit, x + CARD_W / 2 + 4, y + CARD_H / 2 + 8, 26, color)
    return sprite(items)


# ---- SVG --------------------------------------------------------------------------------------
def _svg_item(item: Any) -> str:
    if isinstance(item, Placed):
        return f'<g transform="translate({item.x:.1f},{item.y:.1f})">{item.sprite.svg}</g>'
    if isinstance(item, Group):
        attrs = "".join(f' {k}="{escape(v)}"' for k, v in item.attrs.items())
        return f"<g{attrs}>" + "".join(_svg_item(i) for i in item.items) + "</g>"
    if isinstance(item, Rect):
        stroke = (f' stroke="{item.stroke}" stroke-width="{item.stroke_width}"'
                  if item.stroke else "")
        return (f'<rect x="{item.x:.1f}" y="{item.y:.1f}" width="{item.w:.1f}" '
                f'height="{item.h:.1f}" rx="{item.rx:.1f}" fill="{item.fill}"{stroke}/>')
    if isinstance(item, Poly):
        pts = " ".join(f"{x:.1f},{y:.1f}" for x, y in item.points)
        return f'<polygon points="{pts}" fill="{item.fill}"/>'
    if isinstance(item, Circle):
        return (f'<circle cx="{item.cx:.1f}" cy="{item.cy:.1f}" r="{item.r:.1f}" '
                f'fill="{item.fill}"/>')
    weight = ' font-weight="bold"' if item.bold else ""
    return (f'<text x="{item.x:.1f}" y="{item.y:.1f}" font-size="{item.size:.0f}" '
            f'fill="{item.fill}" text-anchor="{item.anchor}"{weight}>'
            f'{escape(item.text)}</text>')


#: the font of every text of a drawing, set once on the document (its texts inherit it)
FONT = "DejaVu Sans, Verdana, sans-serif"


def to_svg(scene: Scene) -> str:
    """The scene as an SVG document (a string). The font is named once, on the
    document, not on each text: a table's drawing has a hundred texts and is sent with
    every view of the web table."""
    body = "".join(_svg_item(i) for i in scene.items)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {scene.width} '
            f'{scene.height}" width="{scene.width}" height="{scene.height}" '
            f'font-family="{FONT}">'
            f'<rect width="100%" height="100%" fill="{scene.background}"/>{body}</svg>')


# ---- pixels -----------------------------------------------------------------------------------
@lru_cache(maxsize=16)
def _font(size: int, bold: bool) -> Any:
    from PIL import ImageFont

    for name in ("DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf",):
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            pass
    return ImageFont.load_default(size=size)


def _paint(draw: Any, item: Any, dx: float = 0.0, dy: float = 0.0) -> None:
    """Paint ``item`` moved by (dx, dy)."""
    if isinstance(item, Placed):
        for i in item.sprite.items:
            _paint(draw, i, dx + item.x, dy + item.y)
    elif isinstance(item, Group):
        for i in item.items:
            _paint(draw, i, dx, dy)
    elif isinstance(item, Rect):
        box = (item.x + dx, item.y + dy, item.x + dx + item.w, item.y + dy + item.h)
        draw.rounded_rectangle(box, radius=item.rx, fill=item.fill, outline=item.stroke,
                               width=max(1, round(item.stroke_width)) if item.stroke else 0)
    elif isinstance(item, Poly):
        draw.polygon([(x + dx, y + dy) for x, y in item.points], fill=item.fill)
    elif isinstance(item, Circle):
        cx, cy = item.cx + dx, item.cy + dy
        draw.ellipse((cx - item.r, cy - item.r, cx + item.r, cy + item.r), fill=item.fill)
    else:
        anchor = {"start": "ls", "middle": "ms", "end": "rs"}[item.anchor]
        draw.text((item.x + dx, item.y + dy), item.text, fill=item.fill, anchor=anchor,
                  font=_font(round(item.size), item.bold))


def to_rgb(scene: Scene) -> np.ndarray:
    """The scene painted into an ``(height, width, 3)`` uint8 array (Pillow)."""
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (scene.width, scene.height), scene.background)
    draw = ImageDraw.Draw(img)
    for item in scene.items:
        _paint(draw, item)
    return np.asarray(img, dtype=np.uint8)
