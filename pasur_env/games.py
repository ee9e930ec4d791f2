"""The games of pasur_env, one row each: the one table tools read the game list from.

``GAMES[game_id]`` (a :class:`GameInfo`) says what a tool needs to know about a game
without importing its code: its title, seat counts, action count, the classes of its
engine and envs (by import path, loaded on demand), its PettingZoo entry point,
Gymnasium id, record module, OpenSpiel adapter and rules page. Each game declares its
row in its own package (``pasur_env/pasur/game.py``: ``GAME = GameInfo(...)``); this
table collects them (:class:`pasur_env.core.plugins.PluginTable`): the project's two
games, then the entry points of the group ``pasur_env.games``, then
:func:`register_game` calls. Registering a game also registers its Gymnasium id.

The ``agents`` registry, the evaluation, the ``pasur`` command and the docs' games
table all take their game ids from here; the other layers keep their own rows of the
same ids (:mod:`agents.games`, :mod:`train.move_net.games`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pasur_env.core.plugins import PluginTable, load_object

__all__ = ["GAMES", "GAME_IDS", "DEFAULT_GAME", "GameInfo", "game_info", "register_game"]

#: the game a tool plays when it is not told which
DEFAULT_GAME = "pasur"


@dataclass(frozen=True)
class GameInfo:
    """One game: its id and what tools need to know about it (paths load on demand)."""

    id: str
    title: str
    #: seat counts the game is played with (Persian Rummy: 4, two teams of partners)
    players: tuple[int, ...]
    num_actions: int
    #: ``module:Class`` of its batched engine (a :class:`pasur_env.core.batch_engine.BatchEngine`)
    engine_path: str
    #: the versioned PettingZoo module (``env()``, ``raw_env``)
    aec_module: str
    gym_id: str
    rules_doc: str
    #: the module of its game records (``GameRecord``-like class, ``replay``,
    #: ``BatchRecorder``, ``action_str``)
    record_path: str = ""
    #: ``module:Class`` of its Gymnasium single-agent env (registered under ``gym_id``)
    single_agent_path: str = ""
    #: ``module:Class`` of its SB3 vector env (needs the train extra)
    vector_env_path: str = ""
    #: its OpenSpiel adapter module (``SHORT_NAME``, ``params_of``, ``diff_rewards``),
    #: registered with ``pyspiel`` on import; "" when it has none
    openspiel_path: str = ""
    #: the engine's keyword taking the number of players (None: the seats are fixed)
    players_flag: str | None = None
    #: its rule presets' names (``preset=``); () when it has none
    presets: tuple[str, ...] = ()

    def engine_class(self) -> Any:
        """The game's engine class (imports the game)."""
        return load_object(self.engine_path)

    def record_module(self) -> Any:
        """The game's record module (imports the game)."""
        return load_object(self.record_path)

    def aec_env_module(self) -> Any:
        """The game's versioned PettingZoo module."""
        return load_object(self.aec_module)

    def single_agent_class(self) -> Any:
        """The game's Gymnasium single-agent env class."""
        return load_object(self.single_agent_path)

    def vector_env_class(self) -> Any:
        """The game's SB3 vector env class (``ImportError`` without the train extra)."""
        if not self.vector_env_path:
            raise ValueError(f"{self.title} has no vector env")
        return load_object(self.vector_env_path)

    def openspiel_module(self) -> Any:
        """The game's OpenSpiel adapter (``ImportError`` without the openspiel extra)."""
        if not self.openspiel_path:
            raise ValueError(f"{self.title} has no OpenSpiel adapter")
        return load_object(self.openspiel_path)

    def engine(self, num_games: int, players: int | None = None, **kwargs: Any) -> Any:
        """An engine of ``num_games`` games, of ``players`` players where the game takes a
        number (None: its default); ``kwargs`` as for the engine class."""
        if players is not None and self.players_flag is not None:
            kwargs[self.players_flag] = players
        return self.engine_class()(num_games, **kwargs)


def _register_gymnasium(info: GameInfo) -> None:
    """Make ``gymnasium.make(info.gym_id)`` build the game's single-agent env, and
    ``gymnasium.make_vec`` its batched :class:`~pasur_env.core.gym_vector.LearnerVectorEnv`.

    ``make`` returns the env itself, not wrapped in Gymnasium's ``OrderEnforcing`` and
    ``PassiveEnvChecker``: the env enforces the order itself (``RuntimeError`` before a
    reset) and passes Gymnasium's ``check_env``, and unwrapped its ``action_masks()``
    is there for every library (wrappers a user adds hide it again: then
    ``env.get_wrapper_attr("action_masks")()``).
    """
    import functools

    import gymnasium

    if info.single_agent_path and info.gym_id not in gymnasium.registry:
        gymnasium.register(
            id=info.gym_id, entry_point=info.single_agent_path,
            vector_entry_point=functools.partial(_vector_env, info.single_agent_path),
            order_enforce=False, disable_env_checker=True)


def _vector_env(single_agent_path: str, num_envs: int = 1, **kwargs: Any) -> Any:
    """The vector entry point of a game's Gymnasium id (imports the vector env on use)."""
    from pasur_env.core.gym_vector import make_vector_env

    return make_vector_env(single_agent_path, num_envs, **kwargs)


#: the games by id, the project's own first (Pasur, Persian Rummy), read on first use
GAMES: PluginTable[GameInfo] = PluginTable(
    "game", ("pasur_env.pasur.game", "pasur_env.rummy.game"), "GAME", "pasur_env.games",
    on_register=_register_gymnasium, row_type=GameInfo)
#: the game ids, Pasur first (a live view: a game registered later is in it)
GAME_IDS: Sequence[str] = GAMES.ids


def game_info(game: Any) -> GameInfo:
    """The row of ``game`` (an id); anything else raises ``ValueError`` naming the games."""
    return GAMES.row(game)


def register_game(info: GameInfo, *, overwrite: bool = False) -> GameInfo:
    """Add a game to the table (and its Gymnasium id): the one line a game outside the
    project writes (or an entry point of the group ``pasur_env.games``)."""
    return GAMES.register(info, overwrite=overwrite)
