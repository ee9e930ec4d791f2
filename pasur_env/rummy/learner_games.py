"""B Persian Rummy games with one learning seat each: what the training envs share.

The learner sits at one seat; its partner and the two opponents are policy objects
(:class:`pasur_env.Policy`), which move inside :meth:`RummyLearnerGames.advance` until
it is the learner's turn again or the episode ends. This class holds no rule logic:
it drives a :class:`RummyEngine` (``auto_reset=False``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pasur_env.core.policy import GameView, Policy, check_actions
from pasur_env.rummy.engine import RummyEngine
from pasur_env.rummy.observation import OBS_SIZE, observe_batch
from pasur_env.rummy.rewards import round_infos, seat_rewards
from pasur_env.rummy.rules import RummyRules

__all__ = ["RummyLearnerGames"]


class RummyLearnerGames:
    """``n`` games, each with a learner seat, a partner policy and an opponent policy."""

    def __init__(self, n: int, rules: RummyRules, episode: str, reward: str,
                 max_rounds: int | None, learner_seat: int, opponent: Policy,
                 partner: Policy, parallel: bool | None = None) -> None:
        self.engine = RummyEngine(n, rules=rules, episode=episode, auto_reset=False,
                                  parallel=parallel)
        self.reward_mode, self.max_rounds = reward, max_rounds
        self.default_seat = learner_seat
        self.opponent, self.partner = opponent, partner
        self.seat = np.full(n, learner_seat, dtype=np.int64)
        self.rewards = np.zeros(n, dtype=np.float32)
        self.rounds = np.zeros(n, dtype=np.int64)
        self.terminated = np.zeros(n, dtype=bool)
        self.truncated = np.zeros(n, dtype=bool)
        self.infos: list[dict[str, Any]] = [{} for _ in range(n)]

    @property
    def done(self) -> np.ndarray:
        return self.terminated | self.truncated

    def reset_game(self, b: int, seed: int | None = None, options: dict | None = None) -> None:
        """A new episode in game ``b`` (options ``deck``, ``dealer``, ``learner_seat``),
        played on until the learner is to move."""
        self._start(b, seed, options)
        self.advance()

    def reset_games(self, games: Any, seeds: Any = None) -> None:
        """New episodes in ``games`` (game ``games[i]`` seeded with ``seeds[i]``, or its
        stream left to run on when None), then one batched advance."""
        for i, b in enumerate(np.asarray(games, dtype=np.int64).tolist()):
            self._start(b, None if seeds is None else seeds[i], None)
        self.advance()

    def _start(self, b: int, seed: int | None, options: dict | None) -> None:
        opts = dict(options or {})
        unknown = set(opts) - {"deck", "dealer", "learner_seat"}
        if unknown:
            raise ValueError(f"unknown reset option(s) {sorted(unknown)}; known: deck, dealer, "
                             "learner_seat")
        seat = opts.get("learner_seat", self.default_seat)
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < 4:
            raise ValueError(f"learner_seat must be a seat 0..3, got {seat!r}")
        self.engine.reset_game(b, seed=seed, deck=opts.get("deck"), dealer=opts.get("dealer"))
        self.seat[b] = seat
        self.rewards[b] = 0.0
        self.rounds[b] = 0
        self.terminated[b] = self.truncated[b] = False
        self.infos[b] = {}

    def observe(self) -> np.ndarray:
        """Every game seen by its learner: float32 (n, OBS_SIZE)."""
        out = np.zeros((self.engine.num_games, OBS_SIZE), dtype=np.float32)
        observe_batch(self.engine.state, np.arange(self.engine.num_games), self.seat, out)
        return out

    def learner_masks(self) -> np.ndarray:
        """Legal actions of each learner (all False once its episode ended)."""
        m = self.engine.legal_mask()
        m[self.done] = False
        return m

    def _record(self, games: np.ndarray, info: Any) -> None:
        """Add the learners' rewards of one step; note round and episode ends."""
        r = seat_rewards(info, self.reward_mode)
        self.rewards[games] += r[np.arange(len(games)), self.seat[games]]
        ends = np.flatnonzero(info.round_end)
        if ends.size == 0:
            return
        pts, scores = round_infos(info)
        for i in ends:
            b = int(games[i])
            self.rounds[b] += 1
            self.infos[b] = {"round_points": pts[i].tolist(), "scores": scores[i].tolist()}
            if info.game_end[i]:
                self.terminated[b] = True
            elif self.max_rounds is not None and self.rounds[b] >= self.max_rounds:
                self.truncated[b] = True

    def learner_step(self, actions: np.ndarray) -> None:
        """Step the live games with their learners' actions, then let the others play."""
        games = np.flatnonzero(~self.done)
        info = self.engine.step(actions[games], games=games)
        self._record(games, info)
        self.advance()

    def advance(self) -> None:
        """Let partners and opponents move until every live game waits for its learner."""
        eng = self.engine
        while True:
            mover = eng.current_player
            games = np.flatnonzero(~self.done & (mover != self.seat))
            if games.size == 0:
                return
            acts = np.empty(games.size, dtype=np.int64)
            partner = (mover[games] - self.seat[games]) % 4 == 2
            for who, sel in ((self.partner, partner), (self.opponent, ~partner)):
                if sel.any():
                    acts[sel] = self._act(who, games[sel])
            self._record(games, eng.step(acts, games=games))

    def _act(self, policy: Policy, games: np.ndarray) -> np.ndarray:
        mask = self.engine.legal_mask(games)
        obs = None
        if policy.needs_observation:
            obs = np.zeros((games.size, OBS_SIZE), dtype=np.float32)
            observe_batch(self.engine.state, games, self.engine.current_player[games], obs)
        acts = policy.act(obs, mask, GameView(self.engine, games))  # type: ignore[arg-type]
        return check_actions(acts, mask, policy.name)

    def pop_rewards(self) -> np.ndarray:
        r = self.rewards.copy()
        self.rewards[:] = 0.0
        return r

    def pop_info(self, b: int) -> dict[str, Any]:
        info, self.infos[b] = self.infos[b], {}
        return info



