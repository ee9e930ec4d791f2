"""The batched Persian Rummy engine: B games in one numpy array, advanced by compiled kernels.

Same design as :class:`pasur_env.Engine`: the rules live in
:mod:`pasur_env.rummy.kernels`; this class validates input, picks serial or parallel
kernels, and exposes the state. Seeds are independent of the batch size: game ``b``
gets the splitmix64 stream of ``(seed, b)`` (:mod:`pasur_env.core.rng`).

Example::

    eng = RummyEngine(4096, seed=0)
    info = eng.step(eng.random_actions(np.random.default_rng(0)))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from pasur_env.core.args import action_array, game_indices, take_indices
from pasur_env.core.compile import BatchKernel
from pasur_env.core.rng import stream_base
from pasur_env.rummy import kernels as K
from pasur_env.rummy.actions import action_str
from pasur_env.rummy.cards import cards_of, parse_deck
from pasur_env.rummy.rules import RummyRules, make_rummy_rules

__all__ = ["RummyEngine", "RummyStepInfo"]

PARALLEL_MIN_BATCH = 512
_STEP = BatchKernel(K.step_kernel, PARALLEL_MIN_BATCH)
_MASK = BatchKernel(K.legal_mask_kernel, PARALLEL_MIN_BATCH)
_RANDOM = BatchKernel(K.random_actions_kernel, PARALLEL_MIN_BATCH)
_PLAYOUT = BatchKernel(K.playout_kernel, PARALLEL_MIN_BATCH)


class RummyStepInfo:
    """What one :meth:`RummyEngine.step` did, one row per game stepped.

    ``actor``, ``round_end``, ``game_end``, ``winner`` (team, -1 for a draw or no game
    end), ``went_out`` (seat, -1 if none) and per team ``round_points`` and ``scores``
    (the game totals after the round, before an automatic reset): the per-team fields
    are meaningful only where ``round_end`` is set.
    """

    __slots__ = ("_info",)

    def __init__(self, info: np.ndarray) -> None:
        self._info = info

    actor = property(lambda self: self._info[:, K.I_ACTOR])
    round_end = property(lambda self: self._info[:, K.I_ROUND_END] != 0)
    game_end = property(lambda self: self._info[:, K.I_GAME_END] != 0)
    winner = property(lambda self: self._info[:, K.I_WINNER])
    went_out = property(lambda self: self._info[:, K.I_OUT])
    round_points = property(lambda self: self._info[:, K.I_POINTS:K.I_POINTS + 2])
    scores = property(lambda self: self._info[:, K.I_SCORES:K.I_SCORES + 2])

    def round_end_at(self, i: int) -> bool:
        return bool(self._info[i, K.I_ROUND_END])


class RummyEngine:
    """B Persian Rummy games advanced in lock step.

    Args:
        num_games: batch size B.
        seed: seed of the per-game streams (shuffles); ``None`` draws entropy.
        rules: a :class:`RummyRules`, or give the flags as keywords.
        episode: ``"game"`` (``deals`` deals) or ``"round"`` (one deal per game).
        auto_reset: start a new game in place when one ends (else it waits in DONE,
            where only action -1 is accepted, until :meth:`reset_games`).
        parallel: use the multi-threaded kernels; ``None`` = when B >= 512.
    """

    def __init__(self, num_games: int = 1, seed: int | None = None, *,
                 rules: RummyRules | None = None, episode: str = "game",
                 auto_reset: bool = True, parallel: bool | None = None, **flags: Any) -> None:
        if isinstance(num_games, bool) or not isinstance(num_games, (int, np.integer)):
            raise TypeError(f"num_games must be an int, got {type(num_games).__name__}")
        if num_games < 1:
            raise ValueError(f"num_games must be >= 1, got {num_games}")
        if episode not in ("game", "round"):
            raise ValueError(f"episode must be 'game' or 'round', got {episode!r}")
        self.rules = make_rummy_rules(rules, **flags)
        self.episode = episode
        self.auto_reset = bool(auto_reset)
        self.params = self.rules.as_params(episode_round=episode == "round")
        self.parallel = parallel
        self.state = np.zeros((int(num_games), K.NCOL), dtype=np.int64)
        self._init_buffers()
        self.reset(seed=seed)

    def _init_buffers(self) -> None:
        n = self.state.shape[0]
        self._bad = np.zeros(n, dtype=np.bool_)
        self._all = np.arange(n, dtype=np.int64)

    def _kernel(self, k: BatchKernel, n: int | None = None) -> Any:
        return k.for_batch(self.num_games if n is None else n, self.parallel)

    @property
    def num_games(self) -> int:
        return self.state.shape[0]

    def copy(self) -> RummyEngine:
        """An independent copy of all games (state and random streams)."""
        return self.take(self._all)

    def take(self, indices: Any) -> RummyEngine:
        """A new engine holding copies of the games at ``indices`` (repeats allowed)."""
        idx = take_indices(indices, self.num_games)
        new = object.__new__(RummyEngine)
        new.__dict__.update({k: v for k, v in self.__dict__.items() if k != "state"})
        new.state = np.ascontiguousarray(self.state[idx])
        new._init_buffers()
        return new

    # ---- starting games ---------------------------------------------------------------
    @staticmethod
    def _check_seed(seed: Any) -> int:
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"seed must be a non-negative int or None, got {seed!r}")
        return int(seed)

    @staticmethod
    def _check_dealer(dealer: Any) -> int:
        if dealer is None:
            return 3
        if isinstance(dealer, bool) or not isinstance(dealer, (int, np.integer)) or not (
            0 <= dealer < 4
        ):
            raise ValueError(f"dealer must be a seat 0..3, got {dealer!r}")
        return int(dealer)

    def reset(self, seed: int | None = None, deck: Sequence[Any] | np.ndarray | None = None,
              dealer: int | None = None) -> None:
        """Start a new game in every slot.

        Args:
            seed: reseeds the streams (game b gets the stream of ``(seed, b)``);
                ``None`` keeps the current ones (fresh entropy on the first reset).
            deck: the first deal's order, index 0 = top: 56 codes or ids, each card once
                (``ValueError`` otherwise); later deals are shuffled.
            dealer: the first deal's dealer (default seat 3, so seat 0 plays first).
        """
        if seed is not None:
            self._check_seed(seed)
        dealer = self._check_dealer(dealer)
        ids = None if deck is None else parse_deck(deck)
        if seed is not None or not self.state[:, K.RNG].any():
            K.seed_streams(self.state, stream_base(seed), 0)
        self.state[:, K.START_DEALER] = int(dealer)
        if ids is not None:
            self.state[:, K.DECK:K.DECK + K.NUM_CARDS] = ids
        K.reset_kernel(self.state, self._all, np.full(self.num_games, ids is None))

    def reset_game(self, game: int, seed: int | None = None, deck: Any = None,
                   dealer: int | None = None) -> None:
        """Start a new game in one slot (``seed``: that game alone gets the stream of
        ``(seed, 0)``, so a one-game env reproduces game 0 of an engine of any size)."""
        ids = None if deck is None else parse_deck(deck)
        dealer = self._check_dealer(dealer)
        row = self.state[game:game + 1]
        if seed is not None:
            K.seed_streams(row, stream_base(self._check_seed(seed)), 0)
        row[0, K.START_DEALER] = dealer
        if ids is not None:
            row[0, K.DECK:K.DECK + K.NUM_CARDS] = ids
        K.reset_kernel(self.state, np.array([game], dtype=np.int64),
                       np.array([ids is None]))

    def reset_games(self, which: np.ndarray) -> None:
        """Start a new (shuffled) game in the slots where ``which`` is true."""
        which = np.asarray(which, dtype=np.bool_)
        if which.shape != (self.num_games,):
            raise ValueError(f"which must have shape ({self.num_games},), got {which.shape}")
        games = np.flatnonzero(which).astype(np.int64)
        K.reset_kernel(self.state, games, np.ones(games.size, dtype=np.bool_))

    def seed_streams(self, seed: int, offset: int = 0) -> None:
        """Give game ``b`` the stream of game ``offset + b`` of ``seed`` (duplicate deals)."""
        K.seed_streams(self.state, stream_base(int(seed)), int(offset))

    # ---- acting ----------------------------------------------------------------------------
    def _game_indices(self, games: Any) -> np.ndarray:
        return game_indices(games, self._all)

    def legal_mask(self, games: Any = None) -> np.ndarray:
        """Legal actions of the mover of each game (or of ``games``): bool (n, 245)."""
        idx = self._game_indices(games)
        out = np.empty((idx.shape[0], K.NUM_ACTIONS), dtype=np.bool_)
        self._kernel(_MASK, idx.shape[0])(self.state, idx, out)
        return out

    def legal_actions(self, game: int = 0) -> list[int]:
        """Legal action ids of one game (ascending)."""
        return np.flatnonzero(self.legal_mask([int(game)])[0]).tolist()

    def random_actions(self, rng: np.random.Generator | None = None, games: Any = None
                       ) -> np.ndarray:
        """A uniformly random legal action for every game (or ``games``); -1 when DONE."""
        rng = rng if rng is not None else np.random.default_rng()
        idx = self._game_indices(games)
        out = np.empty(idx.shape[0], dtype=np.int64)
        self._kernel(_RANDOM, idx.shape[0])(self.state, idx, rng.random(idx.shape[0]), out)
        return out

    def step(self, actions: Any, games: Any = None) -> RummyStepInfo:
        """Apply one action in every game (or in ``games``); nothing changes if any is illegal.

        Raises ``TypeError`` for non-integer actions and ``ValueError`` for a wrong shape
        or an illegal action (naming the game, the action and the legal ones).
        """
        idx = self._game_indices(games)
        n = idx.shape[0]
        acts = action_array(actions, n)
        info = np.empty((n, K.NINFO), dtype=np.int64)
        nbad = self._kernel(_STEP, n)(
            self.state, self.params, idx, acts, info, self._bad, self.auto_reset
        )
        if nbad:
            i = int(np.flatnonzero(self._bad[:n])[0])
            b = int(idx[i])
            legal = self.legal_actions(b)
            raise ValueError(
                f"illegal action {int(acts[i])} ({action_str(acts[i])}) in game {b} for "
                f"player_{self.mover(b)} in the {K.PHASE_NAMES[self.state[b, K.PHASE]]} "
                f"phase; legal actions: {legal} ({', '.join(action_str(a) for a in legal)})"
            )
        return RummyStepInfo(info)

    def step_single(self, action: int) -> RummyStepInfo:
        """:meth:`step` for a one-game engine with a plain int (the AEC env's path)."""
        return self.step(np.array([int(action)], dtype=np.int64))

    def playout(self, steps: int, seed: int = 0) -> np.ndarray:
        """Play ``steps`` random legal decisions in every game (benchmarks); rounds ended."""
        return self._kernel(_PLAYOUT)(
            self.state, self.params, int(steps), np.uint64(seed), self.auto_reset
        )

    # ---- reading the state ---------------------------------------------------------------
    @property
    def current_player(self) -> np.ndarray:
        """Seat to move in each game (B,)."""
        return self.state[:, K.MOVER]

    @property
    def phase(self) -> np.ndarray:
        return self.state[:, K.PHASE]

    @property
    def done(self) -> np.ndarray:
        """Whether each game has ended and waits for a reset (B,) bool."""
        return self.state[:, K.PHASE] == K.DONE

    def observe(self, games: Any = None, seats: Any = None,
                out: np.ndarray | None = None) -> np.ndarray:
        """Observations of ``seats`` in ``games`` (defaults: every game, its mover):
        float32 (n, 685), the encoder of :mod:`pasur_env.rummy.observation`."""
        from pasur_env.rummy.observation import OBS_SIZE, observe_batch

        games = self._all if games is None else np.asarray(games, dtype=np.int64).reshape(-1)
        if seats is None:
            seats = self.state[games, K.MOVER]
        seats = np.broadcast_to(np.asarray(seats, dtype=np.int64), games.shape)
        if out is None:
            out = np.zeros((games.shape[0], OBS_SIZE), dtype=np.float32)
        observe_batch(self.state, games, np.ascontiguousarray(seats), out)
        return out

    def mover(self, game: int = 0) -> int:
        return int(self.state[game, K.MOVER])

    def hand(self, game: int, seat: int) -> list[int]:
        return cards_of(self.state[game, K.HAND + seat])

    def taken(self, game: int, seat: int) -> list[int]:
        """Cards ``seat`` took from the discard pile and still holds (public)."""
        return cards_of(self.state[game, K.TAKEN + seat])

    def melds(self, game: int = 0) -> list[list[int]]:
        return [cards_of(m) for m in self.state[game, K.MELD:K.MELD + self.state[game, K.NMELDS]]]

    def pile(self, game: int = 0) -> list[int]:
        """The discard pile, bottom first."""
        return self.state[game, K.PILE:K.PILE + self.state[game, K.PILE_N]].tolist()

    def stock_size(self, game: int = 0) -> int:
        return K.NUM_CARDS - int(self.state[game, K.STOCK_POS])

    def scores(self, game: int = 0) -> list[int]:
        return self.state[game, K.SCORE:K.SCORE + 2].tolist()

    def render(self, game: int = 0, viewer: int | None = None) -> str:
        """Text picture of one game (``viewer`` hides the other hands)."""
        from pasur_env.rummy.render import render_text

        return render_text(self, game, viewer)
