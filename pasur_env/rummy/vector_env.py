"""Stable-Baselines3 ``VecEnv`` of Persian Rummy over one batched engine (as
:mod:`pasur_env.pasur.vector_env` for Pasur).

One :class:`RummyEngine` holds ``num_envs`` games; the learner's actions go to all of
them in one step, then partners and opponents act batched until every game waits for
its learner. Game ``i`` of ``PersianRummyVecEnv(n, seed=s)`` deals like
``PersianRummySingleAgentEnv().reset(seed=s + i)``. Needs stable-baselines3.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import (
    VecEnv,
    VecEnvIndices,
    VecEnvObs,
    VecEnvStepReturn,
)

from pasur_env.core.options import check_modes
from pasur_env.core.policy import RandomPolicy, as_policy
from pasur_env.rummy.kernels import state as S
from pasur_env.rummy.learner_games import RummyLearnerGames
from pasur_env.rummy.observation import OBS_SIZE
from pasur_env.rummy.rules import make_rummy_rules

__all__ = ["PersianRummyVecEnv"]


class PersianRummyVecEnv(VecEnv):
    """``num_envs`` Persian Rummy games for one learner (see the module doc).

    Args are those of :class:`~pasur_env.rummy.single_agent.PersianRummySingleAgentEnv`
    plus ``num_envs``, ``seed`` (game ``i`` gets ``seed + i`` at each :meth:`reset`)
    and ``parallel``. SB3 semantics: a finished game reports ``done=True`` with
    ``infos[i]["terminal_observation"]`` and restarts at once; :meth:`action_masks`
    gives the ``(num_envs, 245)`` legal actions for ``MaskablePPO``.
    """

    def __init__(self, num_envs: int = 16, opponent: Any = None, partner: Any = None,
                 learner_seat: int = 0, episode: str = "round", reward: str = "diff",
                 max_rounds: int | None = None, seed: int | None = None,
                 parallel: bool | None = None, **rule_flags: Any) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) \
                or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, got {num_envs!r}")
        check_modes(reward, episode)
        if isinstance(learner_seat, bool) or not isinstance(learner_seat, (int, np.integer)) \
                or not 0 <= learner_seat < 4:
            raise ValueError(f"learner_seat must be a seat 0..3, got {learner_seat!r}")
        self.render_mode = None
        self.opponent = as_policy(RandomPolicy() if opponent is None else opponent)
        self.partner = as_policy(RandomPolicy() if partner is None else partner)
        self.games = RummyLearnerGames(
            int(num_envs), make_rummy_rules(**rule_flags), episode, reward, max_rounds,
            int(learner_seat), self.opponent, self.partner, parallel=parallel)
        obs_space = spaces.Box(-1.0, 1.0, (OBS_SIZE,), np.float32)
        super().__init__(int(num_envs), obs_space, spaces.Discrete(S.NUM_ACTIONS))
        self._base_seed = seed
        self._actions: np.ndarray | None = None
        self.reset()

    def seed(self, seed: int | None = None) -> list[int | None]:
        """Seeds game ``i`` with ``seed + i`` at the next :meth:`reset`."""
        self._base_seed = seed
        return [None if seed is None else seed + i for i in range(self.num_envs)]

    def reset(self) -> VecEnvObs:
        g = self.games
        seeds = None
        if self._base_seed is not None:
            seeds = [self._base_seed + i for i in range(self.num_envs)]
            self.opponent.reset(self._base_seed)
            self.partner.reset(self._base_seed + 1)
            self._base_seed = None
        g.reset_games(np.arange(self.num_envs), seeds)
        self.reset_infos = [{"learner_seat": int(g.seat[i])} for i in range(self.num_envs)]
        return g.observe()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self) -> VecEnvStepReturn:
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async()")
        acts = np.asarray(self._actions).reshape(-1)
        self._actions = None
        if acts.dtype.kind == "f" and np.all(acts == np.round(acts)):
            acts = acts.astype(np.int64)
        if acts.dtype.kind not in "iu" or acts.shape != (self.num_envs,):
            raise ValueError(f"expected {self.num_envs} integer actions, got {acts!r}")
        g = self.games
        g.learner_step(acts.astype(np.int64))
        obs = g.observe()
        rewards = g.pop_rewards()
        dones = g.done.copy()
        infos = [g.pop_info(i) for i in range(self.num_envs)]
        ended = np.flatnonzero(dones)
        if ended.size:
            for i in ended.tolist():
                infos[i]["terminal_observation"] = obs[i].copy()
                infos[i]["TimeLimit.truncated"] = bool(g.truncated[i] and not g.terminated[i])
            g.reset_games(ended)
            obs = g.observe()
        return obs, rewards, dones, infos

    def close(self) -> None:
        pass

    def action_masks(self) -> np.ndarray:
        """(num_envs, 245) bool legal actions of the learner in every game."""
        return self.games.learner_masks()

    def _indices(self, indices: VecEnvIndices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, (int, np.integer)):
            return [int(indices)]
        assert isinstance(indices, Iterable)
        return [int(i) for i in indices]

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        value = getattr(self, attr_name)
        return [value for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: VecEnvIndices = None,
                   **method_kwargs: Any) -> list[Any]:
        """``action_masks`` per game; other methods are called once and shared."""
        idx = self._indices(indices)
        if method_name == "action_masks":
            masks = self.games.learner_masks()
            return [masks[i] for i in idx]
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result for _ in idx]

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._indices(indices)]

    def get_images(self) -> list[None]:
        return [None for _ in range(self.num_envs)]
