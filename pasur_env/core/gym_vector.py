"""Gymnasium ``VectorEnv`` over one batched engine, for either game: ``gymnasium.make_vec``.

``gymnasium.make_vec("pasur_env/Pasur-v0", num_envs=64)`` builds a
:class:`LearnerVectorEnv`: the games of the id's single-agent env
(:class:`~pasur_env.core.single_agent.LearnerEnv`), ``num_envs`` of them in one engine
(the learner's actions go to every game in one engine step, the other seats act
batched), behind Gymnasium's vector API. It needs no Stable-Baselines3 (its ``VecEnv``
is :mod:`pasur_env.core.vector_env`).

Both of Gymnasium's autoreset modes (``autoreset_mode=``, default ``NEXT_STEP``):

* ``NEXT_STEP``: a game that ended in a step stays ended in what that step returns;
  the next step ignores its action and starts its next episode (reward 0, reset info).
* ``SAME_STEP``: a game that ended is restarted in the same step;
  ``info["final_obs"]`` and ``info["final_info"]`` hold its last observation and info.

The learner's legal actions are in ``info["action_mask"]`` (``(num_envs, A)`` bool,
with ``info["_action_mask"]``) after every ``reset`` and ``step``, and in
:meth:`LearnerVectorEnv.action_masks` (also ``call("action_masks")``): those of the
episode each game is in, the new one right after an auto-reset. A game that ended and
waits for its ``NEXT_STEP`` reset allows every action (it is ignored), so that a loop
sampling each game's action from its mask always finds one. With ``mask_in_obs=True``
the observation is the dict ``{"observation", "action_mask"}``.

Seeds follow Gymnasium's vector envs: ``reset(seed=s)`` deals game ``i`` as the
single-agent env's ``reset(seed=s + i)``. Errors follow
:mod:`pasur_env.core.learner_games`: bad input raises before anything changes.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from pasur_env.core.args import check_bool
from pasur_env.core.options import check_num_envs, check_seed
from pasur_env.core.plugins import load_object
from pasur_env.core.single_agent import env_masks, masked_space, with_masks

__all__ = ["LearnerVectorEnv", "make_vector_env"]

#: the autoreset modes this env implements
AUTORESET_MODES = (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP)


def _autoreset_mode(mode: Any) -> AutoresetMode:
    """``mode`` (an :class:`AutoresetMode` or its value) checked against :data:`AUTORESET_MODES`."""
    names = ", ".join(repr(m.value) for m in AUTORESET_MODES)
    try:
        mode = AutoresetMode(mode)
    except ValueError:
        raise ValueError(f"autoreset_mode must be one of {names}, got {mode!r}") from None
    if mode not in AUTORESET_MODES:
        raise ValueError(f"autoreset_mode must be one of {names}, got {mode!r}")
    return mode


class LearnerVectorEnv(VectorEnv):
    """``num_envs`` games of ``env_class`` for one learner as a Gymnasium ``VectorEnv``.

    Args:
        env_class: a :class:`~pasur_env.core.single_agent.LearnerEnv` subclass (its
            :meth:`~pasur_env.core.single_agent.LearnerEnv.learner_games` builds the games).
        num_envs: number of games (one engine batch).
        autoreset_mode: ``"NextStep"`` (default) or ``"SameStep"`` (see the module doc).
        mask_in_obs: observations as the dict ``{"observation", "action_mask"}``.
        parallel: engine kernels multi-threaded (default: from 512 games).
        **options: the single-agent env's options (``opponent``, ``reward``, rule flags...).
    """

    def __init__(
        self, env_class: type, num_envs: int = 1, *,
        autoreset_mode: str | AutoresetMode = AutoresetMode.NEXT_STEP,
        mask_in_obs: bool = False, parallel: bool | None = None, **options: Any,
    ) -> None:
        self.num_envs = check_num_envs(num_envs)
        self.autoreset_mode = _autoreset_mode(autoreset_mode)
        self.mask_in_obs = check_bool(mask_in_obs, "mask_in_obs")
        self.games, single_obs, num_actions = env_class.learner_games(
            self.num_envs, parallel, **options)
        self.metadata = {"autoreset_mode": self.autoreset_mode}
        self.render_mode = None
        if self.mask_in_obs:
            single_obs = masked_space(single_obs, num_actions)
        self.single_observation_space = single_obs
        self.observation_space = batch_space(single_obs, self.num_envs)
        self.single_action_space = gymnasium.spaces.Discrete(num_actions)
        self.action_space = gymnasium.spaces.MultiDiscrete(
            np.full(self.num_envs, num_actions, dtype=np.int64))
        self._started = False

    # ---- episodes ----------------------------------------------------------------------------
    def reset(
        self, *, seed: int | list[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[Any, dict[str, Any]]:
        """A new episode in every game. ``seed``: an int (game ``i`` gets ``seed + i``)
        or one seed per game; ``options``: reset options (``deck``, ``dealer``,
        ``learner_seat``) for every game. Checked before anything changes."""
        g = self.games
        seeds = self._seeds(seed)
        opts = g.check_reset_options(options)
        first = next((s for s in seeds if s is not None), None)
        if first is not None:
            self._np_random, self._np_random_seed = seeding.np_random(first)
        g.restart_all(seeds, [opts] * self.num_envs)
        self._started = True
        info = {"learner_seat": g.seat.copy(), "_learner_seat": np.ones(self.num_envs, bool)}
        return self._answer(g.observe(), info), info

    def _seeds(self, seed: Any) -> list[int | None]:
        """One checked seed (or None) per game."""
        if seed is None or not isinstance(seed, (list, tuple)):
            first = check_seed(seed)
            if first is None:
                return [None] * self.num_envs
            return [first + i for i in range(self.num_envs)]
        if len(seed) != self.num_envs:
            raise ValueError(f"seed must be an int or {self.num_envs} seeds, got {len(seed)}")
        return [check_seed(s) for s in seed]

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict]:
        """Every game's learner plays its action (ignored in a game waiting for its
        ``NEXT_STEP`` reset); the others play until each learner is to move again."""
        if not self._started:
            raise RuntimeError("call reset() before step()")
        g = self.games
        g.check_usable()
        pending = np.flatnonzero(g.done) if self.autoreset_mode is AutoresetMode.NEXT_STEP \
            else np.zeros(0, np.int64)
        if pending.size < self.num_envs:
            g.learner_step(actions)  # the one action check; ended games' actions ignored
        else:
            g.check_learner_actions(actions, pending[:0])  # only its type and shape
        try:
            return self._results(pending)
        except BaseException as exc:
            g.mark_broken(exc, "step()")
            raise

    def _results(self, pending: np.ndarray) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray,
                                                     dict]:
        """What :meth:`step` returns: ``pending`` games (ended before) restarted, and in
        ``SAME_STEP`` mode the games that ended now."""
        g = self.games
        rewards = g.pop_rewards().astype(np.float64)
        terminated, truncated = g.terminated.copy(), g.truncated.copy()
        rounds = self._round_info(pending)
        info = dict(rounds)
        if pending.size:
            g.reset_games(pending)
            rewards[pending] = 0.0
            terminated[pending] = truncated[pending] = False
        obs = g.observe()
        ended = np.flatnonzero(g.done) if self.autoreset_mode is AutoresetMode.SAME_STEP \
            else np.zeros(0, np.int64)
        if ended.size:
            masks = env_masks(g)
            for i in ended.tolist():
                final_info = {k: v[i] for k, v in rounds.items() if not k.startswith("_")
                              and rounds[f"_{k}"][i]}
                final_info["action_mask"] = masks[i]
                self._add_info(info, {"final_obs": with_masks(obs[i].copy(), masks[i],
                                                              self.mask_in_obs),
                                      "final_info": final_info}, i)
            g.reset_games(ended)
            obs[ended] = g.observe(ended)
        restarted = np.concatenate([pending, ended])
        if restarted.size:
            seat = np.zeros(self.num_envs, np.int64)
            seat[restarted] = g.seat[restarted]
            has = np.zeros(self.num_envs, bool)
            has[restarted] = True
            info["learner_seat"], info["_learner_seat"] = seat, has
        return self._answer(obs, info), rewards, terminated, truncated, info

    def _round_info(self, pending: np.ndarray) -> dict[str, Any]:
        """``round_points`` and ``scores`` ((num_envs, P) arrays) of the games whose
        round ended in this step (not the ``pending`` ones, which did not move), with
        their ``_`` masks (Gymnasium's vector infos)."""
        g = self.games
        has = g.round_ended.copy()
        has[pending] = False
        if not has.any():
            return {}
        return {"round_points": np.where(has[:, None], g.round_points, 0), "_round_points": has,
                "scores": np.where(has[:, None], g.scores, 0), "_scores": has.copy()}

    def _answer(self, obs: np.ndarray, info: dict[str, Any]) -> Any:
        """The observations as returned, with the masks in ``info`` (and in them)."""
        masks = env_masks(self.games)
        info["action_mask"], info["_action_mask"] = masks, np.ones(self.num_envs, bool)
        return with_masks(obs, masks, self.mask_in_obs)

    # ---- masks and attributes ------------------------------------------------------------------
    def action_masks(self) -> np.ndarray:
        """(num_envs, A) bool legal actions of the learner in every game (see the module doc)."""
        if not self._started:
            raise RuntimeError("call reset() before action_masks()")
        self.games.check_usable()
        return env_masks(self.games)

    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        """Per game: ``action_masks`` (each game's row) and ``learner_seat``; any other
        attribute or method of this env is read (called) once and given to every game."""
        if name == "action_masks":
            return tuple(self.action_masks())
        if name == "learner_seat":
            return tuple(int(s) for s in self.games.seat)
        value = getattr(self, name)
        if callable(value):
            value = value(*args, **kwargs)
        return tuple(value for _ in range(self.num_envs))

    def get_attr(self, name: str) -> tuple[Any, ...]:
        """Per game, as :meth:`call` without arguments."""
        return self.call(name)


def make_vector_env(single_agent_path: str, num_envs: int = 1, **kwargs: Any) -> LearnerVectorEnv:
    """Gymnasium's vector entry point of a game: its single-agent env class, given by
    ``module:Class`` (loaded now, not when the id is registered), in a :class:`LearnerVectorEnv`."""
    return LearnerVectorEnv(load_object(single_agent_path), num_envs, **kwargs)
