"""The web table's requests as pydantic models: strict fields, one message format.

Every request field is read through a model: the start form (:class:`StartForm`) and the
move (:class:`MoveForm`), which each game extends with its own fields (its table's
``FORM`` and ``MOVE``), and records (:mod:`agents.apps.web.records`). Types are strict
(no float, bool or string where an integer is expected), ranges and lengths bounded,
unknown fields refused. :func:`check_fields` and :func:`field_error` turn the first
problem into a :class:`FieldError` naming the field (the app answers 422), in pydantic's
words and never quoting more than a short prefix of what was sent.

A seed (:data:`Seed`) is a JSON integer or a string of decimal digits (the page sends
strings: a JavaScript number loses digits above 2**53), in ``0..2**64 - 1``, checked by
the engines' one seed rule (:func:`pasur_env.core.args.check_seed`).
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainValidator,
    StrictInt,
    TypeAdapter,
    ValidationError,
    WithJsonSchema,
)

from pasur_env.core.args import BRIEF_CHARS, SEED_MAX, brief, check_seed

__all__ = ["FieldError", "StartForm", "MoveForm", "Seed", "Version", "Name", "Seat", "Flags",
           "check_fields", "field_error"]


class FieldError(ValueError):
    """A request field that is malformed (missing, of the wrong type, out of range):
    the app answers 422 naming ``field``. A well-formed move the rules refuse is a
    plain ``ValueError`` (400)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"field '{field}': {message}")
        self.field = field



def _field_path(where: str, loc: tuple[Any, ...]) -> str:
    """A pydantic error location as the request's words: ``record.players[1]`` (without
    pydantic's names of union members, such as ``int``, ``list[str]`` or a tagged union's
    ``form[pasur]``, nor FastAPI's ``body``/``query``); each name is cut to a short prefix."""
    path = where
    if loc and loc[0] in ("body", "query", "path") and not where:
        loc = loc[1:]
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        elif not _TYPE_TAG.match(str(part)):
            name = str(part)
            name = name if len(name) <= BRIEF_CHARS else name[:BRIEF_CHARS - 1] + "\u2026"
            path += f".{name}" if path else name
    return path or "body"


_TYPE_TAG = re.compile(r"^(bool|int|float|str|list|dict|none|constrained-\w+|.*\[.*\])$")
#: pydantic's words for some errors, as the project says them
_MESSAGES = {"missing": "required", "extra_forbidden": "unknown field (not one this request "
             "takes)", "json_invalid": "is not valid JSON"}


def field_error(errors: list[Any], where: str = "") -> FieldError:
    """The first of pydantic's (or FastAPI's) validation ``errors`` as a :class:`FieldError`
    naming its field (``where`` prefixes its path; an error whose context names a field,
    such as the start form's ``game``, is that field's) with pydantic's words for what is
    wrong, and how many more fields have problems."""
    def path(err: Any) -> str:
        if err["type"] == "json_invalid":  # its location is a character position
            return "body"
        named = (err.get("ctx") or {}).get("field")
        return _field_path(where, (named,) if named else tuple(err["loc"]))

    paths = list(dict.fromkeys(path(err) for err in errors))
    first = errors[0]
    msg = _MESSAGES.get(first["type"]) or re.sub(r" or instance of \w+", "", str(first["msg"]))
    msg = msg.removeprefix("Value error, ")
    more = f" (and problems in {len(paths) - 1} more fields)" if len(paths) > 1 else ""
    return FieldError(paths[0], f"{msg}{more}")


def check_fields(model: Any, data: Any, where: str = "") -> Any:
    """``data`` parsed by the pydantic ``model`` (a model class or a :class:`TypeAdapter`);
    :class:`FieldError` naming the first bad field (:func:`field_error`)."""
    try:
        if isinstance(model, TypeAdapter):
            return model.validate_python(data)
        return model.model_validate(data)
    except ValidationError as e:
        raise field_error(e.errors(include_url=False, include_input=False), where) from None


def _seed_value(value: Any) -> int:
    """A seed field's value as an int: a JSON integer or a string of decimal digits, after
    the engines' one seed rule (:func:`~pasur_env.core.args.check_seed`: ``0..2**64 - 1``)."""
    if isinstance(value, str) and _DIGITS.match(value):
        value = int(value)
    elif type(value) is not int:
        raise ValueError("must be an integer in 0..2**64 - 1, or a string of its decimal "
                         f"digits, got {brief(value)}")
    return int(check_seed(value))


_DIGITS = re.compile(r"^[0-9]{1,20}$")
#: a seed sent to the server (:func:`_seed_value`): the page sends strings, since a
#: JavaScript number loses digits above 2**53
Seed = Annotated[Any, PlainValidator(_seed_value), WithJsonSchema({"anyOf": [
    {"type": "integer", "minimum": 0, "maximum": SEED_MAX},
    {"type": "string", "pattern": _DIGITS.pattern}]})]
#: the version of a view a request was made on
Version = Annotated[StrictInt, Field(ge=0, le=2**62)]
#: an agent's name, a rule flag's name or word, as the forms take them
Name = Annotated[str, Field(min_length=1, max_length=40)]
#: a seat (or a dealer)
Seat = Annotated[StrictInt, Field(ge=0, le=3)]
#: rule flags by name: switches, integers, short words (the game's rules check which)
Flags = Annotated[dict[Name, bool | int | Name], Field(max_length=16)]


class StartForm(BaseModel):
    """The start form's fields every game shares; each game's form (its table's ``FORM``)
    extends it with its own fields and fixes ``game`` to its id."""

    model_config = ConfigDict(extra="forbid", strict=True)
    game: str
    seed: Seed | None = None


class MoveForm(BaseModel):
    """A move's fields every game shares; each game's move (its table's ``MOVE``) extends
    it with the fields naming the move."""

    model_config = ConfigDict(extra="forbid", strict=True)
    version: Version
