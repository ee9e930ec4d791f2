"""Pasur's row of the game table (:data:`pasur_env.games.GAMES`): what tools need to
know about the game, its classes named by import path."""

from pasur_env.games import GameInfo
from pasur_env.pasur.rules import PRESETS

__all__ = ["GAME"]

GAME = GameInfo(
    id="pasur", title="Pasur", players=(2, 3, 4), num_actions=104,
    engine_path="pasur_env.pasur.engine:Engine", aec_module="pasur_env.pasur_v0",
    gym_id="pasur_env/Pasur-v0", rules_doc="docs/rules.md",
    record_path="pasur_env.pasur.record",
    single_agent_path="pasur_env.pasur.single_agent:PasurSingleAgentEnv",
    vector_env_path="pasur_env.pasur.vector_env:PasurVecEnv",
    openspiel_path="pasur_env.pasur.openspiel_game",
    players_flag="num_players", presets=tuple(PRESETS),
)
