"""Stable-Baselines3 ``VecEnv`` of Persian Rummy over one batched engine (as
:mod:`pasur_env.pasur.vector_env` for Pasur).

One :class:`RummyEngine` holds ``num_envs`` games; the learner's actions go to all of
them in one step, then partners and opponents act batched until every game waits for
its learner. Game ``i`` of ``PersianRummyVecEnv(n, seed=s)`` deals like
``PersianRummySingleAgentEnv().reset(seed=s + i)``. The ``VecEnv`` plumbing is
:class:`pasur_env.core.vector_env.LearnerVecEnv`'s; this file keeps Persian Rummy's
options and observation size. Needs stable-baselines3.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces

from pasur_env.core.options import check_max_rounds, check_modes, check_num_envs
from pasur_env.core.policy import RandomPolicy, as_opponents, as_policy
from pasur_env.core.vector_env import LearnerVecEnv
from pasur_env.rummy.kernels import state as S
from pasur_env.rummy.learner_games import RummyLearnerGames
from pasur_env.rummy.observation import OBS_SIZE
from pasur_env.rummy.rules import make_rummy_rules

__all__ = ["PersianRummyVecEnv"]


class PersianRummyVecEnv(LearnerVecEnv):
    """``num_envs`` Persian Rummy games for one learner (see the module doc).

    Args are those of :class:`~pasur_env.rummy.single_agent.PersianRummySingleAgentEnv`
    (``opponent`` may also be an :class:`~pasur_env.OpponentSource`, such as
    ``agents.OpponentPool``, from which each game draws its two opponents whenever it
    starts an episode, as in ``PasurVecEnv``) plus ``num_envs``, ``seed`` (the
    constructor deals game ``i`` with ``seed + i``; :meth:`seed` seeds the next
    :meth:`reset` the same way) and ``parallel``. SB3 semantics: a finished game
    reports ``done=True`` with ``infos[i]["terminal_observation"]`` and restarts at
    once; :meth:`action_masks` gives the ``(num_envs, 245)`` legal actions for ``MaskablePPO``.
    """

    def __init__(self, num_envs: int = 16, opponent: Any = None, partner: Any = None,
                 learner_seat: int | str = 0, episode: str = "round", reward: str = "diff",
                 max_rounds: int | None = None, seed: int | None = None,
                 parallel: bool | None = None, **rule_flags: Any) -> None:
        num_envs = check_num_envs(num_envs)
        check_modes(reward, episode)
        self.opponents = as_opponents(RandomPolicy() if opponent is None else opponent)
        self.partner = as_policy(RandomPolicy() if partner is None else partner)
        games = RummyLearnerGames(
            num_envs, make_rummy_rules(**rule_flags), episode, reward,
            check_max_rounds(max_rounds), learner_seat, self.opponents, self.partner,
            parallel=parallel)
        obs_space = spaces.Box(-1.0, 1.0, (OBS_SIZE,), np.float32)
        # the seed deals the games of the constructor only (a later reset() deals anew)
        self._attach(games, obs_space, S.NUM_ACTIONS, seed, keep_seed=False)

    def _per_game(self) -> dict[str, Callable[[int], Any]]:
        return {**super()._per_game(), "opponent_name": lambda i: self.games.entry_name[i]}
