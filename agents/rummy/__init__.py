"""Persian Rummy players (``docs/persian_rummy.md``), separate from the Pasur agents.

``random`` (uniformly random legal play, :class:`pasur_env.RandomPolicy`, which works
for any action count), ``greedy`` (:mod:`agents.rummy.greedy`) and ``rollout``
(greedy with its draws and discards chosen by determinized rollouts,
:mod:`agents.rummy.rollout`). Both act on a batch
of games: ``act(obs, mask, view)`` as every :class:`pasur_env.Policy`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pasur_env.policy import Policy, RandomPolicy

from .greedy import RummyGreedyAgent
from .rollout import RummyRolloutAgent

__all__ = ["RUMMY_AGENTS", "make_rummy_agent", "RummyGreedyAgent", "RummyRolloutAgent"]

#: the Persian Rummy agents by name
RUMMY_AGENTS: dict[str, Callable[..., Policy]] = {
    "random": RandomPolicy,
    "greedy": RummyGreedyAgent,
    "rollout": RummyRolloutAgent,
}


def make_rummy_agent(name: str, seed: int | None = None, **kwargs: Any) -> Policy:
    """Build a Persian Rummy agent by name; an unknown name raises ``ValueError``."""
    if name not in RUMMY_AGENTS:
        raise ValueError(f"unknown Persian Rummy agent {name!r}; known: {sorted(RUMMY_AGENTS)}")
    return RUMMY_AGENTS[name](seed=seed, **kwargs)
