"""The web table: a FastAPI app serving one page and a small JSON API (``pasur serve``).

==========================================  =======================================================
route                                       what it does
==========================================  =======================================================
``GET /``                                   the page (``static/index.html``)
``GET /api/setup``                          agents, presets and rule flags the page offers
``POST /api/games``                         start a game; returns its id and the person's view
``GET /api/games/{id}``                     the person's view (``TableGame.view``)
``POST /api/games/{id}/move``               play ``{card, take}`` (Pasur) or ``{action,
                                            version}`` (Persian Rummy); the agents answer
``POST /api/games/{id}/continue``           close a round's score sheet
``POST /api/games/{id}/hint``               what the strongest agent would play
``GET /api/games/{id}/record``              the game's record, once it is over
``DELETE /api/games/{id}``                  forget a game
``POST /api/replay``                        check a record and return every position, all
                                            hands shown (replays of finished games)
==========================================  =======================================================

Request bodies are pydantic models: malformed input gets a 422 that names the field; a
move the rules refuse, an unknown agent or rule flag gets a 400 with the reason; an
unknown or expired id a 404; a full server a 503. The route functions are plain
``def``: FastAPI runs them in worker threads, so an agent's search (whose compiled
kernels release the GIL) never stalls the event loop, and each game's lock keeps its
own requests in order.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from fastapi import FastAPI, HTTPException
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field, model_validator

from agents.apps.web.pasur_table import PasurTable, hint_agent_name
from agents.apps.web.rummy_table import RummyTable, rummy_replay_frames
from agents.apps.web.sessions import AgentError, GameStore, TableGame
from agents.registry import AGENT_NAMES
from pasur_env.core.record import game_of
from pasur_env.pasur.drawing import table_scene, to_svg
from pasur_env.pasur.engine import action_str
from pasur_env.pasur.record import GameRecord, replay
from pasur_env.pasur.rules import PRESETS, RULE_FLAGS

__all__ = ["create_app"]

STATIC = Path(__file__).resolve().parent / "static"
#: the rule flags the start form offers (the others keep their preset's value)
FORM_FLAGS = ("target_score", "sur_points", "sur_cancel", "jack_sur", "initial_jacks",
              "clubs_points", "clubs_rule", "open_hand")
#: the longest record /api/replay accepts (a game to 62 is a few hundred actions)
MAX_RECORD_ACTIONS = 20_000


class NewGame(BaseModel):
    """The start form."""

    model_config = ConfigDict(extra="forbid")
    game: Literal["pasur", "persian_rummy"] = "pasur"
    players: Literal[2, 3, 4] = 2
    seat: int = Field(0, ge=0, le=3)
    opponents: list[str] = Field(default_factory=lambda: ["greedy"], min_length=1, max_length=3)
    preset: Literal["classic", "cfr_paper"] | None = None
    flags: dict[str, bool | int | str] = Field(default_factory=dict)
    seed: int | None = Field(None, ge=0, le=2**62)
    deck: list[str] | None = Field(None, min_length=52, max_length=56)
    dealer: int | None = Field(None, ge=0, le=3)


class Move(BaseModel):
    """A move: Pasur, the card played and the table cards it takes (empty: laid);
    Persian Rummy, one engine action (``"PICK 5S"`` or its id)."""

    model_config = ConfigDict(extra="forbid")
    card: str | None = Field(None, min_length=1, max_length=4)
    take: list[str] = Field(default_factory=list, max_length=12)
    action: str | int | None = None
    version: int | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> Move:
        if (self.card is None) == (self.action is None):
            raise ValueError("give 'card' (Pasur) or 'action' (Persian Rummy)")
        return self


def _guard(fn: Callable[[], Any]) -> Any:
    """Domain errors as HTTP errors that name the problem."""
    try:
        return fn()
    except KeyError as e:
        raise HTTPException(404, str(e.args[0] if e.args else e)) from None
    except AgentError as e:
        raise HTTPException(424, f"{e}; your move was undone") from None
    except OverflowError as e:
        raise HTTPException(503, str(e)) from None
    except (ValueError, TypeError) as e:
        raise HTTPException(400, str(e)) from None


def _replay_frames(record: dict[str, Any]) -> dict[str, Any]:
    """Every position of a record, all hands shown, with the move that led to it."""
    if game_of(record) == "persian_rummy":
        if len(record.get("actions") or ()) > MAX_RECORD_ACTIONS:
            raise ValueError(f"a record holds at most {MAX_RECORD_ACTIONS} actions")
        return rummy_replay_frames(record)
    rec = GameRecord.from_json(record)
    if len(rec.actions) > MAX_RECORD_ACTIONS:
        raise ValueError(f"a record holds at most {MAX_RECORD_ACTIONS} actions")
    rep = replay(rec)
    names = rep.record.players
    frames = []
    for k in range(len(rep.states)):
        eng = rep.position(k)
        caption = "start" if k == 0 else (
            f"move {k}: player_{int(rep.infos[k - 1].actor[0])} "
            f"{action_str(rep.record.actions[k - 1])}")
        frames.append({"caption": caption,
                       "svg": to_svg(table_scene(eng, 0, reveal=True, names=names,
                                                 caption=caption))})
    return {"frames": frames, "result": rep.record.result, "players": names}


def create_app(max_games: int = 200, idle_seconds: float = 1800.0) -> FastAPI:
    """The app, with its own bounded :class:`GameStore`."""
    app = FastAPI(title="pasur_env web table", docs_url="/api/docs", redoc_url=None)
    store = GameStore(max_games=max_games, idle_seconds=idle_seconds)
    app.state.store = store
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/api/setup")
    def setup() -> dict[str, Any]:
        return {"agents": list(AGENT_NAMES), "presets": sorted(PRESETS),
                "flags": [f for f in FORM_FLAGS if f in RULE_FLAGS],
                "hint": {p: hint_agent_name(p) for p in (2, 3, 4)},
                "games": {"persian_rummy": {"agents": RummyTable.offered_agents(4),
                                            "flags": ["deals", "four_set_double",
                                                      "last_discard_goes_out"]}}}

    @app.post("/api/games", status_code=201)
    def new_game(body: NewGame) -> dict[str, Any]:
        def make() -> dict[str, Any]:
            game: TableGame
            if body.game == "persian_rummy":
                form = body.model_dump(exclude_unset=True, exclude={"game", "seed"})
                game = RummyTable.from_form(form, body.seed)
                gid = store.add(game)
                return {"id": gid, "view": game.view()}
            game = PasurTable(body.players, body.seat, body.opponents, seed=body.seed,
                           preset=body.preset, flags=body.flags, deck=body.deck,
                           dealer=body.dealer)
            gid = store.add(game)
            return {"id": gid, "view": game.view()}

        return _guard(make)

    def with_game(gid: str, fn: Callable[[TableGame], Any]) -> Any:
        def run() -> Any:
            game = store.get(gid)
            with game.lock:
                return fn(game)

        return _guard(run)

    @app.get("/api/games/{gid}")
    def get_game(gid: str) -> dict[str, Any]:
        return with_game(gid, lambda g: g.view())

    @app.post("/api/games/{gid}/move")
    def move(gid: str, body: Move) -> dict[str, Any]:
        def play(g: TableGame) -> dict[str, Any]:
            if not isinstance(g, RummyTable):
                if body.card is None:
                    raise ValueError("field 'card' is required at a Pasur table")
                g.play(body.card, body.take)
                return g.view()
            if body.version is not None and body.version != g.version:
                raise HTTPException(409, f"the move was made against version {body.version}, "
                                    f"the game is at {g.version}: nothing was changed")
            snap = g.snapshot()
            try:
                g.play(body.model_dump(exclude_unset=True, exclude={"card", "take"}))
            except BaseException:
                g.restore(snap)
                raise
            return g.view()

        return with_game(gid, play)

    @app.post("/api/games/{gid}/continue")
    def resume(gid: str) -> dict[str, Any]:
        return with_game(gid, lambda g: (g.resume(), g.view())[1])

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
    def replay_record(body: dict[str, Any]) -> dict[str, Any]:
        return _guard(lambda: _replay_frames(body))

    return app
