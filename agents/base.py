"""The agent protocol shared by every baseline, the evaluator, the CLI and the envs.

An :class:`Agent` acts for a *batch* of decisions at once: the caller passes the
legal-action masks and a :class:`GameView` (the batched :class:`pasur_env.Engine`
plus the indices of the games to act in). Agents may read only what the mover of
each game can see: their own hand, the table, the piles, surs, scores, stock size,
deal index, last capturer, the Ru Baaz face-up cards, and the *set* of cards hidden
from them (``pasur_env._kernels.hidden_from``). They never read other hands or the
stock order; ``tests/test_agents.py`` checks this by permuting hidden cards.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass

import numpy as np

from pasur_env import Engine

__all__ = ["Agent", "GameView", "check_actions"]


@dataclass
class GameView:
    """The games an agent acts for in one call: engine + indices.

    Agents may read only what the mover can see.
    """

    engine: Engine
    games: np.ndarray  # int64 indices into engine, one per decision requested

    def __post_init__(self) -> None:
        self.games = np.asarray(self.games, dtype=np.int64).reshape(-1)

    @property
    def seats(self) -> np.ndarray:
        """Seat to move in each requested game (n,)."""
        return self.engine.current_player[self.games]

    @classmethod
    def all(cls, engine: Engine) -> GameView:
        """A view of every game of ``engine``."""
        return cls(engine, np.arange(engine.num_games, dtype=np.int64))


class Agent(abc.ABC):
    """A policy over batches of decisions.

    Attributes:
        name: short name (the registry name for the built-in agents).
        needs_observation: if True the caller passes encoded observations as ``obs``.
    """

    name: str = "agent"
    needs_observation: bool = False

    def reset(self, seed: int | None = None) -> None:  # noqa: B027 - optional hook
        """Reseed the agent's internal random generator (no-op for deterministic agents)."""

    @abc.abstractmethod
    def act(self, obs: np.ndarray | None, mask: np.ndarray, view: GameView) -> np.ndarray:
        """Choose one legal action per requested decision.

        Args:
            obs: (n, N) float32 encoded observations, or None.
            mask: (n, 104) bool legal actions (row i belongs to ``view.games[i]``).
            view: the engine and the game indices.

        Returns:
            (n,) int64 legal action ids.
        """

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


def check_actions(actions: np.ndarray, mask: np.ndarray, who: str) -> np.ndarray:
    """Return ``actions`` as int64 after checking each is legal under ``mask``."""
    acts = np.asarray(actions, dtype=np.int64).reshape(-1)
    n = mask.shape[0]
    if acts.shape != (n,):
        raise RuntimeError(f"{who} returned {acts.shape} actions for {n} decisions")
    ok = (acts >= 0) & (acts < mask.shape[1])
    ok[ok] = mask[np.flatnonzero(ok), acts[ok]]
    if not ok.all():
        i = int(np.flatnonzero(~ok)[0])
        raise RuntimeError(
            f"{who} chose illegal action {int(acts[i])} for decision {i}; "
            f"legal: {np.flatnonzero(mask[i]).tolist()}"
        )
    return acts
