"""Pasur as an OpenSpiel game, ``python_pasur``: the Pasur part of the adapter of
:mod:`pasur_env.core.openspiel_game` (registered on import; ``import pasur_env.openspiel``).

Parameters: ``players`` (2, 3 or 4), ``preset`` (``""`` = none, ``"classic"``,
``"cfr_paper"``) and every rule flag of :class:`pasur_env.pasur.rules.Rules`. A flag
that differs from the classic default overrides the preset; one at the classic
default leaves the preset's value (OpenSpiel hands a game every parameter, defaults
included, so "not given" cannot be told apart). One round is one episode, paid by the round
point difference (the ``diff`` reward mode: zero-sum).

The chance nodes of a round, each uniform over its outcomes:

1. the four cards of the first table, card by card (outcome = card id, over the cards
   not dealt yet); with ``initial_jacks="redeal"`` over those that keep the table
   passing the kernel's initial-table check
   (:func:`~pasur_env.pasur.kernels.deal.table_check`), the non-jacks: the repeated
   redeal dealt as a conditioned distribution (:meth:`PasurSpec.card_outcomes`), so
   the check passes and every chance outcome leads forward (a finite tree);
2. the initial-table check: with ``"bury"`` a redeal (two jacks, three queens or three
   kings) starts the deal again at step 1 (a chance node returning to the root: the
   tree of a ``bury`` game is infinite, and OpenSpiel's exact algorithms need
   ``redeal``), and a lone jack is buried: the top stock card (a card chance node
   unless a jack buried before lies there) replaces it, and the jack's position in the
   stock is a chance node of its own (``51 - 4P + 1`` positions), resolved by the
   kernel's :func:`~pasur_env.pasur.kernels.deal.bury_jack_at`;
3. the hands, card by card, in dealing order;
4. each later deal of the round, card by card, when the engine deals it.

A reshuffle leaves the hands and table of the deal it discards out of everything the
players observe: they do not affect the game that follows.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from pasur_env.core.bits import lowest
from pasur_env.core.openspiel_game import (
    CARD,
    EngineGame,
    EngineState,
    GameSpec,
    pyspiel,
    register_game,
)
from pasur_env.pasur import kernels as K
from pasur_env.pasur.cards import JACK_BITS, card_code
from pasur_env.pasur.engine import Engine
from pasur_env.pasur.kernels.deal import (
    TABLE_BURY,
    TABLE_REDEAL,
    bury_jack_at,
    deal_hands,
    table_check,
)
from pasur_env.pasur.rules import RULE_FLAGS, Rules, make_rules

__all__ = ["PasurSpec", "PasurGame", "SHORT_NAME", "params_of", "diff_rewards"]

SHORT_NAME = "python_pasur"
#: the kind of the chance node placing a buried jack in the stock (argument: places)
BURY = "bury"
#: player actions in a round: 48 plays and at most one TAKE per card captured
MAX_PLAYER_ACTIONS = 48 + 52
#: chance nodes allowed for reshuffles (each redraws 4 table cards): a bound that a
#: round exceeds with probability far below 1e-30
MAX_RESHUFFLES = 60

_DEFAULT_RULES = Rules()


class PasurSpec(GameSpec):
    """Pasur's engine, deck and deals for the adapter (module docstring)."""

    short_name = SHORT_NAME
    long_name = "Pasur (pasur_env)"
    defaults: dict[str, Any] = {
        "players": 2,
        "preset": "",
        **{f: getattr(_DEFAULT_RULES, f) for f in RULE_FLAGS if f != "num_players"},
        "cards": "",  # the variant's deck as codes ("AC 2C 10D ..."); "" = all 52
    }
    deck_column = K.DECK
    max_player_actions = MAX_PLAYER_ACTIONS
    stock_column = K.STOCK_POS
    num_cards = 52

    def __init__(self, params: dict[str, Any]) -> None:
        given = dict(params)
        # OpenSpiel passes every parameter, defaults included: a flag at the classic
        # default is taken as not given, so that the preset's value holds
        flags = {k: v for k, v in given.items()
                 if k not in ("players", "preset") and v != self.defaults[k]}
        flags["num_players"] = int(given.get("players", 2))
        if "cards" in flags:
            flags["cards"] = str(flags["cards"]).replace(",", " ").split()
        preset = given.get("preset") or None
        self.rules: Rules = make_rules(preset, **flags)
        super().__init__(params)

    def new_engine(self) -> Engine:
        return Engine(1, seed=0, rules=self.rules, episode="round", auto_reset=False)

    def side_of(self, seat: int) -> int:
        return self.rules.side_of(seat)

    def game_info(self) -> pyspiel.GameInfo:
        bound = float(20 + 48 * self.rules.sur_points)  # card points + clubs + surs
        return pyspiel.GameInfo(
            num_distinct_actions=K.NUM_ACTIONS,
            max_chance_outcomes=52,
            num_players=self.rules.num_players,
            min_utility=-bound,
            max_utility=bound,
            utility_sum=0.0,
            max_game_length=MAX_PLAYER_ACTIONS + 52 + 8 + 4 * MAX_RESHUFFLES,
        )

    # ---- the deal -------------------------------------------------------------------------
    @property
    def _first(self) -> int:
        """The deck slot of a fresh deck's top card (a variant's other cards sit before it,
        out of play: :mod:`pasur_env.pasur.kernels.deal`)."""
        return 52 - self.rules.deck_size

    def deal_order(self, state: EngineState) -> list[int]:
        return state.deck[self._first:].tolist()  # the cards in play

    def _hand_slots(self) -> range:
        return range(self._first, self._first + self.num_players * self.rules.hand_size)

    def _table_slots(self) -> range:
        pos = self._hand_slots().stop
        return range(pos, pos + self.rules.table_size)

    def begin(self, state: EngineState) -> None:
        state.revealed = ((1 << 52) - 1) & ~self.rules.deck_mask  # out of play: no chance
        state.stage = "table"
        state.queue_slots(self._table_slots())
        if not state.queue:  # no table cards
            self._check_table(state)

    def _table(self, state: EngineState) -> int:
        return sum(1 << int(state.deck[i]) for i in self._table_slots())

    def card_outcomes(self, state: EngineState, slot: int) -> list[int]:
        """With ``redeal``, a card of the first table is one that keeps the table dealt so
        far passing the kernel's initial-table check: the repeated redeal as a
        conditioned distribution (a first table with a jack has probability 0, the rest
        renormalised). The check refuses a table for a card of it alone (any jack), so
        every card allowed leaves the same number of passing completions: the uniform
        choice among them gives every first table the probability the repeated redeal
        gives it (tests/test_openspiel_exact.py enumerates both)."""
        cards = state.unrevealed()
        if state.stage != "table" or self.rules.initial_jacks != "redeal":
            return cards
        table = sum(1 << int(state.deck[i]) for i in self._table_slots()
                    if state.slot_is_fixed(i))
        return [c for c in cards if table_check(table | 1 << c, False) != TABLE_REDEAL]

    def chance_done(self, state: EngineState) -> None:
        if state.stage == "table":
            self._check_table(state)
        elif state.stage == "hands":
            state.engine.reset(deck=self.deal_order(state))
            state.dealt, state.stage = True, "play"
        elif state.stage == "deal":
            st = state.engine.state
            st[0, K.STOCK_POS] = state.deal_start
            # the dealt hands again, now with their fixed cards
            deal_hands(st, 0, self.num_players, self.rules.hand_size)
            state.stage = "play"

    def _check_table(self, state: EngineState) -> None:
        """The kernel's initial-table check on the table drawn so far (module doc)."""
        table = self._table(state)
        verdict = table_check(table, self.rules.initial_jacks == "bury")
        if verdict == TABLE_REDEAL:
            state.public_events.append("reshuffle")
            self.begin(state)
        elif verdict == TABLE_BURY:
            top = self._table_slots().stop
            state.queue_slots(range(top, top + 1))
            state.queue.append((BURY, 52 - top))
        else:
            state.stage = "hands"
            state.queue_slots(self._hand_slots())

    def apply_chance(self, state: EngineState, kind: str, arg: int, outcome: int) -> None:
        if kind != BURY:
            super().apply_chance(state, kind, arg, outcome)
        table = self._table(state)
        state.public_events.append(f"bury {card_code(lowest(table & JACK_BITS))}")
        bury_jack_at(state.engine.state, 0, table, self._table_slots().stop,
                     self.rules.table_size, outcome)

    def chance_string(self, kind: str, arg: int, outcome: int) -> str:
        if kind == CARD:
            return f"deal {card_code(outcome)} (deck slot {arg})"
        return f"bury the jack at stock place {outcome} of {arg}"

    def after_step(self, state: EngineState, old_row: np.ndarray) -> None:
        row = state.engine.state[0]
        if row[K.DEAL] != old_row[K.DEAL] and row[K.PHASE] != K.DONE:
            state.deal_start = int(old_row[K.STOCK_POS])
            state.stage = "deal"
            state.queue_slots(range(state.deal_start,
                                    state.deal_start + self.num_players * self.rules.hand_size))
            if not state.queue:
                self.chance_done(state)

    def determinize(self, state: EngineState, player: int, seed: int) -> np.ndarray:
        """The kernel's determinization of the state with its hidden cards first put in
        ascending order into their slots: the result depends only on what ``player``
        sees (and ``seed``), never on where the hidden cards really are."""
        row = state.engine.state[:1].copy()
        cols = np.empty(52, dtype=np.int64)
        n = K.hidden_slots(row, 0, player, self.rules.open_hand, cols)
        row[0, cols[:n]] = np.sort(row[0, cols[:n]])
        out = np.empty((1, K.NCOL), dtype=np.int64)
        K.determinize_kernel(row, 0, player, self.rules.open_hand,
                             np.array([seed], dtype=np.int64), out)
        return out[0]


def params_of(rules: Rules) -> dict[str, Any]:
    """The game parameters of ``rules`` (every flag given: no preset)."""
    flags = {f: getattr(rules, f) for f in RULE_FLAGS if f != "num_players"}
    flags["cards"] = "" if rules.cards is None else " ".join(card_code(c) for c in rules.cards)
    return {"players": rules.num_players, **flags}


def diff_rewards(rules: Rules) -> Callable[[Any], np.ndarray]:
    """The envs' ``diff`` rewards of one engine step, per seat (what the returns of an
    episode must sum to: :func:`pasur_env.openspiel.agreement`)."""
    from pasur_env.pasur.rewards import seat_rewards

    return lambda info: seat_rewards(info, rules, "diff")[0]


class PasurGame(EngineGame):
    """``pyspiel.load_game("python_pasur", {"players": 3})``."""


register_game(PasurGame, PasurSpec, max_players=4, min_players=2)
