"""pasur_env: a reinforcement-learning environment for Pasur, the Persian fishing card game.

The rules live once, in the batched compiled :class:`Engine`; environments and
agents are thin layers over it.
"""

from . import pasur_v0
from .aec_env import env, raw_env
from .cards import card_code, card_str, parse_card, parse_cards, parse_deck
from .engine import Engine, Position, StepInfo, action_str
from .rules import PRESETS, RULE_FLAGS, Rules, make_rules

__version__ = "0.1.0"


def __getattr__(name: str):  # noqa: ANN202 - lazy: the training envs import agents (and SB3)
    if name == "PasurSingleAgentEnv":
        from .single_agent import PasurSingleAgentEnv

        return PasurSingleAgentEnv
    if name == "PasurVecEnv":
        from .vector_env import PasurVecEnv  # needs stable-baselines3 (the train extra)

        return PasurVecEnv
    raise AttributeError(f"module 'pasur_env' has no attribute {name!r}")


def _register_gymnasium() -> None:
    import gymnasium

    if "pasur_env/Pasur-v0" not in gymnasium.registry:
        gymnasium.register(
            id="pasur_env/Pasur-v0", entry_point="pasur_env.single_agent:PasurSingleAgentEnv"
        )


_register_gymnasium()

__all__ = [
    "env",
    "raw_env",
    "pasur_v0",
    "PasurSingleAgentEnv",
    "Engine",
    "Position",
    "StepInfo",
    "Rules",
    "make_rules",
    "PRESETS",
    "RULE_FLAGS",
    "action_str",
    "card_code",
    "card_str",
    "parse_card",
    "parse_cards",
    "parse_deck",
]
