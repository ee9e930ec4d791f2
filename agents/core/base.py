"""The base class of the project's agents: the :class:`pasur_env.Policy` protocol with
its defaults.

An agent acts for a *batch* of decisions at once (``act(obs, mask, view)``); it may
read only what the mover of each game can see (see :mod:`pasur_env.core.policy`, where the
protocol, :class:`~pasur_env.GameView` and the action check live).
``tests/test_agents.py`` checks this for every agent by permuting hidden cards.
"""

from __future__ import annotations

import abc

import numpy as np

from pasur_env.core.policy import GameView

__all__ = ["Agent"]


class Agent(abc.ABC):
    """A policy over batches of decisions (follows :class:`pasur_env.Policy`).

    Attributes:
        name: short name (the registry name for the built-in agents).
        needs_observation: if True the caller passes encoded observations as ``obs``.
        game_ids: the games it plays (ids of :data:`pasur_env.games.GAMES`); None: any
            game (it reads only the mask, or the game's own API).
        player_counts: the seat counts it plays; None: any its games have.
        observation_size: the width of the observations its model reads; None: any.

    The last three let envs, matches and tables refuse an agent that cannot play
    their game before it moves (:func:`pasur_env.core.policy.check_policy_fits`);
    every agent of a game's package declares its game.
    """

    name: str = "agent"
    needs_observation: bool = False
    game_ids: tuple[str, ...] | None = None
    player_counts: tuple[int, ...] | None = None
    observation_size: int | None = None

    def reset(self, seed: int | None = None) -> None:
        """Reseed the agent's random generator :attr:`rng` (``make_agent(..., seed=s)``
        and every command call it with their seed when the class takes no ``seed``
        argument). Agents with more state to forget override it."""
        self.rng = np.random.default_rng(seed)

    @property
    def rng(self) -> np.random.Generator:
        """The agent's random generator, for tie-breaks and sampling: seeded by
        :meth:`reset`, so a match with a seed is repeatable without any code in the
        agent (unseeded until the first ``reset``)."""
        rng = self.__dict__.get("_rng")
        if rng is None:
            rng = self.__dict__["_rng"] = np.random.default_rng()
        return rng

    @rng.setter
    def rng(self, value: np.random.Generator) -> None:
        self.__dict__["_rng"] = value

    @abc.abstractmethod
    def act(self, obs: np.ndarray | None, mask: np.ndarray, view: GameView) -> np.ndarray:
        """Choose one legal action per requested decision.

        Args:
            obs: (n, N) float32 encoded observations, or None.
            mask: (n, num_actions) bool legal actions (row i belongs to ``view.games[i]``).
            view: the engine and the game indices.

        Returns:
            (n,) int64 legal action ids.
        """

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"
