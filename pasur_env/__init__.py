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

__all__ = [
    "env",
    "raw_env",
    "pasur_v0",
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
