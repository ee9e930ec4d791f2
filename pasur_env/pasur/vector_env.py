"""Stable-Baselines3 ``VecEnv`` over one batched engine: ``num_envs`` Pasur games, one learner.

Unlike ``DummyVecEnv([PasurSingleAgentEnv] * n)`` there is one
:class:`~pasur_env.Engine` of ``num_envs`` games: the learner's actions are applied
to all games in one engine step, then the opponents act **batched** (one
``agent.act`` call per opponent agent per inner iteration, over every game where
that agent is to move) until every game waits for the learner or has ended. Game
``i`` of ``PasurVecEnv(n, seed=s)`` plays exactly like
``PasurSingleAgentEnv().reset(seed=s + i)`` with the same deterministic opponent.
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

from pasur_env.core.options import TRAINING_DEFAULTS
from pasur_env.core.policy import RandomPolicy, as_opponents
from pasur_env.pasur import kernels as K
from pasur_env.pasur.learner_games import LearnerGames
from pasur_env.pasur.observation import observation_size
from pasur_env.pasur.options import env_options

__all__ = ["PasurVecEnv"]

#: attributes that ``get_attr`` / ``set_attr`` read and write per game
_PER_GAME = ("learner_seat", "opponent_name")


class PasurVecEnv(VecEnv):
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
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)):
            raise TypeError(f"num_envs must be an int, got {num_envs!r}")
        if num_envs < 1:
            raise ValueError(f"num_envs must be >= 1, got {num_envs}")
        self.rules, self.episode, self.reward_mode, self.max_rounds = env_options(
            preset, episode, reward, max_rounds, rule_flags, TRAINING_DEFAULTS
        )
        self.render_mode = None
        pool = as_opponents(RandomPolicy() if opponent is None else opponent)
        self.opponents = pool
        self.games = LearnerGames(
            int(num_envs), self.rules, self.episode, self.reward_mode, self.max_rounds,
            learner_seat, pool, parallel=parallel,
        )
        obs_space = spaces.Box(0.0, 1.0, (observation_size(self.rules),), np.float32)
        super().__init__(int(num_envs), obs_space, spaces.Discrete(K.NUM_ACTIONS))
        if seed is not None:
            self.seed(seed)
        self._reset_all(clear=False)
        self._actions: np.ndarray | None = None

    # ---- episodes ----------------------------------------------------------------------------
    def _reset_all(self, clear: bool) -> np.ndarray:
        seeds = list(self._seeds)
        if any(s is not None for s in seeds):
            first = next(s for s in seeds if s is not None)
            self.opponents.reset(first)
        g = self.games
        g.reset_games(g._all, seeds, self._options)
        if clear:
            self._reset_seeds()
            self._reset_options()
        self.reset_infos = [
            {"learner_seat": int(g.seat[i]), "opponent": g.entry_name[i]}
            for i in range(self.num_envs)
        ]
        return g.observe()

    def reset(self) -> VecEnvObs:
        """Start a new episode in every game (applying seeds/options set since)."""
        self._actions = None
        return self._reset_all(clear=True)

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self) -> VecEnvStepReturn:
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async()")
        acts = np.asarray(self._actions)
        self._actions = None
        if acts.dtype.kind not in "iu":
            if acts.dtype.kind == "f" and np.all(acts == np.round(acts)):
                acts = acts.astype(np.int64)
            else:
                raise TypeError(f"actions must be integers, got dtype {acts.dtype}")
        acts = acts.reshape(-1).astype(np.int64, copy=False)
        if acts.shape != (self.num_envs,):
            raise ValueError(f"expected {self.num_envs} actions, got shape {acts.shape}")
        g = self.games
        g.check_learner_actions(acts, g.learner_masks())
        g.learner_step(acts)
        obs = g.observe()
        rewards = g.pop_rewards()
        dones = g.done.copy()
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(g.round_ended).tolist():
            infos[i] = g.round_info(i)
        ended = np.flatnonzero(dones)
        if ended.size:
            for i in ended.tolist():
                infos[i]["terminal_observation"] = obs[i].copy()
                infos[i]["TimeLimit.truncated"] = bool(g.truncated[i] and not g.terminated[i])
            g.reset_games(ended)
            obs[ended] = g.observe(ended)
            for i in ended.tolist():
                self.reset_infos[i] = {"learner_seat": int(g.seat[i]), "opponent": g.entry_name[i]}
        return obs, rewards, dones, infos

    def close(self) -> None:
        pass

    # ---- masks ---------------------------------------------------------------------------------
    def action_masks(self) -> np.ndarray:
        """(num_envs, 104) bool legal actions of the learner in every game."""
        return self.games.learner_masks().copy()

    # ---- VecEnv plumbing ---------------------------------------------------------------------
    def _indices(self, indices: VecEnvIndices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, (int, np.integer)):
            return [int(indices)]
        assert isinstance(indices, Iterable)
        return [int(i) for i in indices]

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """Per game for ``learner_seat`` and ``opponent_name``; else the shared attribute."""
        idx = self._indices(indices)
        if attr_name == "learner_seat":
            return [int(self.games.seat[i]) for i in idx]
        if attr_name == "opponent_name":
            return [self.games.entry_name[i] for i in idx]
        value = getattr(self, attr_name)
        return [value for _ in idx]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Set a shared attribute (all games share this object's attributes)."""
        if attr_name in _PER_GAME:
            raise AttributeError(f"{attr_name} is read-only per game; use reset options")
        setattr(self, attr_name, value)

    def env_method(
        self,
        method_name: str,
        *method_args: Any,
        indices: VecEnvIndices = None,
        **method_kwargs: Any,
    ) -> list[Any]:
        """``action_masks`` and ``render`` per game; other methods are called once and shared."""
        idx = self._indices(indices)
        if method_name == "action_masks":
            masks = self.games.learner_masks()
            return [masks[i] for i in idx]
        if method_name == "render":
            eng = self.games.engine
            return [eng.render(i, viewer=int(self.games.seat[i])) for i in idx]
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result for _ in idx]

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._indices(indices)]

    def get_images(self) -> list[None]:
        return [None for _ in range(self.num_envs)]
