"""What every batched engine is: B games in one int64 array, advanced by compiled kernels.

:class:`BatchEngine` is the one API of both games' engines (:class:`pasur_env.Engine`,
:class:`pasur_env.rummy.RummyEngine`): the argument checks, the choice of serial or
multi-threaded kernels, stepping (with the one illegal-action error), random play,
copies, and the named views every game has. A game's engine gives only what is its
own: its rules, its kernels, the columns of its state and the text of its actions.

The kernels of every game take their arguments in one order:

* step: ``(state, params, games, actions, info, bad, auto_reset) -> number illegal``
* legal mask: ``(state, games, out)``
* random actions: ``(state, games, uniforms, out)``
* playout: ``(state, params, steps, seed_base, auto_reset) -> rounds ended per game``

Every argument is checked by :mod:`pasur_env.core.args` (the one home of the checks):
seeds are ``None`` or a non-negative int (numpy ints included); any other type is a
``TypeError``, a negative int a ``ValueError``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any, ClassVar

import numpy as np

from pasur_env.core.args import (
    INT64_MAX,
    INT64_MIN,
    action_array,
    check_bool,
    check_game,
    check_int,
    check_optional_bool,
    check_seat,
    check_seed,
    game_indices,
    is_int,
    read_indices,
    seat_array,
    take_indices,
)
from pasur_env.core.compile import PARALLEL_MIN_BATCH, BatchKernel
from pasur_env.core.rng import seed_stream_column, stream_base

#: ``check_seed`` is re-exported for the callers that imported it from here
__all__ = ["BatchEngine", "BaseStepInfo", "PARALLEL_MIN_BATCH", "check_seed"]


class BaseStepInfo:
    """What one :meth:`BatchEngine.step` did in each game stepped (rows follow ``games``).

    The fields both games report: ``actor`` (seat that acted), ``round_end``,
    ``game_end``, ``winner`` (side/team, -1 for a tie or no game end), and per side
    ``round_points`` and ``scores`` (the game scores after the round, before an
    automatic reset; meaningful only where ``round_end`` is set). They are read lazily
    from the step's info buffer, so a step pays only for what its caller reads. A game
    names its info columns in the class attributes below.
    """

    __slots__ = ("_info", "_S")

    I_ACTOR: ClassVar[int]
    I_ROUND_END: ClassVar[int]
    I_GAME_END: ClassVar[int]
    I_WINNER: ClassVar[int]
    I_POINTS: ClassVar[int]
    I_SCORES: ClassVar[int]

    def __init_subclass__(cls, kernels: ModuleType | None = None, **kwargs: Any) -> None:
        """``class StepInfo(BaseStepInfo, kernels=K)`` reads the info columns from ``K``."""
        super().__init_subclass__(**kwargs)
        if kernels is not None:
            for name in ("I_ACTOR", "I_ROUND_END", "I_GAME_END", "I_WINNER", "I_POINTS",
                         "I_SCORES"):
                setattr(cls, name, getattr(kernels, name))

    def __init__(self, info: np.ndarray, num_sides: int) -> None:
        self._info = info
        self._S = num_sides

    def _sides(self, col: int) -> np.ndarray:
        return self._info[:, col:col + self._S]

    @property
    def actor(self) -> np.ndarray:
        return self._info[:, self.I_ACTOR]

    @property
    def round_end(self) -> np.ndarray:
        return self._info[:, self.I_ROUND_END] != 0

    @property
    def game_end(self) -> np.ndarray:
        return self._info[:, self.I_GAME_END] != 0

    @property
    def winner(self) -> np.ndarray:
        return self._info[:, self.I_WINNER]

    @property
    def round_points(self) -> np.ndarray:
        return self._sides(self.I_POINTS)

    @property
    def scores(self) -> np.ndarray:
        return self._sides(self.I_SCORES)

    def round_end_at(self, game: int) -> bool:
        """Whether row ``game`` finished a round (a scalar read, for one-game loops)."""
        return bool(self._info[game, self.I_ROUND_END])

    @property
    def any_round_end(self) -> bool:
        """Whether any game finished a round in this step."""
        return bool(self._info[:, self.I_ROUND_END].any())


class BatchEngine(ABC):
    """B games of one card game advanced in lock step (the API both engines share).

    Args:
        num_games: batch size B.
        seed: seed of the per-game random streams (shuffles); ``None`` draws entropy.
        rules: the game's rules object, or give its flags as keywords.
        episode: ``"game"`` (play rounds until the game ends) or ``"round"`` (a game
            is one round).
        auto_reset: start a new game in place when one ends (else it waits in the
            DONE phase, where only action -1 is legal, until :meth:`reset_games`).
        parallel: use the multi-threaded kernels; ``None`` = when B >= 512.
        **flags: rule flags (see the game's rules).
    """

    #: the game's id in :data:`pasur_env.games.GAMES` (set by the game's engine class):
    #: what the play loop and the envs compare with a policy's ``game_ids``
    GAME_ID: ClassVar[str]

    # ---- what a game gives: ``class E(BatchEngine, kernels=K)`` reads them from K ------------
    #: number of action ids (the width of the legal mask)
    NUM_ACTIONS: ClassVar[int]
    #: phase names by phase number (for messages)
    PHASE_NAMES: ClassVar[Sequence[str]]
    #: columns of the state row: width, mover, phase, random stream; the DONE phase
    NCOL: ClassVar[int]
    MOVER: ClassVar[int]
    PHASE: ClassVar[int]
    RNG: ClassVar[int]
    DONE: ClassVar[int]
    #: the info row width and the StepInfo class reading it
    NINFO: ClassVar[int]
    STEP_INFO: ClassVar[type[BaseStepInfo]]
    #: the batch kernels (signatures in the module docstring)
    STEP_KERNEL: ClassVar[BatchKernel]
    MASK_KERNEL: ClassVar[BatchKernel]
    RANDOM_KERNEL: ClassVar[BatchKernel]
    PLAYOUT_KERNEL: ClassVar[BatchKernel]
    #: per-game arrays other than ``state`` that copies carry (``take`` indexes them)
    PER_GAME: ClassVar[tuple[str, ...]] = ()

    rules: Any
    state: np.ndarray

    def __init_subclass__(cls, kernels: ModuleType | None = None, **kwargs: Any) -> None:
        """Read the game's facts and kernels from its kernels package ``kernels``: the
        constants named above and ``step_kernel``, ``legal_mask_kernel``,
        ``random_actions_kernel`` and ``playout_kernel`` (built serial and parallel)."""
        super().__init_subclass__(**kwargs)
        if kernels is None:
            return
        for name in ("NUM_ACTIONS", "PHASE_NAMES", "NCOL", "MOVER", "PHASE", "RNG", "DONE",
                     "NINFO"):
            setattr(cls, name, getattr(kernels, name))
        cls.STEP_KERNEL = BatchKernel(kernels.step_kernel, PARALLEL_MIN_BATCH)
        cls.MASK_KERNEL = BatchKernel(kernels.legal_mask_kernel, PARALLEL_MIN_BATCH)
        cls.RANDOM_KERNEL = BatchKernel(kernels.random_actions_kernel, PARALLEL_MIN_BATCH)
        cls.PLAYOUT_KERNEL = BatchKernel(kernels.playout_kernel, PARALLEL_MIN_BATCH)

    def __init__(self, num_games: int = 1, seed: int | None = None, *, rules: Any = None,
                 episode: str = "game", auto_reset: bool = True,
                 parallel: bool | None = None, **flags: Any) -> None:
        num_games = check_int(num_games, "num_games", 1)
        if episode not in ("game", "round"):
            raise ValueError(f"episode must be 'game' or 'round', got {episode!r}")
        self.rules = self._make_rules(rules, **flags)
        self.episode = episode
        self.auto_reset = check_bool(auto_reset, "auto_reset")
        self.params = self.rules.as_params(episode_round=episode == "round")
        self.parallel = check_optional_bool(parallel, "parallel")
        self._num_sides = int(self.rules.num_sides)
        self.state = np.zeros((int(num_games), self.NCOL), dtype=np.int64)
        self._init_buffers()
        self._init_per_game()
        self.reset(seed=seed)

    @abstractmethod
    def _make_rules(self, rules: Any, **flags: Any) -> Any:
        """The game's rules object from ``rules`` or rule flags."""

    @staticmethod
    @abstractmethod
    def action_str(action: int) -> str:
        """Readable form of an action id (for messages)."""

    @abstractmethod
    def _playout_seed(self, seed: int) -> np.uint64:
        """The ``seed_base`` the game's playout kernel derives its choices from."""

    @abstractmethod
    def reset(self, seed: int | None = None, deck: Any = None, dealer: Any = None) -> None:
        """Start a new game in every slot (``seed`` reseeds the streams; ``deck`` and
        ``dealer`` fix the first deal)."""

    @abstractmethod
    def check_deal(self, deck: Any = None, dealer: Any = None) -> None:
        """Raise what :meth:`reset` would raise for ``deck`` and ``dealer``, changing
        nothing (callers that deal later, such as the training envs, check first)."""

    @abstractmethod
    def _reset_where(self, which: np.ndarray) -> None:
        """Start a new shuffled game in the slots where the (B,) bool ``which`` is true."""

    @abstractmethod
    def observe(self, games: Any = None, seats: Any = None,
                out: np.ndarray | None = None) -> np.ndarray:
        """Observations of ``seats`` in ``games`` (defaults: every game, its mover):
        float32 (n, :attr:`obs_size`)."""

    def _observe_args(self, games: Any, seats: Any) -> tuple[np.ndarray, Any]:
        """:meth:`observe`'s ``games`` as int64 indices (None: every game) and its
        ``seats``, checked: the compiled encoders read the state unchecked."""
        games = read_indices(games, self._all)
        return games, None if seats is None else seat_array(seats, self.num_players)

    @property
    @abstractmethod
    def obs_size(self) -> int:
        """Width of one observation row."""

    @property
    def history_size(self) -> int:
        """Width of one :meth:`play_history` row (0: the game keeps no play history)."""
        return 0

    def play_history(self, games: Any = None, seats: Any = None) -> np.ndarray:
        """What each seat has played this round, seen from ``seats`` in ``games`` (defaults:
        every game, its mover): float32 (n, :attr:`history_size`).

        The observation is memoryless: it shows the position, not which card each play
        was. A learner that must read the other seats' hands from their plays (the
        exploiter of ``pasur best-response --history``) adds these public features to
        it. A game that keeps no history returns rows of width 0."""
        games, _ = self._observe_args(games, seats)
        return np.zeros((games.size, 0), dtype=np.float32)

    # ---- buffers and copies ------------------------------------------------------------
    def _init_buffers(self) -> None:
        """Scratch arrays sized by the batch (the step's illegal flags, every game's index,
        the one-action buffer of :meth:`step_single`)."""
        n = self.state.shape[0]
        self._bad = np.zeros(n, dtype=np.bool_)
        #: every game's index: the ``games`` of a full-batch step
        self._all = np.arange(n, dtype=np.int64)
        self._single_action = np.zeros(1, dtype=np.int64)

    def _init_per_game(self) -> None:  # noqa: B027 - a hook; most games keep none
        """Fresh values of the :attr:`PER_GAME` arrays (a game adds its own)."""

    def _kernel(self, kernel: BatchKernel, n: int | None = None) -> Any:
        """The serial or multi-threaded build of ``kernel`` for a batch of ``n`` games."""
        return kernel.for_batch(self.num_games if n is None else n, self.parallel)

    def _with_state(self, state: np.ndarray, rows: np.ndarray | None = None) -> BatchEngine:
        """An engine of the same rules over ``state``; ``rows`` (indices into this engine)
        carry the :attr:`PER_GAME` arrays over (None: fresh ones)."""
        new = object.__new__(type(self))
        new.rules, new.episode, new.auto_reset = self.rules, self.episode, self.auto_reset
        new.params, new.parallel = self.params, self.parallel
        new._num_sides = self._num_sides
        new.state = np.ascontiguousarray(state)
        new._init_buffers()
        if rows is None:
            new._init_per_game()
        else:
            for name in self.PER_GAME:
                setattr(new, name, getattr(self, name)[rows].copy())
        return new

    def copy(self) -> BatchEngine:
        """An independent copy of all games (state and random streams)."""
        return self._with_state(self.state.copy(), self._all)

    def take(self, indices: Any) -> BatchEngine:
        """A new engine holding copies of the games at ``indices`` (repeats allowed)."""
        idx = take_indices(indices, self.num_games)
        return self._with_state(self.state[idx], idx)

    def reset_games(self, which: np.ndarray) -> None:
        """Start a new (shuffled) game in the slots where ``which`` is true."""
        which = np.asarray(which, dtype=np.bool_)
        if which.shape != (self.num_games,):
            raise ValueError(f"which must have shape ({self.num_games},), got {which.shape}")
        self._reset_where(which)

    def seed_streams(self, seed: int, offset: int = 0) -> None:
        """Give game ``b`` the random stream of game ``offset + b`` of ``seed``, so that a
        slice of a large batch deals exactly the games the large batch would (duplicate
        deals, evaluations split into batches). The games' state is otherwise untouched:
        call :meth:`reset` (``seed=None``) to deal from the new streams."""
        checked = check_seed(seed)
        if checked is None:
            raise TypeError("seed_streams() needs an int seed, got None")
        offset = check_int(offset, "offset", 0)
        seed_stream_column(self.state, self.RNG, stream_base(checked), offset)

    # ---- what a seat cannot see ---------------------------------------------------------------
    def determinize(self, game: int, copies: int, seat: int | None = None,
                    seed: int | None = None) -> BatchEngine:
        """``copies`` copies of ``game`` in which the cards ``seat`` (default: the mover)
        cannot see are dealt again at random.

        The other seats' unseen cards and the stock are permuted uniformly over their
        places, sizes kept, so every copy is a position consistent with what ``seat``
        has seen (its observation is the same) and its random stream is its own: the
        sampling step of determinized search, in one call for every game.
        """
        game = check_game(game, self.num_games)
        copies = check_int(copies, "copies", 1)
        seat = self.mover(game) if seat is None else check_seat(seat, self.num_players)
        seeds = np.random.SeedSequence(check_seed(seed)).generate_state(copies, np.uint64)
        out = np.empty((copies, self.NCOL), dtype=np.int64)
        self._determinize_into(game, seat, seeds.view(np.int64), out)
        return self._with_state(out, np.full(copies, game, dtype=np.int64))

    @abstractmethod
    def _determinize_into(self, game: int, seat: int, seeds: np.ndarray, out: np.ndarray
                          ) -> None:
        """Write into ``out`` (copies, NCOL) the copies of :meth:`determinize`, copy ``i``
        drawn from stream ``seeds[i]`` (the game's kernel)."""

    @property
    @abstractmethod
    def seat_sides(self) -> np.ndarray:
        """(P,) int64: the side (team) of every seat, whose round points its play earns."""

    # ---- acting ------------------------------------------------------------------------------
    def _game_indices(self, games: Any) -> np.ndarray:
        """``games`` as ascending, distinct, in-range int64 indices (None: every game)."""
        return game_indices(games, self._all)

    def legal_mask(self, games: Any = None) -> np.ndarray:
        """Legal actions of the mover of each game (or of ``games``): bool (n, NUM_ACTIONS)."""
        idx = self._game_indices(games)
        out = np.empty((idx.shape[0], self.NUM_ACTIONS), dtype=np.bool_)
        self._kernel(self.MASK_KERNEL, idx.shape[0])(self.state, idx, out)
        return out

    def legal_actions(self, game: int = 0) -> list[int]:
        """Legal action ids of one game (ascending)."""
        return np.flatnonzero(self.legal_mask([check_game(game, self.num_games)])[0]).tolist()

    def random_actions(self, rng: np.random.Generator | None = None,
                       games: Any = None) -> np.ndarray:
        """A uniformly random legal action for every game (or ``games``); -1 in DONE."""
        rng = rng if rng is not None else np.random.default_rng()
        idx = self._game_indices(games)
        out = np.empty(idx.shape[0], dtype=np.int64)
        self._kernel(self.RANDOM_KERNEL, idx.shape[0])(
            self.state, idx, rng.random(idx.shape[0]), out
        )
        return out

    def step(self, actions: Any, games: Any = None) -> BaseStepInfo:
        """Apply one action in every game (or in ``games``); nothing changes if any is illegal.

        Args:
            actions: integer array of shape (n,), one per game stepped (and -1 for a
                game waiting in the DONE phase when ``auto_reset`` is off).
            games: ascending indices of the games to step (default: all B games); the
                others do not move.

        Returns:
            The game's StepInfo, whose rows follow ``games``.

        Raises:
            TypeError: non-integer actions. ValueError: wrong shape, bad ``games`` or an
            illegal action (the message names the game, the action and the legal ones).
        """
        idx = self._game_indices(games)
        n = idx.shape[0]
        acts = action_array(actions, n, self.NUM_ACTIONS)
        info = np.empty((n, self.NINFO), dtype=np.int64)
        nbad = self._kernel(self.STEP_KERNEL, n)(
            self.state, self.params, idx, acts, info, self._bad, self.auto_reset
        )
        if nbad:
            self._raise_illegal(idx, acts, nbad)
        return self.STEP_INFO(info, self._num_sides)

    def _raise_illegal(self, idx: np.ndarray, acts: np.ndarray, nbad: int) -> None:
        """The one illegal-action error: the first bad game, its mover, phase and legal
        actions, and how many other games were illegal too."""
        i = int(np.flatnonzero(self._bad[: idx.shape[0]])[0])
        b = int(idx[i])
        legal = self.legal_actions(b)
        text: Callable[[int], str] = self.action_str
        raise ValueError(
            f"illegal action {int(acts[i])} ({text(acts[i])}) in game {b} for "
            f"player_{int(self.state[b, self.MOVER])} in the {self.phase_name(b)} phase; "
            f"legal actions: {legal} ({', '.join(text(a) for a in legal)})"
            + (f" [{nbad - 1} other game(s) also illegal]" if nbad > 1 else "")
        )

    def step_single(self, action: int) -> BaseStepInfo:
        """:meth:`step` for a one-game engine with a plain int (the AEC env's hot path).

        Same validation and errors as :meth:`step`, less of its per-call overhead.
        """
        if self.num_games != 1:
            raise ValueError("step_single() needs an engine of one game")
        act = self._single_action
        if type(action) is not int and not is_int(action):
            raise TypeError(f"action must be an int, got {action!r}")
        if not INT64_MIN <= action <= INT64_MAX:
            action_array([action], 1, self.NUM_ACTIONS)  # raises the out-of-range error
        act[0] = action
        info = np.empty((1, self.NINFO), dtype=np.int64)
        if self.STEP_KERNEL.serial(self.state, self.params, self._all, act, info, self._bad,
                                   self.auto_reset):
            return self.step(np.array([action], dtype=np.int64))  # raises the full error
        return self.STEP_INFO(info, self._num_sides)

    def playout(self, steps: int, seed: int = 0) -> np.integer:
        """Play ``steps`` uniformly random legal actions in every game in one compiled loop.

        Returns the number of rounds finished over the batch (a numpy integer). The
        choices come from their own per-game streams derived from ``seed``, so they do
        not touch the games' deal streams. Used by benchmarks and tests.
        """
        checked = check_seed(seed)
        if checked is None:
            raise TypeError("playout() needs an int seed, got None")
        seed_base = self._playout_seed(checked)
        rounds = self._kernel(self.PLAYOUT_KERNEL)(
            self.state, self.params, check_int(steps, "steps", 0), seed_base, self.auto_reset
        )
        return rounds.sum()

    # ---- named views of the state ------------------------------------------------------------
    @property
    def num_games(self) -> int:
        return self.state.shape[0]

    @property
    def num_actions(self) -> int:
        """Number of action ids (:attr:`NUM_ACTIONS`)."""
        return self.NUM_ACTIONS

    @property
    def num_players(self) -> int:
        return self.rules.num_players

    @property
    def current_player(self) -> np.ndarray:
        """Seat to move in each game (B,)."""
        return self.state[:, self.MOVER]

    def mover(self, game: int = 0) -> int:
        """Seat to move in one game (a scalar read, for one-game tools)."""
        return int(self.state[check_game(game, self.num_games), self.MOVER])

    @property
    def phase(self) -> np.ndarray:
        """Phase number of each game (B,); names in :attr:`PHASE_NAMES`."""
        return self.state[:, self.PHASE]

    @property
    def done(self) -> np.ndarray:
        """Whether each game has ended and waits for a reset (B,) bool."""
        return self.state[:, self.PHASE] == self.DONE

    def phase_name(self, game: int) -> str:
        return self.PHASE_NAMES[int(self.state[check_game(game, self.num_games), self.PHASE])]

    @property
    @abstractmethod
    def scores(self) -> np.ndarray:
        """Game score of each side (B, S)."""

    @property
    @abstractmethod
    def stock_size(self) -> np.ndarray:
        """Cards left in the stock of each game (B,)."""
