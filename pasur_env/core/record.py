"""Game records, the part that does not depend on the game: format, files, the recorder.

A record is one JSON object naming its game: ``{"format": "<game>-record/<n>",
"game": "<game>", ..., "actions": [...]}`` (records written before the ``game`` key
existed, format ``pasur-record/1``, are Pasur's: :func:`game_of` reads the game from
the format). What a record holds besides and how it is replayed belong to each game
(:mod:`pasur_env.pasur.record`, :mod:`pasur_env.rummy.record`); this module reads and
writes the files (one record per ``.json``, one per line of a ``.jsonl``) and records
every game of a batch played through the play loop (:class:`BatchRecorder`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from pasur_env.core.args import brief

__all__ = [
    "record_format",
    "game_of",
    "check_format",
    "check_rules",
    "parse_stream",
    "stream_json",
    "read_record",
    "append_records",
    "records_file",
    "replay_actions",
    "check_scores",
    "check_result",
    "Replay",
    "BatchRecorder",
]

_FORMAT = re.compile(r"^([a-z_]+)-record/(\d+)$")


def record_format(game: str, version: int = 1) -> str:
    """The ``format`` value of ``game``'s records (``"pasur-record/1"``)."""
    return f"{game}-record/{int(version)}"


def game_of(data: Any) -> str:
    """The game a record (a parsed JSON object) belongs to: its ``game`` key, else the
    game its ``format`` names; ``ValueError`` when it is not a record."""
    if not isinstance(data, dict):
        raise ValueError("a record must be a JSON object")
    fmt = data.get("format")
    m = _FORMAT.match(fmt) if isinstance(fmt, str) else None
    if m is None:
        raise ValueError(f"record format must look like '<game>-record/<n>', got {brief(fmt)}")
    game = data.get("game", m.group(1))
    if game != m.group(1):
        raise ValueError(f"record game {brief(game)} does not match its format {brief(fmt)}")
    return str(game)


def check_format(data: Any, fmt: str, required: Iterable[str]) -> dict[str, Any]:
    """``data`` as a record of format ``fmt`` holding the ``required`` keys, or
    ``ValueError`` naming what is wrong."""
    if not isinstance(data, dict):
        raise ValueError("a record must be a JSON object")
    if data.get("format") != fmt:
        raise ValueError(f"record format must be {fmt!r}, got {brief(data.get('format'))}")
    game_of(data)
    for key in required:
        if key not in data:
            raise ValueError(f"record lacks {key!r}")
    acts = data.get("actions")
    if not isinstance(acts, list) or not all(
        isinstance(a, int) and not isinstance(a, bool) for a in acts
    ):
        raise ValueError("record field 'actions' must be a list of action ids")
    return data


def check_rules(rules: Any, make_rules: Callable[..., Any]) -> dict[str, Any]:
    """A record's ``rules`` (an object of rule flags that ``make_rules`` accepts)."""
    if not isinstance(rules, dict):
        raise ValueError("record field 'rules' must be an object of rule flags")
    try:
        make_rules(**rules)
    except (TypeError, ValueError) as e:
        raise ValueError(f"record field 'rules': {e}") from None
    return dict(rules)


def parse_stream(value: Any) -> int:
    """A record's random stream (16 hexadecimal digits) as an int in ``[0, 2**64)``."""
    try:
        stream = int(str(value), 16)
    except ValueError:
        raise ValueError("record field 'stream' must be a hexadecimal number") from None
    if not 0 <= stream < 2**64:
        raise ValueError("record field 'stream' must fit in 64 bits")
    return stream


def stream_json(stream: int) -> str:
    """A stream as a record writes it (16 hexadecimal digits)."""
    return f"{int(stream):016x}"


def read_record(path: str | Path, index: int = 0) -> dict[str, Any]:
    """Record ``index`` of a ``.jsonl`` file (one per line), or the record of a ``.json``."""
    path = str(path)
    if isinstance(index, bool) or not isinstance(index, int) or index < 0:
        raise ValueError(f"record index must be a non-negative int, got {index!r}")
    with open(path, encoding="utf-8") as fh:
        if path.endswith(".jsonl"):
            for k, line in enumerate(fh):
                if k == index:
                    return json.loads(line)
            raise ValueError(f"{path} holds fewer than {index + 1} records")
        return json.load(fh)


def append_records(path: str | Path, records: Iterable[Any]) -> None:
    """Append records (objects with ``to_json``) to a JSON-lines file, one per line."""
    with open(path, "a", encoding="utf-8") as fh:
        for r in records:
            fh.write(json.dumps(r.to_json()) + "\n")


def records_file(folder: str | Path | None, labels: tuple[str, str], seed: int) -> Path | None:
    """The new, empty ``<A>_vs_<B>_seed<seed>.jsonl`` in ``folder`` (None: no file)."""
    if folder is None:
        return None
    safe = [re.sub(r"[^A-Za-z0-9_.=-]+", "-", x).strip("-") for x in labels]
    path = Path(folder) / f"{safe[0]}_vs_{safe[1]}_seed{seed}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("")
    return path


def replay_actions(engine: Any, actions: list[int], action_str: Callable[[int], str],
                   claims_result: bool) -> tuple[list[np.ndarray], list[Any]]:
    """Play ``actions`` on a one-game ``engine``, checking each is legal where it stands;
    returns the state before every action and at the end, and every step's report.

    ``ValueError`` names the first move that fails, or says the moves do not finish
    the game when the record ``claims_result``.
    """
    states, infos = [engine.state[0].copy()], []
    for k, a in enumerate(actions):
        if engine.done[0]:
            raise ValueError(f"move {k} ({action_str(a)}): the game was already over")
        legal = engine.legal_actions(0)
        if a not in legal:
            raise ValueError(
                f"move {k} (player_{int(engine.current_player[0])}, {action_str(a)}) is "
                f"illegal: legal were {', '.join(action_str(x) for x in legal)}"
            )
        infos.append(engine.step(np.array([a], dtype=np.int64)))
        states.append(engine.state[0].copy())
    if claims_result and not engine.done[0]:
        raise ValueError("the record claims a result but its moves do not finish the game")
    return states, infos


def check_scores(result: dict[str, Any], scores: list[int]) -> None:
    """``ValueError`` unless the record's result holds the replay's ``scores``."""
    if result.get("scores") != scores:
        raise ValueError(f"the record's scores {result.get('scores')} differ from the "
                         f"replay's {scores}")


def check_result(result: dict[str, Any], infos: list[Any], scores: list[int]) -> None:
    """``ValueError`` unless every field of the record's result is the replay's: the final
    ``scores``, the ``winner_side`` and the ``rounds`` played (the last two where the
    record holds them: records written before they were checked may lack them)."""
    check_scores(result, scores)
    rounds = sum(int(info.round_end[0]) for info in infos)
    if "rounds" in result and result["rounds"] != rounds:
        raise ValueError(f"the record's result.rounds {result['rounds']!r} differs from the "
                         f"replay's {rounds} rounds")
    winner = int(infos[-1].winner[0]) if infos else -1
    if "winner_side" in result and result["winner_side"] != winner:
        raise ValueError(f"the record's result.winner_side {result['winner_side']!r} differs "
                         f"from the replay's winner, side {winner}")


@dataclass
class Replay:
    """A replayed record: the engine state before every action and at the end, and the
    engine's report of every step (``infos[k]`` for ``actions[k]``), on a one-game
    ``engine`` of the record's rules (what a game's ``replay`` returns)."""

    record: Any
    states: list[np.ndarray]
    infos: list[Any]
    engine: Any

    def position(self, k: int) -> Any:
        """A one-game engine at the position before action ``k`` (``k = len``: the end)."""
        eng = self.engine.take([0])
        eng.state[0] = self.states[k]
        return eng


class GameRecordLike(Protocol):
    """What :class:`BatchRecorder` needs of a game's record class."""

    actions: list[int]

    def finish(self, info: Any, row: int, rounds: int) -> None: ...

    def to_json(self) -> dict[str, Any]: ...


class BatchRecorder:
    """Records every game of a batch played through the play loop (its two hooks).

    ``play(engine, ..., on_decisions=rec.decisions, on_step=rec.step)``; then
    ``rec.records[g]`` is game ``g``'s record (finished when it ended). ``start(engine,
    g, players=..., **meta)`` makes the game's record of game ``g``, which has just
    begun; ``players[g]`` names the players of game ``g``'s seats.
    """

    def __init__(self, engine: Any, start: Callable[..., GameRecordLike],
                 players: list[list[str]] | None = None, **meta: Any) -> None:
        self.records = [
            start(engine, g, players=None if players is None else players[g], **meta)
            for g in range(engine.num_games)
        ]
        self.rounds = np.zeros(engine.num_games, dtype=np.int64)

    def decisions(self, k: int, view: Any, obs: Any, mask: Any, actions: np.ndarray) -> None:
        for g, a in zip(view.games.tolist(), actions.tolist(), strict=True):
            self.records[g].actions.append(int(a))

    def step(self, games: np.ndarray, info: Any) -> None:
        ends = np.flatnonzero(info.round_end)
        for row in ends.tolist():
            g = int(games[row])
            self.rounds[g] += 1
            if info.game_end[row]:
                self.records[g].finish(info, row, int(self.rounds[g]))
