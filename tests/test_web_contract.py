"""The web server's contract, one defect at a time: seeds (every game's table takes
0..2**64 - 1, as a JSON integer or a string of digits; unseeded games always start),
one error contract for both games (422 for a malformed field, 400 for a well-formed
request the rules refuse, strict types), messages that quote at most a short prefix of
what was sent, and the security headers on every answer, including those given before
any route (413, a refused ``Host``, 404, 405) and a server error."""

from __future__ import annotations

import json
import re

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient  # noqa: E402

from agents.apps.web.app import create_app  # noqa: E402
from agents.apps.web.limits import Limits  # noqa: E402

RUMMY = {"game": "persian_rummy"}
#: the start form of a cheap game of each game
FORMS = {"pasur": {"opponents": ["greedy"]}, "persian_rummy": {**RUMMY, "opponents": "random"}}
#: words of Python's own errors that must never reach a person
INTERNALS = re.compile(r"unhashable|object is not|NoneType|Traceback|has no attribute|C long")
BIG = 2**64 - 1
LONG = "x" * 200_000


@pytest.fixture(scope="module")
def client():
    app = create_app(max_games=300, idle_seconds=600)
    with TestClient(app, base_url="http://localhost", raise_server_exceptions=False) as c:
        c.store = app.state.store
        yield c


def start(client, body: dict) -> tuple[str, dict]:
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    return r.json()["id"], r.json()["view"]


def refused(r, status: int, field: str) -> str:
    """The detail of an answer that must be ``status`` naming ``field``, in few words."""
    assert r.status_code == status, (r.status_code, r.text[:300])
    detail = r.json()["detail"]
    assert isinstance(detail, str) and f"field '{field}" in detail, detail
    assert len(r.content) < 600 and not INTERNALS.search(detail), detail[:300]
    return detail


# ---- 1. seeds ----------------------------------------------------------------------------
def test_unseeded_rummy_games_always_start(client) -> None:
    """Drawn seeds are 64 bits: half of them were refused by the Rummy table (63 bits)."""
    seeds = []
    for _ in range(100):
        gid, view = start(client, FORMS["persian_rummy"])
        assert view["game"] == "persian_rummy"
        seeds.append(client.store.get(gid).seed)
        client.delete(f"/api/games/{gid}")
    assert sum(s >= 2**63 for s in seeds) > 20  # p < 1e-9 otherwise
    for _ in range(20):
        gid, _ = start(client, FORMS["pasur"])
        client.delete(f"/api/games/{gid}")


@pytest.mark.parametrize("game", list(FORMS))
@pytest.mark.parametrize("seed", [2**63, 2**63 + 1, BIG])
def test_every_table_takes_64_bit_seeds(client, game, seed) -> None:
    gid, view = start(client, {**FORMS[game], "seed": seed})
    assert client.store.get(gid).seed == seed
    gid2, view2 = start(client, {**FORMS[game], "seed": str(seed)})  # the same as digits
    assert client.store.get(gid2).seed == seed and view2 == view
    r = client.post(f"/api/games/{gid}/hint")
    assert r.status_code == 200, r.text


@pytest.mark.parametrize("game", list(FORMS))
def test_a_seed_as_a_string_of_digits_keeps_every_digit(client, game) -> None:
    """The page sends seeds as strings: 2**53 + 1 as a JavaScript number is 2**53."""
    gid, _ = start(client, {**FORMS[game], "seed": "9007199254740993"})
    assert client.store.get(gid).seed == 9007199254740993


@pytest.mark.parametrize("game", list(FORMS))
@pytest.mark.parametrize("seed", [-1, 2**64, "18446744073709551616", "1.5", "0x10", " 1", "",
                                  "-1", 1.0, True, [1], {"a": 1}, "1" * 30])
def test_a_bad_seed_is_a_malformed_field(client, game, seed) -> None:
    refused(client.post("/api/games", json={**FORMS[game], "seed": seed}), 422, "seed")


def test_the_hint_after_moves_at_the_largest_seed(client) -> None:
    """The hint's agent is seeded by the table's seed plus the moves made: it stays a seed."""
    gid, view = start(client, {**FORMS["pasur"], "seed": BIG})
    card, options = next(iter(view["legal"].items()))
    r = client.post(f"/api/games/{gid}/move", json={
        "card": card, "take": options[0] if options else [], "version": view["version"]})
    assert r.status_code == 200, r.text
    assert client.post(f"/api/games/{gid}/hint").status_code == 200
    gid, view = start(client, {**FORMS["persian_rummy"], "seed": BIG})
    r = client.post(f"/api/games/{gid}/move", json={"action": "DRAW_STOCK",
                                                    "version": view["version"]})
    assert r.status_code == 200, r.text
    assert client.post(f"/api/games/{gid}/hint").status_code == 200


# ---- 2. one error contract: 422 malformed, 400 refused, strict types ------------------------
#: (field, value) malformed in either game's start form
MALFORMED = [("seat", 1.0), ("seat", True), ("seat", "1"), ("seat", None), ("seat", 7),
             ("players", 3.0), ("players", "4"), ("players", 9), ("dealer", 1.0),
             ("dealer", "0"), ("flags", []), ("opponents", 5), ("opponents", [1]),
             ("deck", [1] * 52), ("zzz", 1)]


@pytest.mark.parametrize("game", list(FORMS))
@pytest.mark.parametrize("field, value", MALFORMED)
def test_malformed_start_fields_get_422_in_both_games(client, game, field, value) -> None:
    refused(client.post("/api/games", json={**FORMS[game], field: value}), 422, field)


@pytest.mark.parametrize("game", [["pasur"], 1, None, "chess", {"a": 1}, LONG])
def test_a_bad_game_is_a_malformed_field(client, game) -> None:
    detail = refused(client.post("/api/games", json={"game": game}), 422, "game")
    assert "pasur, persian_rummy" in detail


@pytest.mark.parametrize("game", list(FORMS))
def test_a_flag_of_the_wrong_type_is_malformed(client, game) -> None:
    flag = "target_score" if game == "pasur" else "deals"
    for value in (30.0, "30", [30]):
        r = client.post("/api/games", json={**FORMS[game], "flags": {flag: value}})
        assert r.status_code == 422 and flag in r.json()["detail"], (value, r.text)


def test_well_formed_requests_the_rules_refuse_get_400(client) -> None:
    for body in ({**FORMS["pasur"], "opponents": ["nobody"]},
                 {**FORMS["pasur"], "players": 3},  # 1 opponent for 2 seats
                 {**FORMS["persian_rummy"], "players": 2},
                 {**FORMS["persian_rummy"], "opponents": ["random", "random"]},
                 {**FORMS["persian_rummy"], "flags": {"bogus": 1}}):
        r = client.post("/api/games", json=body)
        assert r.status_code == 400 and not INTERNALS.search(r.text), (body, r.text)


@pytest.mark.parametrize("body, field", [
    ({"action": 1.5}, "action"), ({"action": None}, "action"), ({"action": True}, "action"),
    ({"action": 999}, "action"), ({"action": ""}, "action"), ({}, "action"),
    ({"action": "DRAW_STOCK", "card": "7H"}, "card"), ({"action": "DRAW_STOCK", "version": "1"},
                                                       "version"),
    ({"action": "DRAW_STOCK", "version": 1.0}, "version"), ({"action": LONG}, "action"),
])
def test_malformed_rummy_moves_get_422(client, body, field) -> None:
    gid, view = start(client, {**FORMS["persian_rummy"], "seed": 5})
    before = client.get(f"/api/games/{gid}").json()
    refused(client.post(f"/api/games/{gid}/move", json={"version": view["version"], **body}),
            422, field)
    assert client.get(f"/api/games/{gid}").json() == before


@pytest.mark.parametrize("game", list(FORMS))
def test_a_resume_with_a_bad_version_is_malformed(client, game) -> None:
    gid, _ = start(client, FORMS[game])
    for version in (1.0, "1", True):
        refused(client.post(f"/api/games/{gid}/continue", json={"version": version}), 422,
                "version")


def test_a_body_that_is_not_json_names_the_body(client) -> None:
    for path in ("/api/games", "/api/replay"):
        r = client.post(path, content=b"{", headers={"content-type": "application/json"})
        refused(r, 422, "body")


# ---- 3. messages quote a short prefix at most ------------------------------------------------
def _record(client) -> dict:
    gid, _ = start(client, {**FORMS["pasur"], "seed": 3, "flags": {"target_score": 15}})
    game = client.store.get(gid)
    return json.loads(json.dumps(game.record.to_json()))


@pytest.mark.parametrize("field, value", [
    ("format", LONG), ("format", "pasur-record/" + "1" * 200_000), ("game", LONG),
    ("stream", LONG), ("episode", LONG), ("players", [LONG, "b"])])
def test_long_strings_in_a_record_are_not_echoed(client, field, value) -> None:
    r = client.post("/api/replay", json={**_record(client), field: value})
    assert r.status_code in (400, 422) and len(r.content) < 600, (r.status_code, r.text[:300])


@pytest.mark.parametrize("body", [
    {"opponents": [LONG]}, {"flags": {LONG: 1}}, {"flags": {"jack_sur": LONG}},
    {"preset": LONG}, {"deck": [LONG] * 52}, {LONG: 1}, {"seed": LONG}, {"game": LONG},
])
def test_long_strings_in_a_start_form_are_not_echoed(client, body) -> None:
    for game in FORMS:
        r = client.post("/api/games", json={**FORMS[game], **body})
        assert 400 <= r.status_code < 500 and len(r.content) < 600, (game, r.text[:300])


def test_long_strings_in_a_move_are_not_echoed(client) -> None:
    gid, view = start(client, FORMS["pasur"])
    for body in ({"card": LONG}, {"card": "7H", "take": [LONG]}, {"card": "7H", LONG: 1}):
        r = client.post(f"/api/games/{gid}/move", json={"version": view["version"], **body})
        assert r.status_code == 422 and len(r.content) < 600, r.text[:300]


# ---- 4. security headers on every answer ------------------------------------------------------
def _has_headers(r) -> bool:
    h = r.headers
    return ("frame-ancestors 'none'" in h.get("content-security-policy", "")
            and h.get("x-content-type-options") == "nosniff"
            and h.get("x-frame-options") == "DENY" and h.get("referrer-policy") == "no-referrer")


def test_answers_given_before_any_route_carry_the_security_headers() -> None:
    app = create_app(limits=Limits(max_body_bytes=2000))
    with TestClient(app, base_url="http://localhost", raise_server_exceptions=False) as c:
        big = c.post("/api/games", content=b"x" * 5000,
                     headers={"content-type": "application/json"})
        assert big.status_code == 413 and _has_headers(big)

        def chunks():  # no Content-Length: the streamed bytes are counted
            yield from (b"x" * 500 for _ in range(10))

        streamed = c.post("/api/replay", content=chunks())
        assert streamed.status_code == 413 and _has_headers(streamed)
        length = c.post("/api/games", content=b"{}", headers={"content-length": "abc"})
        assert length.status_code == 400 and _has_headers(length)
        assert c.get("/no/such/path").status_code == 404
        assert _has_headers(c.get("/no/such/path"))
        assert c.put("/api/setup").status_code == 405 and _has_headers(c.put("/api/setup"))
        host = TestClient(app, base_url="http://evil.example").get("/api/setup")
        assert host.status_code == 400 and _has_headers(host)

        def broken(gid: str):
            raise RuntimeError("a bug")

        app.state.store.get = broken  # a server error: its answer has them too
        r = c.get("/api/games/abc")
        assert r.status_code == 500 and _has_headers(r)
