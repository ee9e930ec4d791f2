"""The single-agent Gymnasium env of either game: one learner seat, over one learner game.

:class:`LearnerEnv` is the Gymnasium face of a
:class:`~pasur_env.core.learner_games.LearnerGames` with one game: reset, step (with
the ``illegal_action`` option), the masks, the legal-action ``action_space`` and
the text render, written once.

The learner's legal actions are where every RL library looks for them:
``info["action_mask"]`` at every ``reset`` and ``step`` (as Gymnasium's Taxi),
:meth:`LearnerEnv.action_masks` (sb3-contrib's ``MaskablePPO``), and with
``mask_in_obs=True`` a dict observation ``{"observation", "action_mask"}`` (as
PettingZoo's classic games). Once an episode has ended no action is legal, but the
mask then allows every action: a Gymnasium vector env's next step resets that game
and ignores its action (``AutoresetMode.NEXT_STEP``), so a loop that samples every
game's action from its mask must find one (:func:`env_masks`). A game's env class
(``PasurSingleAgentEnv``, ``PersianRummySingleAgentEnv``) builds its learner games
from its options, says its observation space and keeps its docs and its table drawing.

When something fails the rule is :mod:`pasur_env.core.learner_games`'s: bad input
raises before anything changes; an exception once the game moved (an opponent or
partner policy, a reward, a render raising inside ``step`` or ``reset``) leaves the
env needing ``reset()``: ``step``, ``action_masks`` and ``render`` raise
``RuntimeError`` saying so until a reset succeeds.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from pasur_env.core.args import action_array, check_bool, is_int
from pasur_env.core.learner_games import LearnerGames
from pasur_env.core.options import (
    check_illegal_action,
    check_render_mode,
    check_seed,
    show_text,
)
from pasur_env.core.spaces import LegalActionSpace

__all__ = ["LearnerEnv", "env_masks", "masked_space", "with_masks"]


def env_masks(games: LearnerGames) -> np.ndarray:
    """(B, A) bool: the learners' legal actions, every action in an ended game (its
    next action is ignored: the game is reset instead), a new array."""
    masks = games.learner_masks().copy()
    masks[games.done] = True
    return masks


def masked_space(observation_space: gymnasium.Space, num_actions: int) -> spaces.Dict:
    """The dict observation space of ``mask_in_obs=True``: PettingZoo's layout, the
    mask as an int8 ``Box(0, 1)`` so that SB3 and Gymnasium's checkers accept it."""
    return spaces.Dict({
        "observation": observation_space,
        "action_mask": spaces.Box(0, 1, (num_actions,), np.int8),
    })


def with_masks(obs: np.ndarray, masks: np.ndarray, mask_in_obs: bool) -> Any:
    """``obs`` as the env returns it: itself, or with ``mask_in_obs`` the dict of
    :func:`masked_space` (one game or a batch)."""
    if not mask_in_obs:
        return obs
    return {"observation": obs, "action_mask": masks.astype(np.int8)}


class LearnerEnv(gymnasium.Env):
    """One learner seat in one game; the other seats move inside :meth:`step`.

    A subclass calls :meth:`_attach` from its ``__init__`` with its learner games, and
    says how to build B of them in :meth:`learner_games` (the Gymnasium vector env of
    :mod:`pasur_env.core.gym_vector` builds its games there).
    """

    games: LearnerGames

    def _attach(
        self, games: LearnerGames, observation_space: gymnasium.Space, num_actions: int,
        illegal_action: str, render_mode: str | None, mask_in_obs: bool = False,
    ) -> None:
        """Check the env's own options and take ``games`` (one game) as its state."""
        self.illegal_action = check_illegal_action(illegal_action)
        self.mask_in_obs = check_bool(mask_in_obs, "mask_in_obs")
        check_render_mode(render_mode, self.metadata["render_modes"])
        self.render_mode = render_mode
        self.games = games
        self.observation_space = (masked_space(observation_space, num_actions)
                                  if self.mask_in_obs else observation_space)
        self.action_space = LegalActionSpace(self, num_actions)
        self._started = False

    @classmethod
    def learner_games(
        cls, num_games: int, parallel: bool | None = None, **options: Any
    ) -> tuple[LearnerGames, gymnasium.Space, int]:
        """``num_games`` games of this env's game built from the env's options (those of
        its constructor but ``illegal_action``, ``render_mode`` and ``mask_in_obs``):
        the games, the observation space of one game and the number of actions."""
        raise NotImplementedError

    def _answer(self, obs: np.ndarray, info: dict[str, Any]) -> Any:
        """The observation as returned and ``info["action_mask"]`` set: the learner's
        legal actions now (:func:`env_masks`)."""
        mask = env_masks(self.games)[0]
        info["action_mask"] = mask
        return with_masks(obs, mask, self.mask_in_obs)

    @property
    def engine(self) -> Any:
        """The one-game engine (read-only use)."""
        return self.games.engine

    @property
    def learner_seat(self) -> int:
        """The learner's seat in the current episode."""
        return int(self.games.seat[0])

    # ---- gymnasium API --------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """A new episode; ``seed`` (int >= 0, numpy ints too) also reseeds the other
        seats' policies and ``action_space``; ``options`` may hold ``deck``, ``dealer``,
        ``learner_seat``. Both are checked before anything changes."""
        seed = check_seed(seed)
        options = self.games.check_reset_options(options)
        info: dict[str, Any] = {}
        super().reset(seed=seed)
        try:
            if seed is not None:
                self.games.reset_players(seed)
                self.action_space.seed(seed)
            self.games.reset_games(np.zeros(1, dtype=np.int64), [seed], [options])
            self._started = True
            info = self.games.reset_info(0)
            obs = self._answer(self.games.observe()[0], info)
            if self.render_mode == "human":
                self.render()
        except BaseException as exc:
            self.games.mark_broken(exc, "reset()")
            raise
        return obs, info

    def action_masks(self) -> np.ndarray:
        """(A,) bool legal actions of the learner, as ``info["action_mask"]`` (all True
        once the episode ended: see the module doc)."""
        if not self._started:
            raise RuntimeError("call reset() before action_masks()")
        self.games.check_usable()
        return env_masks(self.games)[0]

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._started:
            raise RuntimeError("call reset() before step()")
        g = self.games
        g.check_usable()
        if g.done[0]:
            raise RuntimeError("the episode has ended: call reset()")
        info: dict[str, Any] = {}
        if self.illegal_action == "random":
            action = self._legal_or_random(action, info)
        # the one action check (integers only, then legal), as for every policy; the
        # games need reset() if something fails once they moved
        g.learner_step(action)
        try:
            reward = float(g.pop_rewards()[0])
            info.update(g.round_info(0))
            obs = self._answer(g.observe()[0], info)
            if self.render_mode == "human":
                self.render()
        except BaseException as exc:
            g.mark_broken(exc, "step()")
            raise
        return obs, reward, bool(g.terminated[0]), bool(g.truncated[0]), info

    def _legal_or_random(self, action: Any, info: dict[str, Any]) -> np.ndarray:
        """``illegal_action="random"``: an integer action that is not legal (or out of
        range) replaced by a random legal one, reported in ``info["illegal_action"]``;
        anything but an integer still raises ``TypeError``."""
        n = int(self.action_space.n)
        if is_int(action) and not 0 <= action < n:
            info["illegal_action"], action = int(action), -1
        acts = action_array(action, 1, n, who="the learner", low=0).copy()
        masks = self.games.learner_masks()
        if not (0 <= acts[0] < n and masks[0, acts[0]]):
            info.setdefault("illegal_action", int(acts[0]))
            acts[0] = int(self.np_random.choice(np.flatnonzero(masks[0])))
        return acts

    def _scene(self, viewer: int) -> Any:
        """The table seen from ``viewer``, as a drawing of :mod:`pasur_env.core.drawing`."""
        raise NotImplementedError

    def svg(self) -> str:
        """The table from the learner's seat as an SVG picture."""
        from pasur_env.core.drawing import to_svg

        self.games.check_usable()
        return to_svg(self._scene(self.learner_seat))

    def render(self) -> str | np.ndarray | None:
        self.games.check_usable()
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode=")
            return None
        seat = self.learner_seat
        if self.render_mode == "rgb_array":  # the same drawing as svg(), as pixels
            from pasur_env.core.drawing import to_rgb

            return to_rgb(self._scene(seat))
        text = f"view of player_{seat} (learner)\n" + self.engine.render(0, viewer=seat)
        if self.games.done[0]:
            text += "\nepisode over"
        return show_text(text, self.render_mode)

    def close(self) -> None:
        pass
