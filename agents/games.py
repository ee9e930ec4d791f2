"""The games' rows of the ``agents`` layer: what differs per game in playing, matching and
showing it, declared once per game and read by the shared code.

:class:`AgentGame` holds what the evaluation, the registry and the applications need
of a game beyond :class:`pasur_env.games.GameInfo`: how a match is set up (rules,
seats) and its agents seeded, how a result reads (points per seat or per team, the
games' text, extra JSON keys), the built-in agents' factories and loaders, and the
terminal and web tables (by import path: the players' packages that declare the rows
may not import the applications). Each game declares its row in its own package
(``agents/pasur/game.py``: ``AGENT_GAME = AgentGame(...)``); :data:`AGENT_GAMES`
collects them as :data:`pasur_env.games.GAMES` does (the project's games, the entry
points of the group ``agents.games``, then :func:`register_game`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from pasur_env.core.plugins import PluginTable, load_object
from pasur_env.games import game_info

__all__ = ["AgentGame", "Setup", "AGENT_GAMES", "agent_game", "register_game",
           "derived_seeds", "plain_setup", "resolve", "SB3_MODELS", "RLLIB_CHECKPOINTS",
           "OPENSPIEL_BOTS", "EXPLOITERS"]

#: ``factory(seed=..., **options)`` -> a policy; or, for a loader, ``factory(spec, seed=...,
#: **options)``; given as the object or as ``"module:attribute"`` (imported on first use)
Factory = Callable[..., Any]

#: loaders a game's row may list (``AgentGame.loaders``): saved SB3 models, RLlib
#: checkpoints, OpenSpiel's search bots (games with an OpenSpiel adapter), the learned
#: best responses of ``pasur best-response`` (``br:PATH``; listed after ``*.npz``, so
#: tried before it)
SB3_MODELS = ("*.zip", "agents.learned.loaders:load_sb3")
RLLIB_CHECKPOINTS = ("rllib:*", "agents.learned.loaders:load_rllib")
OPENSPIEL_BOTS = ("openspiel:*", "agents.learned.loaders:load_openspiel")
EXPLOITERS = ("br:*", "agents.learned.exploiter:load_exploiter")


@dataclass(frozen=True)
class Setup:
    """What a match of one game is played with: seats, rules (as reported) and the
    engine's flags."""

    game: str
    players: int
    rules: dict[str, Any]
    engine_flags: dict[str, Any]


def derived_seeds(seed: int) -> tuple[int, int]:
    """Independent seeds of agents A and B, derived from the match seed."""
    a, b = (int(x) for x in np.random.SeedSequence([seed, 1]).generate_state(2))
    return a, b


def plain_setup(game: str, players: int, preset: str | None,
                rule_flags: dict[str, Any]) -> Setup:
    """The set-up of a game with no presets: ``players`` one of its seat counts, the rule
    flags checked by building its engine's rules (a ``to_dict()`` or dataclass rules
    object is reported as such)."""
    info = game_info(game)
    if players not in info.players:
        raise ValueError(f"{info.title} is played by {' or '.join(map(str, info.players))} "
                         f"players, got players={players}")
    if preset is not None:
        raise ValueError(f"{info.title} has no rule presets, got preset={preset!r}")
    rules = info.engine(1, players=players, seed=0, **rule_flags).rules
    as_dict = (rules.to_dict() if hasattr(rules, "to_dict") else
               dataclasses.asdict(rules) if dataclasses.is_dataclass(rules) else {})
    flags = dict(rule_flags)
    if info.players_flag is not None:
        flags[info.players_flag] = players
    return Setup(game, players, as_dict, flags)


@dataclass(frozen=True)
class AgentGame:
    """One game's row of the ``agents`` layer (module docstring); defaults fit a new game."""

    id: str
    """the game's id (:data:`pasur_env.games.GAMES`)"""
    setup: Callable[[int, str | None, dict[str, Any]], Setup] | None = None
    """``(players, preset, rule_flags) -> Setup``, ``ValueError`` for what the game does
    not take (None: :func:`plain_setup`)"""
    agents: tuple[tuple[str, Factory | str], ...] = ()
    """the built-in agents, ``(name@version, factory)`` (``("greedy@1", ...)``; an old
    version stays listed while its code or weights are kept, the bare name is the
    highest), in the order ``agent_names`` lists them after ``random`` (uniform over the
    legal actions: every game has it)"""
    loaders: tuple[tuple[str, Factory | str], ...] = ()
    """``(pattern, factory)``: specs matching the glob ``pattern`` (lower case, e.g.
    ``*.zip``, ``rllib:*``) are built by ``factory(spec, seed=..., **options)``; a later
    loader is tried first"""
    match_seeds: Callable[[int], tuple[int, int]] = derived_seeds
    """match seed -> the seeds of agents A and B"""
    reseed_instances: bool = True
    """whether agents given as instances are reseeded with their side's seed"""
    named: bool = True
    """whether results, ladders and messages name the game (Pasur's, written when it was
    the only game, do not)"""
    result_header: Callable[[Any], list[str]] | None = None
    """an ``EvalResult`` -> its summary's first lines (None: one line with the title)"""
    points_unit: str = "points/round per seat"
    """what the mean points of a result count"""
    games_text: Callable[[dict[str, Any]], str] = lambda rules: "games"
    """a result's rules -> what its games to the end were (``games to 62``)"""
    json_extra: Callable[[Any], dict[str, Any]] | None = None
    """an ``EvalResult`` -> keys its JSON adds (the names older results were written with)"""
    terminal_play: str = ""
    """``module:function`` of ``pasur play``: ``(opponents, *, players, seed, seat,
    episode, deck, preset, **rule_flags) -> exit code``"""
    terminal_watch: str = ""
    """``module:function`` of ``pasur demo``: ``(agents, *, players, seed, episode) ->
    exit code``"""
    web_table: str = ""
    """``module:Class`` of its web table (an ``agents.apps.web.sessions.TableGame``)"""
    web_frames: str = ""
    """``module:function`` drawing a page of a replay's positions, ``(replay, range) ->
    frames``"""
    warm_tables: str = ""
    """``module:function`` (no arguments) compiling what its terminal and web tables call
    beyond the engine and the agents, for ``pasur warmup`` (empty: nothing more)"""

    def match_setup(self, players: int, preset: str | None,
                    rule_flags: dict[str, Any]) -> Setup:
        """The :class:`Setup` of a match (``ValueError`` for what the game does not take)."""
        if self.setup is None:
            return plain_setup(self.id, players, preset, rule_flags)
        return self.setup(players, preset, rule_flags)

    def load(self, field: str) -> Any:
        """The object a path field names (``"terminal_play"``, ``"web_table"``, ...);
        ``ValueError`` when the game has none."""
        path = getattr(self, field)
        if not path:
            what = field.replace("_", " ")
            raise ValueError(f"{game_info(self.id).title} has no {what}")
        return load_object(path)


def resolve(factory: Factory | str) -> Factory:
    """A factory given as ``"module:attribute"``, imported now; a callable as it is."""
    return load_object(factory) if isinstance(factory, str) else factory


#: the games' rows of the ``agents`` layer by id, read on first use
AGENT_GAMES: PluginTable[AgentGame] = PluginTable(
    "agents row", ("agents.pasur.game", "agents.rummy.game"), "AGENT_GAME", "agents.games",
    row_type=AgentGame)


def agent_game(game: Any) -> AgentGame:
    """The row of ``game``; ``ValueError`` naming the games with one."""
    return AGENT_GAMES.row(game)


def register_game(row: AgentGame, *, overwrite: bool = False) -> AgentGame:
    """Add a game's row of the ``agents`` layer (its :class:`pasur_env.games.GameInfo`
    is registered with :func:`pasur_env.games.register_game`)."""
    return AGENT_GAMES.register(row, overwrite=overwrite)
