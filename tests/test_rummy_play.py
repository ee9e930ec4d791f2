"""Persian Rummy played by a person: at the web table (``RummyTable`` and its API routes)
and in the terminal (``pasur play --game persian_rummy``).

Whole games through the API with every response checked for leaks (no other hand, no
stock card, so no stock order), records that replay, refusals that say why, atomic
moves when an agent fails, hints, and a round played in the terminal by a script.
"""

from __future__ import annotations

import io
import json
import random
import re
from typing import Any

import numpy as np
import pytest

from agents.apps.rummy_terminal import play_rummy
from agents.apps.web.rummy_table import RummyTable, rummy_replay_frames
from agents.apps.web.sessions import AgentError
from pasur_env.core.policy import Policy
from pasur_env.rummy import kernels as K
from pasur_env.rummy.cards import card_code, card_str
from pasur_env.rummy.decks import deck_for
from pasur_env.rummy.record import replay

HANDS = [["5H", "6H", "8H", "2C", "4D", "9S", "KD"], ["AC", "3C", "5C", "7C", "9C", "JC", "KC"],
         ["AD", "3D", "5D", "7D", "9D", "JD", "QD"], ["AS", "3S", "5S", "7S", "JS", "QS", "KS"]]
DECK = deck_for(HANDS, up="7H", dealer=3)


def _hidden(table: RummyTable) -> set[str]:
    """What the person may not know: other hands (but the cards taken from the pile)
    and the stock, as codes and as printed."""
    eng, st = table.engine, table.engine.state[0]
    cards = [int(c) for c in st[K.DECK + st[K.STOCK_POS]:K.DECK + K.NUM_CARDS]]
    for s in range(4):
        if s != table.human:
            cards += sorted(set(eng.hand(0, s)) - set(eng.taken(0, s)))
    return {card_code(c) for c in cards} | {card_str(c) for c in cards}


def _words(obj: Any, deal: int) -> set[str]:
    """Every word of a view, the log and events of earlier deals and the last deal's
    score sheet (its hands are shown at the count) left out."""
    if isinstance(obj, dict):
        if obj.get("round", deal) != deal and "text" in obj:
            return set()
        return set().union(*(_words(v, deal) for k, v in obj.items()
                             if k not in ("sheet", "result", "svg")))  # pictures: below
    if isinstance(obj, list):
        return set().union(set(), *(_words(v, deal) for v in obj))
    return set(str(obj).replace("(", " ").replace(")", " ").replace(",", " ").split())


def _check_no_leak(table: RummyTable, response: dict[str, Any]) -> None:
    view = response.get("view", response)
    if "hand" not in view:
        return
    assert sorted(view["hand"]) == sorted(card_code(c) for c in
                                          table.engine.hand(0, table.human))
    leaked = _words(view, view["deal"]) & _hidden(table)
    assert not leaked, leaked
    assert "deck" not in json.dumps(view)
    if view["phase"] == "play":  # the drawn tables of this deal: no hidden card face up
        pictures = [view["svg"]] + [e["svg"] for e in view["events"]
                                    if e.get("svg") and e["round"] == view["deal"]]
        drawn = {c for svg in pictures for c in re.findall(r'data-card="(\w+)"', svg)}
        drawn |= set().union(*(_words(svg, 0) for svg in pictures))  # cards named in words
        assert not drawn & _hidden(table), drawn & _hidden(table)


def _play_through_api(client, body: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    res = client.post("/api/games", json=body)
    assert res.status_code == 201, res.text
    gid, view = res.json()["id"], res.json()["view"]
    table = client.app.state.store.games[gid]
    _check_no_leak(table, view)
    assert client.get(f"/api/games/{gid}/record").status_code == 409
    for _ in range(3000):
        if view["phase"] == "over":
            break
        if view["phase"] == "round_over":
            res = client.post(f"/api/games/{gid}/continue")
        else:
            if rng.random() < 0.05:  # hints name no hidden card either
                hint = client.post(f"/api/games/{gid}/hint").json()
                assert not _words(hint, view["deal"]) & _hidden(table), hint
                assert "DRAW_STOCK" not in hint["turn"][:-1]  # nothing told past a draw
            action = rng.choice(view["legal"]["actions"])
            res = client.post(f"/api/games/{gid}/move",
                              json={"action": action, "version": view["version"]})
        assert res.status_code == 200, res.text
        view = res.json()
        _check_no_leak(table, view)
        _check_no_leak(table, client.get(f"/api/games/{gid}").json())
    assert view["phase"] == "over" and view["winner"]["text"]
    assert view["log"] == sorted(view["log"], key=lambda e: e["seq"])
    record = client.get(f"/api/games/{gid}/record").json()
    assert record["format"] == "persian_rummy-record/1"
    assert record["players"][body.get("seat", 0)] == "you"
    return record


def test_whole_games_through_the_api_leak_nothing_and_replay() -> None:
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from agents.apps.web.app import create_app

    rng = random.Random(0)
    with TestClient(create_app(), base_url="http://localhost") as client:
        for body in ({"game": "persian_rummy", "seed": 1, "opponents": ["greedy"] * 3},
                     {"game": "persian_rummy", "seed": 2, "seat": 2, "players": 4,
                      "opponents": ["random", "greedy", "random"], "flags": {"deals": 1}}):
            record = _play_through_api(client, body, rng)
            rep = replay(record)
            assert rep.engine.done[0]
            frames = client.post("/api/replay", json=record)
            assert frames.status_code == 200
            assert frames.json()["total"] == len(record["actions"]) + 1
        setup = client.get("/api/setup").json()
        offered = setup["games"]["persian_rummy"]["offered"]["4"]
        assert offered == ["random", "greedy", "rollout", "ismcts", "net"]


def test_api_refusals_name_the_problem() -> None:
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from agents.apps.web.app import create_app

    with TestClient(create_app(), base_url="http://localhost") as client:
        bad = client.post("/api/games", json={"game": "persian_rummy", "opponents": ["x.zip"]})
        assert bad.status_code == 400 and "unknown agent 'x.zip'" in bad.json()["detail"]
        bad = client.post("/api/games", json={"game": "persian_rummy", "preset": "classic"})
        assert bad.status_code == 422 and "preset" in bad.json()["detail"]  # not a Rummy field
        res = client.post("/api/games", json={"game": "persian_rummy", "deck": DECK, "seed": 1})
        gid, view = res.json()["id"], res.json()["view"]
        move = f"/api/games/{gid}/move"
        r = client.post(move, json={"action": "DISCARD 9S", "version": view["version"]})
        assert r.status_code == 400 and "draw first" in r.json()["detail"]
        r = client.post(move, json={"action": "FLY 9S", "version": view["version"]})
        assert r.status_code == 400 and "field 'action'" in r.json()["detail"]
        r = client.post(move, json={"action": 999, "version": view["version"]})
        assert r.status_code == 422 and "field 'action'" in r.json()["detail"]  # ids: 0..244
        r = client.post(move, json={"action": "TAKE 7H", "version": view["version"] + 5})
        assert r.status_code == 409
        r = client.post(move, json={"action": "TAKE 7H", "version": view["version"]})
        assert r.status_code == 200 and r.json()["target"] == "7H"
        assert r.json()["legal"]["pick"] == ["5H", "6H"]
        r = client.post(move, json={"action": "DISCARD 9S", "version": r.json()["version"]})
        assert r.status_code == 400 and "meld 7♥ (taken from the pile) first" in r.json()["detail"]


def test_a_turn_by_the_rules_and_the_log() -> None:
    t = RummyTable(0, "greedy", seed=1, flags={"deals": 1}, deck=DECK, dealer=3)
    for a in ("TAKE 7H", "PICK 5H", "PICK 6H", "PICK 7H", "MELD"):
        t.play({"action": a})
    v = t.view()
    assert v["legal"]["lay_off"] == {"8H": [0]} and v["melds"][0]["team"] == 0
    t.play({"action": "LAY_OFF 8H"})
    with pytest.raises(ValueError, match="9S extends no meld|9♠ extends no meld"):
        t.play({"action": "LAY_OFF 9S"})
    with pytest.raises(ValueError, match="is not in your hand"):
        t.play({"action": "DISCARD AH"})
    t.play({"action": 189 + 4 * 12 + 1})  # DISCARD KD, by id
    log = t.view()["log"]
    assert [e["text"] for e in log[:4]] == [
        "You take 7♥ from the pile (must meld 7♥)", "You meld 5♥ 6♥ 7♥",
        "You lay off 8♥ on meld 1", "You discard K♦"]
    assert [(e["round"], e["move"]) for e in log[:4]] == [(1, 1), (1, 2), (1, 3), (1, 4)]
    for bad, err in (({"action": "PASS", "card": "7H"}, "field 'card': unknown field"),
                     ({}, "field 'action': required"), ({"action": True}, "field 'action'")):
        with pytest.raises((TypeError, ValueError), match=err):
            t.play(bad)


class _Broken(Policy):
    """Draws, then fails (an agent that breaks in the middle of its turn)."""

    name, needs_observation = "broken", False

    def __init__(self) -> None:
        self.calls = 0

    def reset(self, seed: int | None = None) -> None:
        self.calls = 0

    def act(self, obs: Any, mask: np.ndarray, view: Any = None) -> np.ndarray:
        self.calls += 1
        if self.calls > 1:
            raise RuntimeError("out of memory")
        return np.array([int(np.flatnonzero(m)[-1]) for m in mask], dtype=np.int64)


def test_a_failing_agent_is_named_and_the_move_undone() -> None:
    t = RummyTable(0, [_Broken(), "greedy", "greedy"], seed=1, deck=DECK, any_spec=True)
    t.play({"action": "DRAW_STOCK"})
    before, snap = t.view(), t.snapshot()
    with pytest.raises(AgentError, match="at seat 1 failed: RuntimeError: out of memory"):
        t.play({"action": t.legal()["actions"][-1]})
    t.restore(snap)
    after = t.view()
    assert {**after, "events": []} == {**before, "events": []}
    assert len(t.record.actions) == 1 and t.names[1] == "broken"


def test_hint_and_replay_frames() -> None:
    t = RummyTable(0, "random", seed=4, flags={"deals": 1})
    h = t.hint()
    assert h["agent"] == "rollout" and h["action"] in t.legal()["actions"]
    rng = random.Random(1)
    while not t.over:
        if t.paused:
            t.resume()
        else:
            t.play({"action": rng.choice(t.legal()["actions"])})
    with pytest.raises(ValueError, match="not your turn"):
        t.hint()
    page = rummy_replay_frames(t.record.to_json(), start=2, count=3)
    assert [f["index"] for f in page["frames"]] == [2, 3, 4]
    assert page["total"] == len(t.record.actions) + 1
    assert page["frames"][0]["svg"].startswith("<svg")


#: seed 108, seat 0, random opponents: the person's moves up to the second deal's turn
#: where J♦ can be taken and melded as 9♦ 10♦ J♦ or with J♣ (``CONTINUE``: the round's end)
_SEED_108 = ["DRAW_STOCK", "DISCARD AS", "DRAW_STOCK", "DISCARD 7D", "DRAW_STOCK",
             "DISCARD 5D", "DRAW_STOCK", "DISCARD JC", "DRAW_STOCK", "PICK 6D", "PICK 6H",
             "PICK 6S", "MELD", "DISCARD JK4", "DRAW_STOCK", "DISCARD 10C", "DRAW_STOCK",
             "DISCARD 5S", "DRAW_STOCK", "DISCARD QS", "DRAW_STOCK", "DISCARD 9C", "PASS",
             "CONTINUE", "TAKE JD", "PICK 9D"]


def _web_client() -> Any:
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from agents.apps.web.app import create_app

    return TestClient(create_app(), base_url="http://localhost")


def test_the_hint_finishes_a_meld_the_person_began() -> None:
    """The person takes J♦ and picks 9♦ (only 10♦ may follow); the hint's agent would
    have melded J♦ with J♣, and must continue the person's run instead."""
    with _web_client() as client:
        res = client.post("/api/games", json={"game": "persian_rummy", "seed": 108, "seat": 0,
                                              "opponents": ["random"] * 3})
        gid, view = res.json()["id"], res.json()["view"]
        for action in _SEED_108:
            if action == "CONTINUE":
                res = client.post(f"/api/games/{gid}/continue")
            else:
                assert action in view["legal"]["actions"], (action, view["legal"])
                res = client.post(f"/api/games/{gid}/move",
                                  json={"action": action, "version": view["version"]})
            assert res.status_code == 200, res.text
            view = res.json()
        assert view["legal"]["actions"] == ["PICK 10D"]
        hint = client.post(f"/api/games/{gid}/hint")
        assert hint.status_code == 200, hint.text
        assert hint.json()["action"] == "PICK 10D"
        assert hint.json()["turn"][:3] == ["PICK 10D", "PICK JD", "MELD"]


class _BrokenHint(Policy):
    """A hint agent that fails at once with ``error``."""

    name, needs_observation = "broken", False

    def __init__(self, error: Exception) -> None:
        self.error = error

    def act(self, obs: Any, mask: np.ndarray, view: Any = None) -> np.ndarray:
        raise self.error


@pytest.mark.parametrize("error", [RuntimeError("out of memory"), ValueError("bad mask")])
@pytest.mark.parametrize("body", [{"game": "persian_rummy", "opponents": ["random"] * 3},
                                  {"game": "pasur", "players": 2, "opponents": ["random"]}])
def test_a_failing_hint_agent_is_named_not_a_server_error(monkeypatch, body, error) -> None:
    """A 424 naming the hint's agent: not a 500, nor a 400 blaming the request."""
    import agents.apps.web.pasur_table as pasur_table
    import agents.apps.web.rummy_table as rummy_table

    with _web_client() as client:
        res = client.post("/api/games", json={**body, "seed": 5, "seat": 0})
        gid, view = res.json()["id"], res.json()["view"]
        for module in (pasur_table, rummy_table):  # the hint's agent, once the game is on
            monkeypatch.setattr(module, "make_agent", lambda *a, **k: _BrokenHint(error))
        hint = client.post(f"/api/games/{gid}/hint")
        assert hint.status_code == 424, hint.text
        detail = hint.json()["detail"]
        assert "the hint's agent" in detail and f"{type(error).__name__}: {error}" in detail
        assert "no hint this time" in detail and "undone" not in detail
        after = client.get(f"/api/games/{gid}").json()  # nothing changed
        assert after["version"] == view["version"] and after["hand"] == view["hand"]


def test_from_form_names_bad_fields() -> None:
    for form, err in (({"players": 3}, "field 'players'"), ({"colour": 1}, "unknown field"),
                      ({"opponents": 5}, "field 'opponents'"), ({"seat": 7}, "seat"),
                      ({"flags": {"target_score": 3}}, "target_score")):
        with pytest.raises((TypeError, ValueError), match=err):
            RummyTable.from_form(form, seed=1)
    assert RummyTable.from_form({"seat": 1}, seed=1).human == 1
    assert RummyTable.offered_agents(4) == ["random", "greedy", "rollout", "ismcts", "net"]


# ---- the terminal ----------------------------------------------------------------------------
def test_a_round_in_the_terminal_by_script() -> None:
    script = "help\nwhat\n99\ndiscard 9S\ntake 7h\n" + "1\n" * 400
    out = io.StringIO()
    assert play_rummy("greedy", seed=1, deck=DECK, episode="round",
                      input_stream=io.StringIO(script), output_stream=out) == 0
    text = out.getvalue()
    assert "Commands:" in text and "'what' is not an action" in text
    assert "There is no action number 99" in text and "draw first" in text
    assert "1.1 You take 7♥ from the pile (must meld 7♥)" in text
    assert "=== round 1 over ===" in text and "=== game over ===" in text
    seats = [line for line in text.splitlines() if line.startswith("player_")]
    assert seats and all(re.fullmatch(r"player_[123] \(.*\): \d+ cards?(; took from the pile: .*)?",
                                      line) for line in seats), seats  # never another hand


def test_the_terminal_leaves_cleanly(monkeypatch, capsys) -> None:
    from agents.apps.cli import main

    out = io.StringIO()
    assert play_rummy("random", seed=2, input_stream=io.StringIO("table\n"),
                      output_stream=out) == 0
    assert out.getvalue().rstrip().endswith("Bye.")
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    assert main(["play", "random", "--game", "persian_rummy", "--seat", "2",
                 "--seed", "3", "--rule", "deals=1"]) == 0
    text = capsys.readouterr().out
    assert "you are player_2" in text and "Bye." in text and "1 deal(s)" in text
