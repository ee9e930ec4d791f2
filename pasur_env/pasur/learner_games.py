"""Pasur's learner games: :class:`pasur_env.core.learner_games.LearnerGames` over the
Pasur :class:`~pasur_env.Engine`, with opponents drawn from an opponent source.

Shared by :class:`pasur_env.PasurSingleAgentEnv` (B = 1) and
:class:`pasur_env.PasurVecEnv`. Every seat but the learner's is played by one opponent,
which each game draws (with the game's generator) from an
:class:`~pasur_env.core.policy.OpponentSource` when it starts an episode; the source
hears the learner's result of every finished episode (self-play pools). Rewards are
those of :func:`pasur_env.core.rewards.seat_rewards` over Pasur's sides.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pasur_env.core import learner_games as core
from pasur_env.core.policy import OpponentSource
from pasur_env.pasur.engine import Engine, action_str
from pasur_env.pasur.rewards import seat_sides
from pasur_env.pasur.rules import Rules

__all__ = ["LearnerGames"]

#: reset options the training envs understand
RESET_OPTIONS = core.RESET_OPTIONS


class LearnerGames(core.PooledLearnerGames):
    """B Pasur games in one engine, each with a learner seat and an opponent.

    Args:
        num_games: B.
        rules: the :class:`~pasur_env.Rules`.
        episode, reward, max_rounds: as in the envs.
        learner_seat: a seat, or ``"random"`` (drawn per game and episode from the
            game's generator).
        opponents: an :class:`~pasur_env.core.policy.OpponentSource`; each game draws its
            opponent from it (with the game's generator) when it starts an episode.
        parallel: passed to the :class:`Engine`.
    """

    action_str = staticmethod(action_str)
    #: Pasur's opponents play on to the learner's next decision after a truncation
    stop_at_truncation = False

    def __init__(
        self,
        num_games: int,
        rules: Rules,
        episode: str,
        reward: str,
        max_rounds: int | None,
        learner_seat: int | str,
        opponents: OpponentSource,
        parallel: bool | None = None,
    ) -> None:
        self._check_pool(opponents)
        engine = Engine(int(num_games), rules=rules, episode=episode, auto_reset=False,
                        parallel=parallel)
        super().__init__(engine, seat_sides(rules), rules.num_sides, reward, max_rounds,
                         learner_seat)
        self.rules = rules
        self.episode = episode
        self._init_pool(opponents)

    # ---- the game's parts of LearnerGames --------------------------------------------------
    def _deal(
        self, games: np.ndarray, seeds: list[int | None], options: list[dict[str, Any]]
    ) -> None:
        """New games in ``games``: shuffled from their streams, or seeded / given decks."""
        eng = self.engine
        plain, special = [], []
        for k, g in enumerate(games.tolist()):
            opts = options[k]
            if seeds[k] is None and opts.get("deck") is None and opts.get("dealer") is None:
                plain.append(g)
            else:
                special.append(k)
        if len(plain) == self.num_games:
            eng.reset()
        elif plain:
            sub = eng.take(plain)
            sub.reset()
            eng.state[plain] = sub.state
        for k in special:
            g = int(games[k])
            sub = eng.take([g])
            sub.reset(seed=seeds[k], deck=options[k].get("deck"), dealer=options[k].get("dealer"))
            eng.state[g] = sub.state[0]

    def _seat_players(self, g: int) -> None:
        """Game ``g`` draws its opponent from the source; it plays every other seat."""
        self._assign_opponent(g, self.pool.sample(self.rngs[g]))

    def reset_players(self, seed: int) -> None:
        self.pool.reset(seed)
