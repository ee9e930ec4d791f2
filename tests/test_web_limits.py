"""The web server's robustness (FastAPI TestClient): atomic moves and failing agents,
versions, limits (body, records, names, replay pages, games by count and memory),
shared models, every malformed field a 4xx naming it, secret seeds, allowed hosts and
security headers."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient  # noqa: E402

from agents import registry  # noqa: E402
from agents.apps.web.app import create_app  # noqa: E402
from agents.pasur.greedy import GreedyAgent  # noqa: E402
from pasur_env.pasur.cards import card_code, parse_cards  # noqa: E402

# player_0 leads and holds 7H 3C 5D QH; the table 2D 2S 4S 9C
_FIRST = parse_cards("7H 3C 5D QH 8C 6H KD AS 4S 2D 2S 9C")
DECK = [card_code(c) for c in _FIRST + [c for c in range(52) if c not in _FIRST]]
#: words of Python's own errors that must never reach a person
INTERNALS = re.compile(r"object is not|got multiple values|NoneType|Traceback|has no attribute|"
                       r"unhashable|not supported between|C long")


def Limits(**bounds):  # noqa: N802 - imported late: the module is new
    from agents.apps.web.limits import Limits as limits

    return limits(**bounds)


def client_of(app, host: str = "localhost") -> TestClient:
    return TestClient(app, base_url=f"http://{host}", raise_server_exceptions=False)


@pytest.fixture()
def client():
    app = create_app(max_games=16, idle_seconds=600)
    with client_of(app) as c:
        c.app_state = app.state
        yield c


def start(client, **body) -> tuple[str, dict]:
    body = {"players": 2, "seat": 0, "opponents": ["greedy"], "seed": 3, **body}
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    return r.json()["id"], r.json()["view"]


def first_move(view: dict) -> dict:
    card, options = next(iter(view["legal"].items()))
    version = {"version": view["version"]} if "version" in view else {}  # (none before)
    return {"card": card, "take": options[0] if options else [], **version}


def finished_record(client, target: int = 15) -> dict:
    gid, view = start(client, flags={"target_score": target})
    while view["phase"] != "over":
        if view["phase"] == "round_over":
            view = client.post(f"/api/games/{gid}/continue").json()
        else:
            view = client.post(f"/api/games/{gid}/move", json=first_move(view)).json()
    return client.get(f"/api/games/{gid}/record").json()


class Flaky(GreedyAgent):
    """A greedy agent that raises while ``Flaky.broken`` is set."""

    broken = False

    def act(self, obs, mask, view):
        if Flaky.broken:
            raise RuntimeError("the model file is corrupt")
        return super().act(obs, mask, view)


@pytest.fixture()
def flaky(monkeypatch):
    monkeypatch.setitem(registry._FACTORIES, "pasur", dict(registry._FACTORIES["pasur"]))
    monkeypatch.setitem(registry._NAMES, "pasur", list(registry._NAMES["pasur"]))
    registry.register("flaky", lambda seed=None: Flaky(seed=seed))
    Flaky.broken = False
    yield Flaky
    Flaky.broken = False


# ---- 1. atomic moves, failing agents, agents offered per table ----------------------------
def test_ppo_is_neither_offered_nor_accepted_at_a_4_player_table(client) -> None:
    """The report's frozen game: ppo (a 2-player model) at a 4-player table."""
    r = client.post("/api/games", json={"players": 4, "opponents": ["ppo", "greedy", "greedy"],
                                        "seed": 1})
    assert r.status_code == 400, r.text
    assert "'ppo'" in r.json()["detail"] and "4-player" in r.json()["detail"]
    offered = client.get("/api/setup").json()["offered"]
    assert "ppo" in offered["2"] and "ppo" not in offered["3"] and "ppo" not in offered["4"]
    assert "net" in offered["4"]


def test_a_4_player_table_never_freezes(client) -> None:
    """The table of the report: every move of a 4-player round is answered (no agent
    failure leaves the game stuck)."""
    gid, view = start(client, players=4, opponents=["net", "greedy", "heuristic"], seed=1)
    for _ in range(20):
        if view["phase"] != "play":
            break
        r = client.post(f"/api/games/{gid}/move", json=first_move(view))
        assert r.status_code == 200, r.text
        view = r.json()


def test_a_failing_agent_undoes_the_move_and_the_game_goes_on(client, flaky) -> None:
    gid, view = start(client, opponents=["flaky"], deck=DECK, dealer=1)
    before = client.get(f"/api/games/{gid}").json()
    flaky.broken = True
    r = client.post(f"/api/games/{gid}/move", json=first_move(view))
    assert r.status_code == 424, r.text
    assert "'flaky'" in r.json()["detail"] and "corrupt" in r.json()["detail"]
    assert "undone" in r.json()["detail"]
    assert client.get(f"/api/games/{gid}").json() == before  # nothing happened
    flaky.broken = False
    r = client.post(f"/api/games/{gid}/move", json=first_move(view))
    assert r.status_code == 200, r.text
    assert r.json()["version"] == view["version"] + 1
    flaky.broken = True  # an agent that moves first fails: no game is made, and it says why
    games = len(client.app_state.store.games)
    r = client.post("/api/games", json={"opponents": ["flaky"], "seat": 1, "deck": DECK,
                                        "dealer": 1, "seed": 3})
    assert r.status_code == 424 and "'flaky'" in r.json()["detail"]
    assert len(client.app_state.store.games) == games


# ---- 2. versions ------------------------------------------------------------------------------
def test_stale_or_repeated_moves_get_409_and_change_nothing(client) -> None:
    gid, view = start(client, deck=DECK, dealer=1)
    move = first_move(view)
    r = client.post(f"/api/games/{gid}/move", json=move)
    assert r.status_code == 200, r.text
    after = r.json()
    # a second click: a legal move of the new position, sent against the old version
    again = client.post(f"/api/games/{gid}/move", json={**first_move(after), **(
        {"version": view["version"]} if "version" in view else {})})
    assert again.status_code == 409 and "version" in again.json()["detail"]
    assert client.get(f"/api/games/{gid}").json() == after
    assert after["version"] == view["version"] + 1 and after["game"] == "pasur"
    r = client.post(f"/api/games/{gid}/move", json={"card": move["card"], "take": move["take"]})
    assert r.status_code == 422 and "version" in r.json()["detail"]


# ---- 3. limits ---------------------------------------------------------------------------------
def test_bodies_over_the_limit_get_413_before_parsing() -> None:
    app = create_app(limits=Limits(max_body_bytes=2000))
    with client_of(app) as c:
        big = json.dumps({"opponents": ["greedy"], "pad": "x" * 5000})
        r = c.post("/api/games", content=big, headers={"content-type": "application/json"})
        assert r.status_code == 413 and "2,000 bytes" in r.json()["detail"]

        def chunks():  # no Content-Length: the streamed bytes are counted
            for _ in range(10):
                yield b"x" * 500

        r = c.post("/api/replay", content=chunks(), headers={"content-type": "application/json"})
        assert r.status_code == 413
        assert c.post("/api/games", json={"opponents": ["greedy"]}).status_code == 201


def test_records_are_bounded_and_replays_paged(client) -> None:
    rec = finished_record(client)
    n = len(rec["actions"]) + 1
    page = client.post("/api/replay?start=3&count=5", json=rec).json()
    assert page["total"] == n and page["start"] == 3
    assert [f["index"] for f in page["frames"]] == [3, 4, 5, 6, 7]
    assert len(client.post("/api/replay", json=rec).json()["frames"]) == min(n, 100)
    r = client.post(f"/api/replay?start={n}", json=rec)
    assert r.status_code == 422 and "start" in r.json()["detail"]
    assert n > 11
    small = create_app(limits=Limits(max_record_actions=10, max_name_chars=8))
    with client_of(small) as c:
        r = c.post("/api/replay", json=rec)
        assert r.status_code == 422 and "record.actions" in r.json()["detail"]
        named = {**rec, "actions": rec["actions"][:10], "result": None,
                 "players": ["greedy", "x" * 9]}
        r = c.post("/api/replay", json=named)
        assert r.status_code == 422 and "record.players[1]" in r.json()["detail"]


def test_the_store_is_bounded_by_memory_and_evicts_idle_games_first() -> None:
    app = create_app(limits=Limits(max_memory_mb=1, evict_after=3600))
    with client_of(app) as c:
        ids = []
        for _ in range(100):
            r = c.post("/api/games", json={"opponents": ["greedy"]})
            if r.status_code != 201:
                break
            ids.append(r.json()["id"])
        assert r.status_code == 503 and "MB" in r.json()["detail"]
        assert 2 <= len(ids) < 100
        store = app.state.store
        store.evict_after = 0.0  # every game counts as idle: the oldest makes room
        r = c.post("/api/games", json={"opponents": ["greedy"]})
        assert r.status_code == 201
        assert c.get(f"/api/games/{ids[0]}").status_code == 404
        assert c.get(f"/api/games/{ids[-1]}").status_code == 200


def test_saved_models_are_loaded_once_and_shared() -> None:
    from agents.registry import make_agent

    a, b = make_agent("ppo", seed=1), make_agent("ppo", seed=2)
    assert a.model is b.model and a.rng is not b.rng
    from agents.pasur.move_net.agent import pretrained_net_path

    path = str(pretrained_net_path(2))
    n1, n2 = make_agent(path, seed=1), make_agent(path, seed=2)
    assert n1._models[2] is n2._models[2]


# ---- 4. every malformed field: a 4xx naming it ----------------------------------------------
START_CASES = [
    ({"players": "4"}, "players"), ({"players": 2**70}, "players"), ({"seat": -1}, "seat"),
    ({"seat": 2**70}, "seat"), ({"opponents": "greedy"}, "opponents"),
    ({"opponents": [1]}, "opponents"), ({"opponents": []}, "opponents"),
    ({"flags": []}, "flags"), ({"flags": {"target_score": 2**70}}, "target_score"),
    ({"flags": {"sur_points": 2**70}}, "sur_points"), ({"flags": {"sur_points": -2**70}},
                                                        "sur_points"),
    ({"flags": {"target_score": 1.5}}, "target_score"), ({"flags": {"num_players": 4}},
                                                          "num_players"),
    ({"flags": {"open_hand": "yes"}}, "open_hand"), ({"flags": {"x" * 50: 1}}, "flags." + "x" * 39),
    ({"seed": -1}, "seed"), ({"seed": 2**64}, "seed"), ({"seed": "1.5"}, "seed"),
    ({"seed": True}, "seed"), ({"deck": "AC"}, "deck"), ({"deck": [1] * 52}, "deck"),
    ({"dealer": 2**70}, "dealer"), ({"game": "chess"}, "game"), ({"game": 1}, "game"),
    ({"preset": 5}, "preset"), ({"zzz": 1}, "zzz"),
]


@pytest.mark.parametrize("body, field", START_CASES)
def test_malformed_start_forms_name_the_field(client, body, field) -> None:
    r = client.post("/api/games", json={"opponents": ["greedy"], **body})
    assert 400 <= r.status_code < 500 and r.status_code != 409, (body, r.status_code, r.text)
    assert field in r.text and not INTERNALS.search(r.text), (body, r.text)


MOVE_CASES = [
    ({"card": 5}, "card"), ({"card": None}, "card"), ({"card": "7H", "take": "2S"}, "take"),
    ({"card": "7H", "take": [1]}, "take"), ({"card": "7H", "take": ["2S"] * 13}, "take"),
    ({"card": "7H" * 10}, "card"), ({"card": "7H", "extra": 1}, "extra"),
    ({"card": "7H", "version": "1"}, "version"), ({"card": "7H", "version": 2**70}, "version"),
    ({"card": "7H", "version": None}, "version"),
]


def test_malformed_moves_name_the_field(client) -> None:
    gid, view = start(client, deck=DECK, dealer=1)
    before = client.get(f"/api/games/{gid}").json()
    for body, field in MOVE_CASES:
        r = client.post(f"/api/games/{gid}/move", json={"version": view["version"], **body})
        assert r.status_code == 422 and field in r.text, (body, r.status_code, r.text)
        assert not INTERNALS.search(r.text), r.text
    for raw in (b"[]", b"1", b'"x"', b"null", b"{", b"\xff"):
        r = client.post(f"/api/games/{gid}/move", content=raw,
                        headers={"content-type": "application/json"})
        assert r.status_code in (400, 422), (raw, r.status_code, r.text)
    assert client.get(f"/api/games/{gid}").json() == before


def _mutations(rec: dict) -> list[tuple[str, dict]]:
    """(the field a message must name, a record with that field broken)."""
    res = rec["result"]
    out = []
    for key, values in {
        "result": ["x", [1], 3, {"scores": "x"}, {**res, "scores": [1, 2, 3, 4, 5]},
                   {**res, "winner_side": 1 - res["winner_side"]}, {**res, "rounds": 99},
                   {**res, "winner_side": 2**70}, {**res, "extra": 1}, {"scores": res["scores"]}],
        "players": [["a"], ["a", "b", "c"], "ab", [1, 2], ["a" * 41, "b"]],
        "rules": [[], {"target_score": 2**70}, {"bogus": 1}, {"target_score": "x"},
                  {"num_players": 9}, {"sur_points": -1}],
        "actions": [None, "x", [2**70], [-1], [1.5], [True], [0] * 10_001],
        "dealer": [None, -1, 2**70, "0", 9], "stream": [123, "zz", "1" * 17, None],
        "deck": ["x", [1] * 52, ["AC"] * 52], "deal": ["x", {"hands": 1}, {"x": []},
                                                   {"hands": [["AC"]], "table": [], "stock": []}],
        "episode": [[1], "forever"], "meta": [[1], "x"], "format": [1, "pasur-record/9"],
        "game": ["chess", 1],
    }.items():
        out += [(key, {**rec, key: v}) for v in values]
    out += [(k, {kk: vv for kk, vv in rec.items() if kk != k})
            for k in ("rules", "episode", "dealer", "stream", "actions")]
    return out


def test_malformed_records_get_4xx_naming_the_field_never_500(client) -> None:
    rec = finished_record(client)
    assert client.post("/api/replay", json=rec).status_code == 200
    for field, bad in _mutations(rec):
        r = client.post("/api/replay?count=1", json=bad)
        assert r.status_code in (400, 422), (field, r.status_code, r.text[:300])
        detail = r.json()["detail"]
        named = field in detail or field in ("deal", "deck", "stream", "format", "game") and (
            "deal" in detail or "format" in detail or "record" in detail)
        assert named and not INTERNALS.search(str(detail)), (field, detail)
    for raw in (b"[]", b"1", b"null", b"{"):
        r = client.post("/api/replay", content=raw, headers={"content-type": "application/json"})
        assert 400 <= r.status_code < 500 and r.status_code != 503, (raw, r.text)


def test_a_random_fuzz_of_record_fields_never_gets_a_server_error(client) -> None:
    rec = finished_record(client)
    rng = np.random.default_rng(0)
    junk = [None, True, -1, 0, 2**63, 2**70, 1.5, "", "x" * 50, [], [1], {}, {"a": 1}, ["AC"]]
    keys = sorted(rec)
    for _ in range(150):
        bad = json.loads(json.dumps(rec))
        for key in rng.choice(keys, size=rng.integers(1, 3), replace=False):
            bad[str(key)] = junk[rng.integers(len(junk))]
        r = client.post("/api/replay?count=1", json=bad)
        assert r.status_code in (200, 400, 422), (bad, r.status_code, r.text[:300])
        assert not INTERNALS.search(r.text[:2000]), r.text[:300]


# ---- 5. seeds, hosts, headers ---------------------------------------------------------------
def test_unseeded_games_draw_64_bit_seeds_from_secrets(client) -> None:
    seeds = []
    for _ in range(6):
        r = client.post("/api/games", json={"opponents": ["greedy"]})
        game = client.app_state.store.get(r.json()["id"])
        seeds.append(game.seed)
    assert max(seeds) >= 2**32 and len(set(seeds)) == 6  # all below 2**32: p = 2**-192


def test_only_allowed_hosts_are_answered() -> None:
    app = create_app(allow_hosts=["table.lan"])
    for host in ("localhost", "127.0.0.1", "table.lan"):
        assert client_of(app, host).get("/api/setup").status_code == 200, host
    assert client_of(app, "evil.example").get("/api/setup").status_code == 400
    assert client_of(create_app(host="10.0.0.5"), "10.0.0.5").get("/").status_code == 200


def test_every_response_carries_the_security_headers(client) -> None:
    gid, _ = start(client)
    for r in (client.get("/"), client.get("/api/setup"), client.get("/static/app.js"),
              client.get("/api/games/nope"), client.post("/api/games", json={"players": 9}),
              client.get(f"/api/games/{gid}")):
        h = r.headers
        assert "frame-ancestors 'none'" in h["content-security-policy"], r.url
        assert "script-src 'self'" in h["content-security-policy"]
        assert h["x-content-type-options"] == "nosniff" and h["x-frame-options"] == "DENY"
        assert h["referrer-policy"] == "no-referrer"
