"""Per-seat rewards from the engine's per-side round results (``pasur-rules.md`` §10).

Shared by the AEC env, the single-agent env and the vector env so that the three
pay exactly the same rewards.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from .engine import StepInfo
from .rules import PRESET_ENV_DEFAULTS, Rules, make_rules

REWARD_MODES = ("win", "points", "diff")
EPISODE_MODES = ("game", "round")


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
    default_episode: str,
    default_reward: str,
) -> tuple[Rules, str, str, int | None]:
    """Validate the options every env takes: ``(rules, episode, reward, max_rounds)``.

    ``episode``/``reward`` left as ``None`` come from the preset (``cfr_paper`` plays
    one-round episodes paid by point difference), else from the env's own defaults.
    """
    rules = make_rules(preset=preset, **rule_flags)
    implied = PRESET_ENV_DEFAULTS.get(preset or "classic", {})
    episode = episode if episode is not None else implied.get("episode", default_episode)
    reward = reward if reward is not None else implied.get("reward", default_reward)
    check_modes(reward, episode)
    if max_rounds is not None and (
        isinstance(max_rounds, bool) or not isinstance(max_rounds, (int, np.integer))
        or max_rounds < 1
    ):
        raise ValueError(f"max_rounds must be a positive int or None, got {max_rounds!r}")
    return rules, episode, reward, max_rounds


@functools.lru_cache(maxsize=64)
def seat_sides(rules: Rules) -> np.ndarray:
    """Side of every seat (P,)."""
    return np.array([rules.side_of(s) for s in range(rules.num_players)], dtype=np.int64)


def seat_rewards(info: StepInfo, rules: Rules, reward: str) -> np.ndarray:
    """Reward of every seat of every game for one engine step: float32 (B, P).

    ``win`` pays +1 to the winning side's seats and -1 to the others where a game (or,
    for one-round episodes, a round) ended with a winner, 0 on a tie; ``points`` pays
    each seat its side's round points at round ends; ``diff`` pays its side's round
    points minus the mean of the other sides' (zero-sum between sides).
    """
    sides = seat_sides(rules)
    S = rules.num_sides
    B = info.round_end.shape[0]
    if reward == "win":
        won = info.winner[:, None] == sides[None, :]
        out = np.where(won, 1.0, -1.0) * (info.game_end & (info.winner >= 0))[:, None]
        return out.astype(np.float32)
    pts = info.round_points.astype(np.float32) * info.round_end[:, None]
    if reward == "points":
        return pts[:, sides]
    if reward == "diff":
        others = (pts.sum(axis=1, keepdims=True) - pts) / (S - 1)
        return (pts - others)[:, sides]
    raise ValueError(f"reward must be one of {REWARD_MODES}, got {reward!r} (B={B})")
