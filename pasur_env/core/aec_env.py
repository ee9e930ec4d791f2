"""The PettingZoo AEC env of either game over a one-game engine: the agent bookkeeping.

:class:`CardGameAEC` holds what both games' ``raw_env`` share: the agents and their
spaces, reset (``deck``/``dealer`` options, seeded action spaces), the per-agent
rewards, cumulative rewards, terminations, truncations and infos, the action masks in
the observation dict (the mover's legal actions, zeros for every other agent), the
checked ``step``, ``max_rounds`` truncation and the render modes. A game's ``raw_env``
(``pasur_v0``, ``persian_rummy_v0``) builds its engine from its options, encodes an
observation (:meth:`CardGameAEC._observe_seat`), draws its table
(:meth:`CardGameAEC._scene`), and keeps its docs page as its module docstring.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from pasur_env.core.options import check_render_mode, show_text
from pasur_env.core.rewards import round_infos, seat_rewards

__all__ = ["CardGameAEC"]


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
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        options = dict(options or {})
        unknown = set(options) - {"deck", "dealer"}
        if unknown:  # gymnasium convention: other options are ignored (api_test sends some)
            gymnasium.logger.warn(f"ignoring unknown reset option(s) {sorted(unknown)}")
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
        self._obs_cache: dict[str, dict[str, np.ndarray]] = {}
        self.agent_selection = self.possible_agents[int(self.engine.current_player[0])]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        cached = self._obs_cache.get(agent)
        if cached is not None:
            return cached
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
        if isinstance(action, np.ndarray) and action.shape in ((), (1,)) and np.issubdtype(
                action.dtype, np.integer):
            return int(action.reshape(-1)[0])
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            n = self.action_spaces[agent].n
            raise TypeError(f"{agent}: action must be an int in 0..{n - 1}, got {action!r}")
        return int(action)

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        action = self._as_action(agent, action)
        try:
            info = self.engine.step_single(action)
        except ValueError:
            legal = self.engine.legal_actions(0)
            name = self.action_str
            raise ValueError(
                f"illegal action {action} ({name(action)}) for {agent}; legal actions: "
                f"{legal} ({', '.join(name(a) for a in legal)})"
            ) from None
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
