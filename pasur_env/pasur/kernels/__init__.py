"""The compiled Pasur rules, one topic a module; this package is their public face.

=============  ==================================================================
module         holds
=============  ==================================================================
``state``      state columns, phases, action ids, params and info indices, card
               groups: the one home of the engine's constants
``bits``       popcount / lowest / highest on 52-bit card sets
``rng``        splitmix64 streams (per game, and for agents' own streams)
``capture``    capture options, the take sequence of §9, surs
``deal``       shuffle, deals, the initial-table check, new rounds and games
``score``      card points, the count of a round, game end
``legal``      legal masks, action checks, random legal play
``step``       one action, step / reset / playout batch kernels
``moves``      full moves at any decision and their actions, hidden cards,
               determinization (for search)
``compile``    serial and multi-threaded builds of batch kernels
=============  ==================================================================

Every rule of ``docs/rules.md`` lives in exactly one of these functions; the
:class:`pasur_env.Engine`, the encoder and the agents call them, never re-implement
them. ``from pasur_env import kernels as K`` gives the names below.
"""

from pasur_env.core.bits import highest, lowest, popcount
from pasur_env.core.compile import BatchKernel, parallel_twin
from pasur_env.pasur.kernels.capture import (
    capture_is_sur,
    enumerate_options,
    enumerate_options_into,
    is_complete,
    resolve_play,
    sur_on_table,
    take_bits,
)
from pasur_env.pasur.kernels.deal import new_game, start_round
from pasur_env.pasur.kernels.legal import (
    action_is_legal,
    action_offset,
    legal_bits,
    legal_mask_kernel,
    legal_row,
    pick_legal,
    random_actions_kernel,
)
from pasur_env.pasur.kernels.moves import (
    decision_moves,
    determinize_kernel,
    enumerate_moves,
    hidden_from,
    hidden_slots,
    move_actions,
    option_extends,
)
from pasur_env.pasur.kernels.rng import (
    GOLDEN,
    mix64,
    seed_streams,
    splitmix_next,
    stream_base,
    unit_float,
)
from pasur_env.pasur.kernels.score import card_points, score_round
from pasur_env.pasur.kernels.state import *  # noqa: F403 - the constants are this package's vocabulary
from pasur_env.pasur.kernels.step import apply_action, playout_kernel, reset_kernel, step_kernel

__all__ = [  # noqa: F405 - the state constants come from the star import
    "highest", "lowest", "popcount",
    "capture_is_sur", "enumerate_options", "enumerate_options_into", "is_complete",
    "resolve_play", "sur_on_table", "take_bits",
    "BatchKernel", "parallel_twin",
    "new_game", "start_round",
    "action_is_legal", "action_offset", "legal_bits", "legal_mask_kernel", "legal_row",
    "pick_legal", "random_actions_kernel",
    "decision_moves", "determinize_kernel", "enumerate_moves", "hidden_from", "hidden_slots",
    "move_actions", "option_extends",
    "GOLDEN", "mix64", "seed_streams", "splitmix_next", "stream_base", "unit_float",
    "card_points", "score_round",
    "apply_action", "playout_kernel", "reset_kernel", "step_kernel",
]  # fmt: skip
