"""pasur_env: reinforcement-learning environments for two Persian card games.

Pasur (:mod:`pasur_env.pasur`) and Persian Rummy (:mod:`pasur_env.rummy`) each keep
their rules once, in a batched compiled engine; what both share (the engine base class,
random streams, the kernel builder, the Policy protocol and the play loop, cards, option
checks, drawing) lives in :mod:`pasur_env.core`, which imports neither game. The envs
are thin layers over the engines: ``pasur_v0`` and ``persian_rummy_v0`` (PettingZoo
AEC), the Gymnasium ids ``pasur_env/Pasur-v0`` and ``pasur_env/PersianRummy-v0``, and
the batched vector envs. This package never imports its players: the ``agents``
package builds them (see ``docs/architecture.md``).
"""

from pasur_env import pasur_v0, persian_rummy_v0
from pasur_env.core.all_seats import AllSeatsEnv
from pasur_env.core.policy import (
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
    check_policy_fits,
)
from pasur_env.pasur.aec_env import env, raw_env
from pasur_env.pasur.cards import card_code, card_str, parse_card, parse_cards, parse_deck
from pasur_env.pasur.engine import Engine, StepInfo, action_str
from pasur_env.pasur.positions import Position
from pasur_env.pasur.rules import PRESETS, RULE_FLAGS, Rules, make_rules
from pasur_env.pasur.single_agent import PasurSingleAgentEnv
from pasur_env.rummy import RummyEngine, RummyRules, RummyStepInfo, make_rummy_rules
from pasur_env.rummy.single_agent import PersianRummySingleAgentEnv
from pasur_env.version import __version__ as __version__


def __getattr__(name: str):  # noqa: ANN202 - lazy: the vector env needs stable-baselines3
    if name == "PasurVecEnv":
        from pasur_env.pasur.vector_env import PasurVecEnv  # the train extra

        return PasurVecEnv
    if name == "PersianRummyVecEnv":
        from pasur_env.rummy.vector_env import PersianRummyVecEnv  # the train extra

        return PersianRummyVecEnv
    raise AttributeError(f"module 'pasur_env' has no attribute {name!r}")


def _register_gymnasium() -> None:
    """Every game's Gymnasium id (``pasur_env/Pasur-v0``, ...): reading the game table
    registers them (:mod:`pasur_env.games`)."""
    from pasur_env.games import GAMES

    GAMES.collect()


_register_gymnasium()

__all__ = [
    "env",
    "raw_env",
    "pasur_v0",
    "persian_rummy_v0",
    "PasurSingleAgentEnv",
    "PasurVecEnv",
    "PersianRummySingleAgentEnv",
    "PersianRummyVecEnv",
    "AllSeatsEnv",
    "RummyEngine",
    "RummyStepInfo",
    "RummyRules",
    "make_rummy_rules",
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
    "check_policy_fits",
    "action_str",
    "card_code",
    "card_str",
    "parse_card",
    "parse_cards",
    "parse_deck",
]
