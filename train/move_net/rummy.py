"""Persian Rummy's labeller for the move-scoring network: every candidate of a
turn-shaping decision valued by search.

:class:`RummyLabeler` is :func:`train.move_net.data.generate`'s policy for Persian
Rummy. At each of its decisions it asks its *valuer* for the value of every candidate
(``valuer.candidate_values(engine, games, mask) -> (offsets, actions, values)``, the
candidates of :func:`agents.rummy.net.features.candidate_actions`), records the
observation, the candidates' features (:mod:`agents.rummy.net.features`) and the
values, and plays the best candidate (or, with probability ``explore``, a uniformly
random one). Decisions with one candidate (greedy's) are played, not recorded.

The valuer is the ``rollout`` agent's determinized evaluation
(:meth:`agents.rummy.rollout.RummyRolloutAgent.candidate_values`: ``samples``
determinized rounds per decision, every candidate played out by greedy on each);
any search with the same method can take its place in :func:`make_valuer`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.move_net import best_moves
from agents.rummy.net.features import candidate_features
from agents.rummy.rollout import RummyRolloutAgent
from pasur_env.core.policy import GameView, check_actions
from train.move_net.data import Labeler

__all__ = ["RummyLabeler", "make_valuer"]


def make_valuer(samples: int, seed: int) -> Any:
    """The search that values the candidates (``samples`` determinizations per decision)."""
    return RummyRolloutAgent(samples=samples, seed=seed)


class RummyLabeler(Labeler):
    """Values every candidate by search, records it, plays the best (module docstring).

    Args:
        samples: determinized rollouts per candidate (shared by a decision's candidates).
        seed: seeds the search and the exploration.
        explore: probability of playing a uniformly random candidate instead.
    """

    def __init__(self, samples: int, seed: int, explore: float = 0.0) -> None:
        super().__init__(seed, explore)
        self.valuer = make_valuer(samples, int(self.rng.integers(2**62)))

    def act(self, obs: np.ndarray | None, mask: np.ndarray, view: GameView) -> np.ndarray:
        assert obs is not None
        eng, games = view.engine, view.games
        mask = np.asarray(mask)
        offsets, actions, values = self.valuer.candidate_values(eng, games, mask)
        greedy = actions[offsets[:-1]]
        feats = candidate_features(eng, games, offsets, actions, greedy)
        self._record(eng.state[games], np.asarray(obs), offsets, feats, values)
        chosen = self._explore(best_moves(values, offsets), offsets)
        return check_actions(actions[chosen], mask, self.name)
