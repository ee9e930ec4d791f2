"""Persian Rummy's learner games: :class:`pasur_env.core.learner_games.PooledLearnerGames`
over a :class:`RummyEngine`, with a partner policy and opponents from an opponent source.

The learner sits at one seat; its partner (the seat opposite) is a policy object
(:class:`pasur_env.Policy`) and the two opponents are one policy drawn per game and
episode from an :class:`~pasur_env.core.policy.OpponentSource` (a single policy is the
source of itself; ``agents.OpponentPool`` mixes self-play snapshots and scripted agents,
as for Pasur). They move through the one play loop until it is the learner's turn
again or the episode ends. Rewards are those of
:func:`pasur_env.core.rewards.seat_rewards` over the two teams. This class holds no
rule logic.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pasur_env.core import learner_games as core
from pasur_env.core.policy import FixedOpponent, OpponentSource, Policy, as_opponents
from pasur_env.rummy.actions import action_str
from pasur_env.rummy.engine import RummyEngine
from pasur_env.rummy.rewards import SEAT_TEAM
from pasur_env.rummy.rules import RummyRules

__all__ = ["RummyLearnerGames"]

#: policy index (in the play loop's table) of the partner
PARTNER = 0


class RummyLearnerGames(core.PooledLearnerGames):
    """``n`` games, each with a learner seat, a partner policy and opponents drawn from
    a source (a policy, or an :class:`~pasur_env.core.policy.OpponentSource`).

    ``partner`` and ``opponent`` may be replaced between steps (self-play snapshots):
    a new partner, or a new single opponent replacing a single one, plays the next
    decisions; a new source is drawn from as the games start their next episodes.
    """

    action_str = staticmethod(action_str)

    def __init__(self, n: int, rules: RummyRules, episode: str, reward: str,
                 max_rounds: int | None, learner_seat: int | str,
                 opponent: Policy | OpponentSource, partner: Policy,
                 parallel: bool | None = None) -> None:
        source = as_opponents(opponent)
        self._check_pool(source)
        engine = RummyEngine(n, rules=rules, episode=episode, auto_reset=False,
                             parallel=parallel)
        super().__init__(engine, SEAT_TEAM, 2, reward, max_rounds, learner_seat)
        self._policies = [self.fit(partner, "partner")]
        self._init_pool(source)

    @property
    def partner(self) -> Policy:
        return self._policies[PARTNER]

    @partner.setter
    def partner(self, policy: Policy) -> None:
        self._policies[PARTNER] = self.fit(policy, "partner")

    @property
    def opponent(self) -> Any:
        """The single opponent policy, or the source the opponents are drawn from."""
        pool = self.pool
        return pool.opponent.policy if isinstance(pool, FixedOpponent) else pool

    @opponent.setter
    def opponent(self, policy: Policy | OpponentSource) -> None:
        source = as_opponents(policy)
        self._check_pool(source)
        if isinstance(source, FixedOpponent):  # refused before it replaces anything
            self.fit(source.opponent.policy, "opponent")
        old, self.pool = self.pool, source
        if isinstance(old, FixedOpponent) and isinstance(self.pool, FixedOpponent):
            slot = self._slot_of.pop(id(old.opponent.policy), None)
            if slot is not None:  # the games in progress play on with the new one
                new = self.pool.opponent.policy
                self._policies[slot] = new
                self._slot_of[id(new)] = slot

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
        """The partner sits opposite the learner, the drawn opponent at both other seats."""
        opposite = (np.arange(4) - self.seat[g]) % 4 == 2
        self._assign_opponent(g, self.pool.sample(self.rngs[g]), ~opposite)
        self.seat_policy[g, opposite] = PARTNER

    def reset_players(self, seed: int) -> None:
        """The opponents get ``seed``, the partner ``seed + 1``."""
        self.pool.reset(seed)
        self.partner.reset(seed + 1)
