"""Persian Rummy players (``docs/persian_rummy.md``), separate from the Pasur agents.

``random`` (uniformly random legal play, :class:`pasur_env.RandomPolicy`, which works
for any action count), ``greedy`` (:mod:`agents.rummy.greedy`) and ``rollout``
(greedy with its draws and discards chosen by determinized rollouts,
:mod:`agents.rummy.rollout`); a path ending in ``.zip`` loads a trained MaskablePPO
model (``python -m train.rummy_ppo``). All act on a batch
of games: ``act(obs, mask, view)`` as every :class:`pasur_env.Policy`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agents.rummy.greedy import RummyGreedyAgent
from agents.rummy.rollout import RummyRolloutAgent
from pasur_env.core.policy import Policy, RandomPolicy

__all__ = ["RUMMY_AGENTS", "make_rummy_agent", "RummyGreedyAgent", "RummyRolloutAgent"]

#: the Persian Rummy agents by name
RUMMY_AGENTS: dict[str, Callable[..., Policy]] = {
    "random": RandomPolicy,
    "greedy": RummyGreedyAgent,
    "rollout": RummyRolloutAgent,
}


def make_rummy_agent(name: str, seed: int | None = None, **kwargs: Any) -> Policy:
    """Build a Persian Rummy agent by name, or load a saved MaskablePPO model from a path
    ending in ``.zip`` (``train.rummy_ppo``'s ``model.zip``; it plays its most probable
    legal action). An unknown name raises ``ValueError``."""
    if name.lower().endswith(".zip"):
        from agents.learned.sb3 import PolicyAgent  # imports torch and SB3 only when used

        kwargs.setdefault("deterministic", True)
        return PolicyAgent(name, seed=seed, **kwargs)
    if name not in RUMMY_AGENTS:
        raise ValueError(f"unknown Persian Rummy agent {name!r}; known: {sorted(RUMMY_AGENTS)}")
    return RUMMY_AGENTS[name](seed=seed, **kwargs)
