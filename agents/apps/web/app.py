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
phone; ``?layout=wide`` for a desktop screen) on every route answering with a view. Every
request body is read through a schema (both games' start forms one tagged union, :data:`StartBody`;
each game's move its table's ``MOVE``; records :class:`RecordSchema`), published as the
OpenAPI schema (``/openapi.json``). Status codes: a malformed field (missing, unknown, of
the wrong type: no float, bool or string where an integer is expected; out of range) gets
a 422 naming it; a well-formed request the rules refuse (a move, an unknown agent or rule
flag, a record that does not replay) a 400 with the reason; an unknown or expired id a
404; a move made against another version than the current one a 409 (nothing
changes); a body over the size limit a 413; an agent that fails a 424 naming it (the
person's move is undone: the game stays playable; a hint's agent that fails changes
nothing); a full server, and only that, a 503. Messages are the project's words and
quote at most a short prefix of what was sent. A ``seed`` is a JSON integer or a string of
decimal digits in ``0..2**64 - 1``.
The limits are :class:`~agents.apps.web.limits.Limits`; ``Host`` names are checked
(:func:`~agents.apps.web.limits.allowed_hosts`) and every response, errors raised before
any route included, carries security headers. The route functions are plain ``def``:
FastAPI runs them in worker threads, so an agent's search (whose compiled kernels
release the GIL) never stalls the event loop, and each game's lock keeps its own
requests in order.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal, Union

from fastapi import Body, FastAPI, HTTPException, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Discriminator, RootModel, Tag, TypeAdapter
from starlette.middleware.trustedhost import TrustedHostMiddleware

from agents.apps.web.forms import FieldError, Version, check_fields, field_error
from agents.apps.web.limits import BodyLimit, Limits, SecurityHeaders, allowed_hosts
from agents.apps.web.pasur_table import hint_agent_name
from agents.apps.web.records import RecordSchema, check_record, page_bounds
from agents.apps.web.sessions import AgentError, GameStore, ServerFull, StaleMove, TableGame
from agents.games import AGENT_GAMES
from agents.registry import AGENT_NAMES
from pasur_env.core.args import FlagTypeError
from pasur_env.games import DEFAULT_GAME, game_info
from pasur_env.pasur.rules import PRESETS, RULE_FLAGS

__all__ = ["create_app", "TABLES", "StartBody"]

STATIC = Path(__file__).resolve().parent / "static"
#: the rule flags the start form offers (the others keep their preset's value)
FORM_FLAGS = ("target_score", "sur_points", "sur_cancel", "jack_sur", "initial_jacks",
              "clubs_points", "clubs_rule", "open_hand")
#: the table class of each game the server offers (the first: the game of a start form
#: that names none)
TABLES: dict[str, type[TableGame]] = {
    g: row.load("web_table") for g, row in AGENT_GAMES.items() if row.web_table}
#: the layouts of the drawn table a view can ask for (``?layout=``)
Layout = Literal["narrow", "wide"]
LAYOUT = Query("narrow", description="the drawing's layout: narrow (a phone) or wide")
#: each game's drawing of a page of replay positions, ``(replay, positions) -> frames``
FRAMES: dict[str, Callable[[Any, range], list[dict[str, Any]]]] = {
    g: row.load("web_frames") for g, row in AGENT_GAMES.items() if row.web_frames}
#: the longest message an error answer carries (the messages themselves quote at most a
#: short prefix of what was sent; this bounds any that would not)
MAX_DETAIL = 600


def _form_tag(body: Any) -> str | None:
    """The start form's union member: its ``game`` (the first table's when it names
    none, or when the body is not an object: that member then says what is wrong);
    None for a ``game`` the server does not offer."""
    game = body.get("game", DEFAULT_GAME) if isinstance(body, dict) else getattr(
        body, "game", DEFAULT_GAME)
    return f"form[{game}]" if isinstance(game, str) and game in TABLES else None


class StartBody(RootModel[Annotated[  # type: ignore[misc]
        Union[tuple(Annotated[cls.FORM, Tag(f"form[{g}]")] for g, cls in TABLES.items())],  # noqa: UP007
        Discriminator(_form_tag, custom_error_type="game",
                      custom_error_message=f"must be one of {', '.join(TABLES)}",
                      custom_error_context={"field": "game"})]]):
    """The start form of every game: one schema, its member picked by ``game``."""


#: every game's move (documented; the game's own ``MOVE`` checks a move to it)
MoveBody = Union[tuple(cls.MOVE for cls in TABLES.values())]  # noqa: UP007


class Problem(BaseModel):
    """An error answer: what is wrong, in the project's words."""

    detail: str


class View(BaseModel):
    """A person's view of a game (its other fields are the game's: ``TableGame.view``)."""

    model_config = ConfigDict(extra="allow")
    game: str
    version: int


class NewGame(BaseModel):
    """A started game: its id and the person's first view."""

    id: str
    view: View


class Resume(BaseModel):
    """Closing a round's score sheet: the version of the view it was made on (optional)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    version: Version | None = None


#: what each error status means (module docstring); every route may answer 400 (a
#: ``Host`` this server does not answer)
_WHY = {400: "a well-formed request the rules or the server refuse, with the reason",
        404: "no such game (or it expired)", 409: "a move against another version, or a "
        "record asked for before the game is over", 413: "a body over the size limit",
        422: "a malformed field, named", 424: "an agent failed (the move was undone)",
        503: "the server holds as many games as it may"}


def _answers(*codes: int, ok: Any = None) -> dict[int | str, dict[str, Any]]:
    """The answers a route documents: its success ``ok`` (a model, or a schema's name:
    200 or the route's status; None: what FastAPI infers), and as errors 400 and
    ``codes``, each a :class:`Problem`.

    Documentation only: a route keeps the response model FastAPI infers from its return
    type (``dict``), so its answer is checked in a worker thread and serialised by
    pydantic's compiled core; with
    ``response_model=None`` FastAPI would encode every view in Python on the event
    loop, one request at a time (``bench_web.py``'s move latency doubled)."""
    out: dict[int | str, dict[str, Any]] = {}
    if isinstance(ok, str):
        out[200] = {"content": {"application/json": {"schema": {
            "$ref": f"#/components/schemas/{ok}"}}}}
    elif ok is not None:
        out[201 if ok is NewGame else 200] = {"model": ok}
    return out | {c: {"model": Problem, "description": _WHY[c]} for c in (400, *codes)}


def _body_schema(name: str) -> dict[str, Any]:
    """An ``openapi_extra`` giving a route the request body schema ``name`` (a component
    :func:`_openapi` adds: the route itself reads a plain JSON value and checks it)."""
    return {"requestBody": {"required": True, "content": {"application/json": {
        "schema": {"$ref": f"#/components/schemas/{name}"}}}}}


def _detail(e: BaseException) -> str:
    """An exception's message, bounded (:data:`MAX_DETAIL`)."""
    text = str(e)
    return text if len(text) <= MAX_DETAIL else text[:MAX_DETAIL - 1] + "\u2026"


def _guard(fn: Callable[[], Any]) -> Any:
    """Domain errors as HTTP errors that name the problem (module docstring)."""
    try:
        return fn()
    except HTTPException:
        raise
    except KeyError as e:
        raise HTTPException(404, _detail(e.args[0] if e.args else e)) from None
    except ServerFull as e:
        raise HTTPException(503, _detail(e)) from None
    except StaleMove as e:
        raise HTTPException(409, _detail(e)) from None
    except AgentError as e:
        after = ("no hint this time; the game goes on" if e.hint
                 else "your move was undone, the game goes on from where it was")
        raise HTTPException(424, _detail(f"{e}; {after}")) from None
    except (FieldError, FlagTypeError) as e:  # a flag of the wrong type is malformed too
        raise HTTPException(422, _detail(e)) from None
    except (ValueError, TypeError, OverflowError) as e:
        raise HTTPException(400, _detail(e)) from None


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


class _TableApp(FastAPI):
    """FastAPI whose every answer carries the security headers: :class:`SecurityHeaders`
    wraps the whole stack, the server-error handler and every middleware included, so a
    413 from :class:`BodyLimit`, a refused ``Host``, a 404 or 405 before any route and
    even a 500 have them."""

    def build_middleware_stack(self) -> Any:
        return SecurityHeaders(super().build_middleware_stack())


def _openapi(app: FastAPI) -> Callable[[], dict[str, Any]]:
    """The app's OpenAPI schema with the request bodies as pydantic describes them: the
    ones its routes check themselves (``MoveBody``: every game's move; ``Record``:
    :class:`RecordSchema`) added, and the start forms' replaced (FastAPI's copy writes
    bounds as floats: 2**64 - 1 would read as 2**64)."""

    def schema() -> dict[str, Any]:
        if app.openapi_schema is None:
            doc = get_openapi(title=app.title, version=app.version, routes=app.routes)
            parts = doc.setdefault("components", {}).setdefault("schemas", {})
            for name, kind in (("StartBody", StartBody), ("MoveBody", MoveBody),
                               ("Record", RecordSchema)):
                js = TypeAdapter(kind).json_schema(ref_template="#/components/schemas/{model}")
                parts.update(js.pop("$defs", {}))
                parts[name] = js
            app.openapi_schema = doc
        return app.openapi_schema

    return schema


async def _invalid(request: Request, exc: Exception) -> JSONResponse:
    """FastAPI's own validation errors (the start form, a body that is not JSON, query
    parameters) as every other 422: the first bad field named, in the project's words."""
    errors = exc.errors() if isinstance(exc, RequestValidationError) else []
    detail = _detail(field_error(list(errors))) if errors else "malformed request"
    return JSONResponse({"detail": detail}, status_code=422)


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
    app = _TableApp(title="pasur_env web table", docs_url="/api/docs", redoc_url=None)
    store = GameStore(max_games=limits.max_games, idle_seconds=limits.idle_seconds,
                      max_bytes=limits.max_memory_mb * 2**20, evict_after=limits.evict_after)
    app.state.store, app.state.limits = store, limits
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    # the last added runs first: the size check, then the Host check (the security
    # headers wrap them both: _TableApp)
    app.add_middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts(host, allow_hosts))
    app.add_middleware(BodyLimit, max_bytes=limits.max_body_bytes)
    app.add_exception_handler(RequestValidationError, _invalid)
    app.openapi = _openapi(app)  # type: ignore[method-assign]
    _setup()  # load the models now, so the page's first request is answered at once
    _add_routes(app, store, limits)
    return app


def _add_routes(app: FastAPI, store: GameStore, limits: Limits) -> None:
    """The routes (module docstring) of an app serving the games of ``store``."""

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/api/setup", responses=_answers())
    def setup() -> dict[str, Any]:
        return _setup()

    @app.post("/api/games", status_code=201, responses=_answers(413, 422, 424, 503, ok=NewGame))
    def new_game(body: StartBody = Body(...),  # noqa: B008
                 layout: Layout = LAYOUT) -> dict[str, Any]:
        def make() -> dict[str, Any]:
            form = body.root
            game = TABLES[form.game].from_form(form)
            gid = store.add(game)
            return {"id": gid, "view": _view(game, layout)}

        return _guard(make)

    def with_game(gid: str, fn: Callable[[TableGame], Any]) -> Any:
        def run() -> Any:
            game = store.get(gid)
            with game.lock:
                return fn(game)

        return _guard(run)

    @app.get("/api/games/{gid}", responses=_answers(404, 422, ok=View))
    def get_game(gid: str, layout: Layout = LAYOUT) -> dict[str, Any]:
        return with_game(gid, lambda g: _view(g, layout))

    changes = _answers(404, 409, 413, 422, 424, ok=View)

    @app.post("/api/games/{gid}/move", responses=changes,
              openapi_extra=_body_schema("MoveBody"))
    def move(gid: str, body: Any = Body(...),  # noqa: B008
             layout: Layout = LAYOUT) -> dict[str, Any]:
        def play(g: TableGame) -> dict[str, Any]:
            if not isinstance(body, dict):
                raise FieldError("body", "a move must be a JSON object")
            checked = check_fields(g.MOVE, body)  # version included: required here
            g.apply(lambda: g.play(checked), checked.version)
            return _view(g, layout)

        return with_game(gid, play)

    @app.post("/api/games/{gid}/continue", responses=changes)
    def resume(gid: str, body: Resume | None = Body(None),  # noqa: B008
               layout: Layout = LAYOUT) -> dict[str, Any]:
        def go_on(g: TableGame) -> dict[str, Any]:
            g.apply(g.resume, body.version if body is not None else None)
            return _view(g, layout)

        return with_game(gid, go_on)

    @app.post("/api/games/{gid}/hint", responses=_answers(404, 424))
    def hint(gid: str) -> dict[str, Any]:
        return with_game(gid, lambda g: g.hint())

    @app.get("/api/games/{gid}/record", responses=_answers(404, 409, ok="Record"))
    def record(gid: str) -> JSONResponse:
        def get(g: TableGame) -> JSONResponse:
            if not g.over:
                raise HTTPException(409, "the record is available once the game is over")
            return JSONResponse(g.record.to_json(), headers={
                "Content-Disposition": f'attachment; filename="{g.game}-game.json"'})

        return with_game(gid, get)

    @app.delete("/api/games/{gid}", status_code=204, responses=_answers())
    def delete(gid: str) -> None:
        store.remove(gid)

    @app.post("/api/replay", responses=_answers(413, 422), openapi_extra=_body_schema("Record"))
    def replay_record(body: Any = Body(...), start: int = Query(0, ge=0, le=10**9),  # noqa: B008
                      count: int | None = Query(None, ge=1, le=10**6)) -> dict[str, Any]:  # noqa: B008
        return _guard(lambda: _replay_page(body, start, count, limits))
