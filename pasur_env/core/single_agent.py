"""The single-agent Gymnasium env of either game: one learner seat, over one learner game.

:class:`LearnerEnv` is the Gymnasium face of a
:class:`~pasur_env.core.learner_games.LearnerGames` with one game: reset, step (with
the ``illegal_action`` option), the masks for sb3-contrib's ``MaskablePPO``, the
legal-action ``action_space`` and the text render, written once. A game's env class
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

from pasur_env.core.args import action_array, is_int
from pasur_env.core.learner_games import LearnerGames
from pasur_env.core.options import (
    check_illegal_action,
    check_render_mode,
    check_seed,
    show_text,
)
from pasur_env.core.spaces import LegalActionSpace

__all__ = ["LearnerEnv"]


class LearnerEnv(gymnasium.Env):
    """One learner seat in one game; the other seats move inside :meth:`step`.

    A subclass calls :meth:`_attach` from its ``__init__`` with its learner games.
    """

    games: LearnerGames

    def _attach(
        self, games: LearnerGames, observation_space: gymnasium.Space, num_actions: int,
        illegal_action: str, render_mode: str | None,
    ) -> None:
        """Check the env's own options and take ``games`` (one game) as its state."""
        self.illegal_action = check_illegal_action(illegal_action)
        check_render_mode(render_mode, self.metadata["render_modes"])
        self.render_mode = render_mode
        self.games = games
        self.observation_space = observation_space
        self.action_space = LegalActionSpace(self, num_actions)
        self._started = False

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
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """A new episode; ``seed`` (int >= 0, numpy ints too) also reseeds the other
        seats' policies and ``action_space``; ``options`` may hold ``deck``, ``dealer``,
        ``learner_seat``. Both are checked before anything changes."""
        seed = check_seed(seed)
        options = self.games.check_reset_options(options)
        super().reset(seed=seed)
        try:
            if seed is not None:
                self.games.reset_players(seed)
                self.action_space.seed(seed)
            self.games.reset_games(np.zeros(1, dtype=np.int64), [seed], [options])
            self._started = True
            obs = self.games.observe()[0]
            if self.render_mode == "human":
                self.render()
        except BaseException as exc:
            self.games.mark_broken(exc, "reset()")
            raise
        return obs, self.games.reset_info(0)

    def action_masks(self) -> np.ndarray:
        """(A,) bool legal actions of the learner (all False once the episode ended)."""
        if not self._started:
            raise RuntimeError("call reset() before action_masks()")
        self.games.check_usable()
        return self.games.learner_masks()[0].copy()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
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
            obs = g.observe()[0]
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
