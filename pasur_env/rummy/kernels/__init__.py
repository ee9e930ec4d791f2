"""The compiled rules of Persian Rummy (``docs/persian_rummy.md``), one module per topic.

:mod:`.state` (columns, phases, actions), :mod:`.melds` (what a meld is), :mod:`.deal`
(shuffle and deal, and deal again what a seat cannot see), :mod:`.legal` (the legal
actions), :mod:`.step` (a decision), :mod:`.score` (the count), :mod:`.playout` (random
play in compiled code).
"""

from pasur_env.rummy.kernels.deal import determinize_kernel, reset_kernel, seed_streams, shuffle
from pasur_env.rummy.kernels.legal import (
    fill_mask,
    is_legal,
    legal_mask_kernel,
    legal_sets,
    nth_legal,
)
from pasur_env.rummy.kernels.melds import (
    can_complete,
    extends,
    is_four_set,
    is_meld,
    mask_value,
    meld_kind,
)
from pasur_env.rummy.kernels.playout import pick_legal, playout_kernel, random_actions_kernel
from pasur_env.rummy.kernels.state import *  # noqa: F403
from pasur_env.rummy.kernels.state import __all__ as _state_names
from pasur_env.rummy.kernels.step import step_kernel

__all__ = [
    *_state_names,
    "determinize_kernel", "reset_kernel", "seed_streams", "shuffle", "fill_mask", "is_legal",
    "legal_mask_kernel",
    "legal_sets", "nth_legal",
    "can_complete", "extends", "is_four_set", "is_meld", "mask_value", "meld_kind",
    "pick_legal", "playout_kernel", "random_actions_kernel", "step_kernel",
]
