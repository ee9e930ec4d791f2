"""Stable-Baselines3 ``VecEnv`` over one batched engine, for either game: the plumbing.

:class:`LearnerVecEnv` is the ``VecEnv`` face of a
:class:`~pasur_env.core.learner_games.LearnerGames` of ``num_envs`` games: the
learner's actions go to every game in one engine step, then the other seats act
batched until every game waits for its learner. Semantics are SB3's: a game whose
episode ended reports ``done=True`` with ``infos[i]["terminal_observation"]`` (and
``"TimeLimit.truncated"``) and already holds the next episode's first observation;
``seed(s)`` seeds game ``i`` with ``s + i`` at the next :meth:`reset`. Written once
here; a game's vector env (``PasurVecEnv``, ``PersianRummyVecEnv``) builds its learner
games from its options and says its observation space. Needs stable-baselines3.

When something fails the rule is :mod:`pasur_env.core.learner_games`'s: bad actions,
seeds or reset options raise before anything changes; an exception once the games
moved (a policy, a reward raising inside ``step_wait`` or ``reset``) leaves the env
needing ``reset()``: ``step`` and ``action_masks`` raise ``RuntimeError`` saying so
until a ``reset()`` succeeds.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
from gymnasium import spaces

from pasur_env.core.extras import missing_extra
from pasur_env.core.learner_games import LearnerGames
from pasur_env.core.options import check_seed

try:
    from stable_baselines3.common.vec_env.base_vec_env import (
        VecEnv,
        VecEnvIndices,
        VecEnvObs,
        VecEnvStepReturn,
    )
except ImportError as e:
    raise missing_extra("the vector envs (PasurVecEnv, PersianRummyVecEnv)", "train", e) from None

__all__ = ["LearnerVecEnv"]


class LearnerVecEnv(VecEnv):
    """``num_envs`` games for one learner as an SB3 ``VecEnv`` (see the module doc).

    A subclass calls :meth:`_attach` from its ``__init__`` with its learner games.
    """

    games: LearnerGames

    def _attach(
        self, games: LearnerGames, observation_space: spaces.Space, num_actions: int,
        seed: int | None, keep_seed: bool,
    ) -> None:
        """Take ``games`` and deal every game.

        ``seed`` seeds this first deal; with ``keep_seed`` it also seeds the first
        :meth:`reset` (which then deals the same games again), else that reset deals
        new ones.
        """
        self.render_mode = None
        self.games = games
        super().__init__(games.num_games, observation_space, spaces.Discrete(num_actions))
        self._actions: np.ndarray | None = None
        if seed is not None:
            self.seed(seed)
        self._reset_all(clear=not keep_seed)

    # ---- episodes ----------------------------------------------------------------------------
    def _reset_all(self, clear: bool) -> np.ndarray:
        g = self.games
        seeds = [check_seed(s) for s in self._seeds]  # checked before anything changes
        options = [g.check_reset_options(o) for o in self._options]
        g.restart_all(seeds, options)
        if clear:
            self._reset_seeds()
            self._reset_options()
        self.reset_infos = [g.reset_info(i) for i in range(self.num_envs)]
        return g.observe()

    def seed(self, seed: int | None = None) -> list[int | None]:
        """SB3's ``seed`` (game ``i`` gets ``seed + i`` at the next :meth:`reset`) after
        the project's seed check: a bool, float or negative seed raises here, at once."""
        return super().seed(check_seed(seed))

    def reset(self) -> VecEnvObs:
        """Start a new episode in every game (applying seeds/options set since)."""
        self._actions = None
        return self._reset_all(clear=True)

    def step_async(self, actions: np.ndarray) -> None:
        if actions is None:  # else step_wait would say that step_async was not called
            raise TypeError("actions must be an integer array, got None")
        self._actions = actions

    def step_wait(self) -> VecEnvStepReturn:
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async()")
        acts, self._actions = self._actions, None
        g = self.games
        # the one action check (integers of shape (num_envs,), legal), as for every
        # policy; marks the games as needing reset() if something fails half-way
        g.learner_step(acts)
        try:
            return self._step_results()
        except BaseException as exc:
            g.mark_broken(exc, "step()")
            raise

    def _step_results(self) -> VecEnvStepReturn:
        """What :meth:`step_wait` returns, ended games restarted."""
        g = self.games
        obs = g.observe()
        rewards = g.pop_rewards()
        dones = g.done.copy()
        infos = [g.round_info(i) for i in range(self.num_envs)]
        ended = np.flatnonzero(dones)
        if ended.size:
            for i in ended.tolist():
                infos[i]["terminal_observation"] = obs[i].copy()
                infos[i]["TimeLimit.truncated"] = bool(g.truncated[i] and not g.terminated[i])
            g.reset_games(ended)
            obs[ended] = g.observe(ended)
            for i in ended.tolist():
                self.reset_infos[i] = g.reset_info(i)
        return obs, rewards, dones, infos

    def close(self) -> None:
        pass

    # ---- masks ---------------------------------------------------------------------------------
    def action_masks(self) -> np.ndarray:
        """(num_envs, A) bool legal actions of the learner in every game."""
        self.games.check_usable()
        return self.games.learner_masks().copy()

    # ---- VecEnv plumbing ---------------------------------------------------------------------
    def _per_game(self) -> dict[str, Callable[[int], Any]]:
        """The attributes ``get_attr`` reads per game (read-only)."""
        return {"learner_seat": lambda i: int(self.games.seat[i])}

    def _indices(self, indices: VecEnvIndices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, (int, np.integer)) and not isinstance(indices, bool):
            return [int(indices)]
        if not isinstance(indices, Iterable) or isinstance(indices, (str, bytes)):
            raise TypeError(f"indices must be None, an int or ints, got {indices!r}")
        return [int(i) for i in indices]

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """Per game for the attributes of :meth:`_per_game`; else the shared attribute."""
        idx = self._indices(indices)
        per_game = self._per_game().get(attr_name)
        if per_game is not None:
            return [per_game(i) for i in idx]
        value = getattr(self, attr_name)
        return [value for _ in idx]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Set a shared attribute (all games share this object's attributes)."""
        if attr_name in self._per_game():
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
            masks = self.action_masks()  # refuses an env that needs reset()
            return [masks[i] for i in idx]
        if method_name == "render":
            self.games.check_usable()
            eng = self.games.engine
            return [eng.render(i, viewer=int(self.games.seat[i])) for i in idx]
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result for _ in idx]

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._indices(indices)]

    def get_images(self) -> list[None]:
        return [None for _ in range(self.num_envs)]
