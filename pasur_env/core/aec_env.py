"""The PettingZoo AEC env of either game over a one-game engine: the agent bookkeeping.

:class:`CardGameAEC` holds what both games' ``raw_env`` share: the agents and their
spaces, reset (``deck``/``dealer`` options, seeded action spaces), the per-agent
rewards, cumulative rewards, terminations, truncations and infos, the action masks in
the observation dict (the mover's legal actions, zeros for every other agent), the
checked ``step``, ``max_rounds`` truncation and the render modes. A game's ``raw_env``
(``pasur_v0``, ``persian_rummy_v0``) builds its engine from its options, encodes an
observation (:meth:`CardGameAEC._observe_seat`), draws its table
(:meth:`CardGameAEC._scene`), and keeps its docs page as its module docstring.

The env never goes out of sync with its engine. ``reset`` checks its seed and options
before it changes anything; ``step`` refuses a bad action (``TypeError`` /
``ValueError``) or an illegal one before anything moves. If a step raises after the
engine moved (a render or reward computation failing), the env is marked as needing
``reset()``: every later ``step``, ``observe``, ``last`` and ``render`` raises
``RuntimeError`` saying so until a ``reset`` succeeds (the same rule as the training
envs of :mod:`pasur_env.core.learner_games`).
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.wrappers.base import BaseWrapper

from pasur_env.core.args import action_array
from pasur_env.core.options import (
    check_render_mode,
    check_reset_options,
    check_seed,
    needs_reset_error,
    show_text,
)
from pasur_env.core.rewards import round_infos, seat_rewards

__all__ = ["CardGameAEC", "CheckedActionWrapper", "AEC_RESET_OPTIONS", "wrap_env"]

#: reset options the AEC envs understand
AEC_RESET_OPTIONS = ("deck", "dealer")


def wrap_env(raw: AECEnv) -> AECEnv:
    """A game's ``raw_env`` in the standard wrappers of its ``env()``.

    An illegal action ends the game with -1 for the offender (TerminateIllegalWrapper);
    a bad action (not an int, out of range) raises before that
    (:class:`CheckedActionWrapper`, a real check where PettingZoo's
    ``AssertOutOfBoundsWrapper`` asserts); the call order is enforced.
    """
    e: AECEnv = wrappers.TerminateIllegalWrapper(raw, illegal_reward=-1)
    e = CheckedActionWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)


class CheckedActionWrapper(BaseWrapper):
    """Refuse an action that is no int in the action space, with ``TypeError`` /
    ``ValueError`` in the env's words, before the wrappers inside index a mask with it
    (asserts vanish under ``python -O``)."""

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if not (self.terminations[agent] or self.truncations[agent]):  # dead steps take None
            action = self.env.unwrapped._as_action(agent, action)
        super().step(action)


class CardGameAEC(AECEnv):
    """A card game as a PettingZoo AEC env over a one-game batched engine.

    A subclass calls :meth:`_attach` from its ``__init__``.
    """

    #: the game's action names, for the message of an illegal action
    action_str: Any = staticmethod(str)

    def _attach(
        self, engine: Any, sides: np.ndarray, num_sides: int, reward: str,
        max_rounds: int | None, render_mode: str | None,
        observation_box: tuple[float, float, int], num_actions: int,
    ) -> None:
        """Take the one-game ``engine`` (``auto_reset=False``) and set up the agents.

        ``sides[s]`` is seat ``s``'s side (for the rewards of
        :mod:`pasur_env.core.rewards`); ``observation_box`` is ``(low, high, N)``.
        """
        check_render_mode(render_mode, self.metadata["render_modes"])
        self.engine = engine
        self._sides, self._num_sides = sides, int(num_sides)
        self.reward_mode = reward
        self.max_rounds = max_rounds
        self.render_mode = render_mode
        #: seat whose view `render` shows; None = the agent to move
        self.viewer: int | None = None
        #: the engine's report of the latest step
        self.last_step_info = None
        self.possible_agents = [f"player_{i}" for i in range(len(sides))]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        low, high, n_obs = observation_box
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(low, high, (n_obs,), np.float32),
                    "action_mask": spaces.Box(0, 1, (num_actions,), np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(num_actions) for a in self.possible_agents}
        self._num_actions = int(num_actions)
        self._obs_cache: dict[str, dict[str, np.ndarray]] = {}
        #: why the env needs ``reset()`` (None: it is usable)
        self._needs_reset: str | None = "reset() has not been called yet"

    @property
    def seat_sides(self) -> np.ndarray:
        """(P,) the side (team) of every seat: the seats its rewards pay together (read by
        :class:`pasur_env.core.all_seats.AllSeatsEnv`, which pays as this env does)."""
        return self._sides.copy()

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ---- what each game says -----------------------------------------------------------------
    def _observe_seat(self, seat: int, live: bool) -> tuple[np.ndarray, np.ndarray]:
        """Fresh arrays: ``seat``'s observation (N,) float32 and its mask (A,) int8 (the
        legal actions if ``live``, else zeros)."""
        raise NotImplementedError

    def _scene(self, viewer: int) -> Any:
        """The table seen from ``viewer``, as a drawing of :mod:`pasur_env.core.drawing`."""
        raise NotImplementedError

    # ---- episode ----------------------------------------------------------------------------
    def _deads_step_first(self) -> str:
        """PettingZoo's hook after the flags were set from outside (TerminateIllegalWrapper
        ends a game this way): the cached observations' masks end with the game. (A hook
        rather than properties on the flags: ``step`` reads them on the hot path.)"""
        self._obs_cache = {}
        return super()._deads_step_first()

    def _refuse(self) -> None:
        raise needs_reset_error(str(self._needs_reset))

    def _break(self, exc: BaseException, where: str) -> None:
        """Mark the env as needing ``reset()`` after ``exc`` interrupted ``where``."""
        self._needs_reset = f"{type(exc).__name__} ({exc}) interrupted {where}"
        self._obs_cache = {}

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """A new game; ``seed`` (int >= 0, numpy ints too) and ``options`` (``deck``,
        ``dealer``) are checked before anything changes."""
        seed = check_seed(seed)
        options = check_reset_options(options, AEC_RESET_OPTIONS)
        # the engine checks the deck and dealer before it changes anything
        self.engine.reset(seed=seed, deck=options.get("deck"), dealer=options.get("dealer"))
        if seed is not None:
            for i, a in enumerate(self.possible_agents):
                self.action_spaces[a].seed(seed + i)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.rounds_played = 0
        self.last_step_info = None
        self._obs_cache = {}
        self.agent_selection = self.possible_agents[int(self.engine.current_player[0])]
        self._needs_reset = None

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        cached = self._obs_cache.get(agent)
        if cached is not None:
            return cached
        if self._needs_reset is not None:
            self._refuse()
        # the mask is the engine's legal actions for the agent to move, zeros for others
        live = (
            agent == self.agent_selection
            and agent in self.terminations
            and not (self.terminations[agent] or self.truncations[agent])
        )
        obs, mask = self._observe_seat(self._seat[agent], live)
        out = {"observation": obs, "action_mask": mask}
        self._obs_cache[agent] = out
        return out

    def _as_action(self, agent: str, action: Any) -> int:
        """``action`` as an int of ``agent``'s action space: ``TypeError`` for anything
        but an int (bools and floats included), ``ValueError`` out of range; the
        legality is the engine's (its step refuses an illegal action before it moves)."""
        if type(action) is int and 0 <= action < self._num_actions:  # the per-step case
            return action
        n = self._num_actions
        # the one check of actions' types (pasur_env.core.args.action_array)
        a = int(action_array(action, 1, n, who=agent, low=0)[0])
        if not 0 <= a < n:
            raise ValueError(f"{agent}: action must be in 0..{n - 1}, got {a}")
        return a

    def step(self, action: Any) -> None:
        if self._needs_reset is not None:
            self._refuse()
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        action = self._as_action(agent, action)
        try:
            info = self.engine.step_single(action)
        except ValueError:  # the engine refuses an illegal action before it moves
            legal = self.engine.legal_actions(0)
            name = self.action_str
            raise ValueError(
                f"illegal action {action} ({name(action)}) for {agent}; legal actions: "
                f"{legal} ({', '.join(name(a) for a in legal)})"
            ) from None
        except BaseException as exc:
            self._break(exc, "step()")
            raise
        try:
            self._book_step(agent, info)
        except BaseException as exc:
            self._break(exc, "step()")
            raise

    def _book_step(self, agent: str, info: Any) -> None:
        """The bookkeeping of one engine step of ``agent``."""
        self.last_step_info = info
        self._cumulative_rewards[agent] = 0.0
        if self.infos[agent]:
            self.infos[agent] = {}
        self._obs_cache = {}
        if info.round_end_at(0):  # rewards are only paid at round ends
            self._round_end(info)
        elif any(self.rewards.values()):
            self.rewards = dict.fromkeys(self.agents, 0.0)
        self.agent_selection = self.possible_agents[int(self.engine.current_player[0])]
        if self.render_mode == "human":
            self.render()

    def _round_end(self, info: Any) -> None:
        """Pay the round, fill the infos, end or truncate the episode."""
        r = seat_rewards(info, self._sides, self._num_sides, self.reward_mode)[0]
        self.rewards = {a: float(r[i]) for i, a in enumerate(self.agents)}
        self._accumulate_rewards()
        self.rounds_played += 1
        points, scores = round_infos(info, self._sides)
        for a in self.agents:
            self.infos[a] = {"round_points": points[0].tolist(), "scores": scores[0].tolist()}
        if info.game_end[0]:
            self.terminations = dict.fromkeys(self.agents, True)
        elif self.max_rounds is not None and self.rounds_played >= self.max_rounds:
            self.truncations = dict.fromkeys(self.agents, True)

    # ---- rendering -----------------------------------------------------------------
    def _viewer(self) -> int:
        return self.viewer if self.viewer is not None else self._seat[self.agent_selection]

    def svg(self) -> str:
        """The table as an SVG picture, from the same view as :meth:`render` (notebooks:
        ``IPython.display.SVG(env.unwrapped.svg())``)."""
        from pasur_env.core.drawing import to_svg

        return to_svg(self._scene(self._viewer()))

    def render(self) -> str | np.ndarray | None:
        if self._needs_reset is not None:
            self._refuse()
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode=")
            return None
        viewer = self._viewer()
        if self.render_mode == "rgb_array":  # the same drawing as svg(), as pixels
            from pasur_env.core.drawing import to_rgb

            return to_rgb(self._scene(viewer))
        text = self.engine.render(0, viewer=viewer)
        if self.engine.done[0]:
            text += "\ngame over"
        else:
            text = f"view of player_{viewer}\n" + text
        return show_text(text, self.render_mode)

    def close(self) -> None:
        pass
