"""Single-agent Gymnasium env: one learner seat against opponents, over the batched engine.

:class:`PasurSingleAgentEnv` is :class:`~pasur_env.pasur.learner_games.LearnerGames` with one
game (the vector env has B of them), behind the Gymnasium API of
:class:`pasur_env.core.single_agent.LearnerEnv`; this file keeps Pasur's options,
observation size, docs and table drawing.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle

from pasur_env.core.options import TRAINING_DEFAULTS
from pasur_env.core.policy import RandomPolicy, as_opponents
from pasur_env.core.single_agent import LearnerEnv
from pasur_env.pasur import kernels as K
from pasur_env.pasur.drawing import table_scene
from pasur_env.pasur.learner_games import LearnerGames
from pasur_env.pasur.observation import observation_size
from pasur_env.pasur.options import env_options

__all__ = ["PasurSingleAgentEnv"]


class PasurSingleAgentEnv(LearnerEnv, EzPickle):
    """
    ## Description

    Pasur (Pasoor, Chahâr Barg), the Persian fishing card game, for one learning agent.
    The learner sits at one seat; every other seat is played by an opponent (any
    object following the :class:`pasur_env.Policy` protocol, such as the agents that
    ``agents.make_agent`` builds, a callable, or an :class:`~pasur_env.OpponentSource`
    such as ``agents.OpponentPool`` for self-play) that moves inside :meth:`step` until
    it is the learner's turn again or the episode ends. The rules are those of
    ``docs/rules.md``, computed by the batched engine (:class:`pasur_env.Engine`, one
    game, ``auto_reset=False``); this class holds no rule logic.

    ## Action Space

    ``Discrete(104)``: ``0..51`` play card id ``4 * rank + suit`` (A♣ = 0 ... K♠ = 51),
    ``52..103`` take table card ``a - 52`` while choosing a capture (a played card with
    several capture options is followed by the learner's TAKE actions, one table card
    at a time in ascending id order). Only legal actions may be played:
    ``info["action_mask"]`` at every ``reset`` and ``step`` and :meth:`action_masks`
    (for sb3-contrib's ``MaskablePPO``) give them, and ``action_space.sample()`` draws
    among them. An illegal action raises
    ``ValueError`` naming it and the legal ones (``illegal_action="random"`` replaces
    it by a random legal action instead, and sets ``info["illegal_action"]``).

    ## Observation Space

    ``Box(0, 1, (N,), float32)``, the learner's own view (``pasur_env.pasur.observation``;
    N = 957 for 2 players, 1015 for 3, 963 for 4): own hand, table, each side's pile,
    unseen cards, pending card and selection, phase, clubs/surs/scores per side, deal,
    stock, hand sizes, relative dealer and last capturer, and what each hand card can
    capture now. It never shows another
    seat's hidden cards. After the episode ends it is the learner's view of the final
    state. With ``mask_in_obs=True`` the observation is the dict
    ``{"observation": <that Box>, "action_mask": Box(0, 1, (104,), int8)}``.

    ## Rewards

    The learner's seat's reward, summed over its own action and the opponents' moves
    that follow (a round that ends on an opponent's move is paid in that step):

    | ``reward`` | when | amount |
    |---|---|---|
    | ``diff`` (default) | each round end | own side's round points minus the others' mean |
    | ``points`` | each round end | own side's round points |
    | ``win`` | episode end | +1 if the learner's side won, -1 if it lost, 0 on a tie |

    At a step in which a round ended, ``info`` holds ``round_points`` and ``scores``
    (lists of P: each seat's side's points that round and game score after it).

    ## Starting State

    A shuffled deal (seeded by ``reset(seed=...)``) with the learner to move: the
    opponents before it in turn order have already played.

    ## Episode End

    ``episode="round"`` (default): after one round (48 turns). ``episode="game"``:
    when a side has at least ``target_score`` and more than every other side.
    ``max_rounds`` truncates a game. ``reset(seed, options={"deck": [...],
    "dealer": d, "learner_seat": s})`` fixes the first deck, the dealer, the seat.

    ## Arguments

    ``gymnasium.make("pasur_env/Pasur-v0", opponent=None, learner_seat=0,
    preset=None, episode=None, reward=None, max_rounds=None, illegal_action="raise",
    render_mode=None, mask_in_obs=False, **rule_flags)``

    * ``opponent``: a :class:`pasur_env.Policy` (e.g. ``agents.make_agent("greedy")``),
      a callable ``(obs, mask) -> action``, or an :class:`~pasur_env.OpponentSource`
      (drawn per episode); default ``None``: uniformly random legal play
      (:class:`pasur_env.RandomPolicy`). Names are not resolved here.
    * ``illegal_action``: ``"raise"`` (default) or ``"random"``.
    * every other option (``learner_seat``, ``preset``, the rule flags, ``episode``,
      ``reward``, ``max_rounds``, ``render_mode``): the options table of
      ``docs/environment.md``; defaults ``episode="round"``, ``reward="diff"``.

    For a 4-player game the learner's partner is played by the opponent agent.

    ## When something fails

    Bad input (an action, seed or reset option) raises before anything changes; if the
    opponent, a reward or a render raises inside ``step`` or ``reset``, the env needs
    ``reset()`` and says so (``RuntimeError``) at every call until then
    (:mod:`pasur_env.core.learner_games`).

    ## Version History

    * v0: initial release (pasur_env 0.1.0). pasur_env 0.2.0: ``opponent`` takes policy
      objects only (the game no longer imports its players); the default opponent is
      random play instead of the name ``"greedy"``.
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 1}

    def __init__(
        self,
        opponent: Any = None,
        learner_seat: int | str = 0,
        preset: str | None = None,
        episode: str | None = None,
        reward: str | None = None,
        max_rounds: int | None = None,
        illegal_action: str = "raise",
        render_mode: str | None = None,
        mask_in_obs: bool = False,
        **rule_flags: Any,
    ) -> None:
        EzPickle.__init__(
            self,
            opponent=opponent,
            learner_seat=learner_seat,
            preset=preset,
            episode=episode,
            reward=reward,
            max_rounds=max_rounds,
            illegal_action=illegal_action,
            render_mode=render_mode,
            mask_in_obs=mask_in_obs,
            **rule_flags,
        )
        games, obs_space, num_actions = self.learner_games(
            1, False, opponent=opponent, learner_seat=learner_seat, preset=preset,
            episode=episode, reward=reward, max_rounds=max_rounds, **rule_flags)
        self.rules, self.episode = games.rules, games.episode
        self.reward_mode, self.max_rounds = games.reward_mode, games.max_rounds
        self.opponents = games.pool
        self._attach(games, obs_space, num_actions, illegal_action, render_mode, mask_in_obs)

    @classmethod
    def learner_games(
        cls, num_games: int, parallel: bool | None = None, opponent: Any = None,
        learner_seat: int | str = 0, preset: str | None = None, episode: str | None = None,
        reward: str | None = None, max_rounds: int | None = None, **rule_flags: Any,
    ) -> tuple[LearnerGames, spaces.Box, int]:
        """``num_games`` games with this env's options (the constructor's)."""
        rules, episode, reward, max_rounds = env_options(
            preset, episode, reward, max_rounds, rule_flags, TRAINING_DEFAULTS
        )
        pool = as_opponents(RandomPolicy() if opponent is None else opponent)
        games = LearnerGames(num_games, rules, episode, reward, max_rounds, learner_seat, pool,
                             parallel=parallel)
        obs_space = spaces.Box(0.0, 1.0, (observation_size(rules),), np.float32)
        return games, obs_space, K.NUM_ACTIONS

    @property
    def opponent_name(self) -> str:
        return self.games.entry_name[0]

    def _scene(self, viewer: int) -> Any:
        return table_scene(self.engine, 0, viewer=viewer)
