"""The games as OpenSpiel games: importing this module registers every game with an
adapter (``python_pasur``, ``python_persian_rummy``) with ``pyspiel`` (needs the
``openspiel`` extra).

::

    import pyspiel
    import pasur_env.openspiel  # noqa: F401 - registers the games

    game = pyspiel.load_game("python_pasur", {"players": 3})

The adapter is :mod:`pasur_env.core.openspiel_game`; each game's part is its
``openspiel_game`` module, named by its row of :data:`pasur_env.games.GAMES`
(docs/openspiel.md: parameters, chance model, tensors). :class:`AgentPolicy` makes an
agent an OpenSpiel policy (``exploitability.nash_conv(game, AgentPolicy(game, agent))``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pasur_env.core.openspiel_game import AgentPolicy
from pasur_env.games import GAMES

__all__ = ["GAME_NAMES", "load_game", "agreement", "game_for_engine", "AgentPolicy"]


def _adapters() -> dict[str, Any]:
    """The OpenSpiel adapter of every game that has one (importing it registers the game
    with ``pyspiel``), by game id."""
    return {g: info.openspiel_module() for g, info in GAMES.items() if info.openspiel_path}


#: the registered OpenSpiel name of each of the project's games that has an adapter
GAME_NAMES: dict[str, str] = {g: module.SHORT_NAME for g, module in _adapters().items()}


def _adapter(game: str) -> Any:
    if game not in GAME_NAMES:
        raise ValueError(f"unknown game {game!r}: choose one of {', '.join(GAME_NAMES)}")
    return GAMES[game].openspiel_module()


def load_game(game: str = "pasur", **params: object) -> object:
    """``pyspiel.load_game`` of one of the project's games by its project id
    (``"pasur"``, ``"persian_rummy"``) with game parameters as keywords."""
    import pyspiel

    return pyspiel.load_game(_adapter(game).SHORT_NAME, dict(params))


_GAMES_OF_RULES: dict[Any, Any] = {}


def game_for_engine(engine: Any) -> Any:
    """The OpenSpiel game (loaded once per rules) of the games of ``engine``, the engine
    of a game with an adapter (:class:`~pasur_env.Engine`,
    :class:`~pasur_env.rummy.RummyEngine`): what a search bot needs to act in them (one
    round of them: the game is one round per episode)."""
    rules = engine.rules
    if rules not in _GAMES_OF_RULES:
        game = next((g for g in GAME_NAMES if isinstance(engine, GAMES[g].engine_class())),
                    None)
        if game is None:
            raise ValueError(f"{type(engine).__name__} is the engine of no game with an "
                             f"OpenSpiel adapter ({', '.join(GAME_NAMES)})")
        _GAMES_OF_RULES[rules] = load_game(game, **_adapter(game).params_of(rules))
    return _GAMES_OF_RULES[rules]


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
    rewards = _adapter(game).diff_rewards(spec.rules)
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
