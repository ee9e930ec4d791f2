"""Stable-Baselines3 ``VecEnv`` over one batched engine: ``num_envs`` Pasur games, one learner.

Unlike ``DummyVecEnv([PasurSingleAgentEnv] * n)`` there is one
:class:`~pasur_env.Engine` of ``num_envs`` games: the learner's actions are applied
to all games in one engine step, then the opponents act **batched** (one
``agent.act`` call per opponent agent per inner iteration, over every game where
that agent is to move) until every game waits for the learner or has ended. Game
``i`` of ``PasurVecEnv(n, seed=s)`` plays exactly like
``PasurSingleAgentEnv().reset(seed=s + i)`` with the same deterministic opponent.
The ``VecEnv`` plumbing is :class:`pasur_env.core.vector_env.LearnerVecEnv`'s; this
file keeps Pasur's options and observation size.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces

from pasur_env.core.options import TRAINING_DEFAULTS, check_num_envs
from pasur_env.core.policy import RandomPolicy, as_opponents
from pasur_env.core.vector_env import LearnerVecEnv
from pasur_env.pasur import kernels as K
from pasur_env.pasur.learner_games import LearnerGames
from pasur_env.pasur.observation import observation_size
from pasur_env.pasur.options import env_options

__all__ = ["PasurVecEnv"]

class PasurVecEnv(LearnerVecEnv):
    """``num_envs`` Pasur games for one learner as an SB3 ``VecEnv`` (see the module doc).

    Args:
        num_envs: number of games (one engine batch).
        opponent: as for :class:`~pasur_env.pasur.single_agent.PasurSingleAgentEnv`: a
            :class:`~pasur_env.Policy`, a callable, or an
            :class:`~pasur_env.OpponentSource` (such as ``agents.OpponentPool``) from
            which each game draws its opponent whenever it starts an episode; default
            random play.
        learner_seat: a seat, or ``"random"`` (per game and episode, seeded).
        preset, episode, reward, max_rounds, **rule_flags: as in the single env
            (defaults ``episode="round"``, ``reward="diff"``).
        seed: seeds game ``i`` with ``seed + i`` (also settable with :meth:`seed`,
            applied at the next :meth:`reset`, as in SB3).
        parallel: engine kernels multi-threaded (default: from 512 games).

    Semantics are SB3's: ``step_wait`` returns, for a game whose episode ended,
    ``done=True``, the learner's final observation in ``infos[i]["terminal_observation"]``
    (and ``"TimeLimit.truncated"`` for ``max_rounds`` truncations), and already the
    first observation of the next episode in ``obs[i]``. ``infos[i]`` holds
    ``round_points`` and ``scores`` (per seat) when a round ended in that step.
    :meth:`action_masks` gives the (num_envs, 104) legal actions for ``MaskablePPO``.
    ``get_attr`` reads ``learner_seat`` and ``opponent_name`` per game.
    """

    def __init__(
        self,
        num_envs: int = 16,
        opponent: Any = None,
        learner_seat: int | str = 0,
        preset: str | None = None,
        episode: str | None = None,
        reward: str | None = None,
        max_rounds: int | None = None,
        seed: int | None = None,
        parallel: bool | None = None,
        **rule_flags: Any,
    ) -> None:
        num_envs = check_num_envs(num_envs)
        self.rules, self.episode, self.reward_mode, self.max_rounds = env_options(
            preset, episode, reward, max_rounds, rule_flags, TRAINING_DEFAULTS
        )
        pool = as_opponents(RandomPolicy() if opponent is None else opponent)
        self.opponents = pool
        games = LearnerGames(
            num_envs, self.rules, self.episode, self.reward_mode, self.max_rounds,
            learner_seat, pool, parallel=parallel,
        )
        obs_space = spaces.Box(0.0, 1.0, (observation_size(self.rules),), np.float32)
        self._attach(games, obs_space, K.NUM_ACTIONS, seed, keep_seed=True)

    def _per_game(self) -> dict[str, Callable[[int], Any]]:
        return {**super()._per_game(), "opponent_name": lambda i: self.games.entry_name[i]}
