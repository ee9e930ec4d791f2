"""Environment options both games' envs share: validation and defaults, written once.

Every env takes ``episode`` and ``reward`` (and the training envs ``learner_seat``) and
checks them here; each game adds its rule flags (Pasur's
:func:`pasur_env.pasur.options.env_options`). The options tables of
``docs/environment.md`` and ``docs/persian_rummy.md`` describe them; this module is
their one validation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from pasur_env.core.batch_engine import check_seed

__all__ = [
    "AEC_DEFAULTS", "TRAINING_DEFAULTS", "check_seed", "check_reset_options", "check_modes",
    "check_max_rounds", "check_illegal_action", "check_num_envs", "check_learner_seat",
    "check_render_mode", "show_text", "needs_reset_error",
]

REWARD_MODES = ("win", "points", "diff")
EPISODE_MODES = ("game", "round")
#: the AEC env plays whole games paid by the winner; the training envs default to
#: one-round episodes paid by point difference (a denser signal)
AEC_DEFAULTS = {"episode": "game", "reward": "win"}
TRAINING_DEFAULTS = {"episode": "round", "reward": "diff"}


def check_modes(reward: str, episode: str) -> None:
    """Raise ``ValueError`` for an unknown reward or episode option."""
    if reward not in REWARD_MODES:
        raise ValueError(f"reward must be one of {REWARD_MODES}, got {reward!r}")
    if episode not in EPISODE_MODES:
        raise ValueError(f"episode must be one of {EPISODE_MODES}, got {episode!r}")


#: the option PettingZoo's ``api_test`` sends to see that ``reset`` takes ``options``:
#: ignored, so the conformance test runs; every other unknown option is an error
API_TEST_PROBE = "options"


def check_reset_options(options: Any, known: Sequence[str]) -> dict[str, Any]:
    """``reset``'s ``options`` as a new dict, checked before the env changes anything.

    ``None`` is no options; anything but a mapping raises ``TypeError``, an option not
    in ``known`` ``ValueError`` naming it and the known ones (a typo such as ``dek``
    would otherwise silently deal a shuffled deck).
    """
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise TypeError(f"reset options must be a dict or None, got {type(options).__name__}")
    unknown = sorted(str(k) for k in options if k not in known and k != API_TEST_PROBE)
    if unknown:
        raise ValueError(f"unknown reset option(s) {unknown}; known: {', '.join(known)}")
    return {k: v for k, v in options.items() if k != API_TEST_PROBE}


def needs_reset_error(why: str) -> RuntimeError:
    """The error of every call to an env that a failed step or reset left half-done."""
    return RuntimeError(f"the env needs reset(): {why}; its state is no longer consistent")


def check_max_rounds(max_rounds: Any) -> int | None:
    """``max_rounds`` (a positive int, or None for no limit); anything else raises."""
    if max_rounds is not None and (
        isinstance(max_rounds, bool)
        or not isinstance(max_rounds, (int, np.integer))
        or max_rounds < 1
    ):
        raise ValueError(f"max_rounds must be a positive int or None, got {max_rounds!r}")
    return None if max_rounds is None else int(max_rounds)


def check_illegal_action(illegal_action: Any) -> str:
    """The training envs' ``illegal_action`` option: ``"raise"`` or ``"random"``."""
    if illegal_action not in ("raise", "random"):
        raise ValueError(f"illegal_action must be 'raise' or 'random', got {illegal_action!r}")
    return str(illegal_action)


def check_num_envs(num_envs: Any) -> int:
    """A vector env's number of games: a positive int."""
    if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)):
        raise TypeError(f"num_envs must be an int, got {num_envs!r}")
    if num_envs < 1:
        raise ValueError(f"num_envs must be >= 1, got {num_envs}")
    return int(num_envs)


def check_learner_seat(seat: Any, num_players: int) -> int | str:
    """A learner seat: an int seat ``0..P-1`` or ``"random"``; anything else raises."""
    if isinstance(seat, str):
        if seat != "random":
            raise ValueError(f"learner_seat must be a seat or 'random', got {seat!r}")
        return seat
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)):
        raise TypeError(f"learner_seat must be an int seat or 'random', got {seat!r}")
    if not 0 <= seat < num_players:
        raise ValueError(f"learner_seat must be in 0..{num_players - 1}, got {seat}")
    return int(seat)


def check_render_mode(render_mode: str | None, allowed: list[str]) -> None:
    """Raise ``ValueError`` for a render mode the env does not offer."""
    if render_mode is not None and render_mode not in allowed:
        raise ValueError(f"render_mode must be one of {allowed}, got {render_mode!r}")


def show_text(text: str, render_mode: str | None) -> str | None:
    """What ``render()`` returns for a text frame: printed (and None) in ``human`` mode."""
    if render_mode == "human":
        print(text + "\n")
        return None
    return text
