"""Pasur's env options: the rule flags and preset on top of the shared option checks.

The AEC env, the single-agent env and the vector env take the same options (every
rule flag of :class:`pasur_env.Rules`, ``preset``, ``episode``, ``reward``,
``max_rounds``; the training envs add ``learner_seat``). Their one description is the
options table of ``docs/environment.md``; this function is their one validation.
"""

from __future__ import annotations

from typing import Any

from pasur_env.core.options import AEC_DEFAULTS, check_max_rounds, check_modes
from pasur_env.pasur.rules import PRESET_ENV_DEFAULTS, Rules, make_rules


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
    return rules, episode, reward, check_max_rounds(max_rounds)
