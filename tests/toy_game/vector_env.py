"""The toy game's SB3 vector env: :class:`pasur_env.core.vector_env.LearnerVecEnv` over
:class:`toy_game.envs.ToyLearnerGames` (needs stable-baselines3)."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from pasur_env.core.options import check_max_rounds, check_modes, check_num_envs
from pasur_env.core.policy import RandomPolicy, as_opponents
from pasur_env.core.vector_env import LearnerVecEnv
from toy_game.engine import NUM_ACTIONS, OBS_SIZE, make_toy_rules
from toy_game.envs import ToyLearnerGames


class ToyVecEnv(LearnerVecEnv):
    """``num_envs`` toy games for one learner; game ``i`` of ``ToyVecEnv(n, seed=s)``
    deals as ``ToySingleAgentEnv().reset(seed=s + i)``."""

    def __init__(self, num_envs: int = 16, opponent: Any = None, learner_seat: int | str = 0,
                 episode: str = "round", reward: str = "diff", max_rounds: int | None = None,
                 seed: int | None = None, **rule_flags: Any) -> None:
        check_modes(reward, episode)
        self.opponents = as_opponents(RandomPolicy() if opponent is None else opponent)
        games = ToyLearnerGames(check_num_envs(num_envs), make_toy_rules(**rule_flags), episode,
                                reward, check_max_rounds(max_rounds), learner_seat,
                                self.opponents)
        self._attach(games, spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32), NUM_ACTIONS, seed,
                     keep_seed=False)
