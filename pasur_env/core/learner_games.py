"""B games with one learner seat each, the other seats played in between: the training envs' core.

Both games' single-agent env (B = 1) and vector env stand on a :class:`LearnerGames`:
one batched engine (``auto_reset=False``), a learner seat per game, and the other
seats played by policies through the one play loop (:func:`pasur_env.core.loop.play`:
each policy is called once per iteration for all of its games) until every game
waits for its learner or has ended. The learner is paid its seat's rewards summed
over every engine step in between, so that it is paid for rounds that end on
another seat's move too.

This class holds the bookkeeping both games share: seats, rewards, round infos,
episode ends, masks, observations and the play loop's seat table. A game's subclass
says only what is that game's: how its engine deals a game
(:meth:`LearnerGames._deal`), who plays the other seats
(:meth:`LearnerGames._seat_players`), the side of each seat (for the rewards of
:mod:`pasur_env.core.rewards`) and the names of its actions.

The one rule when something fails (both games, the single-agent and the vector env):
bad input (an illegal learner action, a bad seed or reset option) raises before
anything changes; an exception after the games started to move (a policy raising
inside the play loop, a reward or render failing) marks the games as needing
``reset()`` (:attr:`LearnerGames.needs_reset`), and every later call of the envs
raises ``RuntimeError`` saying so until a reset of every game succeeds. Restoring
the state instead would need the policies' own state too (their generators, a
self-play pool's records), which the env does not own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from gymnasium.utils import seeding

from pasur_env.core.args import action_array
from pasur_env.core.loop import play
from pasur_env.core.options import (
    check_learner_seat,
    check_reset_options,
    check_seed,
    needs_reset_error,
)
from pasur_env.core.policy import (
    FixedOpponent,
    OpponentSource,
    Policy,
    check_actions,
    check_policy_fits,
)
from pasur_env.core.rewards import round_infos, seat_rewards

__all__ = ["LearnerGames", "PooledLearnerGames", "RESET_OPTIONS"]

#: reset options the training envs understand
RESET_OPTIONS = ("deck", "dealer", "learner_seat")


class LearnerGames:
    """B games in one engine, each with a learner seat and policies that move in between.

    Invariant between calls: every game is at a decision of its learner seat, or has
    ended (``terminated`` / ``truncated``) and waits for :meth:`reset_games`.

    Args:
        engine: the game's batched engine of B games (``auto_reset=False``).
        sides: (P,) the side (team) of each seat; ``num_sides`` sides in all.
        reward, max_rounds: as in the envs (:mod:`pasur_env.core.rewards`).
        learner_seat: a seat, or ``"random"`` (drawn per game and episode from the
            game's generator ``rngs[g]``).
    """

    #: the game's action names, for the message of an illegal learner action
    action_str: Callable[[int], str] = staticmethod(str)
    #: a game truncated by ``max_rounds`` stops at once (else the other seats play on to
    #: the learner's next decision, whose view is then the terminal observation)
    stop_at_truncation = True

    def __init__(
        self, engine: Any, sides: np.ndarray, num_sides: int, reward: str,
        max_rounds: int | None, learner_seat: int | str,
    ) -> None:
        P = len(sides)
        self.sides = sides
        self.num_sides = int(num_sides)
        self.learner_seat = check_learner_seat(learner_seat, P)
        self.reward_mode = reward
        self.max_rounds = max_rounds
        self.engine = engine
        B = int(engine.num_games)
        self.num_games = B
        self.num_players = P
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
        #: the play loop's table: policy index (into ``_policies``) of each seat of each
        #: game, -1 for the learner's
        self.seat_policy = np.full((B, P), -1, dtype=np.int64)
        self._policies: list[Policy] = []
        self._all = np.arange(B, dtype=np.int64)
        self._masks: np.ndarray | None = None  # learner masks of the current state
        self._live = np.ones(B, dtype=np.bool_)  # games the play loop may still move
        #: why the games need ``reset()`` (None: they are usable); see the module doc
        self.needs_reset: str | None = None

    # ---- what each game says ------------------------------------------------------------------
    def _deal(
        self, games: np.ndarray, seeds: list[int | None], options: list[dict[str, Any]]
    ) -> None:
        """Deal new games in ``games``: shuffled from their streams, or seeded / given decks."""
        raise NotImplementedError

    def _seat_players(self, g: int) -> None:
        """Fill the row ``seat_policy[g]`` for game ``g``'s new episode (the learner sits
        at ``seat[g]``, set to -1 after), drawing from ``rngs[g]`` if the game needs to."""
        raise NotImplementedError

    def _episode_ended(self, games: np.ndarray, winner: np.ndarray) -> None:
        """Called with the games whose episode ended in a step and their winning side."""

    def reset_players(self, seed: int) -> None:
        """Reseed the policies of the other seats (an env's seeded reset)."""

    def reset_info(self, g: int) -> dict[str, Any]:
        """What ``reset`` reports for game ``g``'s new episode."""
        return {"learner_seat": int(self.seat[g])}

    # ---- episodes ---------------------------------------------------------------------------
    def restart_all(self, seeds: Sequence[int | None],
                    options: Sequence[dict[str, Any] | None]) -> None:
        """Every game anew (both vector envs' reset): the other seats' policies reseeded by
        the first seed given (the games marked broken if that fails), then game ``i``
        dealt with ``seeds[i]`` and ``options[i]``."""
        first = next((s for s in seeds if s is not None), None)
        if first is not None:
            try:
                self.reset_players(first)
            except BaseException as exc:
                self.mark_broken(exc, "reset()")
                raise
        self.reset_games(self._all, seeds, options)

    def reset_games(
        self,
        games: Any,
        seeds: Sequence[int | None] | None = None,
        options: Sequence[dict[str, Any] | None] | None = None,
    ) -> None:
        """Start a new episode in ``games`` and advance each to its learner's first decision.

        ``seeds[k]`` (if not None) reseeds game ``games[k]``'s deals as a one-game
        engine's ``reset(seed)`` would, and its generator (learner seat, opponent draw)
        with ``np_random(seed)``. ``options[k]`` may hold ``deck``, ``dealer`` (first
        round, as in the AEC env) and ``learner_seat``.
        """
        games = np.asarray(games, dtype=np.int64).reshape(-1)
        if games.size == 0:
            return
        n = len(games)
        seeds = [check_seed(s) for s in seeds] if seeds is not None else [None] * n
        options = [self.check_reset_options(o) for o in options] if options is not None \
            else [{}] * n
        seats = [self._learner_seat_of(opts) for opts in options]
        try:
            self._start(games, seeds, options, seats)
        except BaseException as exc:
            self.mark_broken(exc, "a reset")
            raise
        if np.unique(games).size == self.num_games:
            self.needs_reset = None

    def _start(self, games: np.ndarray, seeds: list[int | None],
               options: list[dict[str, Any]], seats: list[int | str]) -> None:
        """:meth:`reset_games` after its arguments were checked."""
        self._deal(games, seeds, options)
        for k, g in enumerate(games.tolist()):
            if seeds[k] is not None:
                self.rngs[g] = seeding.np_random(int(seeds[k]))[0]
        for k, g in enumerate(games.tolist()):
            seat = seats[k]
            if seat == "random":
                seat = int(self.rngs[g].integers(self.num_players))
            self.seat[g] = seat
            self._seat_players(g)
            self.seat_policy[g, seat] = -1
        self.acc[games] = 0.0
        self.rounds[games] = 0
        self.terminated[games] = False
        self.truncated[games] = False
        self.round_ended[games] = False
        self.advance()

    def check_reset_options(self, options: Any) -> dict[str, Any]:
        """One game's reset options as a new dict; unknown options, a bad learner seat,
        deck or dealer raise (before anything changes)."""
        opts = check_reset_options(options, RESET_OPTIONS)
        self._learner_seat_of(opts)
        if opts.get("deck") is not None or opts.get("dealer") is not None:
            # every game is dealt as a one-game engine deals: check the deal as it would
            self.engine.take([0]).check_deal(opts.get("deck"), opts.get("dealer"))
        return opts

    def _learner_seat_of(self, opts: dict[str, Any]) -> int | str:
        return check_learner_seat(opts.get("learner_seat", self.learner_seat), self.num_players)

    def fit(self, policy: Any, role: str) -> Policy:
        """``policy`` if it can play a seat of these games, else ``ValueError`` naming it and
        the game (:func:`~pasur_env.core.policy.check_policy_fits`): the check made for
        every policy the games are given, before it plays."""
        e = self.engine
        return check_policy_fits(policy, e.GAME_ID, self.num_players, e.obs_size, role=role)

    # ---- the rule when something fails -----------------------------------------------------
    def mark_broken(self, exc: BaseException, where: str) -> None:
        """Mark the games as needing ``reset()``: ``exc`` interrupted ``where``."""
        self.needs_reset = f"{type(exc).__name__} ({exc}) interrupted {where}"
        self._masks = None

    def check_usable(self) -> None:
        """Raise ``RuntimeError`` if a failure left the games needing ``reset()``."""
        if self.needs_reset is not None:
            raise needs_reset_error(self.needs_reset)

    @property
    def done(self) -> np.ndarray:
        return self.terminated | self.truncated

    # ---- moving ------------------------------------------------------------------------------
    def learner_masks(self) -> np.ndarray:
        """(B, A) bool legal actions of the learners (all False in ended games).

        Cached until the games change: do not modify the returned array.
        """
        if self._masks is None:
            self.check_usable()
            m = self.engine.legal_mask()
            m[self.done] = False
            self._masks = m
        return self._masks

    def check_learner_actions(self, actions: Any, games: np.ndarray | None = None) -> np.ndarray:
        """The learners' ``actions`` (one per game) as int64 after the one action check
        (:func:`~pasur_env.core.policy.check_actions`): ``TypeError`` for anything but
        integers, ``ValueError`` for a wrong shape or an illegal action in ``games``
        (default: every game), naming the first and the legal ones."""
        acts = action_array(actions, self.num_games, self.engine.num_actions,
                            who="the learner", low=0)
        games = self._all if games is None else games
        multi = self.num_games > 1
        seat = self.seat

        def where(i: int) -> str:
            g = int(games[i])
            return f"{f' in env {g}' if multi else ''} (player_{int(seat[g])})"

        check_actions(acts[games], self.learner_masks()[games], "the learner",
                      action_str=self.action_str, where=where)
        return acts

    def learner_step(self, actions: Any) -> None:
        """Apply the learners' actions in every game that has not ended (actions of
        ended games are ignored), then let the other seats move until each game waits
        for its learner again. Raises TypeError/ValueError for actions that are not
        legal integers (nothing moves); an exception after that marks the games as
        needing ``reset()``."""
        self.check_usable()
        live = ~self.done
        games = self._all if live.all() else np.flatnonzero(live)
        acts = self.check_learner_actions(actions, games)
        try:
            self._move(acts, games)
        except BaseException as exc:
            self.mark_broken(exc, "a step")
            raise

    def _move(self, actions: np.ndarray, games: np.ndarray) -> None:
        """:meth:`learner_step` after the actions were checked."""
        self.round_ended[:] = False
        self._masks = None
        if games.shape[0] == self.num_games:
            info = self.engine.step(actions)
        else:
            info = self.engine.step(actions[games], games=games)
        self._account(games, info)
        self.advance()

    def advance(self) -> None:
        """Let the other seats move, batched, until every game waits for its learner or
        has ended."""
        self._live = ~self.done  # read by the loop at every iteration
        play(self.engine, self._policies, self.seat_policy, active=self._live,
             on_step=self._account)
        self._masks = None

    def _account(self, idx: np.ndarray, info: Any) -> None:
        """Book the learner's rewards, round results and episode ends of one engine step."""
        round_end = info.round_end
        if not round_end.any():
            return
        rows = np.flatnonzero(round_end)
        g = idx[rows]
        r = seat_rewards(info, self.sides, self.num_sides, self.reward_mode)
        self.acc[g] += r[rows, self.seat[g]]
        self.rounds[g] += 1
        self.round_ended[g] = True
        points, scores = round_infos(info, self.sides)
        self.round_points[g] = points[rows]
        self.scores[g] = scores[rows]
        ended = info.game_end[rows]
        if ended.any():
            self.terminated[g[ended]] = True
            self._episode_ended(g[ended], info.winner[rows][ended])
        if self.max_rounds is not None:
            self.truncated[g] |= (self.rounds[g] >= self.max_rounds) & ~self.terminated[g]
            if self.stop_at_truncation:
                self._live[g[self.truncated[g]]] = False

    # ---- reading ---------------------------------------------------------------------------
    def observe(self, games: np.ndarray | None = None) -> np.ndarray:
        """The learners' observations of ``games`` (default all): (n, N) float32."""
        self.check_usable()
        games = self._all if games is None else games
        return self.engine.observe(games, self.seat[games])

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


class PooledLearnerGames(LearnerGames):
    """:class:`LearnerGames` whose opponents come from an
    :class:`~pasur_env.core.policy.OpponentSource` (such as ``agents.OpponentPool``).

    Each game draws its opponent from the source (with its generator ``rngs[g]``) when
    it starts an episode, and the source hears the learner's result of every finished
    episode (1 win, 0.5 tie, 0 loss: prioritized self-play feeds on it). Both games'
    training envs stand on it: in Pasur the drawn opponent plays every other seat, in
    Persian Rummy the two opponents' seats (the partner is the game's own policy, in the
    fixed first slot of the play loop's table). A subclass calls :meth:`_init_pool` once
    its fixed policies are in ``_policies`` and seats an opponent with
    :meth:`_assign_opponent` from :meth:`_seat_players`.
    """

    @staticmethod
    def _check_pool(opponents: OpponentSource) -> None:
        if len(opponents) == 0:
            raise ValueError("the opponent pool is empty")

    def _init_pool(self, opponents: OpponentSource) -> None:
        self._check_pool(opponents)
        if isinstance(opponents, FixedOpponent):  # checked now; a pool's when first drawn
            self.fit(opponents.opponent.policy, "opponent")
        self.pool = opponents
        #: opponent of each game: its source's id and name, and its policy's index in
        #: ``_policies``
        self.entry_id = np.zeros(self.num_games, dtype=np.int64)
        self.entry_name: list[str] = [""] * self.num_games
        self._slot_of: dict[int, int] = {}
        #: the leading slots of ``_policies`` that are the game's own (never compacted)
        self._fixed_slots = len(self._policies)

    def _assign_opponent(self, g: int, entry: Any, seats: np.ndarray | None = None) -> None:
        """Seat ``entry`` (drawn from the source) at ``seats`` of game ``g`` (a bool per
        seat; default every seat but the learner's)."""
        policy = entry.policy
        slot = self._slot_of.get(id(policy))
        if slot is None or self._policies[slot] is not policy:
            self.fit(policy, "opponent")  # a pool's policy, when first drawn
            if len(self._policies) > 4 * max(len(self.pool), 8):
                self._compact_slots()
            slot = len(self._policies)
            self._policies.append(policy)
            self._slot_of[id(policy)] = slot
        if seats is None:
            self.seat_policy[g] = slot
            self.seat_policy[g, self.seat[g]] = -1
        else:
            self.seat_policy[g, seats] = slot
        self.entry_id[g] = entry.id
        self.entry_name[g] = entry.name

    def _compact_slots(self) -> None:
        """Forget policies no game uses any more (removed snapshots)."""
        fixed = list(range(self._fixed_slots))
        used = sorted(set(fixed) | set(self.seat_policy[self.seat_policy >= 0].tolist()))
        policies = [self._policies[s] for s in used]
        remap = np.full(len(self._policies) + 1, -1, dtype=np.int64)
        remap[used] = np.arange(len(used))
        self.seat_policy = remap[self.seat_policy]  # -1 stays -1 (the last entry)
        self._policies = policies
        self._slot_of = {id(p): i for i, p in enumerate(policies) if i >= self._fixed_slots}

    def _episode_ended(self, games: np.ndarray, winner: np.ndarray) -> None:
        """The source hears the learner's result: 1 win, 0.5 tie, 0 loss."""
        mine = self.sides[self.seat[games]]
        result = np.where(winner == mine, 1.0, np.where(winner < 0, 0.5, 0.0))
        for g, res in zip(games.tolist(), result.tolist(), strict=True):
            self.pool.record(int(self.entry_id[g]), res)

    def reset_info(self, g: int) -> dict[str, Any]:
        return {"learner_seat": int(self.seat[g]), "opponent": self.entry_name[g]}
