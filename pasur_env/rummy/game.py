"""Persian Rummy's row of the game table (:data:`pasur_env.games.GAMES`): what tools
need to know about the game, its classes named by import path."""

from pasur_env.games import GameInfo

__all__ = ["GAME"]

GAME = GameInfo(
    id="persian_rummy", title="Persian Rummy", players=(4,), num_actions=245,
    engine_path="pasur_env.rummy.engine:RummyEngine",
    aec_module="pasur_env.persian_rummy_v0", gym_id="pasur_env/PersianRummy-v0",
    rules_doc="docs/persian_rummy.md", record_path="pasur_env.rummy.record",
    single_agent_path="pasur_env.rummy.single_agent:PersianRummySingleAgentEnv",
    vector_env_path="pasur_env.rummy.vector_env:PersianRummyVecEnv",
    openspiel_path="pasur_env.rummy.openspiel_game",
)
