"""The Pasur toolkit for writing agents: every full move open at a decision, what it
wins and the actions that play it.

An engine step is one action (PLAY a card, or TAKE one table card of a multi-step
capture), but an agent thinks in *full moves*: a card and the set of table cards it
captures. :func:`full_moves` lists them at any decision of a game, PLAY or CAPTURE
(mid-capture: the options of the pending card that extend the cards already taken),
each as a :class:`Move` with its captured cards, points, sur and the action sequence
that plays it from here. An agent is called at every decision, so it returns
``move.action`` (the first of those actions) and is called again for the rest; a
deterministic choice picks the same move again, since the table has not changed.

The moves and their actions are the compiled rules' (``decision_moves`` and
``move_actions`` of :mod:`pasur_env.pasur.kernels.moves`, which the built-in agents and
:func:`pasur_env.pasur.moves.move_options` call too; ``capture_is_sur``,
``card_points``): one implementation, read through this API.
``tests/test_toolkit.py`` checks them against a search over the engine's legal actions.

Example (an agent that takes the most cards, else lays its lowest card)::

    from agents.pasur.toolkit import choose_actions

    def most_cards(moves):
        return max(moves, key=lambda m: (len(m.captured), m.points, -m.card))

    actions = choose_actions(view, most_cards)  # one legal action per decision
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from agents.core.toolkit import ActionSequence, choose_with, engine_games, per_decision, row_packer
from agents.pasur.moves import MOVE_BUF, decision_moves, popcnt
from pasur_env.core.compile import njit
from pasur_env.core.policy import GameView
from pasur_env.pasur import kernels as K
from pasur_env.pasur.cards import card_code, cards_of
from pasur_env.pasur.engine import Engine
from pasur_env.pasur.kernels.moves import move_actions

__all__ = ["Move", "full_moves", "moves_of_view", "choose_actions", "move_arrays", "game_moves",
           "move_actions"]


@dataclass(frozen=True)
class Move(ActionSequence):
    """One full move of the mover at a decision.

    Attributes:
        card: the card played (id 0..51); mid-capture, the pending card.
        captured: the table cards it captures, ascending ids (mid-capture, the cards
            already taken included); ``()`` when the card is laid on the table.
        points: what the capture wins at once: the points of the cards won, the played
            card included (10♦ 3, 2♣ 2, each ace and jack 1), plus ``sur_points`` for a
            sur; 0 for a lay. The clubs majority is counted at the round's end, so it
            is not in here (see ``clubs``).
        sur: whether the capture clears the table and counts as a sur (never in the
            last deal, nor with a jack under the default rules).
        clubs: clubs won (the played card included); 0 for a lay.
        actions: the action ids that play the move from this decision, in order: the
            PLAY (unless the card is pending), then one TAKE per card still to choose
            when the card has several capture options.
    """

    card: int
    captured: tuple[int, ...]
    points: int
    sur: bool
    clubs: int
    actions: tuple[int, ...]

    @property
    def is_capture(self) -> bool:
        """Whether the move captures (else the card is laid on the table)."""
        return bool(self.captured)

    def __str__(self) -> str:
        if not self.captured:
            return f"lay {card_code(self.card)}"
        took = "+".join(card_code(c) for c in self.captured)
        return f"{card_code(self.card)} takes {took}" + (" (sur)" if self.sur else "")


#: columns of a move's facts (:func:`game_moves`)
F_CARD, F_CAPTURED, F_POINTS, F_SUR, F_CLUBS, F_NACTS = range(6)
NFACTS = 6


@njit(cache=True)
def game_moves(st: np.ndarray, b: int, params: np.ndarray, facts: np.ndarray,
               acts: np.ndarray) -> int:
    """The moves of game ``b`` (:func:`decision_moves`), for compiled agents: row ``i``
    of ``facts`` holds move ``i``'s card, captured cards (mask), points, sur, clubs and
    number of actions (columns ``F_*``), row ``i`` of ``acts`` its actions (buffers of
    :data:`~agents.pasur.moves.MOVE_BUF` rows). Returns the number of moves, -1 if the
    buffers are too small."""
    cards = np.empty(MOVE_BUF, dtype=np.int64)
    capts = np.empty(MOVE_BUF, dtype=np.int64)
    n = decision_moves(st, b, cards, capts)
    if n > facts.shape[0]:
        return -1
    for i in range(max(n, 0)):
        c, cap = cards[i], capts[i]
        sur = cap != 0 and K.capture_is_sur(st, b, params, c, cap)
        won = (cap | (1 << c)) if cap else 0
        facts[i, F_CARD], facts[i, F_CAPTURED] = c, cap
        facts[i, F_POINTS] = K.card_points(won) + (params[K.P_SUR_POINTS] if sur else 0)
        facts[i, F_SUR] = 1 if sur else 0
        facts[i, F_CLUBS] = popcnt(won & K.CLUB_BITS)
        facts[i, F_NACTS] = move_actions(st, b, c, cap, acts[i])
    return n


_PACK = row_packer(game_moves, MOVE_BUF)


def move_arrays(engine_or_view: Engine | GameView, games: Sequence[int] | np.ndarray
                ) -> dict[str, np.ndarray]:
    """The moves of several games as arrays, for batched agents (one compiled pass).

    Returns a dict of ``offsets`` (game ``games[i]``'s moves are rows
    ``offsets[i]:offsets[i + 1]``), and per move ``card``, ``captured`` (a card mask),
    ``points``, ``sur``, ``clubs``, ``num_actions`` and ``actions`` (rows padded
    with -1). A game in the DONE phase has no moves.
    """
    eng, idx = engine_games(engine_or_view, games, Engine, "Pasur")
    offsets, f, acts = _PACK(eng, idx, NFACTS)
    return {"offsets": offsets, "card": f[:, F_CARD], "captured": f[:, F_CAPTURED],
            "points": f[:, F_POINTS], "sur": f[:, F_SUR].astype(bool), "clubs": f[:, F_CLUBS],
            "num_actions": f[:, F_NACTS], "actions": acts}


def _moves_from(arr: dict[str, np.ndarray]) -> list[Move]:
    """The :class:`Move` of every row of :func:`move_arrays`."""
    cols = {k: v.tolist() for k, v in arr.items() if k != "offsets"}
    return [
        Move(card=card, captured=tuple(cards_of(cap)), points=pts, sur=sur, clubs=clubs,
             actions=tuple(acts[:k]))
        for card, cap, pts, sur, clubs, k, acts in zip(
            cols["card"], cols["captured"], cols["points"], cols["sur"], cols["clubs"],
            cols["num_actions"], cols["actions"], strict=True)
    ]


def full_moves(engine_or_view: Engine | GameView, game: int = 0) -> list[Move]:
    """Every full move open to the mover of ``game`` (an index into the engine) now.

    In the PLAY phase: one move per card and capture option (a card with no option
    is one lay). In the CAPTURE phase (a card played with several options, some of its
    cards perhaps taken already): the options of the pending card that extend the
    cards taken. In order of card id, then the engine's option order; empty when the
    game is DONE.
    """
    return _moves_from(move_arrays(engine_or_view, [game]))


def moves_of_view(view: GameView) -> list[list[Move]]:
    """:func:`full_moves` of every decision of ``view`` (one list per ``view.games``)."""
    return per_decision(view, move_arrays, _moves_from)


def choose_actions(view: GameView, choose: Callable[[list[Move]], Move]) -> np.ndarray:
    """One action per decision of ``view``: ``choose(moves)`` picks one of the decision's
    moves and its :attr:`Move.action` is played. What a one-decision-at-a-time agent's
    ``act`` returns (an agent that needs more than the moves loops over
    :func:`moves_of_view` itself)."""
    return choose_with(view, moves_of_view(view), choose)
