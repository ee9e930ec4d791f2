"""Records sent to the web table (``POST /api/replay``): one schema, limits, the result
checked, and positions drawn a page at a time.

:func:`check_record` reads a record of either game (``pasur-record/1``,
``persian_rummy-record/1``) through one pydantic schema (:class:`RecordSchema`: every
field's type and range, so a malformed one is a :class:`~agents.apps.web.forms.FieldError`
naming it, never a server error), applies the server's :class:`~agents.apps.web.limits.Limits`
(actions, rounds, name length), replays it on its game's engine (every action checked,
:func:`pasur_env.core.record.game_of` picks the game; its ``replay`` checks every field of its
``result`` against the replay: scores, winner side, rounds. :func:`pasur_frames` draws
the positions ``start .. start + count - 1`` of a Pasur replay, so a long record never
makes a huge answer.
"""

from __future__ import annotations

import importlib
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictInt

from agents.apps.web.forms import FieldError, check_fields
from agents.apps.web.limits import Limits
from pasur_env.core.record import game_of
from pasur_env.games import GAMES, game_info

__all__ = ["RecordSchema", "check_record", "pasur_frames", "page_bounds"]

Card = Annotated[str, Field(min_length=2, max_length=3)]
SmallInt = Annotated[StrictInt, Field(ge=-(2**31), le=2**31 - 1)]
Name = Annotated[str, Field(max_length=10_000)]  # the server's own limit is checked after


class ResultSchema(BaseModel):
    """A record's ``result``: the final scores by side, the winning side, the rounds."""

    model_config = ConfigDict(extra="forbid")
    scores: list[SmallInt] = Field(min_length=2, max_length=4)
    winner_side: Annotated[StrictInt, Field(ge=-1, le=3)]
    rounds: Annotated[StrictInt, Field(ge=1, le=1_000_000)]


class DealSchema(BaseModel):
    """A record's first deal, as a check: hands, and the table and stock (Pasur) or the
    discard pile (Persian Rummy)."""

    model_config = ConfigDict(extra="forbid")
    hands: list[list[Card]] = Field(max_length=4)
    table: list[Card] | None = Field(None, max_length=52)
    stock: list[Card] | None = Field(None, max_length=56)
    pile: list[Card] | None = Field(None, max_length=56)


def _rule_values(rules: dict[str, Any]) -> dict[str, Any]:
    """Rule flags are switches, small integers or short words (the game checks which)."""
    for name, value in rules.items():
        if isinstance(value, str):
            ok = len(value) <= 40
        else:
            ok = isinstance(value, bool) or type(value) is int and -(2**31) <= value < 2**31
        if not ok:
            raise ValueError(f"rule flag {name!r} must be true/false, an integer in "
                             f"-2**31..2**31-1 or a short word, got {str(value)[:40]}")
    return rules


def _known_game(game: str) -> str:
    """A game id of :data:`pasur_env.games.GAMES` (the games' table, not a list here)."""
    if game not in GAMES:
        raise ValueError(f"must be one of {', '.join(GAMES)}, got {game[:40]!r}")
    return game


class RecordSchema(BaseModel):
    """The fields of a record of either game, their types and ranges (module docstring)."""

    model_config = ConfigDict(extra="forbid")
    format: Annotated[str, Field(max_length=40)]
    game: Annotated[str, AfterValidator(_known_game)] | None = None
    rules: Annotated[dict[Annotated[str, Field(max_length=40)], Any],
                     Field(max_length=40), AfterValidator(_rule_values)]
    episode: Literal["game", "round"]
    dealer: Annotated[StrictInt, Field(ge=0, le=3)]
    stream: Annotated[str, Field(pattern=r"^[0-9a-fA-F]{1,16}$")]
    deck: list[Card] | None = Field(None, max_length=56)
    deal: DealSchema | None = None
    actions: list[Annotated[StrictInt, Field(ge=0, le=65_535)]] = Field(max_length=1_000_000)
    result: ResultSchema | None = None
    players: list[Name] | None = Field(None, min_length=2, max_length=4)
    meta: dict[Annotated[str, Field(max_length=40)], Any] | None = Field(None, max_length=40)


def _check_limits(rec: RecordSchema, limits: Limits) -> None:
    if len(rec.actions) > limits.max_record_actions:
        raise FieldError("record.actions", f"holds {len(rec.actions):,} actions; this server "
                         f"replays records of at most {limits.max_record_actions:,}")
    if rec.result is not None and rec.result.rounds > limits.max_record_rounds:
        raise FieldError("record.result.rounds", f"is {rec.result.rounds}; this server replays "
                         f"records of at most {limits.max_record_rounds} rounds")
    for k, name in enumerate(rec.players or ()):
        if len(name) > limits.max_name_chars:
            raise FieldError(f"record.players[{k}]", f"is {len(name):,} characters long; "
                             f"names have at most {limits.max_name_chars}")


def check_record(data: Any, limits: Limits) -> tuple[str, Any]:
    """``(game, replay)`` of a record sent to the server, checked (module docstring);
    :class:`FieldError` names a malformed field, ``ValueError`` a record that does not
    replay (an illegal action, a deal or result that differs)."""
    if not isinstance(data, dict):
        raise FieldError("record", "must be a JSON object")
    game = game_of(data)  # ValueError: not a record of a known format
    rec = check_fields(RecordSchema, data, where="record")
    _check_limits(rec, limits)
    rep = importlib.import_module(game_info(game).record_path).replay(data)
    players = rep.record.players
    if players is not None and len(players) != rep.engine.num_players:
        raise FieldError("record.players", f"names {len(players)} players; the record's "
                         f"game has {rep.engine.num_players}")
    return game, rep


def page_bounds(start: int, count: int | None, total: int, limits: Limits) -> range:
    """The positions of one replay page: ``count`` (at most ``max_replay_frames``) from
    ``start``; FieldError names ``start`` or ``count`` when out of range."""
    count = limits.max_replay_frames if count is None else count
    if not 0 <= start < total:
        raise FieldError("start", f"must be a position in 0..{total - 1}, got {start}")
    if not 1 <= count <= limits.max_replay_frames:
        raise FieldError("count", f"must be in 1..{limits.max_replay_frames}, got {count}")
    return range(start, min(total, start + count))


def pasur_frames(rep: Any, positions: range) -> list[dict[str, Any]]:
    """The Pasur positions ``positions`` of a replay, all hands shown, as SVG, each with
    the move that led to it."""
    from pasur_env.core.cards import with_symbols
    from pasur_env.pasur.drawing import table_scene, to_svg
    from pasur_env.pasur.engine import action_str

    names = rep.record.players
    frames = []
    for k in positions:
        caption = "start" if k == 0 else (
            f"move {k}: player_{int(rep.infos[k - 1].actor[0])} "
            f"{with_symbols(action_str(rep.record.actions[k - 1]))}")
        svg = to_svg(table_scene(rep.position(k), 0, reveal=True, names=names, caption=caption))
        frames.append({"index": k, "caption": caption, "svg": svg})
    return frames
