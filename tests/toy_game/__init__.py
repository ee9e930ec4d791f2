"""A toy game that proves games are plug-ins: three-card fishing for two players
(:mod:`toy_game.engine`), written for no shared code and registered through the
plug-in tables alone.

Its files are what a new game writes: an engine (a
:class:`pasur_env.core.batch_engine.BatchEngine`), its envs (thin subclasses of the
shared AEC, learner-games, single-agent and vector envs), a record module, its agents,
and its rows (:mod:`toy_game.game`). :func:`register` is the registration: one line per
table (an installed game would name the rows as entry points instead).
"""

from __future__ import annotations

__all__ = ["register", "unregister"]


def register() -> None:
    """Add the toy game to the game table and the agents' table."""
    import agents.games
    import pasur_env.games
    from toy_game.game import AGENT_GAME, GAME

    pasur_env.games.register_game(GAME)
    agents.games.register_game(AGENT_GAME)


def unregister() -> None:
    """Take it out again (the agents registry forgets its agents too)."""
    import agents.registry
    from agents.games import AGENT_GAMES
    from pasur_env.games import GAMES

    GAMES.unregister("toy")
    AGENT_GAMES.unregister("toy")
    for table in (agents.registry._FACTORIES, agents.registry._LOADERS, agents.registry._NAMES):
        table.pop("toy", None)
