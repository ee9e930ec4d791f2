"""Persian Rummy (``docs/persian_rummy.md``): a second game on the Pasur engine's design.

The package holds its own rules (:mod:`.kernels`), cards (:mod:`.cards`, the Pasur ids
plus four jokers), flags (:mod:`.rules`), the batched :class:`RummyEngine`, the
observation encoder and the envs' helpers. It shares with the Pasur engine only what is
truly common: card codes, the splitmix64 streams and the batch-kernel builder.
"""

from pasur_env.rummy.actions import action_str, parse_action
from pasur_env.rummy.cards import card_code, parse_card, parse_deck
from pasur_env.rummy.engine import RummyEngine, RummyStepInfo
from pasur_env.rummy.rules import RummyRules, make_rummy_rules

__all__ = [
    "RummyEngine", "RummyStepInfo", "RummyRules", "make_rummy_rules", "action_str", "parse_action",
    "card_code", "parse_card", "parse_deck",
]
