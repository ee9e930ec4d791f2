"""The toy game's rows of the plug-in tables: everything a layer needs of a game, and
the only place the shared code learns about it."""

from __future__ import annotations

from agents.games import AgentGame
from pasur_env.games import GameInfo

__all__ = ["GAME", "AGENT_GAME"]

#: the env layer's row (:mod:`pasur_env.games`)
GAME = GameInfo(
    id="toy", title="Three-card fishing", players=(2,), num_actions=8,
    engine_path="toy_game.engine:ToyEngine", aec_module="toy_game.envs",
    gym_id="toy_game/Toy-v0", rules_doc="tests/toy_game/engine.py",
    record_path="toy_game.record", single_agent_path="toy_game.envs:ToySingleAgentEnv",
    vector_env_path="toy_game.vector_env:ToyVecEnv",
)

#: the agents layer's row (:mod:`agents.games`): a match set-up of its own is not needed
#: (:func:`agents.games.plain_setup`), nor terminal or web tables
AGENT_GAME = AgentGame(
    id="toy",
    agents=(("greedy", "toy_game.agents:ToyGreedy"),),
    games_text=lambda rules: f"games of {rules['deals']} deals",
)
