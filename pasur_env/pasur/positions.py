"""Pasur games built from explicit positions (search, tests, puzzles).

A :class:`Position` lists where every card is at a PLAY-phase decision point;
:func:`engine_from_positions` checks each (every card once, hand and stock sizes a real
deal produces, a turn order that fits) and writes it as a state row of a new
:class:`~pasur_env.pasur.engine.Engine`. Kept apart from the engine, whose one job is
stepping games. ``Engine.from_positions`` is a one-line delegate to the function here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from pasur_env.core.args import check_dealer, check_deck_sequence, check_seed
from pasur_env.pasur import kernels as K
from pasur_env.pasur.cards import card_code, parse_cards
from pasur_env.pasur.engine import Engine
from pasur_env.pasur.rules import Rules

__all__ = ["Position", "engine_from_positions", "position_row"]


@dataclass
class Position:
    """A PLAY-phase position to build games from (see :func:`engine_from_positions`).

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


def engine_from_positions(
    positions: Sequence[Position],
    *,
    rules: Rules | None = None,
    preset: str | None = None,
    episode: str = "game",
    auto_reset: bool = True,
    **flags: Any,
) -> Engine:
    """Build a batch of games from explicit PLAY-phase positions (search, tests).

    Every position must hold each card in play (the 52, or a small variant's deck)
    exactly once across hands, table, stock and piles, with hand and stock sizes that
    a real deal produces.
    """
    if len(positions) == 0:
        raise ValueError("from_positions() needs at least one position")
    if rules is None and "num_players" not in flags:
        flags["num_players"] = len(positions[0].hands)
    eng = Engine(
        len(positions),
        seed=0,
        rules=rules,
        preset=preset,
        episode=episode,
        auto_reset=auto_reset,
        **flags,
    )
    for b, pos in enumerate(positions):
        eng.state[b] = position_row(eng.rules, pos)
    return eng


def _parse_position(pos: Position, r: Rules) -> tuple[list[list[int]], list[int],
                                                      list[int], list[list[int]]]:
    """Hands, table, stock and piles of ``pos`` as ids, after the card-count checks."""
    P, S = r.num_players, r.num_sides
    if len(pos.hands) != P:
        raise ValueError(f"position needs {P} hands, got {len(pos.hands)}")
    if len(pos.piles) != S:
        raise ValueError(f"position needs {S} piles (one per side), got {len(pos.piles)}")
    # hands (dealing order) and the stock (top first) are orders: sets are refused
    hands = [parse_cards(check_deck_sequence(h)) for h in pos.hands]
    table = parse_cards(pos.table)
    stock = parse_cards(check_deck_sequence(pos.stock))
    piles = [parse_cards(p) for p in pos.piles]
    allc = [c for h in hands for c in h] + table + stock + [c for p in piles for c in p]
    deck = r.deck_cards
    if sorted(allc) != list(deck):
        dup = sorted({card_code(c) for c in allc if allc.count(c) > 1})
        missing = [card_code(c) for c in deck if c not in allc]
        foreign = sorted({card_code(c) for c in allc if c not in set(deck)})
        extra = f", not in the game's deck {foreign}" if foreign else ""
        raise ValueError(
            f"position must hold every card once: duplicates {dup}, missing {missing}{extra}"
        )
    if any(len(h) > r.hand_size for h in hands):
        raise ValueError(f"a hand holds at most {r.hand_size} cards")
    return hands, table, stock, piles


def position_row(r: Rules, pos: Position) -> np.ndarray:
    """The state row of ``pos`` under rules ``r`` (``ValueError`` if it cannot occur)."""
    P, S, H = r.num_players, r.num_sides, r.hand_size
    hands, table, stock, piles = _parse_position(pos, r)
    check_dealer(pos.dealer, P)
    check_seed(pos.seed)
    n_stock = len(stock)
    deals, rem = divmod(r.turns_per_round - n_stock, H * P)
    if rem or deals < 1:
        raise ValueError(f"a stock of {n_stock} cards does not occur with {P} players")
    in_hands = sum(len(h) for h in hands)
    if in_hands == 0:
        raise ValueError("all hands are empty: not a decision point")
    played = H * P - in_hands
    for k in range(P):
        seat = (pos.dealer + 1 + k) % P
        turns = max(0, -(-(played - k) // P))
        if len(hands[seat]) != H - turns:
            raise ValueError(
                f"hand sizes do not match the turn order: seat {seat} should hold "
                f"{H - turns} cards after {played} turns of this deal"
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
    row[K.TURN] = r.turns_per_round - n_stock - in_hands
    row[K.DEAL] = deals - 1
    row[K.LAST_CAP] = pos.last_capturer
    row[K.ROUND] = pos.round_index
    tmp = row[None].copy()
    K.seed_streams(tmp, K.stream_base(pos.seed), 0)
    row[K.RNG] = tmp[0, K.RNG]
    return row
