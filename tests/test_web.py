"""The web table's API (FastAPI TestClient): whole games for P = 2, 3, 4, bad input, the
no-leak property, records and replays, limits, and searches off the event loop."""

from __future__ import annotations

import json
import re
import threading
import time

import numpy as np
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient  # noqa: E402

from agents import registry  # noqa: E402
from agents.apps.web.app import create_app  # noqa: E402
from pasur_env.pasur import kernels as K  # noqa: E402
from pasur_env.pasur.cards import card_code, cards_of, parse_cards  # noqa: E402
from pasur_env.pasur.record import GameRecord, replay  # noqa: E402

CODE = re.compile(r"(?<![A-Za-z0-9])(10|[2-9AJQK])[CDHS](?![A-Za-z0-9])")

# player_0 leads and holds 7H 3C 5D QH; the table 2D 2S 4S 9C: 7H takes 4S, or 2D + 2S
_FIRST = parse_cards("7H 3C 5D QH 8C 6H KD AS 4S 2D 2S 9C")
DECK = [card_code(c) for c in _FIRST + [c for c in range(52) if c not in _FIRST]]


@pytest.fixture()
def client():
    app = create_app(max_games=8, idle_seconds=600)
    with TestClient(app, base_url="http://localhost") as c:
        c.app_state = app.state
        yield c


def new_game(client, **body):
    body = {"players": 2, "seat": 0, "opponents": ["greedy"], "seed": 3, **body}
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    return r.json()["id"], r.json()["view"]


def leaks(client, gid: str, view: dict) -> set[str]:
    """Cards in ``view`` that its seat may not see (other hands, the stock)."""
    game = client.app_state.store.get(gid)
    eng, seat = game.engine, game.human
    hidden = {card_code(c) for c in cards_of(int(K.hidden_from(eng.state, 0, seat,
                                                                eng.rules.open_hand)))}
    now = {k: v for k, v in view.items() if k not in ("svg", "log")}
    for past in ("log", "events"):  # the moves of this round (earlier rounds' are public)
        now[past] = [e for e in view.get(past, []) if e.get("round") == view["round"]]
    text = json.dumps(now)
    seen = {m.group(0) for m in CODE.finditer(text)}
    for svg in [view["svg"]] + [e["svg"] or "" for e in now["events"]]:
        seen |= {card_code(int(c)) for c in re.findall(r'data-card="(\d+)"', svg)}
    return seen & hidden


def play_out(client, gid: str, view: dict, check_leaks: bool = False) -> dict:
    """Play the person's seat (first legal card, first option) to the game's end."""
    for _ in range(2000):
        if check_leaks:
            assert not leaks(client, gid, view)
        if view["phase"] == "over":
            return view
        if view["phase"] == "round_over":
            view = client.post(f"/api/games/{gid}/continue").json()
            continue
        assert view["to_move"] == view["seat"] and view["legal"]
        card, options = next(iter(view["legal"].items()))
        r = client.post(f"/api/games/{gid}/move", json={
            "card": card, "take": options[0] if options else [], "version": view["version"]})
        assert r.status_code == 200, r.text
        view = r.json()
    raise AssertionError("the game did not end")


def replay_frames(client, rec: dict) -> list[dict]:
    """Every frame of a record's replay, page by page (``/api/replay?start=``)."""
    frames: list[dict] = []
    while True:
        page = client.post(f"/api/replay?start={len(frames)}", json=rec).json()
        frames += page["frames"]
        if len(frames) >= page["total"]:
            return frames


@pytest.mark.parametrize("players", [2, 3, 4])
def test_whole_games_through_the_api(client, players) -> None:
    opps = ["greedy", "random", "heuristic"][: players - 1]
    gid, view = new_game(client, players=players, seat=players - 1, opponents=opps,
                         flags={"target_score": 21})
    assert client.get(f"/api/games/{gid}/record").status_code == 409  # not before the end
    view = play_out(client, gid, view, check_leaks=True)
    assert view["result"]["scores"] and max(view["result"]["scores"]) >= 21
    rec = client.get(f"/api/games/{gid}/record").json()
    rep = replay(rec)  # the record replays on the engine
    assert len(rep.states) == len(rec["actions"]) + 1
    frames = replay_frames(client, rec)
    assert len(frames) == len(rec["actions"]) + 1 and "<svg" in frames[-1]["svg"]


def test_round_summary_adds_up(client) -> None:
    gid, view = new_game(client, flags={"target_score": 200})
    while view["phase"] == "play":
        card, options = next(iter(view["legal"].items()))
        view = client.post(f"/api/games/{gid}/move", json={
            "card": card, "take": options[0] if options else [], "version": view["version"]}).json()
    assert view["phase"] == "round_over"
    for side in view["sheet"]:
        parts = (side["club_points"] + side["ten_diamonds"] + side["two_clubs"] + side["aces"]
                 + side["jacks"] + side["sur_points"])
        assert parts == side["total"]
    assert sum(s["total"] for s in view["sheet"]) >= 20
    assert client.post(f"/api/games/{gid}/move",
                       json={"card": "AC", "version": view["version"]}).status_code == 400
    view = client.post(f"/api/games/{gid}/continue").json()
    assert view["phase"] == "play" and view["sheet"] is None


@pytest.mark.parametrize("players", [2, 4])
def test_events_and_the_round_end_leftover(client, players) -> None:
    """Each view holds the moves since the person's last one, numbered by round and move
    (never renumbered); a round's end says which cards were left and which seat took them."""
    opps = ["greedy", "random", "heuristic"][: players - 1]
    gid, view = new_game(client, players=players, opponents=opps, flags={"target_score": 300})
    seqs = [e["seq"] for e in view["events"]]
    while view["phase"] == "play":
        card, options = next(iter(view["legal"].items()))
        body = {"card": card, "take": options[0] if options else []}
        body.update({"version": view["version"]} if "version" in view else {})
        view = client.post(f"/api/games/{gid}/move", json=body).json()
        assert view["events"][0]["seat"] == view["seat"]  # the person's move, then the agents'
        seqs += [e["seq"] for e in view["events"]]
    assert seqs == list(range(1, len(seqs) + 1)) == [e["seq"] for e in view["log"]]
    moves = [e for e in view["log"] if e["kind"] == "move"]
    assert [e["label"] for e in moves] == [f"R1·{k}" for k in range(1, 49)]
    end = view["log"][-1]
    assert end["kind"] == "round" and end["label"] == "R1·end" and view["phase"] == "round_over"
    assert client.get(f"/api/games/{gid}").json() == view  # a view reads the same until a move
    rec = client.app_state.store.get(gid).record.to_json()
    info = replay(rec).infos[-1]  # the step that ended the round
    assert info.round_end[0] and end["leftover"]
    side = view["seats"][end["leftover_to"]]["side"]
    assert set(parse_cards(end["leftover"])) <= set(cards_of(int(info.piles[0, side])))
    assert [s["label"] for s in view["sides"]] == (["you", "greedy"] if players == 2
                                                   else ["your team", "their team"])
    assert 'data-played="' in view["svg"] and "Round over" in view["svg"]


def test_a_multi_option_capture_and_refusals(client) -> None:
    gid, view = new_game(client, deck=DECK, dealer=1)
    assert sorted(map(sorted, view["legal"]["7H"])) == [["2D", "2S"], ["4S"]]
    bad = [({"card": "KS"}, "not in your hand"),
           ({"card": "7H", "take": ["2D"]}, "must take"),
           ({"card": "7H", "take": []}, "must take"),
           ({"card": "QH", "take": ["4S"]}, "takes nothing here"),
           ({"card": "ZZ"}, "unknown card code")]
    before = client.get(f"/api/games/{gid}").json()
    for body, why in bad:
        r = client.post(f"/api/games/{gid}/move", json={**body, "version": view["version"]})
        assert r.status_code == 400 and why in r.json()["detail"], (body, r.text)
    assert client.get(f"/api/games/{gid}").json() == before  # refusals change nothing
    view = client.post(f"/api/games/{gid}/move",
                       json={"card": "7H", "take": ["2S", "2D"], "version": view["version"]}).json()
    first = [e for e in view["log"] if e["kind"] == "move"][0]
    assert {k: first[k] for k in ("kind", "seat", "card", "taken", "sur", "round")} == {
        "kind": "move", "seat": 0, "card": "7H", "taken": ["2D", "2S"], "sur": False, "round": 1}
    assert (first["seq"], first["move"], first["label"]) == (1, 1, "R1·1")


def test_malformed_requests_get_4xx_naming_the_problem(client) -> None:
    cases = [
        ({"players": 5}, 422, "players"),
        ({"seat": 7}, 422, "seat"),
        ({"opponents": ["runs/ppo/model.zip"]}, 400, "unknown agent"),
        ({"opponents": ["nobody"]}, 400, "unknown agent"),
        ({"opponents": ["greedy", "greedy"]}, 400, "give 1 opponents"),
        ({"flags": {"bogus": 1}}, 400, "bogus"),
        ({"flags": {"jack_sur": "always"}}, 400, "jack_sur"),
        ({"preset": "nope"}, 422, "preset"),
        ({"deck": ["AC"] * 52}, 400, "duplicate"),
        ({"surprise": 1}, 422, "surprise"),
        ({"seat": 1, "players": 2, "opponents": ["greedy"], "dealer": 9}, 422, "dealer"),
    ]
    for body, status, word in cases:
        r = client.post("/api/games", json={"opponents": ["greedy"], **body})
        assert r.status_code == status and word in r.text, (body, r.status_code, r.text)
    gid, _ = new_game(client)
    assert client.post(f"/api/games/{gid}/move", json={"take": []}).status_code == 422
    assert client.post(f"/api/games/{gid}/move", content=b"not json").status_code == 422
    assert client.get("/api/games/nope").status_code == 404
    assert client.post(f"/api/games/{gid}/continue").status_code == 400
    assert client.post("/api/replay", json={"format": "x"}).status_code == 400


def test_tampered_records_are_refused(client) -> None:
    gid, view = new_game(client, flags={"target_score": 15})
    play_out(client, gid, view)
    rec = client.get(f"/api/games/{gid}/record").json()
    bad = json.loads(json.dumps(rec))
    k = len(bad["actions"]) // 2
    bad["actions"][k] = 103  # TAKE K♠: not a legal action there
    r = client.post("/api/replay", json=bad)
    assert r.status_code == 400 and f"move {k} (" in r.json()["detail"]
    wrong = json.loads(json.dumps(rec))
    wrong["result"]["scores"][0] += 1
    assert "differ" in client.post("/api/replay", json=wrong).json()["detail"]
    deal = json.loads(json.dumps(rec))
    deal["deal"]["table"] = deal["deal"]["table"][::-1] + ["AC"]
    assert "first deal" in client.post("/api/replay", json=deal).json()["detail"]
    with pytest.raises(ValueError, match="stream"):
        GameRecord.from_json({**rec, "stream": "zz"})


def test_hints_are_legal_moves(client) -> None:
    gid, view = new_game(client)
    h = client.post(f"/api/games/{gid}/hint").json()
    assert h["card"] in view["legal"]
    opts = view["legal"][h["card"]]
    assert (sorted(h["take"]) in [sorted(o) for o in opts]) if opts else h["take"] == []


def test_the_store_is_bounded_and_forgets_idle_games() -> None:
    app = create_app(max_games=2, idle_seconds=600)
    with TestClient(app, base_url="http://localhost") as c:
        ids = [new_game(c)[0] for _ in range(2)]
        r = c.post("/api/games", json={"opponents": ["greedy"]})
        assert r.status_code == 503 and "limit" in r.json()["detail"]
        app.state.store.idle_seconds = 0.0
        time.sleep(0.01)
        assert c.get(f"/api/games/{ids[0]}").status_code == 404
        assert len(ids[0]) >= 24  # unguessable ids (18 random bytes)


def test_a_slow_search_does_not_stall_other_games(monkeypatch) -> None:
    """A search in one game runs in a worker thread with the GIL released (numba nogil):
    another game's requests are answered meanwhile."""
    import uvicorn

    from agents.pasur.ismcts import ISMCTSAgent

    monkeypatch.setitem(registry._FACTORIES, "pasur", dict(registry._FACTORIES["pasur"]))
    monkeypatch.setitem(registry._NAMES, "pasur", list(registry._NAMES["pasur"]))
    registry.register("slow", lambda seed=None: ISMCTSAgent(seed=seed, budget=60_000))
    app = create_app()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    import httpx

    base = f"http://127.0.0.1:{port}"
    try:
        quick = httpx.post(f"{base}/api/games", json={"opponents": ["greedy"], "seed": 1}).json()
        slow = {}
        t = threading.Thread(target=lambda: slow.update(httpx.post(
            f"{base}/api/games", json={"opponents": ["slow"], "seat": 1, "seed": 2},
            timeout=120).json()))
        t.start()
        time.sleep(0.3)  # the slow game's opponent is searching now
        for _ in range(5):
            assert httpx.get(f"{base}/api/games/{quick['id']}").status_code == 200
        # ordering, not timing: had the search stalled the server, these answers would
        # have come only after it ended
        answered_during_search = t.is_alive()
        t.join()
        assert "id" in slow
        assert answered_during_search, "the other game was answered only after the search"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def test_save_games_writes_records_that_replay(tmp_path) -> None:
    from agents.evaluation.match import evaluate

    evaluate("greedy", "random", rounds=8, seed=4, progress=False, save_games=tmp_path,
             mode="game", games=2, target_score=15)
    files = list(tmp_path.glob("*.jsonl"))
    assert [f.name for f in files] == ["greedy_vs_random_seed4.jsonl"]
    lines = files[0].read_text().splitlines()
    assert len(lines) == 2
    for line in lines:
        rep = replay(json.loads(line))
        assert rep.engine.phase[0] == K.DONE and rep.record.players[0] in ("greedy", "random")
    np.testing.assert_equal(len(rep.states), len(rep.record.actions) + 1)
