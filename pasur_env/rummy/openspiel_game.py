"""Persian Rummy as an OpenSpiel game, ``python_persian_rummy``: the Rummy part of the
adapter of :mod:`pasur_env.core.openspiel_game` (registered on import;
``import pasur_env.openspiel``).

Parameters: every rule flag of :class:`pasur_env.rummy.rules.RummyRules` but ``deals``
(one deal is one episode, paid by the teams' point difference, zero-sum); four
players, two teams. Randomness enters the rules (``docs/persian_rummy.md`` §3) in the
shuffle only; its chance nodes, each uniform over the cards not dealt yet:

1. the deal, card by card in dealing order: seven cards to each seat, then the card
   that starts the discard pile;
2. every card drawn from the stock: the player's ``DRAW_STOCK`` action is followed by
   the chance node of the card it draws (a card only the drawer sees).

The stock is never reshuffled (an empty stock only allows passing), so nothing else
is random. A seat's private chance events (its hand, its draws) are part of its
information state.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from pasur_env.core.openspiel_game import (
    EngineGame,
    EngineState,
    GameSpec,
    pyspiel,
    register_game,
)
from pasur_env.rummy import kernels as K
from pasur_env.rummy.cards import card_code, cards_of
from pasur_env.rummy.engine import RummyEngine
from pasur_env.rummy.rules import RummyRules, make_rummy_rules

__all__ = ["RummySpec", "RummyGame", "SHORT_NAME", "params_of", "diff_rewards"]

SHORT_NAME = "python_persian_rummy"
#: a bound on the player actions of one deal (draws, melds, lay-offs, discards, passes)
MAX_PLAYER_ACTIONS = 1500
#: cards dealt before play: seven to each seat and the first discard
DEALT = 4 * K.HAND_SIZE + 1

_DEFAULT_RULES = RummyRules()


class RummySpec(GameSpec):
    """Persian Rummy's engine, deck and deal for the adapter (module docstring)."""

    short_name = SHORT_NAME
    long_name = "Persian Rummy (pasur_env)"
    defaults: dict[str, Any] = {
        "four_set_double": _DEFAULT_RULES.four_set_double,
        "last_discard_goes_out": _DEFAULT_RULES.last_discard_goes_out,
    }
    deck_column = K.DECK
    max_player_actions = MAX_PLAYER_ACTIONS
    stock_column = K.STOCK_POS
    num_cards = K.NUM_CARDS

    def __init__(self, params: dict[str, Any]) -> None:
        self.rules = make_rummy_rules(**{k: bool(v) for k, v in params.items()
                                         if k in self.defaults})
        super().__init__(params)

    def new_engine(self) -> RummyEngine:
        return RummyEngine(1, seed=0, rules=self.rules, episode="round", auto_reset=False)

    def side_of(self, seat: int) -> int:
        return seat % 2

    def game_info(self) -> pyspiel.GameInfo:
        return pyspiel.GameInfo(
            num_distinct_actions=K.NUM_ACTIONS,
            max_chance_outcomes=K.NUM_CARDS,
            num_players=4,
            min_utility=-2000.0,
            max_utility=2000.0,
            utility_sum=0.0,
            max_game_length=MAX_PLAYER_ACTIONS + K.NUM_CARDS,
        )

    def begin(self, state: EngineState) -> None:
        state.stage = "deal"
        state.queue_slots(range(DEALT))

    def chance_done(self, state: EngineState) -> None:
        if state.stage == "deal":
            state.engine.reset(deck=self.deal_order(state))
            state.dealt, state.stage = True, "play"
            for seat in range(4):
                hand = " ".join(card_code(c) for c in state.engine.hand(0, seat))
                state.private_events[seat].append(f"hand {hand}")
        elif state.stage == "draw":
            seat = state.engine.mover(0)
            card = int(state.deck[state.engine.state[0, K.STOCK_POS]])
            state.private_events[seat].append(f"drew {card_code(card)}")
            state.stage = "play"
            state.step_engine(K.DRAW_STOCK)

    def before_step(self, state: EngineState, action: int) -> bool:
        if action != K.DRAW_STOCK:
            return False
        state.stage = "draw"
        top = int(state.engine.state[0, K.STOCK_POS])
        state.queue_slots(range(top, top + 1))
        return True

    def chance_string(self, kind: str, arg: int, outcome: int) -> str:
        return f"deal {card_code(outcome)} (deck slot {arg})"

    def determinize(self, state: EngineState, player: int, seed: int) -> np.ndarray:
        """The other seats' cards not known to ``player`` (those not taken from the
        discard pile) and the stock, dealt anew at random; hand sizes kept."""
        row = state.engine.state[0].copy()
        rng = np.random.default_rng(seed)
        others = [p for p in range(4) if p != player]
        unknown = {p: cards_of(row[K.HAND + p] & ~row[K.TAKEN + p]) for p in others}
        top = int(row[K.STOCK_POS])
        pool = [c for p in others for c in unknown[p]] + row[K.DECK + top:K.DECK + 56].tolist()
        pool = [int(c) for c in rng.permutation(sorted(pool))]  # by set, not by place
        for p in others:
            n = len(unknown[p])
            row[K.HAND + p] = int(row[K.TAKEN + p]) | sum(1 << c for c in pool[:n])
            pool = pool[n:]
        row[K.DECK + top:K.DECK + 56] = pool
        return row


def params_of(rules: RummyRules) -> dict[str, Any]:
    """The game parameters of ``rules`` (``deals`` aside: one deal is one episode)."""
    return {name: getattr(rules, name) for name in RummySpec.defaults}


def diff_rewards(rules: RummyRules) -> Callable[[Any], np.ndarray]:
    """The envs' ``diff`` rewards of one engine step, per seat (what the returns of an
    episode must sum to: :func:`pasur_env.openspiel.agreement`)."""
    from pasur_env.rummy.rewards import seat_rewards

    return lambda info: seat_rewards(info, "diff")[0]


class RummyGame(EngineGame):
    """``pyspiel.load_game("python_persian_rummy")``."""


register_game(RummyGame, RummySpec, max_players=4, min_players=4)
