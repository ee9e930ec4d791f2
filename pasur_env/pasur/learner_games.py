"""B games with one learner seat each, opponents moving in between: the training envs' core.

:class:`LearnerGames` is shared by :class:`pasur_env.PasurSingleAgentEnv` (B = 1) and
:class:`pasur_env.PasurVecEnv`: one :class:`~pasur_env.Engine` (``auto_reset=False``),
a learner seat per game, and opponents that move through the play loop
(:func:`pasur_env.core.loop.play`: each opponent policy is called once per iteration for
all of its games) until every game waits for its learner or has ended. Rewards are
the learner's seat's rewards of :func:`pasur_env.pasur.rewards.seat_rewards`, summed over
every engine step in between, so the learner is paid for rounds that end on an
opponent's move too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium.utils import seeding

from pasur_env.core.loop import play
from pasur_env.core.options import check_learner_seat
from pasur_env.core.policy import OpponentSource, Policy
from pasur_env.pasur import kernels as K
from pasur_env.pasur.engine import Engine, StepInfo, action_str
from pasur_env.pasur.observation import encode
from pasur_env.pasur.rewards import round_infos, seat_rewards, seat_sides
from pasur_env.pasur.rules import Rules

__all__ = ["LearnerGames"]

#: reset options the training envs understand
RESET_OPTIONS = ("deck", "dealer", "learner_seat")


class LearnerGames:
    """B games in one engine, each with a learner seat and opponents that move in between.

    Invariant between calls: every game is at a decision of its learner seat, or has
    ended (``terminated`` / ``truncated``) and waits for :meth:`reset_games`.

    Args:
        num_games: B.
        rules: the :class:`~pasur_env.Rules`.
        episode, reward, max_rounds: as in the envs.
        learner_seat: a seat, or ``"random"`` (drawn per game and episode from the
            game's generator).
        opponents: an :class:`~pasur_env.core.policy.OpponentSource`; each game draws its
            opponent from it (with the game's generator) when it starts an episode.
        parallel: passed to the :class:`Engine`.
    """

    def __init__(
        self,
        num_games: int,
        rules: Rules,
        episode: str,
        reward: str,
        max_rounds: int | None,
        learner_seat: int | str,
        opponents: OpponentSource,
        parallel: bool | None = None,
    ) -> None:
        P = rules.num_players
        self.learner_seat = check_learner_seat(learner_seat, P)
        if len(opponents) == 0:
            raise ValueError("the opponent pool is empty")
        self.rules = rules
        self.episode = episode
        self.reward_mode = reward
        self.max_rounds = max_rounds
        self.pool = opponents
        B = int(num_games)
        self.num_games = B
        self.engine = Engine(B, rules=rules, episode=episode, auto_reset=False, parallel=parallel)
        self.sides = seat_sides(rules)
        self.seat = np.zeros(B, dtype=np.int64)
        self.rngs: list[np.random.Generator] = [np.random.default_rng() for _ in range(B)]
        self.acc = np.zeros(B, dtype=np.float32)
        self.rounds = np.zeros(B, dtype=np.int64)
        self.terminated = np.zeros(B, dtype=np.bool_)
        self.truncated = np.zeros(B, dtype=np.bool_)
        #: games whose round ended since the flags were cleared, with that round's
        #: per-seat points and scores (lists of P, like the AEC env's infos)
        self.round_ended = np.zeros(B, dtype=np.bool_)
        self.round_points = np.zeros((B, P), dtype=np.int64)
        self.scores = np.zeros((B, P), dtype=np.int64)
        #: opponent of each game: its source's id and name, and its policy's index in
        #: ``_policies``; ``seat_policy`` is the play loop's table (-1 = the learner)
        self.entry_id = np.zeros(B, dtype=np.int64)
        self.entry_name: list[str] = [""] * B
        self.seat_policy = np.full((B, P), -1, dtype=np.int64)
        self._policies: list[Policy] = []
        self._slot_of: dict[int, int] = {}
        self._all = np.arange(B, dtype=np.int64)
        self._masks: np.ndarray | None = None  # learner masks of the current state

    # ---- episodes ---------------------------------------------------------------------------
    def reset_games(
        self,
        games: np.ndarray,
        seeds: Sequence[int | None] | None = None,
        options: Sequence[dict[str, Any] | None] | None = None,
    ) -> None:
        """Start a new episode in ``games`` and advance each to its learner's first decision.

        ``seeds[k]`` (if not None) reseeds game ``games[k]`` exactly as
        ``Engine(1).reset(seed)`` would, and its generator (learner seat, opponent draw)
        with ``np_random(seed)``. ``options[k]`` may hold ``deck``, ``dealer`` (first
        round, as in the AEC env) and ``learner_seat``.
        """
        games = np.asarray(games, dtype=np.int64).reshape(-1)
        if games.size == 0:
            return
        n = len(games)
        seeds = list(seeds) if seeds is not None else [None] * n
        options = [dict(o or {}) for o in options] if options is not None else [{}] * n
        self._deal(games, seeds, options)
        P = self.rules.num_players
        for k, g in enumerate(games.tolist()):
            seat = options[k].get("learner_seat", self.learner_seat)
            seat = check_learner_seat(seat, P)
            if seat == "random":
                seat = int(self.rngs[g].integers(P))
            self.seat[g] = seat
            self._assign_opponent(g, self.pool.sample(self.rngs[g]))
        self.acc[games] = 0.0
        self.rounds[games] = 0
        self.terminated[games] = False
        self.truncated[games] = False
        self.round_ended[games] = False
        self.advance()

    def _deal(
        self, games: np.ndarray, seeds: list[int | None], options: list[dict[str, Any]]
    ) -> None:
        """New games in ``games``: shuffled from their streams, or seeded / given decks."""
        eng = self.engine
        plain, special = [], []
        for k, g in enumerate(games.tolist()):
            opts = options[k]
            unknown = set(opts) - set(RESET_OPTIONS)
            if unknown:
                gymnasium.logger.warn(f"ignoring unknown reset option(s) {sorted(unknown)}")
            if seeds[k] is None and opts.get("deck") is None and opts.get("dealer") is None:
                plain.append(g)
            else:
                special.append(k)
        if len(plain) == self.num_games:
            eng.reset()
        elif plain:
            sub = eng.take(plain)
            sub.reset()
            eng.state[plain] = sub.state
        for k in special:
            g = int(games[k])
            sub = eng.take([g])
            sub.reset(seed=seeds[k], deck=options[k].get("deck"), dealer=options[k].get("dealer"))
            eng.state[g] = sub.state[0]
            if seeds[k] is not None:
                self.rngs[g] = seeding.np_random(int(seeds[k]))[0]

    def _assign_opponent(self, g: int, entry: Any) -> None:
        policy = entry.policy
        slot = self._slot_of.get(id(policy))
        if slot is None or self._policies[slot] is not policy:
            if len(self._policies) > 4 * max(len(self.pool), 8):
                self._compact_slots()
            slot = len(self._policies)
            self._policies.append(policy)
            self._slot_of[id(policy)] = slot
        self.seat_policy[g] = slot
        self.seat_policy[g, self.seat[g]] = -1
        self.entry_id[g] = entry.id
        self.entry_name[g] = entry.name

    def _compact_slots(self) -> None:
        """Forget policies no game uses any more (removed snapshots)."""
        used = sorted(set(self.seat_policy[self.seat_policy >= 0].tolist()))
        policies = [self._policies[s] for s in used]
        remap = np.full(len(self._policies) + 1, -1, dtype=np.int64)
        remap[used] = np.arange(len(used))
        self.seat_policy = remap[self.seat_policy]  # -1 stays -1 (the last entry)
        self._policies = policies
        self._slot_of = {id(p): i for i, p in enumerate(policies)}

    @property
    def done(self) -> np.ndarray:
        return self.terminated | self.truncated

    # ---- moving ------------------------------------------------------------------------------
    def learner_masks(self) -> np.ndarray:
        """(B, 104) bool legal actions of the learners (all False in ended games).

        Cached until the games change: do not modify the returned array.
        """
        if self._masks is None:
            m = self.engine.legal_mask()
            m[self.done] = False
            self._masks = m
        return self._masks

    def check_learner_actions(self, actions: np.ndarray, masks: np.ndarray) -> None:
        """Raise ValueError naming the first illegal action and the legal ones."""
        ok = (actions >= 0) & (actions < K.NUM_ACTIONS)
        ok[ok] = masks[np.flatnonzero(ok), actions[ok]]
        if not ok.all():
            g = int(np.flatnonzero(~ok)[0])
            a = int(actions[g])
            legal = np.flatnonzero(masks[g]).tolist()
            where = f" in env {g}" if self.num_games > 1 else ""
            raise ValueError(
                f"illegal action {a} ({action_str(a)}){where} for the learner "
                f"(player_{int(self.seat[g])}); legal actions: {legal} "
                f"({', '.join(action_str(x) for x in legal)})"
            )

    def learner_step(self, actions: np.ndarray) -> None:
        """Apply the learners' actions in every game (all must be at learner decisions),
        then let the opponents move until each game waits for its learner again."""
        self.round_ended[:] = False
        self._masks = None
        info = self.engine.step(actions)
        self._account(self._all, info)
        self.advance()

    def advance(self) -> None:
        """Let opponents move, batched, until every game waits for its learner or has ended."""
        play(self.engine, self._policies, self.seat_policy, active=~self.done,
             on_step=self._account)
        self._masks = None

    def _account(self, idx: np.ndarray, info: StepInfo) -> None:
        """Book the learner's rewards, round results and episode ends of one engine step."""
        if not info.any_round_end:
            return
        rows = np.flatnonzero(info.round_end)
        g = idx[rows]
        r = seat_rewards(info, self.rules, self.reward_mode)
        self.acc[g] += r[rows, self.seat[g]]
        self.rounds[g] += 1
        self.round_ended[g] = True
        points, scores = round_infos(info, self.rules)
        self.round_points[g] = points[rows]
        self.scores[g] = scores[rows]
        ended = info.game_end[rows]
        if ended.any():
            ge = g[ended]
            self.terminated[ge] = True
            winner = info.winner[rows][ended]
            mine = self.sides[self.seat[ge]]
            result = np.where(winner == mine, 1.0, np.where(winner < 0, 0.5, 0.0))
            for gg, res in zip(ge.tolist(), result.tolist(), strict=True):
                self.pool.record(int(self.entry_id[gg]), res)
        if self.max_rounds is not None:
            self.truncated[g] |= (self.rounds[g] >= self.max_rounds) & ~self.terminated[g]

    # ---- reading ---------------------------------------------------------------------------
    def observe(self, games: np.ndarray | None = None) -> np.ndarray:
        """The learners' observations of ``games`` (default all): (n, N) float32."""
        games = self._all if games is None else games
        return encode(self.engine, games, self.seat[games])

    def pop_rewards(self) -> np.ndarray:
        """The learners' rewards accumulated since the last call: (B,) float32."""
        r = self.acc.copy()
        self.acc[:] = 0.0
        return r

    def round_info(self, g: int) -> dict[str, Any]:
        """``round_points`` and ``scores`` (lists per seat) if game ``g``'s round ended."""
        if not self.round_ended[g]:
            return {}
        return {
            "round_points": self.round_points[g].tolist(),
            "scores": self.scores[g].tolist(),
        }
