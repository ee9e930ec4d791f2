"""pasur_env: a reinforcement-learning environment for Pasur, the Persian fishing card game.

The rules live once, in the batched compiled :class:`Engine` (:mod:`pasur_env.kernels`);
environments are thin layers over it, and players reach it through the small
:class:`Policy` protocol and the one play loop (:mod:`pasur_env.loop`). This package
never imports its players: the ``agents`` package builds them (see
``docs/architecture.md``).
"""

from . import pasur_v0, persian_rummy_v0
from .aec_env import env, raw_env
from .cards import card_code, card_str, parse_card, parse_cards, parse_deck
from .engine import Engine, Position, StepInfo, action_str
from .policy import (
    CallablePolicy,
    FixedOpponent,
    GameView,
    Opponent,
    OpponentSource,
    Policy,
    RandomPolicy,
    as_opponents,
    as_policy,
    check_actions,
)
from .rules import PRESETS, RULE_FLAGS, Rules, make_rules
from .single_agent import PasurSingleAgentEnv

__version__ = "0.2.0"


def __getattr__(name: str):  # noqa: ANN202 - lazy: the vector env needs stable-baselines3
    if name == "PasurVecEnv":
        from .vector_env import PasurVecEnv  # the train extra

        return PasurVecEnv
    raise AttributeError(f"module 'pasur_env' has no attribute {name!r}")


def _register_gymnasium() -> None:
    import gymnasium

    if "pasur_env/Pasur-v0" not in gymnasium.registry:
        gymnasium.register(
            id="pasur_env/Pasur-v0", entry_point="pasur_env.single_agent:PasurSingleAgentEnv"
        )
    if "pasur_env/PersianRummy-v0" not in gymnasium.registry:
        gymnasium.register(
            id="pasur_env/PersianRummy-v0",
            entry_point="pasur_env.rummy.single_agent:PersianRummySingleAgentEnv",
        )


_register_gymnasium()

__all__ = [
    "env",
    "raw_env",
    "pasur_v0",
    "persian_rummy_v0",
    "PasurSingleAgentEnv",
    "PasurVecEnv",
    "Engine",
    "Position",
    "StepInfo",
    "Rules",
    "make_rules",
    "PRESETS",
    "RULE_FLAGS",
    "Policy",
    "GameView",
    "RandomPolicy",
    "CallablePolicy",
    "Opponent",
    "OpponentSource",
    "FixedOpponent",
    "as_policy",
    "as_opponents",
    "check_actions",
    "action_str",
    "card_code",
    "card_str",
    "parse_card",
    "parse_cards",
    "parse_deck",
]
