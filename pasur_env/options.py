"""Environment options shared by every env: validation and defaults, written once.

The AEC env, the single-agent env and the vector env take the same options (every
rule flag of :class:`pasur_env.Rules`, ``preset``, ``episode``, ``reward``,
``max_rounds``; the training envs add ``learner_seat``). Their one description is the
options table of ``docs/environment.md``; this module is their one validation.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .rules import PRESET_ENV_DEFAULTS, Rules, make_rules

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


def env_options(
    preset: str | None,
    episode: str | None,
    reward: str | None,
    max_rounds: int | None,
    rule_flags: dict[str, Any],
    defaults: dict[str, str] = AEC_DEFAULTS,
) -> tuple[Rules, str, str, int | None]:
    """Validate the options every env takes: ``(rules, episode, reward, max_rounds)``.

    ``episode``/``reward`` left as ``None`` come from the preset (``cfr_paper`` plays
    one-round episodes paid by point difference), else from the env's ``defaults``.
    """
    rules = make_rules(preset=preset, **rule_flags)
    implied = PRESET_ENV_DEFAULTS.get(preset or "classic", {})
    episode = episode if episode is not None else implied.get("episode", defaults["episode"])
    reward = reward if reward is not None else implied.get("reward", defaults["reward"])
    check_modes(reward, episode)
    if max_rounds is not None and (
        isinstance(max_rounds, bool)
        or not isinstance(max_rounds, (int, np.integer))
        or max_rounds < 1
    ):
        raise ValueError(f"max_rounds must be a positive int or None, got {max_rounds!r}")
    return rules, episode, reward, max_rounds


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
