"""Single-agent Gymnasium env of Persian Rummy: one learner seat, three policy seats.

:class:`PersianRummySingleAgentEnv` is :class:`RummyLearnerGames` with one game behind
the Gymnasium API of :class:`pasur_env.core.single_agent.LearnerEnv`, ready for
sb3-contrib's ``MaskablePPO`` (:meth:`action_masks`); this file keeps Persian Rummy's
options, observation size, docs and table drawing.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle

from pasur_env.core.options import check_max_rounds, check_modes
from pasur_env.core.policy import RandomPolicy, as_policy
from pasur_env.core.single_agent import LearnerEnv
from pasur_env.rummy.kernels import state as S
from pasur_env.rummy.learner_games import RummyLearnerGames
from pasur_env.rummy.observation import OBS_SIZE
from pasur_env.rummy.rules import make_rummy_rules

__all__ = ["PersianRummySingleAgentEnv"]


class PersianRummySingleAgentEnv(LearnerEnv, EzPickle):
    """
    ## Description

    Persian Rummy (``docs/persian_rummy.md``) for one learning agent. The learner sits
    at ``learner_seat``; its partner (the seat opposite) is played by ``partner`` and
    the other team by ``opponent``: objects following :class:`pasur_env.Policy` (or
    callables ``(obs, mask) -> action``); default uniformly random legal play. They
    move inside :meth:`step` until it is the learner's turn or the episode ends.

    ## Spaces

    Actions ``Discrete(245)`` as in ``persian_rummy_v0``; only legal ones may be
    played (``info["action_mask"]`` at every ``reset`` and ``step``,
    :meth:`action_masks`, and ``action_space.sample()`` draws among them; an illegal
    action raises ``ValueError``, or with ``illegal_action="random"`` is replaced by a
    random legal one and reported in ``info["illegal_action"]``). Observations
    ``Box(-1, 1, (685,), float32)``: the learner's view
    (:mod:`pasur_env.rummy.observation`); with ``mask_in_obs=True`` the dict
    ``{"observation": <that Box>, "action_mask": Box(0, 1, (245,), int8)}``.

    ## Rewards and episodes

    The learner's seat's reward summed over its action and the others' moves that
    follow: ``diff`` (default; own team's round points minus the other's at each
    round end), ``points`` or ``win`` (+1/-1/0 at the episode end). ``episode="round"``
    (default) or ``"game"`` (two deals); ``max_rounds`` truncates. ``info`` holds
    ``round_points`` and ``scores`` at a step where a round ended. ``reset(seed,
    options={"deck", "dealer", "learner_seat"})``; ``learner_seat="random"`` draws the
    seat per episode (seeded). ``render_mode`` is ``"ansi"``, ``"human"`` or
    ``"rgb_array"`` (the table from the learner's seat; :meth:`svg` gives it as SVG).

    ## When something fails

    Bad input raises before anything changes; if a partner, opponent, reward or render
    raises inside ``step`` or ``reset``, the env needs ``reset()`` and says so
    (``RuntimeError``) at every call until then (:mod:`pasur_env.core.learner_games`).

    ## Version History

    * v0: initial release.
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 1}

    def __init__(self, opponent: Any = None, partner: Any = None, learner_seat: int | str = 0,
                 episode: str = "round", reward: str = "diff", max_rounds: int | None = None,
                 illegal_action: str = "raise", render_mode: str | None = None,
                 mask_in_obs: bool = False, **rule_flags: Any) -> None:
        EzPickle.__init__(self, opponent=opponent, partner=partner, learner_seat=learner_seat,
                          episode=episode, reward=reward, max_rounds=max_rounds,
                          illegal_action=illegal_action, render_mode=render_mode,
                          mask_in_obs=mask_in_obs, **rule_flags)
        games, obs_space, num_actions = self.learner_games(
            1, False, opponent=opponent, partner=partner, learner_seat=learner_seat,
            episode=episode, reward=reward, max_rounds=max_rounds, **rule_flags)
        self.opponent, self.partner = games.opponent, games.partner
        self._attach(games, obs_space, num_actions, illegal_action, render_mode, mask_in_obs)

    @classmethod
    def learner_games(
        cls, num_games: int, parallel: bool | None = None, opponent: Any = None,
        partner: Any = None, learner_seat: int | str = 0, episode: str = "round",
        reward: str = "diff", max_rounds: int | None = None, **rule_flags: Any,
    ) -> tuple[RummyLearnerGames, spaces.Box, int]:
        """``num_games`` games with this env's options (the constructor's)."""
        check_modes(reward, episode)
        opponent = as_policy(RandomPolicy() if opponent is None else opponent)
        partner = as_policy(RandomPolicy() if partner is None else partner)
        games = RummyLearnerGames(num_games, make_rummy_rules(**rule_flags), episode, reward,
                                  check_max_rounds(max_rounds), learner_seat, opponent,
                                  partner, parallel=parallel)
        return games, spaces.Box(-1.0, 1.0, (OBS_SIZE,), np.float32), S.NUM_ACTIONS

    def _scene(self, viewer: int) -> Any:
        from pasur_env.rummy.drawing import rummy_table_scene

        return rummy_table_scene(self.engine, 0, viewer)
