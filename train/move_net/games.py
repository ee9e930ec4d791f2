"""The game plug-ins of the move-network pipeline (:mod:`train.move_net`): what differs
between games, and nothing else.

One labelling loop (:func:`train.move_net.data.generate`), one fit
(:mod:`train.move_net.fit`), one budget planner (:mod:`train.move_net.budget`) and one
script serve every game; a :class:`NetGame` says only which numpy network class the
fit exports to, which agent plays it, which labeller values the candidates, how the
labels are described in the report, which settings the game refuses and which
opponents it cannot be evaluated against. Each game declares its row in its own module
(:mod:`train.move_net.pasur`, :mod:`train.move_net.rummy`: ``NET_GAME``);
:data:`NET_GAMES` collects them as :data:`pasur_env.games.GAMES` does (the project's
games, the entry points of the group ``train.games``, then :func:`register_game`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from pasur_env.core.plugins import PluginTable, load_object

__all__ = ["NetGame", "net_game", "NET_GAMES", "register_game", "stacked_relabellings"]


@dataclass(frozen=True)
class NetGame:
    """A game's parts of the move-network pipeline."""

    id: str
    """the game's id (:data:`pasur_env.games.GAMES`)"""
    title: str
    """its name in reports"""
    net_path: str
    """``module:Class`` of the numpy network (imported on use)"""
    agent_path: str
    """``module:Class`` of the agent that plays a network alone (``Class(model=net)``)"""
    labeler: Callable[[Any, int], Any]
    """(the run's ``Args``, seed) -> the labeller of an iteration"""
    label_text: Callable[[Any], str]
    """the run's ``Args`` -> how its labels were made, for the report"""
    relabellings: Callable[[int, np.random.Generator, int], tuple[np.ndarray, np.ndarray]]
    """(players, rng, n) -> ``n`` random symmetries of the rules as column indices of the
    observations and of the move rows (``augment``)"""
    check: Callable[[Any], str | None] = lambda args: None
    """the run's ``Args`` -> what the game refuses in them (one line), or None"""
    label_searches: tuple[str, ...] = ("rollout",)
    """the searches its labeller knows (``--label-search``; ``rollout``, every game's
    default, first)"""
    eval_skip: Callable[[int], tuple[str, ...]] = lambda players: ("ppo",)
    """players -> opponents left out of the evaluations (``ppo`` plays 2-player Pasur
    only)"""
    train_longer: str = "continue it with `--resume` and more `--iterations` and " \
        "`--total-decisions`"
    """the report's advice on training longer than a budgeted run"""
    config: str = "default"
    """the named configuration (``--config``: :data:`train.move_net.config.CONFIGS`) of
    the game's own run, ``make train GAME=<id>``: its default settings, the ones
    ``--game <id>`` picks when no ``--config`` is given (the labelling benchmark,
    ``benchmarks/bench_labelling.py``, labels with them)"""
    budget_min: float = 18.0
    """the wall-time budget in minutes of the game's own run, final evaluation included
    (``--game-budget``: what ``make train GAME=<id>`` gives unless ``TRAIN_BUDGET`` says
    otherwise)"""

    def net_class(self) -> type:
        """The numpy network class."""
        return load_object(self.net_path)  # type: ignore[no-any-return]

    def agent(self, model: Any) -> Any:
        """The agent that plays ``model`` alone."""
        return load_object(self.agent_path)(model=model)


def stacked_relabellings(perms: np.ndarray, observation: Callable[[np.ndarray], np.ndarray],
                         move_rows: Callable[[np.ndarray], np.ndarray]
                         ) -> tuple[np.ndarray, np.ndarray]:
    """The column indices of ``perms`` for the observations and for the move rows."""
    return (np.stack([observation(p) for p in perms]), np.stack([move_rows(p) for p in perms]))


#: the games the pipeline trains, by id, read on first use
NET_GAMES: PluginTable[NetGame] = PluginTable(
    "move-network plug-in", ("train.move_net.pasur", "train.move_net.rummy"), "NET_GAME",
    "train.games", row_type=NetGame)


def net_game(game: str) -> NetGame:
    """The plug-in of ``game``; a clear error for a game the pipeline does not train."""
    if game not in NET_GAMES:
        raise ValueError(f"the move network trains {sorted(NET_GAMES)}, not {game!r}")
    return NET_GAMES[game]


def register_game(row: NetGame, *, overwrite: bool = False) -> NetGame:
    """Add a game's plug-in of the move-network pipeline."""
    return NET_GAMES.register(row, overwrite=overwrite)
