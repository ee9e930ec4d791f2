"""The web table: a FastAPI app serving one page and a small JSON API (``pasur serve``).

==========================================  =======================================================
route                                       what it does
==========================================  =======================================================
``GET /``                                   the page (``static/index.html``)
``GET /api/setup``                          games, agents each table size offers, presets, flags
``POST /api/games``                         start a game (``game``: ``pasur`` or
                                            ``persian_rummy``); returns its id and the view
``GET /api/games/{id}``                     the person's view (``TableGame.view``)
``POST /api/games/{id}/move``               ``{version, ...the game's move fields}``; the
                                            agents answer
``POST /api/games/{id}/continue``           close a round's score sheet
``POST /api/games/{id}/hint``               what the strongest agent would play
``GET /api/games/{id}/record``              the game's record, once it is over
``DELETE /api/games/{id}``                  forget a game
``POST /api/replay?start=&count=``          check a record (either game) and return a page of
                                            its positions, all hands shown
==========================================  =======================================================

Every view carries ``game`` and ``version`` (bumped by every state change) and the table
drawn as SVG in the layout the page asks for (``?layout=narrow``, the default, for a
phone; ``?layout=wide`` for a desktop screen) on every route answering with a view.
Status codes:
a malformed field gets a 422 naming it; a move the rules refuse, an unknown agent or
rule flag, a record that does not replay a 400 with the reason; an unknown or expired
id a 404; a move made against another version than the current one a 409 (nothing
changes); a body over the size limit a 413; an agent that fails a 424 naming it (the
person's move is undone: the game stays playable; a hint's agent that fails changes
nothing); a full server, and only that, a 503. The limits are
:class:`~agents.apps.web.limits.Limits`; ``Host`` names are checked
(:func:`~agents.apps.web.limits.allowed_hosts`) and every response carries security
headers. The route functions are plain ``def``: FastAPI runs them in worker threads, so
an agent's search (whose compiled kernels release the GIL) never stalls the event loop,
and each game's lock keeps its own requests in order.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from fastapi import Body, FastAPI, HTTPException, Query
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.middleware.trustedhost import TrustedHostMiddleware

from agents.apps.web.limits import BodyLimit, Limits, SecurityHeaders, allowed_hosts
from agents.apps.web.pasur_table import hint_agent_name
from agents.apps.web.records import check_record, page_bounds
from agents.apps.web.sessions import (
    AgentError,
    FieldError,
    GameStore,
    ServerFull,
    StaleMove,
    TableGame,
    new_seed,
)
from agents.games import AGENT_GAMES
from agents.registry import AGENT_NAMES
from pasur_env.games import DEFAULT_GAME, game_info
from pasur_env.pasur.rules import PRESETS, RULE_FLAGS

__all__ = ["create_app", "TABLES"]

STATIC = Path(__file__).resolve().parent / "static"
#: the rule flags the start form offers (the others keep their preset's value)
FORM_FLAGS = ("target_score", "sur_points", "sur_cancel", "jack_sur", "initial_jacks",
              "clubs_points", "clubs_rule", "open_hand")
#: the table class of each game the server offers (the games' rows, :mod:`agents.games`)
TABLES: dict[str, type[TableGame]] = {
    g: row.load("web_table") for g, row in AGENT_GAMES.items() if row.web_table}
#: the layouts of the drawn table a view can ask for (``?layout=``)
Layout = Literal["narrow", "wide"]
LAYOUT = Query("narrow", description="the drawing's layout: narrow (a phone) or wide")
#: each game's drawing of a page of replay positions, ``(replay, positions) -> frames``
FRAMES: dict[str, Callable[[Any, range], list[dict[str, Any]]]] = {
    g: row.load("web_frames") for g, row in AGENT_GAMES.items() if row.web_frames}


def _guard(fn: Callable[[], Any]) -> Any:
    """Domain errors as HTTP errors that name the problem (module docstring)."""
    try:
        return fn()
    except HTTPException:
        raise
    except KeyError as e:
        raise HTTPException(404, str(e.args[0] if e.args else e)) from None
    except ServerFull as e:
        raise HTTPException(503, str(e)) from None
    except StaleMove as e:
        raise HTTPException(409, str(e)) from None
    except AgentError as e:
        after = ("no hint this time; the game goes on" if e.hint
                 else "your move was undone, the game goes on from where it was")
        raise HTTPException(424, f"{e}; {after}") from None
    except FieldError as e:
        raise HTTPException(422, str(e)) from None
    except (ValueError, TypeError, OverflowError) as e:
        raise HTTPException(400, str(e)) from None


def _int_field(body: dict[str, Any], name: str, low: int, high: int) -> int | None:
    """An optional integer field of a request body, in ``low..high`` (FieldError otherwise)."""
    value = body.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise FieldError(name, f"must be an integer in {low}..{high}, got {value!r}")
    return value


def _new_table(body: dict[str, Any]) -> TableGame:
    """A table from the start form: ``game`` picks the class, ``seed`` (else 64 bits
    from ``secrets``) the deals."""
    form = dict(body)
    game = form.pop("game", DEFAULT_GAME)
    if game not in TABLES:
        raise FieldError("game", f"must be one of {', '.join(TABLES)}, got {game!r}")
    seed = _int_field(form, "seed", 0, 2**64 - 1)
    form.pop("seed", None)
    return TABLES[game].from_form(form, new_seed() if seed is None else seed)


def _view(game: TableGame, layout: str = "narrow") -> dict[str, Any]:
    return {**game.view(layout), "game": game.game, "version": game.version}


def _replay_page(body: Any, start: int, count: int | None, limits: Limits) -> dict[str, Any]:
    """A page of a record's positions (``start``, up to ``count``), checked first."""
    game, rep = check_record(body, limits)  # replayed once, checked
    if game not in FRAMES:
        raise ValueError(f"the web table does not draw {game_info(game).title} records")
    positions = page_bounds(start, count, len(rep.states), limits)
    return {"game": game, "start": positions.start, "total": len(rep.states),
            "frames": FRAMES[game](rep, positions), "result": rep.record.result,
            "players": rep.record.players}


def _setup() -> dict[str, Any]:
    """What the start form offers: per game and table size, the agents that can play it
    (finding out loads each saved model once: ``create_app`` does it before serving)."""
    games = {g: {"title": game_info(g).title, "players": list(game_info(g).players),
                 "offered": {str(p): cls.offered_agents(p) for p in game_info(g).players}}
             for g, cls in TABLES.items()}
    return {"agents": list(AGENT_NAMES), "offered": games[DEFAULT_GAME]["offered"],
            "games": games, "presets": sorted(PRESETS),
            "flags": [f for f in FORM_FLAGS if f in RULE_FLAGS],
            "hint": {p: hint_agent_name(p) for p in (2, 3, 4)}}


def create_app(max_games: int | None = None, idle_seconds: float | None = None, *,
               limits: Limits | None = None, host: str = "127.0.0.1",
               allow_hosts: tuple[str, ...] | list[str] = ()) -> FastAPI:
    """The app, with its own bounded :class:`GameStore`.

    ``limits`` sets every bound (:class:`Limits`; ``max_games`` and ``idle_seconds``,
    when given, override its fields of those names); ``host`` is the bound address and
    ``allow_hosts`` more ``Host`` names to answer (``"*"``: any).
    """
    given = {"max_games": max_games, "idle_seconds": idle_seconds}
    limits = Limits(**{**(limits or Limits()).__dict__,
                       **{k: v for k, v in given.items() if v is not None}})
    app = FastAPI(title="pasur_env web table", docs_url="/api/docs", redoc_url=None)
    store = GameStore(max_games=limits.max_games, idle_seconds=limits.idle_seconds,
                      max_bytes=limits.max_memory_mb * 2**20, evict_after=limits.evict_after)
    app.state.store, app.state.limits = store, limits
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    # the last added runs first: the size check, then the headers, then the Host check
    app.add_middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts(host, allow_hosts))
    app.add_middleware(SecurityHeaders)
    app.add_middleware(BodyLimit, max_bytes=limits.max_body_bytes)
    _setup()  # load the models now, so the page's first request is answered at once
    _add_routes(app, store, limits)
    return app


def _add_routes(app: FastAPI, store: GameStore, limits: Limits) -> None:
    """The routes (module docstring) of an app serving the games of ``store``."""

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/api/setup")
    def setup() -> dict[str, Any]:
        return _setup()

    @app.post("/api/games", status_code=201)
    def new_game(body: dict[str, Any] = Body(...),  # noqa: B008
                 layout: Layout = LAYOUT) -> dict[str, Any]:
        def make() -> dict[str, Any]:
            game = _new_table(body)
            gid = store.add(game)
            return {"id": gid, "view": _view(game, layout)}

        return _guard(make)

    def with_game(gid: str, fn: Callable[[TableGame], Any]) -> Any:
        def run() -> Any:
            game = store.get(gid)
            with game.lock:
                return fn(game)

        return _guard(run)

    @app.get("/api/games/{gid}")
    def get_game(gid: str, layout: Layout = LAYOUT) -> dict[str, Any]:
        return with_game(gid, lambda g: _view(g, layout))

    @app.post("/api/games/{gid}/move")
    def move(gid: str, body: dict[str, Any] = Body(...),  # noqa: B008
             layout: Layout = LAYOUT) -> dict[str, Any]:
        def play(g: TableGame) -> dict[str, Any]:
            fields = dict(body)
            if fields.get("version") is None:
                raise FieldError("version", "required: the version of the view the move was "
                                 "made on")
            version = _int_field(fields, "version", 0, 2**62)
            del fields["version"]
            g.apply(lambda: g.play(fields), version)
            return _view(g, layout)

        return with_game(gid, play)

    @app.post("/api/games/{gid}/continue")
    def resume(gid: str, body: dict[str, Any] | None = Body(None),  # noqa: B008
               layout: Layout = LAYOUT) -> dict[str, Any]:
        def go_on(g: TableGame) -> dict[str, Any]:
            g.apply(g.resume, _int_field(body or {}, "version", 0, 2**62))
            return _view(g, layout)

        return with_game(gid, go_on)

    @app.post("/api/games/{gid}/hint")
    def hint(gid: str) -> dict[str, Any]:
        return with_game(gid, lambda g: g.hint())

    @app.get("/api/games/{gid}/record")
    def record(gid: str) -> JSONResponse:
        def get(g: TableGame) -> JSONResponse:
            if not g.over:
                raise HTTPException(409, "the record is available once the game is over")
            return JSONResponse(g.record.to_json(), headers={
                "Content-Disposition": f'attachment; filename="{g.game}-game.json"'})

        return with_game(gid, get)

    @app.delete("/api/games/{gid}", status_code=204)
    def delete(gid: str) -> None:
        store.remove(gid)

    @app.post("/api/replay")
    def replay_record(body: Any = Body(...), start: int = Query(0, ge=0, le=10**9),  # noqa: B008
                      count: int | None = Query(None, ge=1, le=10**6)) -> dict[str, Any]:  # noqa: B008
        return _guard(lambda: _replay_page(body, start, count, limits))
