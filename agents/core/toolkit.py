"""What the games' agent-writing toolkits share (:mod:`agents.pasur.toolkit`,
:mod:`agents.rummy.toolkit`): reading the engine and games of a request, packing the
moves of many games in rows (one compiled loop, :func:`row_packer`), splitting them
into one list per decision, and choosing one action per decision.

Each game's toolkit lists its own moves (the rules are the game's); the plumbing around
them is written once here, so both toolkits take the same arguments and fail with the
same messages.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np

from pasur_env.core.args import read_indices
from pasur_env.core.batch_engine import BatchEngine
from pasur_env.core.compile import njit
from pasur_env.core.policy import GameView

__all__ = ["MAX_ACTIONS", "ActionSequence", "engine_games", "packed_rows", "row_packer",
           "per_decision", "choose_with"]

#: width of a move's action row: the most actions one move of either game takes (a
#: Pasur capture's PLAY and seven TAKEs, a 13-card Rummy run's PICKs and MELD)
MAX_ACTIONS = 16

E = TypeVar("E", bound=BatchEngine)
T = TypeVar("T")


class ActionSequence:
    """The base of a toolkit's move (a frozen dataclass with an ``actions`` field): the
    action due now is the first of the move's actions."""

    actions: tuple[int, ...]

    @property
    def action(self) -> int:
        """The action due now: what an agent returns for this decision."""
        return self.actions[0]


def engine_games(engine_or_view: Any, games: Sequence[int] | np.ndarray, engine_type: type[E],
                 toolkit: str) -> tuple[E, np.ndarray]:
    """The engine of ``engine_or_view`` (an engine or a :class:`~pasur_env.GameView` of
    one) and ``games`` as int64 indices into it (any order, repeats allowed).

    Raises ``TypeError`` naming the toolkit when the engine is of another game, and
    ``ValueError`` for an index out of range.
    """
    eng = engine_or_view.engine if isinstance(engine_or_view, GameView) else engine_or_view
    if not isinstance(eng, engine_type):
        raise TypeError(f"the {toolkit} toolkit reads a {toolkit} engine "
                        f"({engine_type.__name__}) or a GameView of one, got "
                        f"{type(eng).__name__}")
    idx = read_indices(np.asarray(games).reshape(-1), np.arange(eng.num_games, dtype=np.int64))
    return eng, np.ascontiguousarray(idx, dtype=np.int64)


#: what :func:`row_packer` binds: a game's compiled ``game_rows(state, b, params,
#: facts, acts) -> int`` (the rows of game ``b``, negative if they do not fit) and the
#: most rows one game can have
GAME_ROWS: Any = None
PER_GAME: int = 0


def _fill(st: np.ndarray, games: np.ndarray, params: np.ndarray, start: int,
          offsets: np.ndarray, facts: np.ndarray, acts: np.ndarray) -> int:
    """``GAME_ROWS`` of ``games[start:]``, packed for :func:`packed_rows` (compiled once
    per game by :func:`row_packer`)."""
    for i in range(start, games.shape[0]):
        o = offsets[i]
        if o + PER_GAME > facts.shape[0]:
            return i
        n = GAME_ROWS(st, games[i], params, facts[o:o + PER_GAME], acts[o:o + PER_GAME])
        if n < 0:
            raise ValueError("more moves than the buffer of one decision holds")
        offsets[i + 1] = o + n
    return games.shape[0]


def row_packer(game_rows: Callable[..., int], per_game: int
               ) -> Callable[[BatchEngine, np.ndarray, int], tuple[np.ndarray, ...]]:
    """``pack(engine, games, width)``: :func:`packed_rows` of a game's ``game_rows`` (a
    numba function writing one game's moves, at most ``per_game`` rows). Its ``fill``
    is the one packing loop, compiled for each game with ``game_rows`` and ``per_game``
    as its constants (as :func:`~pasur_env.core.compile.parallel_twin` does, so numba's
    on-disk cache keeps one build per game, named ``fill_<game_rows>``)."""
    name = f"fill_{game_rows.__name__}"
    f = types.FunctionType(_fill.__code__, {**_fill.__globals__, "GAME_ROWS": game_rows,
                                            "PER_GAME": per_game}, name)
    f.__qualname__, f.__module__, f.__doc__ = name, _fill.__module__, _fill.__doc__
    fill = njit(cache=True)(f)

    def pack(engine: BatchEngine, games: np.ndarray, width: int) -> tuple[np.ndarray, ...]:
        return packed_rows(fill, engine, games, width, per_game)

    return pack


def packed_rows(fill: Callable[..., int], engine: BatchEngine, games: np.ndarray, width: int,
                per_game: int) -> tuple[np.ndarray, ...]:
    """The moves of ``games`` packed in rows, written by a compiled ``fill``.

    ``fill(state, games, params, start, offsets, facts, acts)`` writes the moves of game
    ``games[i]`` (from ``i = start`` on) into the rows ``offsets[i]:offsets[i + 1]`` of
    ``facts`` (``width`` columns) and ``acts`` (:data:`MAX_ACTIONS` columns, -1 past a
    move's actions), as long as ``per_game`` rows (the most one game can have) are
    free, and returns the first ``i`` it did not write. The buffers start at about 16
    moves a game and double until every game fits: memory follows the moves there are,
    not the worst case. Returns ``(offsets, facts, acts)`` cut to the rows written.
    """
    num_games = games.shape[0]
    offsets = np.zeros(num_games + 1, dtype=np.int64)
    cap = 16 * num_games + per_game
    facts = np.zeros((cap, width), dtype=np.int64)
    acts = np.full((cap, MAX_ACTIONS), -1, dtype=np.int64)
    done = fill(engine.state, games, engine.params, 0, offsets, facts, acts)
    while done < num_games:
        cap *= 2
        facts = np.concatenate([facts, np.zeros_like(facts)])
        acts = np.concatenate([acts, np.full_like(acts, -1)])
        done = fill(engine.state, games, engine.params, done, offsets, facts, acts)
    n = int(offsets[num_games])
    return offsets, facts[:n], acts[:n]


def per_decision(view: GameView, arrays: Callable[[GameView, np.ndarray], dict[str, np.ndarray]],
                 build: Callable[[dict[str, np.ndarray]], list[T]]) -> list[list[T]]:
    """One list of moves per decision of ``view``: ``build`` makes the moves of every
    row of ``arrays(view, view.games)``, cut at its ``offsets``."""
    arr = arrays(view, view.games)
    moves = build(arr)
    off = arr["offsets"].tolist()
    return [moves[off[i]:off[i + 1]] for i in range(len(off) - 1)]


def choose_with(view: GameView, per_decision: list[list[Any]],
                choose: Callable[[list[Any]], ActionSequence]) -> np.ndarray:
    """``choose(moves).action`` for each decision of ``view`` (``per_decision``: the moves
    of each, in the order of ``view.games``), as the int64 array an agent returns.

    A decision with no move (its game is over) is a ``ValueError``: an agent is never
    asked to act there.
    """
    out = np.empty(len(per_decision), dtype=np.int64)
    for i, moves in enumerate(per_decision):
        if not moves:
            raise ValueError(f"game {int(view.games[i])} has no move to choose (it is DONE)")
        out[i] = choose(moves).action
    return out
