"""The batched Pasur engine: B games in one numpy array, advanced by compiled kernels.

:class:`Engine` is the single implementation of the rules used by the AEC env, the
Gymnasium envs, the vector env and the agents. The rules themselves live in
:mod:`pasur_env.pasur.kernels`; this module validates input, chooses serial or parallel
kernels, and exposes the state as named numpy views.

Example::

    eng = Engine(4096, seed=0)
    info = eng.step(eng.random_actions(np.random.default_rng(0)))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from pasur_env.core.args import action_array, game_indices, take_indices
from pasur_env.core.compile import BatchKernel
from pasur_env.pasur import kernels as K
from pasur_env.pasur.cards import card_code, cards_of, parse_card, parse_cards, parse_deck
from pasur_env.pasur.rules import Rules, make_rules

__all__ = ["Engine", "Position", "StepInfo", "action_str"]

#: batch size from which the multi-threaded engine kernels are used (when threads > 1)
PARALLEL_MIN_BATCH = 512

_STEP = BatchKernel(K.step_kernel, PARALLEL_MIN_BATCH)
_MASK = BatchKernel(K.legal_mask_kernel, PARALLEL_MIN_BATCH)
_RANDOM = BatchKernel(K.random_actions_kernel, PARALLEL_MIN_BATCH)
_RESET = BatchKernel(K.reset_kernel, PARALLEL_MIN_BATCH)
_PLAYOUT = BatchKernel(K.playout_kernel, PARALLEL_MIN_BATCH)


class StepInfo:
    """What one :meth:`Engine.step` did in each game (arrays with a leading batch axis).

    Fields (read lazily from the step's info buffer, so a step pays only for what
    its caller reads): ``actor`` (seat that acted), ``round_end``, ``game_end``,
    ``winner``, and per *side* ``round_points``, ``scores``, ``surs``, ``clubs``,
    ``piles`` (the cards counted, as masks) and ``club_points``.
    The per-side fields are only meaningful where ``round_end`` is set; ``scores``
    are the game scores after the round (before an automatic reset). ``winner`` is
    the winning side where ``game_end`` (the round's winner for one-round episodes;
    -1 for a tie), else -1.
    """

    __slots__ = ("_info", "_S")

    def __init__(self, info: np.ndarray, num_sides: int) -> None:
        self._info = info
        self._S = num_sides

    def _sides(self, col: int) -> np.ndarray:
        return self._info[:, col:col + self._S]

    @property
    def actor(self) -> np.ndarray:
        return self._info[:, K.I_ACTOR]

    @property
    def round_end(self) -> np.ndarray:
        return self._info[:, K.I_ROUND_END] != 0

    @property
    def game_end(self) -> np.ndarray:
        return self._info[:, K.I_GAME_END] != 0

    @property
    def winner(self) -> np.ndarray:
        return self._info[:, K.I_WINNER]

    @property
    def round_points(self) -> np.ndarray:
        return self._sides(K.I_POINTS)

    @property
    def scores(self) -> np.ndarray:
        return self._sides(K.I_SCORES)

    @property
    def surs(self) -> np.ndarray:
        return self._sides(K.I_SURS)

    @property
    def clubs(self) -> np.ndarray:
        return self._sides(K.I_CLUBS)

    @property
    def piles(self) -> np.ndarray:
        """The cards each side had at the count (after the leftovers' sweep), as masks."""
        return self._sides(K.I_PILES)

    @property
    def club_points(self) -> np.ndarray:
        """The club points each side won in the round."""
        return self._sides(K.I_CLUB_POINTS)

    def round_end_at(self, game: int) -> bool:
        """Whether ``game`` finished a round (a scalar read, for one-game loops)."""
        return bool(self._info[game, K.I_ROUND_END])

    @property
    def any_round_end(self) -> bool:
        """Whether any game finished a round in this step."""
        return bool(self._info[:, K.I_ROUND_END].any())


@dataclass
class Position:
    """A PLAY-phase position to build games from (see :meth:`Engine.from_positions`).

    Cards may be codes (``"10D"``) or ids. Hands are listed in dealing order (the
    first card is the earliest dealt, which matters for ``open_hand``); the stock is
    listed top first. Whose turn it is follows from the hand sizes and the dealer.
    """

    hands: Sequence[Sequence[str | int]]
    table: Sequence[str | int]
    stock: Sequence[str | int]
    piles: Sequence[Sequence[str | int]]
    dealer: int
    surs: Sequence[int] | None = None
    scores: Sequence[int] | None = None
    last_capturer: int = -1
    round_index: int = 0
    start_dealer: int | None = None
    seed: int = 0


def action_str(action: int) -> str:
    """Readable form of an action id: ``"PLAY 10D"`` or ``"TAKE 4S"``."""
    a = int(action)
    if 0 <= a < 52:
        return f"PLAY {card_code(a)}"
    if 52 <= a < 104:
        return f"TAKE {card_code(a - 52)}"
    return f"<invalid action {a}>"


class Engine:
    """B Pasur games advanced in lock step by compiled kernels.

    Args:
        num_games: batch size B.
        seed: seed of the per-game random streams (shuffles); ``None`` draws entropy.
        rules: a :class:`Rules`; or give ``preset`` and/or rule flags as keywords.
        preset: ``"classic"`` or ``"cfr_paper"``.
        episode: ``"game"`` (play rounds until a side wins) or ``"round"`` (a game is
            one round; scores restart each round).
        auto_reset: start a new game in place when one ends (else it waits in the
            DONE phase, where only action -1 is legal, until :meth:`reset_games`).
        parallel: use the multi-threaded kernels; ``None`` = when B >= 512.
        **flags: rule flags overriding the preset (see :class:`Rules`).
    """

    def __init__(
        self,
        num_games: int = 1,
        seed: int | None = None,
        *,
        rules: Rules | None = None,
        preset: str | None = None,
        episode: str = "game",
        auto_reset: bool = True,
        parallel: bool | None = None,
        **flags: Any,
    ) -> None:
        if isinstance(num_games, bool) or not isinstance(num_games, (int, np.integer)):
            raise TypeError(f"num_games must be an int, got {type(num_games).__name__}")
        if num_games < 1:
            raise ValueError(f"num_games must be >= 1, got {num_games}")
        if episode not in ("game", "round"):
            raise ValueError(f"episode must be 'game' or 'round', got {episode!r}")
        self.rules = make_rules(preset=preset, rules=rules, **flags)
        self.episode = episode
        self.auto_reset = bool(auto_reset)
        self.params = self.rules.as_params(episode_round=episode == "round")
        self.state = np.zeros((int(num_games), K.NCOL), dtype=np.int64)
        self._bad = np.zeros(int(num_games), dtype=np.bool_)
        #: every game's index: the ``games`` of a full-batch step
        self._all = np.arange(int(num_games), dtype=np.int64)
        #: each game's random stream and given first deck (-1s: shuffled) when it began,
        #: what a :class:`pasur_env.pasur.record.GameRecord` needs to replay it
        self.start_streams = np.zeros(int(num_games), dtype=np.int64)
        self.start_decks = np.full((int(num_games), 52), -1, dtype=np.int64)
        self.parallel = parallel
        self.reset(seed=seed)

    # ---- construction ---------------------------------------------------------------
    def _with_state(self, state: np.ndarray, rows: np.ndarray | None = None) -> Engine:
        """An engine of the same rules over ``state``; ``rows`` (indices into this engine)
        carry the games' start streams and decks over."""
        new = object.__new__(Engine)
        new.rules, new.episode, new.auto_reset = self.rules, self.episode, self.auto_reset
        new.params, new.parallel = self.params, self.parallel
        new.state = np.ascontiguousarray(state)
        n = len(state)
        new._bad = np.zeros(n, dtype=np.bool_)
        new._all = np.arange(n, dtype=np.int64)
        if rows is None:
            new.start_streams = np.zeros(n, dtype=np.int64)
            new.start_decks = np.full((n, 52), -1, dtype=np.int64)
        else:
            new.start_streams = self.start_streams[rows].copy()
            new.start_decks = self.start_decks[rows].copy()
        return new

    def copy(self) -> Engine:
        """An independent copy of all games (state and random streams)."""
        return self._with_state(self.state.copy(), self._all)

    def take(self, indices: Any) -> Engine:
        """A new engine holding copies of the games at ``indices`` (repeats allowed)."""
        idx = take_indices(indices, self.num_games)
        return self._with_state(self.state[idx], idx)

    @classmethod
    def from_positions(
        cls,
        positions: Sequence[Position],
        *,
        rules: Rules | None = None,
        preset: str | None = None,
        episode: str = "game",
        auto_reset: bool = True,
        **flags: Any,
    ) -> Engine:
        """Build a batch of games from explicit PLAY-phase positions (search, tests).

        Every position must hold each of the 52 cards exactly once across hands,
        table, stock and piles, with hand and stock sizes that a real deal produces.
        """
        if len(positions) == 0:
            raise ValueError("from_positions() needs at least one position")
        if rules is None and "num_players" not in flags:
            flags["num_players"] = len(positions[0].hands)
        eng = cls(
            len(positions),
            seed=0,
            rules=rules,
            preset=preset,
            episode=episode,
            auto_reset=auto_reset,
            **flags,
        )
        for b, pos in enumerate(positions):
            eng.state[b] = eng._position_row(pos)
        return eng

    def _position_row(self, pos: Position) -> np.ndarray:
        r = self.rules
        P, S = r.num_players, r.num_sides
        if len(pos.hands) != P:
            raise ValueError(f"position needs {P} hands, got {len(pos.hands)}")
        if len(pos.piles) != S:
            raise ValueError(f"position needs {S} piles (one per side), got {len(pos.piles)}")
        hands = [parse_cards(h) for h in pos.hands]
        table = parse_cards(pos.table)
        stock = parse_cards(pos.stock)
        piles = [parse_cards(p) for p in pos.piles]
        allc = [c for h in hands for c in h] + table + stock + [c for p in piles for c in p]
        if sorted(allc) != list(range(52)):
            dup = sorted({card_code(c) for c in allc if allc.count(c) > 1})
            missing = [card_code(c) for c in range(52) if c not in allc]
            raise ValueError(
                f"position must hold every card once: duplicates {dup}, missing {missing}"
            )
        if any(len(h) > 4 for h in hands):
            raise ValueError("a hand holds at most 4 cards")
        if not 0 <= pos.dealer < P:
            raise ValueError(f"dealer must be in 0..{P - 1}, got {pos.dealer}")
        n_stock = len(stock)
        deals, rem = divmod(48 - n_stock, 4 * P)
        if rem or deals < 1:
            raise ValueError(f"a stock of {n_stock} cards does not occur with {P} players")
        in_hands = sum(len(h) for h in hands)
        if in_hands == 0:
            raise ValueError("all hands are empty: not a decision point")
        played = 4 * P - in_hands
        for k in range(P):
            seat = (pos.dealer + 1 + k) % P
            turns = max(0, -(-(played - k) // P))
            if len(hands[seat]) != 4 - turns:
                raise ValueError(
                    f"hand sizes do not match the turn order: seat {seat} should hold "
                    f"{4 - turns} cards after {played} turns of this deal"
                )
        surs = list(pos.surs) if pos.surs is not None else [0] * S
        scores = list(pos.scores) if pos.scores is not None else [0] * S
        if len(surs) != S or len(scores) != S:
            raise ValueError(f"surs and scores need {S} entries (one per side)")
        if not -1 <= pos.last_capturer < P:
            raise ValueError(f"last_capturer must be -1 or a seat, got {pos.last_capturer}")
        row = np.zeros(K.NCOL, dtype=np.int64)
        row[K.ORDER : K.ORDER + 16] = -1
        for seat, h in enumerate(hands):
            row[K.HAND + seat] = sum(1 << c for c in h)
            row[K.ORDER + 4 * seat : K.ORDER + 4 * seat + len(h)] = h
        row[K.TABLE] = sum(1 << c for c in table)
        for s, p in enumerate(piles):
            row[K.PILE + s] = sum(1 << c for c in p)
            row[K.SURS + s] = surs[s]
            row[K.SCORE + s] = scores[s]
        out_cards = [c for c in range(52) if c not in set(stock)]
        row[K.DECK : K.DECK + 52] = out_cards + stock
        row[K.STOCK_POS] = 52 - n_stock
        row[K.DEALER] = pos.dealer
        row[K.START_DEALER] = pos.dealer if pos.start_dealer is None else pos.start_dealer
        row[K.MOVER] = (pos.dealer + 1 + played) % P
        row[K.PHASE] = K.PLAY
        row[K.PENDING] = -1
        row[K.TURN] = 48 - n_stock - in_hands
        row[K.DEAL] = deals - 1
        row[K.LAST_CAP] = pos.last_capturer
        row[K.ROUND] = pos.round_index
        tmp = row[None].copy()
        K.seed_streams(tmp, K.stream_base(pos.seed), 0)
        row[K.RNG] = tmp[0, K.RNG]
        return row

    # ---- resetting --------------------------------------------------------------------
    def _kernel(self, kernel: BatchKernel, n: int | None = None) -> Any:
        """The serial or multi-threaded build of ``kernel`` for a batch of ``n`` games."""
        return kernel.for_batch(self.num_games if n is None else n, self.parallel)

    def _check_seed(self, seed: Any) -> None:
        if seed is not None:
            if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
                raise TypeError(f"seed must be an int or None, got {type(seed).__name__}")
            if seed < 0:
                raise ValueError(f"seed must be non-negative, got {seed}")

    def _dealers(self, dealer: Any) -> np.ndarray:
        B, P = self.num_games, self.rules.num_players
        if dealer is None:
            return np.full(B, P - 1, dtype=np.int64)
        dealers = np.broadcast_to(np.asarray(dealer), (B,))
        if not np.issubdtype(dealers.dtype, np.integer):
            raise TypeError(f"dealer must be an int seat, got {dealer!r}")
        if dealers.min() < 0 or dealers.max() >= P:
            raise ValueError(f"dealer must be a seat in 0..{P - 1}, got {dealer!r}")
        return dealers

    def _decks(self, deck: Any) -> np.ndarray | None:
        if deck is None:
            return None
        arr = np.asarray(deck, dtype=object)
        if arr.ndim == 2:
            if arr.shape[0] != self.num_games:
                raise ValueError(
                    f"a (B, 52) deck array needs B={self.num_games} rows, got {arr.shape[0]}"
                )
            return np.stack([parse_deck(list(r)) for r in arr])
        return parse_deck(deck)[None, :]

    def reset(
        self,
        seed: int | None = None,
        deck: Sequence[Any] | np.ndarray | None = None,
        dealer: int | Sequence[int] | np.ndarray | None = None,
    ) -> None:
        """Start a new game in every slot.

        Args:
            seed: reseeds the per-game streams (game b gets a stream derived from
                ``(seed, b)``, independent of B); ``None`` keeps the current streams
                (fresh entropy on the first reset).
            deck: the first round's deck order, index 0 = top: 52 codes/ids for every
                game, or a (B, 52) array of ids. Later rounds are shuffled.
            dealer: the first round's dealer (default seat P - 1), one int or one per game.
        """
        # validate everything first: a failed reset leaves the games untouched
        self._check_seed(seed)
        dealers = self._dealers(dealer)
        decks = self._decks(deck)
        if seed is not None or not self.state[:, K.RNG].any():
            K.seed_streams(self.state, K.stream_base(seed), 0)
        self.state[:, K.START_DEALER] = dealers
        self.start_streams[:] = self.state[:, K.RNG]
        self.start_decks[:] = -1 if decks is None else decks
        if decks is not None:
            self.state[:, K.DECK : K.DECK + 52] = decks
        self._kernel(_RESET)(
            self.state, self.params, np.ones(self.num_games, dtype=np.bool_), decks is None
        )

    def reset_games(self, which: np.ndarray) -> None:
        """Start a new (shuffled) game in the slots where ``which`` is true."""
        which = np.asarray(which, dtype=np.bool_)
        if which.shape != (self.num_games,):
            raise ValueError(f"which must have shape ({self.num_games},), got {which.shape}")
        self.start_streams[which] = self.state[which, K.RNG]
        self.start_decks[which] = -1
        self._kernel(_RESET)(self.state, self.params, which, True)

    # ---- acting -----------------------------------------------------------------------
    def _game_indices(self, games: Any) -> np.ndarray:
        """``games`` as ascending, distinct, in-range int64 indices (None: every game)."""
        return game_indices(games, self._all)


    def legal_mask(self, games: Any = None) -> np.ndarray:
        """Legal actions of the mover of each game (or of ``games``): bool (n, 104)."""
        idx = self._game_indices(games)
        out = np.empty((idx.shape[0], K.NUM_ACTIONS), dtype=np.bool_)
        self._kernel(_MASK, idx.shape[0])(self.state, idx, out)
        return out

    def legal_actions(self, game: int = 0) -> list[int]:
        """Legal action ids of one game (ascending)."""
        bits = int(K.legal_bits(self.state, int(game)))
        off = int(K.action_offset(self.state, int(game)))
        return [off + c for c in cards_of(bits)]

    def random_actions(self, rng: np.random.Generator | None = None) -> np.ndarray:
        """A uniformly random legal action for every game (``rng`` for reproducibility)."""
        rng = rng if rng is not None else np.random.default_rng()
        out = np.empty(self.num_games, dtype=np.int64)
        self._kernel(_RANDOM)(self.state, rng.random(self.num_games), out)
        return out

    def step(self, actions: Any, games: Any = None) -> StepInfo:
        """Apply one action in every game (or in ``games``); nothing changes if any is illegal.

        Args:
            actions: integer array of shape (n,), one per game stepped: ids 0..103 (and
                -1 for a game waiting in the DONE phase when ``auto_reset`` is off).
            games: ascending indices of the games to step (default: all B games); the
                others do not move.

        Returns:
            A :class:`StepInfo` whose rows follow ``games``.

        Raises:
            TypeError: non-integer actions. ValueError: wrong shape or an illegal action
            (the message names the game, the action and the legal ones).
        """
        idx = self._game_indices(games)
        n = idx.shape[0]
        acts = action_array(actions, n)
        info = np.empty((n, K.NINFO), dtype=np.int64)
        nbad = self._kernel(_STEP, n)(
            self.state, idx, acts, self.params, info, self._bad, self.auto_reset
        )
        if nbad:
            self._raise_illegal(idx, acts, nbad)
        return StepInfo(info, self.rules.num_sides)

    def _raise_illegal(self, idx: np.ndarray, acts: np.ndarray, nbad: int) -> None:
        i = int(np.flatnonzero(self._bad[: idx.shape[0]])[0])
        b = int(idx[i])
        legal = self.legal_actions(b)
        raise ValueError(
            f"illegal action {int(acts[i])} ({action_str(acts[i])}) in game {b} for "
            f"player_{int(self.state[b, K.MOVER])} in the {self.phase_name(b)} phase; "
            f"legal actions: {legal} ({', '.join(action_str(a) for a in legal)})"
            + (f" [{nbad - 1} other game(s) also illegal]" if nbad > 1 else "")
        )

    def step_single(self, action: int) -> StepInfo:
        """:meth:`step` for a one-game engine with a plain int (the AEC env's hot path).

        Same validation and errors as :meth:`step`, less of its per-call overhead.
        """
        if self.num_games != 1:
            raise ValueError("step_single() needs an engine of one game")
        act = self.__dict__.get("_single_action")
        if act is None:
            act = self._single_action = np.zeros(1, dtype=np.int64)
        act[0] = action
        info = np.empty((1, K.NINFO), dtype=np.int64)
        if _STEP.serial(self.state, self._all, act, self.params, info, self._bad, self.auto_reset):
            return self.step(np.array([action], dtype=np.int64))  # raises the full error
        return StepInfo(info, self.rules.num_sides)

    def random_playout(self, steps: int, seed: int = 0) -> int:
        """Play ``steps`` uniformly random actions in every game inside one compiled loop.

        Returns the number of rounds finished. Used by benchmarks and tests; the
        policy's random numbers do not touch the games' deal streams.
        """
        info = np.empty((self.num_games, K.NINFO), dtype=np.int64)
        return int(
            self._kernel(_PLAYOUT)(self.state, self.params, int(steps), K.stream_base(seed), info)
        )

    # ---- full moves -----------------------------------------------------------------
    def move_options(self, game: int = 0) -> list[tuple[int, tuple[int, ...]]]:
        """Every full move of the mover of ``game``: ``(card, captured card ids)``.

        Only in the PLAY phase (raises ``ValueError`` otherwise). A card that captures
        nothing appears once with ``()``: it is laid on the table.
        """
        if self.state[game, K.PHASE] != K.PLAY:
            raise ValueError(f"game {game} is not in the PLAY phase")
        cards = np.empty(4096, dtype=np.int64)
        capt = np.empty(4096, dtype=np.int64)
        n = K.enumerate_moves(self.state, int(game), cards, capt)
        if n < 0:
            raise RuntimeError("too many capture options to enumerate")
        return [(int(cards[i]), tuple(cards_of(capt[i]))) for i in range(n)]

    def move_to_actions(
        self, game: int, card: int | str, captured: Sequence[int | str]
    ) -> list[int]:
        """The action sequence that makes the full move ``(card, captured)`` in ``game``."""
        c = parse_card(card)
        cap = sorted(parse_cards(captured))
        moves = self.move_options(game)
        if (c, tuple(cap)) not in moves:
            raise ValueError(f"({card_code(c)}, {[card_code(x) for x in cap]}) is not a legal move")
        n, _ = K.resolve_play(int(self.state[game, K.TABLE]), c)
        return [c] if n < 2 else [c] + [52 + t for t in cap]

    def determinize(
        self, game: int, n: int, seat: int | None = None, seed: int | None = None
    ) -> Engine:
        """``n`` copies of ``game`` in which the cards ``seat`` cannot see are re-dealt.

        The cards in other seats' hands (face-up Ru Baaz cards excepted) and in the stock
        are permuted uniformly at random over those places: each copy is a position
        consistent with what ``seat`` (default: the mover) has seen. This is the sampling
        step of determinized / information-set search.
        """
        seat = int(self.state[game, K.MOVER]) if seat is None else int(seat)
        seeds = np.random.SeedSequence(seed).generate_state(int(n), np.uint64).view(np.int64)
        out = np.empty((int(n), K.NCOL), dtype=np.int64)
        K.determinize_kernel(self.state, int(game), seat, self.rules.open_hand, seeds, out)
        return self._with_state(out)

    def hidden_cards(self, game: int, seat: int) -> list[int]:
        """Card ids that ``seat`` cannot see in ``game`` (other hands and the stock)."""
        return cards_of(K.hidden_from(self.state, int(game), int(seat), self.rules.open_hand))

    def capture_is_sur(self, game: int, card: int, captured: Sequence[int]) -> bool:
        """Whether the full move ``(card, captured)`` would be a sur in ``game``."""
        mask = sum(1 << parse_card(x) for x in captured)
        return bool(K.capture_is_sur(self.state, int(game), self.params, parse_card(card), mask))

    # ---- named views of the state ---------------------------------------------------------
    @property
    def num_games(self) -> int:
        return self.state.shape[0]

    @property
    def num_players(self) -> int:
        return self.rules.num_players

    @property
    def current_player(self) -> np.ndarray:
        """Seat to move in each game (B,)."""
        return self.state[:, K.MOVER]

    @property
    def phase(self) -> np.ndarray:
        """0 = PLAY, 1 = CAPTURE, 2 = DONE (B,)."""
        return self.state[:, K.PHASE]

    @property
    def done(self) -> np.ndarray:
        """Whether each game has ended and waits for a reset (B,) bool."""
        return self.state[:, K.PHASE] == K.DONE

    def observe(self, games: Any = None, seats: Any = None,
                out: np.ndarray | None = None) -> np.ndarray:
        """Observations of ``seats`` in ``games`` (defaults: every game, its mover):
        float32 (n, N), the encoder of :mod:`pasur_env.pasur.observation`."""
        from pasur_env.pasur.observation import encode  # the encoder reads this engine

        return encode(self, games, seats, out)

    def phase_name(self, game: int) -> str:
        return K.PHASE_NAMES[int(self.state[game, K.PHASE])]

    @property
    def hands(self) -> np.ndarray:
        """Hand of each seat as a 52-bit mask (B, P)."""
        return self.state[:, K.HAND : K.HAND + self.num_players]

    @property
    def hand_order(self) -> np.ndarray:
        """Cards of the current deal per seat in dealing order, -1 once played (B, P, 4)."""
        return self.state[:, K.ORDER : K.ORDER + 16].reshape(-1, 4, 4)[:, : self.num_players]

    @property
    def table(self) -> np.ndarray:
        return self.state[:, K.TABLE]

    @property
    def piles(self) -> np.ndarray:
        """Captured cards of each side as masks (B, S)."""
        return self.state[:, K.PILE : K.PILE + self.rules.num_sides]

    @property
    def surs(self) -> np.ndarray:
        """Surs of each side this round (B, S)."""
        return self.state[:, K.SURS : K.SURS + self.rules.num_sides]

    @property
    def scores(self) -> np.ndarray:
        """Game score of each side (B, S)."""
        return self.state[:, K.SCORE : K.SCORE + self.rules.num_sides]

    @property
    def pending(self) -> np.ndarray:
        """Card awaiting its capture choice, -1 outside the CAPTURE phase (B,)."""
        return self.state[:, K.PENDING]

    @property
    def selection(self) -> np.ndarray:
        """Table cards chosen so far in the CAPTURE phase, as masks (B,)."""
        return self.state[:, K.SELECTION]

    @property
    def stock_size(self) -> np.ndarray:
        return 52 - self.state[:, K.STOCK_POS]

    @property
    def dealer(self) -> np.ndarray:
        return self.state[:, K.DEALER]

    @property
    def deal_index(self) -> np.ndarray:
        """0-based index of the current deal in the round (B,)."""
        return self.state[:, K.DEAL]

    @property
    def turn(self) -> np.ndarray:
        """Turns finished in the current round, 0..47 (B,)."""
        return self.state[:, K.TURN]

    @property
    def last_capturer(self) -> np.ndarray:
        return self.state[:, K.LAST_CAP]

    @property
    def round_index(self) -> np.ndarray:
        """Rounds finished in the current game (B,)."""
        return self.state[:, K.ROUND]

    def stock(self, game: int = 0) -> list[int]:
        """Stock of one game, top first."""
        return [
            int(c) for c in self.state[game, K.DECK + self.state[game, K.STOCK_POS] : K.DECK + 52]
        ]

    def hand(self, game: int = 0, seat: int | None = None) -> list[int]:
        """Cards in a seat's hand (default: the mover's), in dealing order."""
        seat = int(self.state[game, K.MOVER]) if seat is None else seat
        return [int(c) for c in self.hand_order[game, seat] if c >= 0]

    def faceup(self, game: int = 0) -> list[int]:
        """Ru Baaz face-up card of each seat (-1 if none): the earliest-dealt card in hand."""
        if not self.rules.open_hand:
            return [-1] * self.num_players
        out = []
        for seat in range(self.num_players):
            cards = [c for c in self.hand_order[game, seat] if c >= 0]
            out.append(int(cards[0]) if cards else -1)
        return out

    def side_of(self, seat: int) -> int:
        return self.rules.side_of(seat)

    def render(self, game: int = 0, viewer: int | None = None) -> str:
        """Text picture of one game; ``viewer`` hides the other seats' hidden cards
        (:func:`pasur_env.pasur.render.render_text`)."""
        from pasur_env.pasur.render import render_text

        return render_text(self, game, viewer)
