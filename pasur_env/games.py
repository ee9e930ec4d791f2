"""The games of pasur_env, one row each: the one table tools read the game list from.

``GAMES[game_id]`` says what a tool needs to know about a game without importing its
code: its title, seat counts, action count, the engine class (by import path, loaded on
demand), its PettingZoo entry point, Gymnasium id and rules page. The ``agents``
registry, the evaluation, the ``pasur`` command and the docs' games table all take
their game ids from here.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from pasur_env.core.args import did_you_mean

__all__ = ["GAMES", "GAME_IDS", "GameInfo", "game_info"]


@dataclass(frozen=True)
class GameInfo:
    """One game: its id and what tools need to know about it."""

    id: str
    title: str
    #: seat counts the game is played with (Persian Rummy: 4, two teams of partners)
    players: tuple[int, ...]
    num_actions: int
    #: ``module:Class`` of its batched engine
    engine_path: str
    #: the versioned PettingZoo module (``pasur_env.<name>``)
    aec_module: str
    gym_id: str
    rules_doc: str
    #: the module of its game records (``GameRecord``-like class, ``replay``, ``BatchRecorder``)
    record_path: str = ""

    def engine_class(self) -> Any:
        """The game's engine class (imports the game)."""
        module, _, name = self.engine_path.partition(":")
        return getattr(importlib.import_module(module), name)

    def record_module(self) -> Any:
        """The game's record module (imports the game)."""
        return importlib.import_module(self.record_path)


GAMES: dict[str, GameInfo] = {
    "pasur": GameInfo(
        id="pasur", title="Pasur", players=(2, 3, 4), num_actions=104,
        engine_path="pasur_env.pasur.engine:Engine", aec_module="pasur_env.pasur_v0",
        gym_id="pasur_env/Pasur-v0", rules_doc="docs/rules.md",
        record_path="pasur_env.pasur.record",
    ),
    "persian_rummy": GameInfo(
        id="persian_rummy", title="Persian Rummy", players=(4,), num_actions=245,
        engine_path="pasur_env.rummy.engine:RummyEngine",
        aec_module="pasur_env.persian_rummy_v0", gym_id="pasur_env/PersianRummy-v0",
        rules_doc="docs/persian_rummy.md", record_path="pasur_env.rummy.record",
    ),
}
#: the game ids, Pasur first
GAME_IDS: tuple[str, ...] = tuple(GAMES)


def game_info(game: Any) -> GameInfo:
    """The row of ``game`` (an id); anything else raises ``ValueError`` naming the games."""
    if not isinstance(game, str) or game not in GAMES:
        raise ValueError(f"unknown game {game!r}{did_you_mean(game, GAME_IDS)}: choose one "
                         f"of {', '.join(GAME_IDS)}")
    return GAMES[game]
