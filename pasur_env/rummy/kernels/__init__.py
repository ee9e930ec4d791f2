"""The compiled rules of Persian Rummy (``docs/persian_rummy.md``), one module per topic.

:mod:`.state` (columns, phases, actions), :mod:`.melds` (what a meld is), :mod:`.deal`
(shuffle and deal), :mod:`.legal` (the legal actions), :mod:`.step` (a decision),
:mod:`.score` (the count), :mod:`.playout` (random play in compiled code).
"""

from .deal import reset_kernel, seed_streams, shuffle
from .legal import fill_mask, is_legal, legal_mask_kernel
from .melds import can_complete, extends, is_four_set, is_meld, mask_value, meld_kind
from .playout import pick_legal, playout_kernel, random_actions_kernel
from .state import *  # noqa: F403
from .state import __all__ as _state_names
from .step import step_kernel

__all__ = [
    *_state_names,
    "reset_kernel", "seed_streams", "shuffle", "fill_mask", "is_legal", "legal_mask_kernel",
    "can_complete", "extends", "is_four_set", "is_meld", "mask_value", "meld_kind",
    "pick_legal", "playout_kernel", "random_actions_kernel", "step_kernel",
]
