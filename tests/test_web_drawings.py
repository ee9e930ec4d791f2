"""The web table's pictures: drawn once per state of the game, never older than the table.

A view asked again before anything changes (a reload, a second tab) sends the pictures
already drawn (:meth:`~agents.apps.web.sessions.TableGame.drawn`); after any change (a
move through the app, a move made directly as the terminal does, a round's summary
closed, a move undone because an agent failed) the picture sent is the one drawn from
the table as it is now.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from agents.apps.web.pasur_table import LEGAL_RING, PasurTable
from agents.apps.web.rummy_table import RummyTable
from agents.apps.web.sessions import AgentError, TableGame


def _pasur() -> PasurTable:
    return PasurTable(2, 0, ["greedy"], seed=7)


def _rummy() -> RummyTable:
    return RummyTable(opponents=["greedy", "random", "greedy"], seed=7)


def _fresh(table: TableGame, layout: str = "narrow") -> str:
    """The table drawn now, without the kept pictures."""
    if isinstance(table, PasurTable):
        return table._picture(layout, dict.fromkeys(table.options(), LEGAL_RING))
    assert isinstance(table, RummyTable)
    return table._picture(layout, table.legal())


def _move(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A random legal move of the person (or None: the round's summary waits)."""
    legal = view["legal"]
    if "actions" in legal:
        return {"action": rng.choice(legal["actions"])}
    card = rng.choice(sorted(legal))
    return {"card": card, "take": rng.choice(legal[card]) if legal[card] else []}


def _step(table: TableGame, view: dict[str, Any], rng: random.Random) -> None:
    """One change of the table through :meth:`TableGame.apply`, as the app makes it."""
    if view["phase"] == "round_over":
        table.apply(table.resume)
    else:
        move = _move(view, rng)
        table.apply(lambda: table.play(move), view.get("version"))


def _counting(monkeypatch: pytest.MonkeyPatch, cls: type[TableGame]) -> list[int]:
    """Count the calls of ``cls._picture`` (every drawing of the current table)."""
    calls: list[int] = []
    draw = cls._picture

    def counted(self: Any, *args: Any, **kwargs: Any) -> str:
        calls.append(1)
        return draw(self, *args, **kwargs)

    monkeypatch.setattr(cls, "_picture", counted)
    return calls


@pytest.mark.parametrize("make", [_pasur, _rummy], ids=["pasur", "persian_rummy"])
def test_a_view_asked_again_is_not_drawn_again(make: Any, monkeypatch: pytest.MonkeyPatch
                                               ) -> None:
    table = make()
    calls = _counting(monkeypatch, type(table))
    first = table.view()
    drawn = len(calls)
    again = table.view()
    assert again["svg"] == first["svg"] and len(calls) == drawn  # kept, not drawn again
    wide = table.view("wide")  # another layout is another picture
    assert len(calls) == drawn + 1 and wide["svg"] != first["svg"]
    assert table.view("wide")["svg"] == wide["svg"] and len(calls) == drawn + 1


@pytest.mark.parametrize("make", [_pasur, _rummy], ids=["pasur", "persian_rummy"])
def test_the_picture_after_every_change_is_the_table_now(make: Any) -> None:
    table, rng = make(), random.Random(3)
    view = {**table.view(), "version": table.version}
    changed = 0
    for _ in range(40):
        if view["phase"] == "over":
            break
        before = view["svg"]
        _step(table, view, rng)
        view = {**table.view(), "version": table.version}
        table.view()  # asked again: the kept picture
        assert view["svg"] == _fresh(table)
        changed += view["svg"] != before
    assert changed >= 30  # a move changes what is drawn (the hand, the last move...)


def test_a_move_made_directly_is_drawn_too() -> None:
    """The terminal plays without :meth:`TableGame.apply` (no new version): the picture
    kept for the old state is not sent for the new one."""
    for table in (_pasur(), _rummy()):
        view = table.view()
        version = table.version
        table.play(_move(view, random.Random(0)))
        assert table.version == version
        after = table.view()["svg"]
        assert after != view["svg"] and after == _fresh(table)


def test_a_move_undone_shows_the_table_before_it(monkeypatch: pytest.MonkeyPatch) -> None:
    table = _pasur()
    view = table.view()
    table.view("wide")
    ply = len(table.record.actions)

    def fails(seat: int) -> None:
        raise AgentError(seat, "greedy", RuntimeError("broken"))

    monkeypatch.setattr(table, "_agent_turn", fails)
    with pytest.raises(AgentError):
        table.apply(lambda: table.play(_move(view, random.Random(0))), table.version)
    assert len(table.record.actions) == ply
    assert table.view()["svg"] == view["svg"] == _fresh(table)


def test_rummy_events_draw_the_agents_moves_only() -> None:
    """The page shows the agents' moves one at a time, not the person's own: only the
    agents' moves carry the table after them."""
    table, rng = _rummy(), random.Random(5)
    view = {**table.view(), "version": table.version}
    own = agents = 0
    for _ in range(12):
        if view["phase"] != "play":
            break
        _step(table, view, rng)
        view = {**table.view(), "version": table.version}
        for e in view["events"]:
            if e["kind"] != "move":
                continue
            if e["seat"] == table.human:
                own += 1
                assert e["svg"] is None
            else:
                agents += 1
                assert e["svg"].startswith("<svg")
    assert own and agents
