"""The web API fuzzed from its own OpenAPI schema with schemathesis, in process.

Every route of ``/openapi.json`` (both games' start forms, moves, score sheets, hints,
records, replays) gets requests that schemathesis generates from the schema: valid ones
(positive) and invalid ones (negative: wrong types, missing or unknown fields, values
out of range). The routes that act on a game are sent, in turn, the id of a live Pasur
game, of a live Persian Rummy game and the generated id, so malformed moves reach real
tables. Each answer must not be a server error, must have a status code, content type
and body the schema documents, must refuse invalid data with a 4xx, and must carry the
security headers. The run is bounded (``EXAMPLES`` cases per route and mode,
derandomised, so CI fuzzes the same cases every time) and says how many routes and cases
it ran. The hand-written probes are in ``tests/test_web_limits.py``.
"""

from __future__ import annotations

import itertools
import time
import warnings
from collections import Counter
from typing import Any

import pytest

pytest.importorskip("fastapi")
schemathesis = pytest.importorskip("schemathesis")

from fastapi.testclient import TestClient  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis.errors import Unsatisfiable  # noqa: E402
from schemathesis import GenerationMode  # noqa: E402
from schemathesis.checks import not_a_server_error  # noqa: E402
from schemathesis.python.asgi import HOST  # noqa: E402
from schemathesis.specs.openapi.checks import (  # noqa: E402
    content_type_conformance,
    negative_data_rejection,
    response_schema_conformance,
    status_code_conformance,
)

from agents.apps.web.app import create_app  # noqa: E402

#: cases per route and generation mode (a route whose answers run an agent's search gets
#: fewer): about 40 s on 2 cores
EXAMPLES = 30
FEWER = {"POST /api/games": 20, "POST /api/games/{gid}/hint": 6}
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
          response_schema_conformance, negative_data_rejection]
#: the security headers every answer carries (docs/web.md)
HEADERS = {"x-content-type-options": "nosniff", "x-frame-options": "DENY",
           "referrer-policy": "no-referrer"}
#: a live game of each game, started the way the page starts one
STARTS = {"pasur": {"opponents": ["greedy"], "seed": 1},
          "persian_rummy": {"game": "persian_rummy", "opponents": "random", "seed": "2"}}


class LiveGames:
    """One live game of each game on the app (started again once deleted or over), and a
    turn order for the ids a game route is sent: Pasur's, Rummy's, the generated one."""

    def __init__(self, client: TestClient, store: Any) -> None:
        self.client, self.store, self.ids = client, store, dict.fromkeys(STARTS)
        self.turn = itertools.cycle([*STARTS, None])

    def id_for(self, generated: str) -> str:
        game = next(self.turn)
        if game is None:
            return generated
        gid = self.ids.get(game)
        if gid is None or gid not in self.store.games or self.store.games[gid].over:
            r = self.client.post("/api/games", json=STARTS[game])
            assert r.status_code == 201, r.text
            gid = self.ids[game] = r.json()["id"]
        return gid


def _fuzz(op: Any, mode: GenerationMode, live: LiveGames, tally: Counter,
          failures: list[str]) -> None:
    """Send ``op`` the cases schemathesis generates in ``mode`` and check each answer."""
    n = FEWER.get(op.label, EXAMPLES)

    @given(case=op.as_strategy(generation_mode=mode))
    @settings(max_examples=n, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    def run(case: Any) -> None:
        if "gid" in (case.path_parameters or {}):
            case.path_parameters["gid"] = live.id_for(case.path_parameters["gid"])
        response = case.call(timeout=120)  # a first search may compile its kernels
        tally["cases"] += 1
        tally[f"status {response.status_code}"] += 1
        where = f"{op.label} ({mode.value}) -> {response.status_code}"
        try:
            case.validate_response(response, checks=CHECKS)
        except Exception as e:  # noqa: BLE001 - every failing check is reported, then asserted
            failures.append(f"{where}: {str(e)[:600]}")
        headers = {k: v[0] for k, v in response.headers.items()}  # a list per name
        missing = [k for k, v in HEADERS.items() if headers.get(k) != v]
        if missing or "frame-ancestors 'none'" not in headers.get("content-security-policy", ""):
            failures.append(f"{where}: security headers missing: {missing or 'CSP'}")

    try:
        run()
    except Unsatisfiable:  # a route without parameters or body has no invalid request
        assert mode == GenerationMode.NEGATIVE, op.label


def test_the_api_fuzzed_from_its_schema(record_property) -> None:
    app = create_app(max_games=40, allow_hosts=[HOST])
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    ops = [result.ok() for result in schema.get_all_operations()]
    assert {op.label for op in ops} >= {
        "POST /api/games", "POST /api/games/{gid}/move", "POST /api/games/{gid}/continue",
        "POST /api/games/{gid}/hint", "POST /api/replay", "GET /api/games/{gid}/record"}
    tally: Counter = Counter()
    failures: list[str] = []
    start = time.perf_counter()
    with TestClient(app, base_url=f"http://{HOST}") as client, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # schemathesis' notes on the generated data
        live = LiveGames(client, app.state.store)
        for _ in STARTS:  # each game started, its hint's agent loaded (and compiled) once
            assert client.post(f"/api/games/{live.id_for('')}/hint").status_code == 200
        for op in ops:
            for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
                _fuzz(op, mode, live, tally, failures)
    server_errors = sum(v for k, v in tally.items() if k.startswith("status 5"))
    summary = (f"schemathesis: {len(ops)} routes, {tally['cases']} cases generated, "
               f"{server_errors} server errors, {len(failures)} failed checks "
               f"({time.perf_counter() - start:.0f} s); statuses "
               + ", ".join(f"{k[7:]}: {v}" for k, v in sorted(tally.items()) if k != "cases"))
    print(summary)
    record_property("schemathesis", summary)
    assert not failures, f"{summary}\n" + "\n".join(failures[:10])
    assert server_errors == 0 and tally["cases"] >= 10 * len(ops), summary
    assert tally["status 201"] and tally["status 200"] and tally["status 422"], summary
