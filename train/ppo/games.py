"""The game plug-ins of the MaskablePPO pipeline (:mod:`train.ppo`): what differs between
games, and nothing else.

One pipeline serves every game: the arguments, the opponent pool and its schedule, the
model, behaviour cloning, the callbacks, checkpoints, the final evaluation and the
report are the same. A :class:`PpoGame` says only what a game does its own way: its
settings (the defaults and named configurations of :class:`train.ppo.Args` for it),
the keyword arguments of its vector env and the wrappers around it, whose decisions
behaviour cloning records and what the value head learns from them, the callbacks only
it needs, and the settings it refuses. Each game declares its row in its own module
(:mod:`train.ppo.pasur`, :mod:`train.ppo.rummy`: ``PPO_GAME``); :data:`PPO_GAMES`
collects them as :data:`pasur_env.games.GAMES` does (the project's games, the entry
points of the group ``train.ppo_games``, then :func:`register_game`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from pasur_env.core.plugins import PluginTable

__all__ = ["PpoGame", "ppo_game", "PPO_GAMES", "register_game", "ValueTarget"]

#: ``value_target(obs, returns)``: the value head's targets of recorded decisions
ValueTarget = Callable[[np.ndarray, np.ndarray], np.ndarray]


def _no_callbacks(args: Any, venv: Any) -> list[Any]:
    return []


def _as_is(args: Any, env: Any, venv: Any) -> Any:
    return env


def _against_the_pool(args: Any) -> str:
    return f"against the opponent pool `{args.opponent}`"


@dataclass(frozen=True)
class PpoGame:
    """A game's parts of the MaskablePPO pipeline."""

    id: str
    """the game's id (:data:`pasur_env.games.GAMES`)"""
    configs: Mapping[str, Mapping[str, Any]]
    """the game's settings: ``"default"`` replaces the defaults of :class:`train.ppo.Args`
    (only the fields it names), every other entry is a named configuration (``--config``)
    applied on top of ``"default"``"""
    env_kwargs: Callable[[Any], dict[str, Any]]
    """the run's ``Args`` -> the game's keyword arguments of its vector env beyond the
    shared ones (``num_envs``, ``opponent``, ``seed``, ``episode``, ``reward``)"""
    collect: Callable[[Any], Any]
    """the run's ``Args`` -> the teacher's recorded decisions
    (:class:`train.bc.Demonstrations`) for behaviour cloning"""
    value_target: Callable[[Any, Any], ValueTarget]
    """(the run's ``Args``, the training env) -> the value head's target of cloning"""
    wrap: Callable[[Any, Any, Any], Any] = _as_is
    """(``Args``, the monitored env, the vector env) -> the env with the game's reward
    wrappers (before the shared reward scaling)"""
    callbacks: Callable[[Any, Any], list[Any]] = _no_callbacks
    """(``Args``, the vector env) -> the game's own training callbacks, run before the
    shared ones"""
    pool_seed: int = 0
    """the opponent pool's seed is the run's seed plus this (each game keeps the seeds
    its runs were made with)"""
    unused: tuple[str, ...] = ()
    """fields of ``Args`` the game has no use for: a command line setting one of them
    away from its default is refused in one line"""
    report_setting: Callable[[Any], str] = _against_the_pool
    """the run's ``Args`` -> who the learner played, for the report"""

    def check(self, args: Any, defaults: Any) -> str | None:
        """What the game refuses in ``args`` (one line), or None: a field it has no use
        for set away from ``defaults`` (the ``Args`` of the same configuration)."""
        moved = [f for f in self.unused if getattr(args, f) != getattr(defaults, f)]
        if not moved:
            return None
        flags = ", ".join("--" + f.replace("_", "-") for f in moved)
        return f"{flags}: not a setting of {self.id} (its PPO pipeline does not use it)"


#: the games the pipeline trains, by id, read on first use
PPO_GAMES: PluginTable[PpoGame] = PluginTable(
    "PPO plug-in", ("train.ppo.pasur", "train.ppo.rummy"), "PPO_GAME", "train.ppo_games",
    row_type=PpoGame)


def ppo_game(game: str) -> PpoGame:
    """The plug-in of ``game``; a clear error for a game the pipeline does not train."""
    if game not in PPO_GAMES:
        raise ValueError(f"the PPO pipeline trains {', '.join(PPO_GAMES)}, not {game!r}")
    return PPO_GAMES[game]


def register_game(row: PpoGame, *, overwrite: bool = False) -> PpoGame:
    """Add a game's plug-in of the PPO pipeline."""
    return PPO_GAMES.register(row, overwrite=overwrite)
