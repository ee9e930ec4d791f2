"""Persian Rummy's learner games: :class:`pasur_env.core.learner_games.LearnerGames` over a
:class:`RummyEngine`, with a partner policy and an opponent policy.

The learner sits at one seat; its partner (the seat opposite) and the two opponents
are policy objects (:class:`pasur_env.Policy`) that move through the one play loop
until it is the learner's turn again or the episode ends. Rewards are those of
:func:`pasur_env.core.rewards.seat_rewards` over the two teams. This class holds no rule logic.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pasur_env.core import learner_games as core
from pasur_env.core.policy import Policy
from pasur_env.rummy.actions import action_str
from pasur_env.rummy.engine import RummyEngine
from pasur_env.rummy.rewards import SEAT_TEAM
from pasur_env.rummy.rules import RummyRules

__all__ = ["RummyLearnerGames"]

#: policy index (in the play loop's table) of the partner and of the opponents
PARTNER, OPPONENT = 0, 1


class RummyLearnerGames(core.LearnerGames):
    """``n`` games, each with a learner seat, a partner policy and an opponent policy.

    ``partner`` and ``opponent`` may be replaced between steps (self-play snapshots);
    the next decisions use the new policies.
    """

    action_str = staticmethod(action_str)

    def __init__(self, n: int, rules: RummyRules, episode: str, reward: str,
                 max_rounds: int | None, learner_seat: int | str, opponent: Policy,
                 partner: Policy, parallel: bool | None = None) -> None:
        engine = RummyEngine(n, rules=rules, episode=episode, auto_reset=False,
                             parallel=parallel)
        super().__init__(engine, SEAT_TEAM, 2, reward, max_rounds, learner_seat)
        self._policies = [partner, opponent]

    @property
    def partner(self) -> Policy:
        return self._policies[PARTNER]

    @partner.setter
    def partner(self, policy: Policy) -> None:
        self._policies[PARTNER] = policy

    @property
    def opponent(self) -> Policy:
        return self._policies[OPPONENT]

    @opponent.setter
    def opponent(self, policy: Policy) -> None:
        self._policies[OPPONENT] = policy

    # ---- the game's parts of LearnerGames --------------------------------------------------
    def _deal(
        self, games: np.ndarray, seeds: list[int | None], options: list[dict[str, Any]]
    ) -> None:
        """Each game dealt alone: from its stream, or seeded like a one-game engine."""
        for k, b in enumerate(games.tolist()):
            opts = options[k]
            self.engine.reset_game(b, seed=seeds[k], deck=opts.get("deck"),
                                   dealer=opts.get("dealer"))

    def _seat_players(self, g: int) -> None:
        """The partner sits opposite the learner, the opponent policy at both other seats."""
        opposite = (np.arange(4) - self.seat[g]) % 4 == 2
        self.seat_policy[g] = np.where(opposite, PARTNER, OPPONENT)

    def reset_players(self, seed: int) -> None:
        """The opponent gets ``seed``, the partner ``seed + 1``."""
        self.opponent.reset(seed)
        self.partner.reset(seed + 1)
