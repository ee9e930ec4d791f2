"""The toy game's environments, each a thin subclass of the shared ones: the PettingZoo
AEC env (:class:`pasur_env.core.aec_env.CardGameAEC`), the learner games
(:class:`pasur_env.core.learner_games.PooledLearnerGames`) and the Gymnasium
single-agent env (:class:`pasur_env.core.single_agent.LearnerEnv`)."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from pasur_env.core import learner_games as core
from pasur_env.core.aec_env import CardGameAEC, wrap_env
from pasur_env.core.options import check_max_rounds, check_modes
from pasur_env.core.policy import OpponentSource, RandomPolicy, as_opponents, as_policy
from pasur_env.core.single_agent import LearnerEnv
from toy_game.engine import NUM_ACTIONS, OBS_SIZE, ToyEngine, ToyRules, action_str, make_toy_rules

__all__ = ["env", "raw_env", "ToyLearnerGames", "ToySingleAgentEnv", "SIDES"]

#: each seat is its own side
SIDES = np.array([0, 1], dtype=np.int64)


def env(**kwargs: Any) -> AECEnv:
    """The AEC env in PettingZoo's standard wrappers (as ``pasur_v0``)."""
    return wrap_env(raw_env(**kwargs))


class raw_env(CardGameAEC, EzPickle):
    """Three-card fishing as a PettingZoo AEC env over a one-game :class:`ToyEngine`."""

    metadata = {"name": "toy_v0", "render_modes": ["ansi", "human"],
                "is_parallelizable": False, "render_fps": 1}
    action_str = staticmethod(action_str)

    def __init__(self, episode: str = "game", reward: str = "win", deals: int = 2,
                 max_rounds: int | None = None, render_mode: str | None = None) -> None:
        EzPickle.__init__(self, episode, reward, deals, max_rounds, render_mode)
        super().__init__()
        check_modes(reward, episode)
        self.rules = make_toy_rules(deals=deals)
        engine = ToyEngine(1, rules=self.rules, episode=episode, auto_reset=False)
        self._attach(engine, SIDES, 2, reward, check_max_rounds(max_rounds), render_mode,
                     (0.0, 1.0, OBS_SIZE), NUM_ACTIONS)

    def _observe_seat(self, seat: int, live: bool) -> tuple[np.ndarray, np.ndarray]:
        obs = self.engine.observe([0], [seat])[0]
        mask = self.engine.legal_mask()[0] if live else np.zeros(NUM_ACTIONS, dtype=bool)
        return obs, mask.astype(np.int8)


class ToyLearnerGames(core.PooledLearnerGames):
    """``n`` games, a learner seat each, the other seat played by an opponent drawn from
    a source when a game starts an episode."""

    action_str = staticmethod(action_str)

    def __init__(self, n: int, rules: ToyRules, episode: str, reward: str,
                 max_rounds: int | None, learner_seat: int | str,
                 opponents: OpponentSource) -> None:
        self._check_pool(opponents)
        engine = ToyEngine(n, rules=rules, episode=episode, auto_reset=False)
        super().__init__(engine, SIDES, 2, reward, max_rounds, learner_seat)
        self._init_pool(opponents)

    def _deal(self, games: np.ndarray, seeds: list[int | None],
              options: list[dict[str, Any]]) -> None:
        for k, g in enumerate(games.tolist()):
            self.engine.reset_game(g, seed=seeds[k], deck=options[k].get("deck"),
                                   dealer=options[k].get("dealer"))

    def _seat_players(self, g: int) -> None:
        self._assign_opponent(g, self.pool.sample(self.rngs[g]))

    def reset_players(self, seed: int) -> None:
        self.pool.reset(seed)


class ToySingleAgentEnv(LearnerEnv, EzPickle):
    """Three-card fishing for one learner; ``opponent`` (default random) plays the other
    seat inside :meth:`step`."""

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 1}

    def __init__(self, opponent: Any = None, learner_seat: int | str = 0,
                 episode: str = "round", reward: str = "diff", max_rounds: int | None = None,
                 illegal_action: str = "raise", render_mode: str | None = None,
                 **rule_flags: Any) -> None:
        EzPickle.__init__(self, opponent=opponent, learner_seat=learner_seat, episode=episode,
                          reward=reward, max_rounds=max_rounds, illegal_action=illegal_action,
                          render_mode=render_mode, **rule_flags)
        check_modes(reward, episode)
        self.opponent = as_policy(RandomPolicy() if opponent is None else opponent)
        games = ToyLearnerGames(1, make_toy_rules(**rule_flags), episode, reward,
                                check_max_rounds(max_rounds), learner_seat,
                                as_opponents(self.opponent))
        self._attach(games, spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32), NUM_ACTIONS,
                     illegal_action, render_mode)
