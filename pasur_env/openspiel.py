"""Both games as OpenSpiel games: importing this module registers ``python_pasur`` and
``python_persian_rummy`` with ``pyspiel`` (needs the ``openspiel`` extra).

::

    import pyspiel
    import pasur_env.openspiel  # noqa: F401 - registers the games

    game = pyspiel.load_game("python_pasur", {"players": 3})

The adapter is :mod:`pasur_env.core.openspiel_game`; each game's part is its
``openspiel_game`` module (docs/openspiel.md: parameters, chance model, tensors).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from pasur_env.pasur import openspiel_game as pasur_game
from pasur_env.pasur.engine import Engine
from pasur_env.pasur.openspiel_game import SHORT_NAME as PASUR
from pasur_env.pasur.openspiel_game import PasurGame
from pasur_env.rummy import openspiel_game as rummy_game
from pasur_env.rummy.openspiel_game import SHORT_NAME as PERSIAN_RUMMY
from pasur_env.rummy.openspiel_game import RummyGame

__all__ = ["PASUR", "PERSIAN_RUMMY", "PasurGame", "RummyGame", "GAME_NAMES", "load_game",
           "agreement", "game_for_engine"]

#: the registered OpenSpiel name of each of the project's games
GAME_NAMES: dict[str, str] = {"pasur": PASUR, "persian_rummy": PERSIAN_RUMMY}


def load_game(game: str = "pasur", **params: object) -> object:
    """``pyspiel.load_game`` of one of the project's games by its project id
    (``"pasur"``, ``"persian_rummy"``) with game parameters as keywords."""
    import pyspiel

    if game not in GAME_NAMES:
        raise ValueError(f"unknown game {game!r}: choose one of {', '.join(GAME_NAMES)}")
    return pyspiel.load_game(GAME_NAMES[game], dict(params))


_GAMES_OF_RULES: dict[Any, Any] = {}


def game_for_engine(engine: Any) -> Any:
    """The OpenSpiel game (loaded once per rules) of the games of ``engine``, a
    :class:`~pasur_env.Engine` or :class:`~pasur_env.rummy.RummyEngine`: what a search
    bot needs to act in them (one round of them: the game is one round per episode)."""
    rules = engine.rules
    if rules not in _GAMES_OF_RULES:
        if isinstance(engine, Engine):
            game = load_game("pasur", **pasur_game.params_of(rules))
        else:
            game = load_game("persian_rummy", **rummy_game.params_of(rules))
        _GAMES_OF_RULES[rules] = game
    return _GAMES_OF_RULES[rules]


def _engine_rewards(game: str, rules: Any) -> Callable[[Any], np.ndarray]:
    """The envs' ``diff`` rewards of one engine step, per seat (the games' reward modules)."""
    if game == "pasur":
        from pasur_env.pasur.rewards import seat_rewards

        return lambda info: seat_rewards(info, rules, "diff")[0]
    from pasur_env.rummy.rewards import seat_rewards as rummy_rewards

    return lambda info: rummy_rewards(info, "diff")[0]


def _random_playout(state: Any, rng: np.random.Generator) -> list[tuple[list[int], int]]:
    """Play ``state`` to its end with uniform chance outcomes and uniformly random legal
    actions; the (legal actions, action) of every player decision."""
    steps = []
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = [o for o, _ in state.chance_outcomes()]
            state.apply_action(outcomes[int(rng.integers(len(outcomes)))])
        else:
            legal = state.legal_actions()
            action = legal[int(rng.integers(len(legal)))]
            steps.append((legal, action))
            state.apply_action(action)
    return steps


def agreement(game: str = "pasur", playouts: int = 100, seed: int = 0,
              **params: Any) -> dict[str, Any]:
    """Random playouts through the OpenSpiel state, each replayed through a fresh engine.

    Each playout deals by uniform chance outcomes and plays uniformly random legal
    actions; the engine then deals the deck the playout settled on (the chance nodes'
    cards, in the engine's deck order) and is given the same actions. Counts the
    decisions where the legal actions differ and the playouts whose returns differ from
    the envs' ``diff`` rewards summed over the engine's steps (both 0 when they agree).
    """
    os_game = load_game(game, **params)
    spec = os_game.spec  # type: ignore[attr-defined]
    rewards = _engine_rewards(game, spec.rules)
    rng = np.random.default_rng(seed)
    decisions = legal_mismatch = return_mismatch = 0
    for _ in range(int(playouts)):
        state = os_game.new_initial_state()  # type: ignore[attr-defined]
        steps = _random_playout(state, rng)
        engine = spec.new_engine()
        engine.reset(deck=spec.deal_order(state))
        total = np.zeros(spec.num_players)
        for legal, action in steps:
            decisions += 1
            legal_mismatch += engine.legal_actions(0) != legal
            total += rewards(engine.step_single(action))
        return_mismatch += not (engine.done[0] and np.allclose(total, state.returns()))
    return {"game": game, "params": params, "playouts": int(playouts), "decisions": decisions,
            "legal_mismatches": legal_mismatch, "return_mismatches": return_mismatch}
