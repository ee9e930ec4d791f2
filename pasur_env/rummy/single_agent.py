"""Single-agent Gymnasium env of Persian Rummy: one learner seat, three policy seats.

:class:`PersianRummySingleAgentEnv` is :class:`RummyLearnerGames` with one game behind
the Gymnasium API, ready for sb3-contrib's ``MaskablePPO`` (:meth:`action_masks`).
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle

from pasur_env.core.options import check_modes, check_render_mode
from pasur_env.core.policy import RandomPolicy, as_policy
from pasur_env.core.spaces import LegalActionSpace
from pasur_env.rummy.kernels import state as S
from pasur_env.rummy.learner_games import RummyLearnerGames
from pasur_env.rummy.observation import OBS_SIZE
from pasur_env.rummy.rules import make_rummy_rules

__all__ = ["PersianRummySingleAgentEnv"]


class PersianRummySingleAgentEnv(gymnasium.Env, EzPickle):
    """
    ## Description

    Persian Rummy (``docs/persian_rummy.md``) for one learning agent. The learner sits
    at ``learner_seat``; its partner (the seat opposite) is played by ``partner`` and
    the other team by ``opponent``: objects following :class:`pasur_env.Policy` (or
    callables ``(obs, mask) -> action``); default uniformly random legal play. They
    move inside :meth:`step` until it is the learner's turn or the episode ends.

    ## Spaces

    Actions ``Discrete(245)`` as in ``persian_rummy_v0``; only legal ones may be played
    (:meth:`action_masks`, and ``action_space.sample()`` draws among them; an illegal
    action raises ``ValueError``, or with ``illegal_action="random"`` is replaced by a
    random legal one and reported in ``info["illegal_action"]``). Observations
    ``Box(-1, 1, (685,), float32)``: the learner's view
    (:mod:`pasur_env.rummy.observation`).

    ## Rewards and episodes

    The learner's seat's reward summed over its action and the others' moves that
    follow: ``diff`` (default; own team's round points minus the other's at each
    round end), ``points`` or ``win`` (+1/-1/0 at the episode end). ``episode="round"``
    (default) or ``"game"`` (two deals); ``max_rounds`` truncates. ``info`` holds
    ``round_points`` and ``scores`` at a step where a round ended. ``reset(seed,
    options={"deck", "dealer", "learner_seat"})``.

    ## Version History

    * v0: initial release.
    """

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 1}

    def __init__(self, opponent: Any = None, partner: Any = None, learner_seat: int = 0,
                 episode: str = "round", reward: str = "diff", max_rounds: int | None = None,
                 illegal_action: str = "raise", render_mode: str | None = None,
                 **rule_flags: Any) -> None:
        EzPickle.__init__(self, opponent=opponent, partner=partner, learner_seat=learner_seat,
                          episode=episode, reward=reward, max_rounds=max_rounds,
                          illegal_action=illegal_action, render_mode=render_mode, **rule_flags)
        if illegal_action not in ("raise", "random"):
            raise ValueError(f"illegal_action must be 'raise' or 'random', got {illegal_action!r}")
        self.illegal_action = illegal_action
        check_modes(reward, episode)
        check_render_mode(render_mode, self.metadata["render_modes"])
        if isinstance(learner_seat, bool) or not isinstance(learner_seat, (int, np.integer)) \
                or not 0 <= learner_seat < 4:
            raise ValueError(f"learner_seat must be a seat 0..3, got {learner_seat!r}")
        rules = make_rummy_rules(**rule_flags)
        self.opponent = as_policy(RandomPolicy() if opponent is None else opponent)
        self.partner = as_policy(RandomPolicy() if partner is None else partner)
        self.games = RummyLearnerGames(1, rules, episode, reward, max_rounds, int(learner_seat),
                                       self.opponent, self.partner, parallel=False)
        self.render_mode = render_mode
        self.observation_space = spaces.Box(-1.0, 1.0, (OBS_SIZE,), np.float32)
        self.action_space = LegalActionSpace(self, n=S.NUM_ACTIONS)
        self._started = False

    @property
    def engine(self) -> Any:
        """The one-game :class:`RummyEngine` (read-only use)."""
        return self.games.engine

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self.opponent.reset(seed)
            self.partner.reset(seed + 1)
            self.action_space.seed(seed)
        self.games.reset_game(0, seed=seed, options=options)
        self._started = True
        return self.games.observe()[0], {"learner_seat": int(self.games.seat[0])}

    def action_masks(self) -> np.ndarray:
        """(245,) bool legal actions of the learner (all False once the episode ended)."""
        if not self._started:
            raise RuntimeError("call reset() before action_masks()")
        return self.games.learner_masks()[0]

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if not self._started:
            raise RuntimeError("call reset() before step()")
        g = self.games
        if g.done[0]:
            raise RuntimeError("the episode has ended: call reset()")
        if isinstance(action, np.ndarray) and action.shape in ((), (1,)):
            action = action.reshape(-1)[0]
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise TypeError(f"action must be an int in 0..244, got {action!r}")
        acts = np.array([int(action)], dtype=np.int64)
        mask = g.learner_masks()[0]
        replaced = self.illegal_action == "random" and not (
            0 <= acts[0] < S.NUM_ACTIONS and mask[acts[0]])
        if replaced:
            acts[0] = int(self.np_random.choice(np.flatnonzero(mask)))
        g.learner_step(acts)
        reward = float(g.pop_rewards()[0])
        obs = g.observe()[0]
        info = g.pop_info(0)
        if replaced:
            info["illegal_action"] = int(action)
        if self.render_mode == "human":
            self.render()
        return obs, reward, bool(g.terminated[0]), bool(g.truncated[0]), info

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode=")
            return None
        seat = int(self.games.seat[0])
        text = f"view of player_{seat} (learner)\n" + self.engine.render(0, viewer=seat)
        if self.render_mode == "human":
            print(text + "\n")
            return None
        return text

    def close(self) -> None:
        pass
