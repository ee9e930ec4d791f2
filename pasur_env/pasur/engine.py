"""The batched Pasur engine: B games in one numpy array, advanced by compiled kernels.

:class:`Engine` is the single implementation of the rules used by the AEC env, the
Gymnasium envs, the vector env and the agents. The rules themselves live in
:mod:`pasur_env.pasur.kernels`; the API (checks, stepping, copies, random play) is
:class:`pasur_env.core.batch_engine.BatchEngine`'s; this module gives the Pasur
facts: rules, kernels, state columns, action text, resets and named views.
Positions to build games from are in :mod:`pasur_env.pasur.positions`; full moves and
determinization (for search) in :mod:`pasur_env.pasur.moves`.

Example::

    eng = Engine(4096, seed=0)
    info = eng.step(eng.random_actions(np.random.default_rng(0)))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from pasur_env.core.args import check_dealer, check_game, check_seat, check_seed
from pasur_env.core.batch_engine import BaseStepInfo, BatchEngine
from pasur_env.core.compile import PARALLEL_MIN_BATCH, BatchKernel
from pasur_env.pasur import kernels as K
from pasur_env.pasur.cards import card_code, cards_of, parse_deck
from pasur_env.pasur.rules import Rules, make_rules

if TYPE_CHECKING:
    from pasur_env.pasur.positions import Position

__all__ = ["Engine", "StepInfo", "action_str"]


class StepInfo(BaseStepInfo, kernels=K):
    """What one :meth:`Engine.step` did in each game (arrays with a leading batch axis).

    The shared fields (:class:`~pasur_env.core.batch_engine.BaseStepInfo`: ``actor``,
    ``round_end``, ``game_end``, ``winner``, ``round_points``, ``scores``,
    ``round_end_at``, ``any_round_end``) and, per *side*, ``surs``, ``clubs``,
    ``piles`` (the cards counted, as masks) and ``club_points``. The per-side fields
    are only meaningful where ``round_end`` is set. ``winner`` is the winning side
    where ``game_end`` (the round's winner for one-round episodes; -1 for a tie), else -1.
    """

    __slots__ = ()

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


def action_str(action: int) -> str:
    """Readable form of an action id: ``"PLAY 10D"`` or ``"TAKE 4S"``."""
    a = int(action)
    if 0 <= a < 52:
        return f"PLAY {card_code(a)}"
    if 52 <= a < 104:
        return f"TAKE {card_code(a - 52)}"
    return f"<invalid action {a}>"


class Engine(BatchEngine, kernels=K):
    """B Pasur games advanced in lock step by compiled kernels.

    Args:
        num_games: batch size B.
        seed: seed of the per-game random streams (shuffles); ``None`` draws entropy.
        rules: a :class:`Rules`; or give ``preset`` and/or rule flags as keywords.
        preset: a name of :data:`pasur_env.PRESETS` (``"classic"``, ``"cfr_paper"``, the
            small variants ``"mini"`` and ``"small"``).
        episode: ``"game"`` (play rounds until a side wins) or ``"round"`` (a game is
            one round; scores restart each round).
        auto_reset: start a new game in place when one ends (else it waits in the
            DONE phase, where only action -1 is legal, until :meth:`reset_games`).
        parallel: use the multi-threaded kernels; ``None`` = when B >= 512.
        **flags: rule flags overriding the preset (see :class:`Rules`).
    """

    GAME_ID = "pasur"
    STEP_INFO = StepInfo
    RESET_KERNEL = BatchKernel(K.reset_kernel, PARALLEL_MIN_BATCH)
    #: each game's random stream and given first deck (-1s: shuffled) when it began,
    #: what a :class:`pasur_env.pasur.record.GameRecord` needs to replay it
    PER_GAME = ("start_streams", "start_decks")
    action_str = staticmethod(action_str)

    rules: Rules
    start_streams: np.ndarray
    start_decks: np.ndarray

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
        super().__init__(num_games, seed, rules=rules, episode=episode, auto_reset=auto_reset,
                         parallel=parallel, preset=preset, **flags)

    def _make_rules(self, rules: Rules | None, **flags: Any) -> Rules:
        return make_rules(rules=rules, **flags)

    def _init_per_game(self) -> None:
        n = self.state.shape[0]
        self.start_streams = np.zeros(n, dtype=np.int64)
        self.start_decks = np.full((n, self.rules.deck_size), -1, dtype=np.int64)

    def _playout_seed(self, seed: int) -> np.uint64:
        return K.stream_base(seed)

    @classmethod
    def from_positions(cls, positions: Sequence[Position], **kwargs: Any) -> Engine:
        """Games built from explicit PLAY-phase positions: a delegate to
        :func:`pasur_env.pasur.positions.engine_from_positions` (same keywords)."""
        from pasur_env.pasur.positions import engine_from_positions

        return engine_from_positions(positions, **kwargs)

    # ---- resetting --------------------------------------------------------------------
    def _dealers(self, dealer: Any) -> np.ndarray:
        B, P = self.num_games, self.rules.num_players
        if dealer is None:
            return np.full(B, P - 1, dtype=np.int64)
        dealers = check_dealer(dealer, P, B)
        return np.full(B, dealers, dtype=np.int64) if np.ndim(dealers) == 0 else dealers

    def _decks(self, deck: Any) -> np.ndarray | None:
        if deck is None:
            return None
        cards = self.rules.cards  # None: the 52 cards
        n = self.rules.deck_size
        arr = np.asarray(deck, dtype=object)
        if arr.ndim == 2:
            if arr.shape[0] != self.num_games:
                raise ValueError(
                    f"a (B, {n}) deck array needs B={self.num_games} rows, got {arr.shape[0]}"
                )
            return np.stack([parse_deck(list(r), cards) for r in arr])
        return parse_deck(deck, cards)[None, :]

    def _deck_rows(self, decks: np.ndarray) -> np.ndarray:
        """The ``DECK`` columns for given orders of the cards in play: the cards out of
        play first (ascending), then the order (see :mod:`pasur_env.pasur.kernels.deal`)."""
        in_play = set(self.rules.deck_cards)
        out = [c for c in range(52) if c not in in_play]
        if not out:
            return decks
        return np.concatenate([np.broadcast_to(np.array(out, dtype=np.int64),
                                               (decks.shape[0], len(out))), decks], axis=1)

    def check_deal(self, deck: Any = None, dealer: Any = None) -> None:
        self._dealers(dealer)
        self._decks(deck)

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
            deck: the first round's deck order, index 0 = top: 52 codes/ids (a small
                variant's n cards when ``rules.cards`` is set) for every game, or a
                (B, 52) (or (B, n)) array of ids. Later rounds are shuffled.
            dealer: the first round's dealer (default seat P - 1), one int or one per game.
        """
        # validate everything first: a failed reset leaves the games untouched
        check_seed(seed)
        dealers = self._dealers(dealer)
        decks = self._decks(deck)
        if seed is not None or not self.state[:, K.RNG].any():
            K.seed_streams(self.state, K.stream_base(seed), 0)
        self.state[:, K.START_DEALER] = dealers
        self.start_streams[:] = self.state[:, K.RNG]
        self.start_decks[:] = -1 if decks is None else decks
        if decks is not None:
            self.state[:, K.DECK : K.DECK + 52] = self._deck_rows(decks)
        self._kernel(self.RESET_KERNEL)(
            self.state, self.params, np.ones(self.num_games, dtype=np.bool_), decks is None
        )

    def _reset_where(self, which: np.ndarray) -> None:
        self.start_streams[which] = self.state[which, K.RNG]
        self.start_decks[which] = -1
        self._kernel(self.RESET_KERNEL)(self.state, self.params, which, True)

    # ---- acting -----------------------------------------------------------------------
    def legal_actions(self, game: int = 0) -> list[int]:
        """Legal action ids of one game (ascending), read from its card bits."""
        game = check_game(game, self.num_games)
        bits = int(K.legal_bits(self.state, game))
        off = int(K.action_offset(self.state, game))
        return [off + c for c in cards_of(bits)]

    # ---- named views of the state ---------------------------------------------------------
    def observe(self, games: Any = None, seats: Any = None,
                out: np.ndarray | None = None) -> np.ndarray:
        """Observations of ``seats`` in ``games`` (defaults: every game, its mover):
        float32 (n, N), the encoder of :mod:`pasur_env.pasur.observation`."""
        from pasur_env.pasur.observation import encode  # the encoder reads this engine

        games, seats = self._observe_args(games, seats)
        return encode(self, games, seats, out)

    @property
    def obs_size(self) -> int:
        """Width of one observation row (it depends on the rules: seats, open hand)."""
        from pasur_env.pasur.observation import observation_size

        return observation_size(self.rules)

    @property
    def history_size(self) -> int:
        """Width of a :meth:`play_history` row: a 52-card plane per seat."""
        return 52 * self.num_players

    def play_history(self, games: Any = None, seats: Any = None) -> np.ndarray:
        """The cards each seat has played this round (public: every play is seen), as
        52-card planes of the relative seats, the viewer's first (as in the observation):
        float32 (n, 52 * P); defaults: every game, its mover."""
        games, seats = self._observe_args(games, seats)
        viewer = self.current_player[games] if seats is None else np.broadcast_to(
            seats, games.shape)
        P = self.num_players
        out = np.empty((games.size, P, 52), dtype=np.float32)
        for k in range(P):
            masks = self.state[games, K.PLAYED + (viewer + k) % P]
            out[:, k] = (masks[:, None] >> np.arange(52)) & 1
        return out.reshape(games.size, 52 * P)

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
        """Cards left in the stock of each game (B,)."""
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
        game = check_game(game, self.num_games)
        return [
            int(c) for c in self.state[game, K.DECK + self.state[game, K.STOCK_POS] : K.DECK + 52]
        ]

    def hand(self, game: int = 0, seat: int | None = None) -> list[int]:
        """Cards in a seat's hand (default: the mover's), in dealing order."""
        game = check_game(game, self.num_games)
        seat = self.mover(game) if seat is None else check_seat(seat, self.num_players)
        return [int(c) for c in self.hand_order[game, seat] if c >= 0]

    def faceup(self, game: int = 0) -> list[int]:
        """Ru Baaz face-up card of each seat (-1 if none): the earliest-dealt card in hand."""
        game = check_game(game, self.num_games)
        if not self.rules.open_hand:
            return [-1] * self.num_players
        out = []
        for seat in range(self.num_players):
            cards = [c for c in self.hand_order[game, seat] if c >= 0]
            out.append(int(cards[0]) if cards else -1)
        return out

    def side_of(self, seat: int) -> int:
        return self.rules.side_of(seat)

    @property
    def seat_sides(self) -> np.ndarray:
        return np.array([self.rules.side_of(s) for s in range(self.num_players)],
                        dtype=np.int64)

    def _determinize_into(self, game: int, seat: int, seeds: np.ndarray, out: np.ndarray
                          ) -> None:
        K.determinize_kernel(self.state, game, seat, self.rules.open_hand, seeds, out)

    def render(self, game: int = 0, viewer: int | None = None) -> str:
        """Text picture of one game; ``viewer`` hides the other seats' hidden cards
        (:func:`pasur_env.pasur.render.render_text`)."""
        from pasur_env.pasur.render import render_text

        game = check_game(game, self.num_games)
        viewer = None if viewer is None else check_seat(viewer, self.num_players, "viewer")
        return render_text(self, game, viewer)
