"""The batched Persian Rummy engine: B games in one numpy array, advanced by compiled kernels.

The API (checks, stepping, copies, random play) is
:class:`pasur_env.core.batch_engine.BatchEngine`'s, shared with :class:`pasur_env.Engine`;
the rules live in :mod:`pasur_env.rummy.kernels`; this module gives the Rummy facts:
rules, kernels, state columns, action text, resets and named views. Seeds are
independent of the batch size: game ``b`` gets the splitmix64 stream of ``(seed, b)``
(:mod:`pasur_env.core.rng`).

Example::

    eng = RummyEngine(4096, seed=0)
    info = eng.step(eng.random_actions(np.random.default_rng(0)))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from pasur_env.core.args import check_dealer, check_game, check_seat, check_seed
from pasur_env.core.batch_engine import BaseStepInfo, BatchEngine
from pasur_env.core.rng import stream_base
from pasur_env.rummy import kernels as K
from pasur_env.rummy.actions import action_str
from pasur_env.rummy.cards import cards_of, parse_deck
from pasur_env.rummy.rules import RummyRules, make_rummy_rules

__all__ = ["RummyEngine", "RummyStepInfo"]


class RummyStepInfo(BaseStepInfo, kernels=K):
    """What one :meth:`RummyEngine.step` did, one row per game stepped.

    The shared fields (:class:`~pasur_env.core.batch_engine.BaseStepInfo`: ``actor``,
    ``round_end``, ``game_end``, ``winner`` (team, -1 for a draw or no game end),
    per team ``round_points`` and ``scores``, ``round_end_at``, ``any_round_end``)
    and ``went_out`` (seat, -1 if none).
    """

    __slots__ = ()

    @property
    def went_out(self) -> np.ndarray:
        return self._info[:, K.I_OUT]


class RummyEngine(BatchEngine, kernels=K):
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

    GAME_ID = "persian_rummy"
    STEP_INFO = RummyStepInfo
    action_str = staticmethod(action_str)

    rules: RummyRules

    def __init__(self, num_games: int = 1, seed: int | None = None, *,
                 rules: RummyRules | None = None, episode: str = "game",
                 auto_reset: bool = True, parallel: bool | None = None, **flags: Any) -> None:
        super().__init__(num_games, seed, rules=rules, episode=episode, auto_reset=auto_reset,
                         parallel=parallel, **flags)

    def _make_rules(self, rules: RummyRules | None, **flags: Any) -> RummyRules:
        return make_rummy_rules(rules, **flags)

    def _playout_seed(self, seed: int) -> np.uint64:
        return np.uint64(seed)

    # ---- starting games ---------------------------------------------------------------
    @staticmethod
    def _check_dealer(dealer: Any) -> int:
        """The first deal's dealer: seat 3 by default (so seat 0 plays first)."""
        return 3 if dealer is None else check_dealer(dealer, 4)

    def check_deal(self, deck: Any = None, dealer: Any = None) -> None:
        self._check_dealer(dealer)
        if deck is not None:
            parse_deck(deck)

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
        check_seed(seed)
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
        game = check_game(game, self.num_games)
        seed = check_seed(seed)
        ids = None if deck is None else parse_deck(deck)
        dealer = self._check_dealer(dealer)
        row = self.state[game:game + 1]
        if seed is not None:
            K.seed_streams(row, stream_base(seed), 0)
        row[0, K.START_DEALER] = dealer
        if ids is not None:
            row[0, K.DECK:K.DECK + K.NUM_CARDS] = ids
        K.reset_kernel(self.state, np.array([game], dtype=np.int64),
                       np.array([ids is None]))

    def _reset_where(self, which: np.ndarray) -> None:
        games = np.flatnonzero(which).astype(np.int64)
        K.reset_kernel(self.state, games, np.ones(games.size, dtype=np.bool_))

    def observe(self, games: Any = None, seats: Any = None,
                out: np.ndarray | None = None) -> np.ndarray:
        """Observations of ``seats`` in ``games`` (defaults: every game, its mover):
        float32 (n, 685), the encoder of :mod:`pasur_env.rummy.observation`."""
        from pasur_env.rummy.observation import OBS_SIZE, observe_batch

        games, seats = self._observe_args(games, seats)
        if seats is None:
            seats = self.state[games, K.MOVER]
        seats = np.broadcast_to(np.asarray(seats, dtype=np.int64), games.shape)
        if out is None:
            out = np.zeros((games.shape[0], OBS_SIZE), dtype=np.float32)
        observe_batch(self.state, games, np.ascontiguousarray(seats), out)
        return out

    @property
    def obs_size(self) -> int:
        """Width of one observation row (685)."""
        from pasur_env.rummy.observation import OBS_SIZE

        return OBS_SIZE

    def hand(self, game: int, seat: int) -> list[int]:
        """Cards in ``seat``'s hand, ascending."""
        return cards_of(self.state[check_game(game, self.num_games),
                                   K.HAND + check_seat(seat, 4)])

    def taken(self, game: int, seat: int) -> list[int]:
        """Cards ``seat`` took from the discard pile and still holds (public)."""
        return cards_of(self.state[check_game(game, self.num_games),
                                   K.TAKEN + check_seat(seat, 4)])

    def melds(self, game: int = 0) -> list[list[int]]:
        """The melds on the table, each as its cards."""
        game = check_game(game, self.num_games)
        return [cards_of(m) for m in self.state[game, K.MELD:K.MELD + self.state[game, K.NMELDS]]]

    def pile(self, game: int = 0) -> list[int]:
        """The discard pile, bottom first."""
        game = check_game(game, self.num_games)
        return self.state[game, K.PILE:K.PILE + self.state[game, K.PILE_N]].tolist()

    @property
    def stock_size(self) -> np.ndarray:
        """Cards left in the stock of each game (B,)."""
        return K.NUM_CARDS - self.state[:, K.STOCK_POS]

    @property
    def scores(self) -> np.ndarray:
        """Game score of each team (B, 2)."""
        return self.state[:, K.SCORE:K.SCORE + 2]

    @property
    def seat_sides(self) -> np.ndarray:
        from pasur_env.rummy.rewards import SEAT_TEAM  # the rewards read this module

        return SEAT_TEAM.copy()

    def _determinize_into(self, game: int, seat: int, seeds: np.ndarray, out: np.ndarray
                          ) -> None:
        K.determinize_kernel(self.state, game, seat, seeds, out)

    def render(self, game: int = 0, viewer: int | None = None) -> str:
        """Text picture of one game (``viewer`` hides the other hands)."""
        from pasur_env.rummy.render import render_text

        game = check_game(game, self.num_games)
        viewer = None if viewer is None else check_seat(viewer, self.num_players, "viewer")
        return render_text(self, game, viewer)
