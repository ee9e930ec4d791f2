"""Three-card fishing: the toy game's rules and its batched engine (numpy, no compiled
kernels), a :class:`pasur_env.core.batch_engine.BatchEngine` like Pasur's and Persian
Rummy's.

Eight cards, values 1 to 4 in two suits (card ``c`` is value ``c // 2 + 1``, suit
``"ab"[c % 2]``: ``1a``, ``1b``, ..., ``4b``). Each deal gives three cards to each of
the two players and two to the table; the player after the dealer leads and the
players alternate. A move plays one card of the hand (action ``c``): when the table
holds the other card of its value, the player takes it (two cards: two points), else
the card stays on the table. A round ends when both hands are empty; each player scores
the cards taken. A game is ``deals`` rounds (default 2), the dealer alternating; the
higher score wins (equal scores: a tie).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from pasur_env.core.args import check_dealer, check_game, check_seat, check_seed
from pasur_env.core.batch_engine import BaseStepInfo, BatchEngine
from pasur_env.core.rng import GOLDEN, seed_stream_column, stream_base

NUM_CARDS = NUM_ACTIONS = 8
HAND_SIZE = 3
#: state columns: hands (a bit per card, one per seat), table, mover, phase, stream,
#: scores and this round's takings (per seat), deal index, dealer, first dealer, deck
HAND, TABLE, MOVER, PHASE, RNG, SCORE, TAKEN, DEAL, DEALER, START_DEALER, DECK = (
    0, 2, 3, 4, 5, 6, 8, 10, 11, 12, 13)
NCOL = DECK + NUM_CARDS
PLAY, DONE = 0, 1
#: step report columns
I_ACTOR, I_ROUND_END, I_GAME_END, I_WINNER, I_POINTS, I_SCORES = 0, 1, 2, 3, 4, 6
NINFO = 8
#: observation: own hand, table (a flag per card), the other hand's size, both scores,
#: both players' takings this round (own first), all in [0, 1]
OBS_SIZE = 2 * NUM_CARDS + 5
_BITS = np.arange(NUM_CARDS, dtype=np.int64)


def card_code(card: int) -> str:
    return f"{card // 2 + 1}{'ab'[card % 2]}"


def action_str(action: int) -> str:
    """``PLAY 3a`` (``-1``: the pass of an ended game)."""
    return f"PLAY {card_code(int(action))}" if 0 <= action < NUM_ACTIONS else str(action)


def parse_deck(deck: Sequence[Any]) -> np.ndarray:
    """A first deal's order (top first): the eight cards once each, as ids or codes."""
    codes = {card_code(c): c for c in range(NUM_CARDS)}
    try:
        ids = [codes[str(c).lower()] if isinstance(c, str) else int(c) for c in deck]
    except (KeyError, TypeError, ValueError):
        raise ValueError(f"a deck holds the card codes {', '.join(codes)}") from None
    if sorted(ids) != list(range(NUM_CARDS)):
        raise ValueError(f"a deck holds each of the {NUM_CARDS} cards once, got {list(deck)}")
    return np.array(ids, dtype=np.int64)


@dataclass(frozen=True)
class ToyRules:
    """The one rule flag: ``deals`` per game."""

    deals: int = 2

    num_players = 2
    num_sides = 2

    def as_params(self, episode_round: bool) -> np.ndarray:
        return np.array([self.deals, int(episode_round)], dtype=np.int64)


def make_toy_rules(rules: ToyRules | None = None, **flags: Any) -> ToyRules:
    """The rules from a :class:`ToyRules` or the flags (``TypeError`` for an unknown
    flag, ``ValueError`` for a bad value)."""
    if rules is not None:
        if flags or not isinstance(rules, ToyRules):
            raise TypeError("give a ToyRules or rule flags, not both")
        return rules
    unknown = sorted(set(flags) - {"deals"})
    if unknown:
        raise TypeError(f"unknown rule flag(s) {unknown}: the toy game takes deals")
    deals = flags.get("deals", 2)
    if isinstance(deals, bool) or not isinstance(deals, (int, np.integer)) or deals < 1:
        raise ValueError(f"deals must be a positive int, got {deals!r}")
    return ToyRules(int(deals))


# ---- the kernels: numpy over the games stepped ------------------------------------------------
def _mix64(z: np.ndarray) -> np.ndarray:
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def _shuffle(st: np.ndarray, rows: np.ndarray) -> None:
    """A new deck order in ``rows`` from each game's own splitmix64 stream."""
    z = st[rows, RNG].view(np.uint64)
    deck = np.tile(_BITS, (rows.size, 1))
    at = np.arange(rows.size)
    for i in range(NUM_CARDS - 1, 0, -1):
        z = z + GOLDEN
        j = (_mix64(z) % np.uint64(i + 1)).astype(np.int64)
        deck[at, i], deck[at, j] = deck[at, j], deck[:, i].copy()
    st[rows, RNG] = z.view(np.int64)
    st[rows, DECK:DECK + NUM_CARDS] = deck


def _deal(st: np.ndarray, rows: np.ndarray) -> None:
    """Deal the deck of ``rows``: three cards to each seat, two to the table."""
    deck = st[rows, DECK:DECK + NUM_CARDS]
    for seat in range(2):
        st[rows, HAND + seat] = (1 << deck[:, 3 * seat:3 * seat + 3]).sum(axis=1)
    st[rows, TABLE] = (1 << deck[:, 6:]).sum(axis=1)
    st[rows, MOVER] = (st[rows, DEALER] + 1) % 2
    st[rows, TAKEN:TAKEN + 2] = 0
    st[rows, PHASE] = PLAY


def new_games(st: np.ndarray, rows: np.ndarray, shuffle: bool) -> None:
    """Start a game in ``rows`` (``shuffle``: from the streams, else their decks)."""
    st[rows, SCORE:SCORE + 2] = 0
    st[rows, DEAL] = 0
    st[rows, DEALER] = st[rows, START_DEALER]
    if shuffle:
        _shuffle(st, rows)
    _deal(st, rows)


def _round_ends(st: np.ndarray, e: np.ndarray, params: np.ndarray, info: np.ndarray,
                auto_reset: bool) -> None:
    """Score the rounds that ended in rows ``e``; deal the next or end the game."""
    pts = st[e, TAKEN:TAKEN + 2].copy()
    st[e, SCORE:SCORE + 2] += pts
    st[e, DEAL] += 1
    scores = st[e, SCORE:SCORE + 2].copy()
    game_end = (params[1] == 1) | (st[e, DEAL] >= params[0])
    lead = np.sign(scores[:, 0] - scores[:, 1])
    info[e, I_ROUND_END] = 1
    info[e, I_GAME_END] = game_end
    info[e, I_WINNER] = np.where(game_end & (lead != 0), np.where(lead > 0, 0, 1), -1)
    info[e, I_POINTS:I_POINTS + 2] = pts
    info[e, I_SCORES:I_SCORES + 2] = scores
    more = e[~game_end]
    st[more, DEALER] = 1 - st[more, DEALER]
    _shuffle(st, more)
    _deal(st, more)
    ended = e[game_end]
    if auto_reset:
        new_games(st, ended, shuffle=True)
    else:
        st[ended, PHASE] = DONE


def step_kernel(state: np.ndarray, params: np.ndarray, games: np.ndarray,
                actions: np.ndarray, info: np.ndarray, bad: np.ndarray,
                auto_reset: bool) -> int:
    """Play ``actions`` in ``games``; nothing moves when one is illegal (their count)."""
    n = games.shape[0]
    st = state[games]
    mover = st[:, MOVER]
    hand = st[np.arange(n), HAND + mover]
    done = st[:, PHASE] == DONE
    held = ((actions >= 0) & (actions < NUM_ACTIONS)
            & (((hand >> np.clip(actions, 0, 7)) & 1) == 1))
    ok = np.where(done, actions == -1, held)
    bad[:n] = ~ok
    if not ok.all():
        return int(n - ok.sum())
    info[:] = 0
    info[:, I_ACTOR] = mover
    info[:, I_WINNER] = -1
    r = np.flatnonzero(~done)
    a, m = actions[r], mover[r]
    st[r, HAND + m] &= ~(1 << a)
    match = st[r, TABLE] & (3 << (a - a % 2))  # the other card of the value, if on the table
    took = match != 0
    st[r, TABLE] = np.where(took, st[r, TABLE] & ~(match & -match), st[r, TABLE] | (1 << a))
    st[r, TAKEN + m] += 2 * took
    st[r, MOVER] = 1 - m
    ended = r[(st[r, HAND] == 0) & (st[r, HAND + 1] == 0)]
    if ended.size:
        _round_ends(st, ended, params, info, auto_reset)
    state[games] = st
    return 0


def legal_mask_kernel(state: np.ndarray, games: np.ndarray, out: np.ndarray) -> None:
    st = state[games]
    hand = st[np.arange(games.shape[0]), HAND + st[:, MOVER]]
    out[:] = (((hand[:, None] >> _BITS) & 1) == 1) & (st[:, PHASE] != DONE)[:, None]


def random_actions_kernel(state: np.ndarray, games: np.ndarray, uniforms: np.ndarray,
                          out: np.ndarray) -> None:
    mask = np.empty((games.shape[0], NUM_ACTIONS), dtype=np.bool_)
    legal_mask_kernel(state, games, mask)
    counts = mask.sum(axis=1)
    k = np.minimum((uniforms * counts).astype(np.int64), np.maximum(counts - 1, 0))
    pick = (np.cumsum(mask, axis=1) > k[:, None]).argmax(axis=1)
    out[:] = np.where(counts > 0, pick, -1)


def playout_kernel(state: np.ndarray, params: np.ndarray, steps: int, seed_base: np.uint64,
                   auto_reset: bool) -> np.ndarray:
    """``steps`` uniformly random legal moves in every game; rounds ended per game."""
    rng = np.random.default_rng(int(seed_base))
    games = np.arange(state.shape[0], dtype=np.int64)
    rounds = np.zeros(games.shape[0], dtype=np.int64)
    acts = np.empty(games.shape[0], dtype=np.int64)
    info = np.empty((games.shape[0], NINFO), dtype=np.int64)
    bad = np.zeros(games.shape[0], dtype=np.bool_)
    for _ in range(steps):
        random_actions_kernel(state, games, rng.random(games.shape[0]), acts)
        step_kernel(state, params, games, acts, info, bad, auto_reset)
        rounds += info[:, I_ROUND_END]
    return rounds


class NumpyKernel:
    """A numpy function in the place of a compiled batch kernel (one build for every
    batch size: ``for_batch`` and ``serial`` are the function)."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.serial = fn

    def for_batch(self, n: int, parallel: bool | None = None) -> Callable[..., Any]:
        return self.serial


# ---- the engine -------------------------------------------------------------------------------
class ToyStepInfo(BaseStepInfo):
    """What one :meth:`ToyEngine.step` did (the fields every game reports)."""

    __slots__ = ()
    I_ACTOR, I_ROUND_END, I_GAME_END, I_WINNER = I_ACTOR, I_ROUND_END, I_GAME_END, I_WINNER
    I_POINTS, I_SCORES = I_POINTS, I_SCORES


class ToyEngine(BatchEngine):
    """B games of three-card fishing advanced in lock step (module docstring)."""

    GAME_ID = "toy"
    NUM_ACTIONS, NCOL, NINFO = NUM_ACTIONS, NCOL, NINFO
    PHASE_NAMES = ("play", "done")
    MOVER, PHASE, RNG, DONE = MOVER, PHASE, RNG, DONE
    STEP_INFO = ToyStepInfo
    STEP_KERNEL = NumpyKernel(step_kernel)
    MASK_KERNEL = NumpyKernel(legal_mask_kernel)
    RANDOM_KERNEL = NumpyKernel(random_actions_kernel)
    PLAYOUT_KERNEL = NumpyKernel(playout_kernel)
    action_str = staticmethod(action_str)
    rules: ToyRules

    def _make_rules(self, rules: ToyRules | None, **flags: Any) -> ToyRules:
        return make_toy_rules(rules, **flags)

    def _playout_seed(self, seed: int) -> np.uint64:
        return np.uint64(seed)

    def check_deal(self, deck: Any = None, dealer: Any = None) -> tuple[int, Any]:
        """The first deal's dealer (seat 1 by default, so seat 0 leads) and deck (None:
        shuffled), checked."""
        return (1 if dealer is None else check_dealer(dealer, 2),
                None if deck is None else parse_deck(deck))

    def reset(self, seed: int | None = None, deck: Any = None, dealer: Any = None) -> None:
        """New games everywhere (``seed`` reseeds the streams: game b gets that of
        ``(seed, b)``; ``deck``, ``dealer`` fix the first deal)."""
        check_seed(seed)
        dealer, ids = self.check_deal(deck, dealer)
        if seed is not None or not self.state[:, RNG].any():
            seed_stream_column(self.state, RNG, stream_base(seed), 0)
        self.state[:, START_DEALER] = dealer
        if ids is not None:
            self.state[:, DECK:DECK + NUM_CARDS] = ids
        new_games(self.state, self._all, shuffle=ids is None)

    def reset_game(self, game: int, seed: int | None = None, deck: Any = None,
                   dealer: Any = None) -> None:
        """A new game in one slot (``seed``: the stream of ``(seed, 0)``, as a one-game
        engine's reset)."""
        one = self.take([check_game(game, self.num_games)])
        one.reset(seed=seed, deck=deck, dealer=dealer)
        self.state[game] = one.state[0]

    def _reset_where(self, which: np.ndarray) -> None:
        new_games(self.state, np.flatnonzero(which), shuffle=True)

    def observe(self, games: Any = None, seats: Any = None,
                out: np.ndarray | None = None) -> np.ndarray:
        games, seats = self._observe_args(games, seats)
        st = self.state[games]
        me = st[:, MOVER] if seats is None else np.broadcast_to(
            np.asarray(seats, dtype=np.int64), games.shape)
        i = np.arange(games.shape[0])
        out = np.zeros((games.shape[0], OBS_SIZE), np.float32) if out is None else out
        out[:, :8] = (st[i, HAND + me][:, None] >> _BITS) & 1
        out[:, 8:16] = (st[:, TABLE][:, None] >> _BITS) & 1
        out[:, 16] = ((st[i, HAND + 1 - me][:, None] >> _BITS) & 1).sum(axis=1) / HAND_SIZE
        most = NUM_CARDS * self.rules.deals
        out[:, 17], out[:, 18] = st[i, SCORE + me] / most, st[i, SCORE + 1 - me] / most
        out[:, 19], out[:, 20] = st[i, TAKEN + me] / 8, st[i, TAKEN + 1 - me] / 8
        return out

    @property
    def obs_size(self) -> int:
        return OBS_SIZE

    @property
    def scores(self) -> np.ndarray:
        return self.state[:, SCORE:SCORE + 2]

    @property
    def stock_size(self) -> np.ndarray:
        return np.zeros(self.num_games, dtype=np.int64)  # everything is dealt

    @property
    def seat_sides(self) -> np.ndarray:
        return np.arange(2, dtype=np.int64)

    def _determinize_into(self, game: int, seat: int, seeds: np.ndarray, out: np.ndarray
                          ) -> None:
        # every card is dealt and every play seen: the other hand is the cards a seat has
        # not seen played, so nothing is left to deal again; each copy gets its stream
        out[:] = self.state[game]
        out[:, RNG] = seeds

    def hand(self, game: int, seat: int) -> list[int]:
        row = self.state[check_game(game, self.num_games)]
        return [c for c in range(NUM_CARDS) if row[HAND + check_seat(seat, 2)] >> c & 1]

    def table(self, game: int = 0) -> list[int]:
        row = self.state[check_game(game, self.num_games)]
        return [c for c in range(NUM_CARDS) if row[TABLE] >> c & 1]

    def render(self, game: int = 0, viewer: int | None = None) -> str:
        """The table as text (``viewer`` sees only their own hand)."""
        row = self.state[check_game(game, self.num_games)]
        lines = [f"deal {min(row[DEAL] + 1, self.rules.deals)} of {self.rules.deals}; "
                 f"table: {' '.join(card_code(c) for c in self.table(game)) or '-'}"]
        for s in range(2):
            cards = self.hand(game, s)
            shown = ([card_code(c) for c in cards] if viewer in (None, s)
                     else ["##"] * len(cards))
            lines.append(f"player_{s}: {' '.join(shown) or '-'} (score {row[SCORE + s]}, "
                         f"took {row[TAKEN + s]})")
        return "\n".join(lines)
