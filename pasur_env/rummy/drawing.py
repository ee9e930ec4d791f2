"""A picture of a Persian Rummy table: the web table's drawing, the envs' ``rgb_array``
render and ``svg()``.

It is drawn like Pasur's table (:mod:`pasur_env.pasur.drawing`) from the shared
primitives (:mod:`pasur_env.core.drawing`: the card faces, the scene, the SVG and Pillow
painters, the two layouts, the seats' places and relations) and adds what this game
needs: jokers, the discard pile spread out, the stock, the melds with the team whose
points each card is, and the last move marked.

The viewer's seat is at the bottom (its hand, clickable on the web page); the other
three sit above it in play order, each on a plate: the next seat on the left, the
partner opposite in the middle, the last seat on the right, each named with its agent,
called *partner* or *opponent* and outlined in its team's colour (blue: the viewer's
team, orange: the other), with its card count and its cards face down, except the cards
it took from the discard pile (public knowledge). ``viewer=None`` shows every hand (a
replay). The picture's width is the layout's; its height follows what is on the table.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from pasur_env.core.drawing import (
    CARD_H,
    CARD_W,
    FELT,
    INK,
    MIN_TEXT,
    PALE,
    RED,
    Circle,
    Group,
    Placed,
    Rect,
    Scene,
    Sprite,
    Text,
    card_scene,
    layout_width,
    places,
    relation_word,
    sprite,
)
from pasur_env.rummy.cards import RUN_POS, VALUE_OF, card_code, card_str, cards_of
from pasur_env.rummy.kernels import meld_kind
from pasur_env.rummy.kernels import state as S

if TYPE_CHECKING:
    from pasur_env.rummy.engine import RummyEngine

__all__ = ["RummyLastMove", "rummy_table_scene", "meld_in_order", "TEAM_COLORS"]

_JOKER_FIRST = 52
T, BIG = MIN_TEXT, MIN_TEXT + 2  # text sizes: every line, and names and titles
LINE = T + 4  # one line of text
STEP = 30  # cards of a fan, a meld or the pile overlap: the rank and suit stay in view
GAP = 8
GOLD, LAST_RING, PICKED_RING = "#f1c40f", "#e67e22", "#5dade2"
#: the colour of the viewer's team and of the other (credit marks, seat outlines)
TEAM_COLORS = ("#5dade2", "#e67e22")
TRAY, PLATE = "#1a5c3b", "#17533a"
_VERBS = {"draw": "drew {}from the stock", "pass": "passed (the stock is empty)",
          "take": "took {} from the pile", "meld": "melded {}", "lay_off": "laid {} off",
          "discard": "discarded {}"}


@dataclass(frozen=True)
class RummyLastMove:
    """A move to mark on the table: who did what (``what``: ``draw``, ``pass``,
    ``take``, ``meld``, ``lay_off``, ``discard``) with which cards (ids; for a draw from
    the stock, the card only when the viewer drew it: nobody else sees it)."""

    seat: int
    what: str
    cards: tuple[int, ...] = ()


@dataclass
class _Ctx:
    """What every part of the picture reads."""

    eng: RummyEngine
    game: int
    viewer: int | None
    names: list[str]
    marks: dict[int, str]
    width: int
    reveal: bool  # every hand face up

    def shown(self, seat: int) -> bool:
        """Whether ``seat``'s cards are drawn face up."""
        return self.reveal or self.viewer is None or self.viewer == seat

    def who(self, seat: int) -> str:
        name = self.names[seat]
        return "You" if name == "you" else name

    def team_color(self, team: int) -> str:
        mine = 0 if self.viewer is None else self.viewer % 2
        return TEAM_COLORS[0 if team == mine else 1]


def _card(card: int, x: float, y: float, *, face_up: bool = True,
          attrs: dict[str, str] | None = None, ring: str | None = None) -> Group:
    """A card, a joker (ids 52..55), or a card back."""
    if card < _JOKER_FIRST or not face_up:
        return card_scene(min(card, _JOKER_FIRST - 1), x, y, face_up=face_up,
                          attrs=attrs if face_up else {"class": "back"}, ring=ring)
    return Group([Placed(_joker(ring), x, y)], dict(attrs or {}))


@lru_cache(maxsize=8)
def _joker(ring: str | None) -> Sprite:
    """A joker's face at the origin: a large star under the corner's JK."""
    items: list[Any] = [Rect(-4, -4, CARD_W + 8, CARD_H + 8, ring, rx=9)] if ring else []
    items += [Rect(0, 0, CARD_W, CARD_H, "#fffdf7", rx=6, stroke="#6b6b6b"),
              Text(5, 17, "JK", T, RED, bold=True),
              Text(CARD_W / 2 + 4, CARD_H / 2 + 14, "★", 30, RED, "middle")]
    return sprite(items)


def _steps(n: int, width: float, step: float) -> float:
    """The step of ``n`` cards side by side in ``width``: ``step``, less if they must
    overlap more to fit (never under half of it)."""
    if n <= 1:
        return step
    return max(step / 2, min(step, (width - CARD_W) / (n - 1)))


def _row_cards(cards: Sequence[int], x: float, y: float, width: float, step: float,
               face: Callable[[int], bool], attrs: Callable[[int], dict[str, str]],
               ring: Callable[[int], str | None]) -> tuple[list[Any], float]:
    """Cards left to right from (x, y) in rows ``width`` wide; the y below them."""
    per_row = max(1, int((width - CARD_W) / step + 1e-6) + 1)
    items: list[Any] = []
    for k, c in enumerate(cards):
        r, i = divmod(k, per_row)
        items.append(_card(c, x + i * step, y + r * (CARD_H + GAP), face_up=face(c),
                           attrs=attrs(c), ring=ring(c)))
    rows = max(1, -(-len(cards) // per_row))
    return items, y + rows * (CARD_H + GAP)


# ---- the seats ----------------------------------------------------------------------------
def _plates(ctx: _Ctx, y: float, moving: int | None) -> tuple[list[Any], float]:
    """The other three seats on plates above the table: left, opposite, right."""
    me = ctx.viewer if ctx.viewer is not None else 0
    spots = places(4, me)
    w = (ctx.width - 2 * GAP - 2 * 8) / 3 if ctx.width < 600 else 260.0
    xs = {"left": 8.0, "top": (ctx.width - w) / 2, "right": ctx.width - 8 - w}
    items: list[Any] = []
    for seat, spot in spots.items():
        if spot != "bottom":
            items += _plate(ctx, seat, xs[spot], y, w, seat == moving)
    return items, y + 66 + CARD_H + 10


def _plate(ctx: _Ctx, seat: int, x: float, y: float, w: float, moving: bool) -> list[Any]:
    """One seat: its agent, who it is to the viewer, its cards (face down but those it
    took from the pile), outlined in its team's colour (gold while it moves)."""
    st, eng = ctx.eng.state[ctx.game], ctx.eng
    hand, taken = eng.hand(ctx.game, seat), set(eng.taken(ctx.game, seat))
    rel = relation_word(seat, ctx.viewer, ctx.viewer is not None and seat % 2 == ctx.viewer % 2)
    role = f"team {seat % 2}" if ctx.viewer is None else rel
    count = f"{len(hand)} card{'s' * (len(hand) != 1)}"
    if int(st[S.DEALER]) == seat:
        count += " · dealer"
    color = GOLD if moving else INK
    items: list[Any] = [
        Rect(x, y, w, 66 + CARD_H + 2, PLATE, rx=8,
             stroke=GOLD if moving else ctx.team_color(seat % 2), stroke_width=4 if moving else 2),
        Text(x + 8, y + 20, ctx.who(seat), BIG, color, bold=True),
        Text(x + 8, y + 20 + LINE, role, T, PALE), Text(x + 8, y + 20 + 2 * LINE, count, T, PALE)]
    shown = ctx.shown(seat)
    up = [c for c in hand if shown or c in taken]
    down = [c for c in hand if not (shown or c in taken)]
    room = w - 16 - CARD_W
    step_up, step_down = float(STEP), 10.0
    need = step_up * len(up) + step_down * len(down) - (step_up if up and not down else
                                                       step_down if down else 0)
    if need > room:
        step_up, step_down = step_up * room / need, step_down * room / need
    cx = x + 8
    for c in up:
        items.append(_card(c, cx, y + 62, attrs={"class": "card known", "data-card":
                                                 card_code(c)}, ring=ctx.marks.get(c)))
        cx += step_up
    for c in down:
        items.append(_card(c, cx, y + 62, face_up=False))
        cx += step_down
    return items


# ---- the middle -------------------------------------------------------------------------
def _last_line(ctx: _Ctx, last: RummyLastMove | None, y: float,
               ended: bool) -> tuple[list[Any], float]:
    """A line saying the last move (its cards are ringed where they lie now), after a
    line saying the round is over when it is; the y below them."""
    items: list[Any] = []
    if ended:
        items.append(Text(8, y + 16, "Round over: every hand is shown", BIG, GOLD, bold=True))
        y += LINE + 2
    if last is None:
        return items + [Text(8, y + 16, "No move yet this deal", T, PALE)], y + LINE + 6
    cards = " ".join(card_str(c) for c in last.cards)
    if last.what == "take" and len(last.cards) > 3:
        cards = f"{len(last.cards)} cards"
    elif last.what == "draw" and cards:  # the viewer's own draw: its card is named
        cards += " "
    verb = _VERBS.get(last.what, last.what).format(cards)
    who = ctx.who(last.seat)
    if ctx.viewer is not None and last.seat != ctx.viewer:  # two opponents: which one
        rel = relation_word(last.seat, ctx.viewer, last.seat % 2 == ctx.viewer % 2)
        spot = places(4, ctx.viewer)[last.seat]
        who += f" ({rel}, {spot})" if rel == "opponent" else f" ({rel})"
    return items + [Circle(14, y + 11, 6, LAST_RING),
                    Text(26, y + 16, f"{who} {verb}", T, INK, bold=True)], y + LINE + 6


def _stock_and_pile(ctx: _Ctx, y: float, stock_mark: str | None,
                    ring: Callable[[int], str | None]) -> tuple[list[Any], float]:
    """The stock (a face-down card with its size) and the discard pile, bottom to top,
    every card in view (taking one takes every card above it)."""
    stock = int(ctx.eng.stock_size[ctx.game])
    pile = ctx.eng.pile(ctx.game)
    px = 8 + CARD_W + 24
    items: list[Any] = [Text(8, y + 15, "stock", T, PALE),
                        Text(px, y + 15, f"discard pile, bottom → top ({len(pile)})", T, PALE)]
    y += 24
    back: list[Any] = [Rect(4, y - 4, CARD_W + 8, CARD_H + 8, stock_mark, rx=9)] if stock_mark \
        else []
    if stock:
        back += [Rect(8, y, CARD_W, CARD_H, "#24457a", rx=6, stroke="#0e1f3a"),
                 Rect(14, y + 6, CARD_W - 12, CARD_H - 12, "#3a66a8", rx=4),
                 Text(8 + CARD_W / 2, y + CARD_H / 2 + 7, str(stock), BIG + 2, INK, "middle",
                      bold=True)]
    else:
        back += [Rect(8, y, CARD_W, CARD_H, TRAY, rx=6, stroke=PALE),
                 Text(8 + CARD_W / 2, y + CARD_H / 2 + 6, "0", BIG, PALE, "middle")]
    items.append(Group(back, {"class": "stock", "data-stock": str(stock)}))
    cards, bottom = _row_cards(pile, px, y, ctx.width - 8 - px, STEP, lambda c: True,
                               lambda c: {"class": "card pile", "data-card": card_code(c)}, ring)
    return items + cards, max(bottom, y + CARD_H + GAP)


def _meld(ctx: _Ctx, m: int, cards: list[int], x: float, y: float,
          ring: Callable[[int], str | None]) -> list[Any]:
    """Meld ``m`` on a tray: its number, its cards, each with a bar in the colour of the
    team whose points it is."""
    credit0 = int(ctx.eng.state[ctx.game, S.CREDIT])
    w = CARD_W + STEP * (len(cards) - 1)
    items: list[Any] = [Group([Rect(x - 4, y, w + 8, CARD_H + 30, TRAY, rx=8)],
                              {"class": "tray"}),
                        Text(x, y + 17, f"meld {m + 1}", T, PALE)]
    for k, c in enumerate(cards):
        card = _card(c, x + k * STEP, y + 24, attrs={"class": "card in-meld",
                                                     "data-card": card_code(c)}, ring=ring(c))
        team = 0 if (credit0 >> c) & 1 else 1
        card.items.append(Rect(x + k * STEP + 3, y + 24 + CARD_H - 10, CARD_W - 6, 7,
                               ctx.team_color(team), rx=2))  # the card's group: not shared
        items.append(card)
    return [Group(items, {"class": "meld", "data-meld": str(m)})]


def meld_in_order(mask: int) -> list[int]:
    """The cards of a meld as they lie: a run in run order (aces high), else by id."""
    cards = cards_of(mask)
    return sorted(cards, key=lambda c: int(RUN_POS[c])) if meld_kind(mask) == "run" else cards


def _melds(ctx: _Ctx, y: float, meld_teams: Sequence[int | None] | None,
           ring: Callable[[int], str | None]) -> tuple[list[Any], float]:
    """The melds, by the team that laid them when that is known (the web table knows;
    the engine keeps only whose points each card is), flowing in rows."""
    st = ctx.eng.state[ctx.game]
    melds = [meld_in_order(int(m)) for m in st[S.MELD:S.MELD + st[S.NMELDS]]]
    if meld_teams is None:
        groups = [("Melds", list(range(len(melds))))]
    else:
        mine = 0 if ctx.viewer is None else ctx.viewer % 2
        names = ("Your team's melds", "Their team's melds") if ctx.viewer is not None else \
            ("Team 0's melds", "Team 1's melds")
        groups = [(names[k], [m for m in range(len(melds)) if m < len(meld_teams)
                              and meld_teams[m] == (mine if k == 0 else 1 - mine)])
                  for k in range(2)]
    key = ("team 0's", "team 1's") if ctx.viewer is None else ("your team's", "theirs")
    items: list[Any] = [Text(8, y + 15, f"bars: blue {key[0]} points, orange {key[1]}", T,
                             PALE)]
    y += 24
    side = ctx.width >= 600 and len(groups) == 2  # wide: the two teams side by side
    col_w = (ctx.width - 16 - GAP) / 2 if side else ctx.width - 16.0
    bottoms = []
    for k, (title, ms) in enumerate(groups):
        x0 = 8 + (col_w + GAP) * k if side else 8.0
        gy = y if side else (bottoms[-1] if bottoms else y)
        part, bottom = _flow_melds(ctx, melds, ms, title, x0, col_w, gy, ring)
        items += part
        bottoms.append(bottom)
    return items, max(bottoms)


def _flow_melds(ctx: _Ctx, melds: list[list[int]], ms: list[int], title: str, x0: float,
                width: float, y: float, ring: Callable[[int], str | None]) -> tuple[list[Any],
                                                                                    float]:
    """One team's melds under a title, left to right in rows of ``width``."""
    items: list[Any] = [Text(x0, y + 16, title + ("" if ms else ": none yet"), T, INK,
                             bold=True)]
    y += 24
    x, row_h = x0 + 4, 0.0
    for m in ms:
        w = CARD_W + STEP * (len(melds[m]) - 1) + 8
        if x > x0 + 4 and x + w > x0 + width:
            x, y = x0 + 4, y + row_h + GAP
        items += _meld(ctx, m, melds[m], x, y, ring)
        x, row_h = x + w + GAP, CARD_H + 30
    return items, y + row_h + GAP


def _hand(ctx: _Ctx, seat: int, y: float, moving: bool, picked: int,
          ring: Callable[[int], str | None]) -> tuple[list[Any], float]:
    """The bottom seat's hand (face up for the viewer, or in a replay): the web page
    clicks these; picked cards of a meld being built are ringed blue."""
    hand = ctx.eng.hand(ctx.game, seat)
    shown = ctx.shown(seat)
    who = ctx.who(seat) if ctx.viewer is not None else f"{ctx.who(seat)} (team {seat % 2})"
    title = who + (" · to move" if moving else "") + (
        " · dealer" if int(ctx.eng.state[ctx.game, S.DEALER]) == seat else "")
    items: list[Any] = [Text(8, y + 17, title, BIG, GOLD if moving else INK, bold=True),
                        Text(ctx.width - 8, y + 17, f"{len(hand)} cards", T, PALE, "end")]
    step = _steps(len(hand), ctx.width - 16, CARD_W + 6)
    rows = max(1, -(-len(hand) // (int((ctx.width - 16 - CARD_W) // STEP) + 1)))
    if rows > 1:
        step = float(STEP)

    def mark(c: int) -> str | None:
        return PICKED_RING if (picked >> c) & 1 else ring(c)

    cards, bottom = _row_cards(hand, 8, y + 26, ctx.width - 16, step, lambda c: shown,
                               lambda c: {"class": "card hand", "data-card": card_code(c)},
                               mark)
    return items + cards, bottom


def _footer(ctx: _Ctx, y: float, deals: int | None) -> tuple[list[Any], float]:
    """The deal and each team's game score and points on the table this deal."""
    st = ctx.eng.state[ctx.game]
    mine = 0 if ctx.viewer is None else ctx.viewer % 2
    names = ("your team", "their team") if ctx.viewer is not None else ("team 0", "team 1")
    deal = f"deal {int(st[S.DEAL]) + 1}" + (f" of {deals}" if deals else "")
    lines = [deal]
    for k, team in enumerate((mine, 1 - mine)):
        on_table = sum(int(VALUE_OF[c]) for c in cards_of(int(st[S.CREDIT + team])))
        lines.append(f"{names[k]}: {int(st[S.SCORE + team])}, +{on_table} on the table")
    items = [Text(8, y + 16 + LINE * k, t, T, PALE if k == 0 else ctx.team_color(
        mine if k == 1 else 1 - mine), bold=k > 0) for k, t in enumerate(lines)]
    return items, y + 16 + LINE * (len(lines) - 1) + 10


def rummy_table_scene(eng: RummyEngine, game: int = 0, viewer: int | None = None, *,
                      names: Sequence[str] | None = None, marks: dict[int, str] | None = None,
                      stock_mark: str | None = None, last: RummyLastMove | None = None,
                      meld_teams: Sequence[int | None] | None = None, ended: bool = False,
                      deals: int | None = None, layout: str = "narrow",
                      caption: str = "") -> Scene:
    """The table of one game as ``viewer`` sees it (None: every hand face up).

    ``names`` labels the seats (their agents; ``"you"``: the person); ``marks`` rings
    cards with a colour and ``stock_mark`` the stock (the web page's legal moves);
    ``last`` marks the last move; ``meld_teams`` (the team that laid each meld, when
    known) groups the melds by team; ``ended`` shows a round's final position with
    every hand face up; ``deals`` is the game's number of deals; ``layout``
    (``narrow``, ``wide``) sets the width, ``caption`` is a line at the bottom.
    """
    width = layout_width(layout)
    st = eng.state[game]
    ctx = _Ctx(eng, game, viewer, list(names or [f"player_{s}" for s in range(4)]),
               dict(marks or {}), width, ended)
    moving = None if ended or int(st[S.PHASE]) == S.DONE else int(st[S.MOVER])
    lasts = set(last.cards) if last is not None else set()

    def ring(c: int) -> str | None:
        return LAST_RING if c in lasts else ctx.marks.get(c)

    ctx.marks = {**ctx.marks, **dict.fromkeys(lasts, LAST_RING)}
    items, y = _plates(ctx, 8, moving)
    part, y = _last_line(ctx, last, y, ended)
    items += part
    part, y = _stock_and_pile(ctx, y, stock_mark, ring)
    items += part
    part, y = _melds(ctx, y, meld_teams, ring)
    items += part
    me = viewer if viewer is not None else 0
    part, y = _hand(ctx, me, y, moving == me, int(st[S.PICKED]) if moving == me else 0, ring)
    items += part
    part, y = _footer(ctx, y, deals)
    items += part
    if caption:
        y += LINE
        items.append(Text(8, y, caption, T, PALE))
    return Scene(width, int(y + 8), items, FELT)
