"""Full moves and hidden information of a Pasur game: what search and the apps need.

An engine step is one action (a card to play, or one table card to take); a *full
move* is a card with the set of table cards it captures. These functions list the
full moves of a game, turn one into its action sequence, say whether it is a sur, and
sample the cards a seat cannot see (determinization). They read an
:class:`~pasur_env.pasur.engine.Engine` and never step it; they live apart from it so
the engine keeps the one job of stepping games.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pasur_env.pasur import kernels as K
from pasur_env.pasur.cards import card_code, cards_of, parse_card, parse_cards
from pasur_env.pasur.engine import Engine

__all__ = ["move_options", "move_to_actions", "determinize", "hidden_cards", "capture_is_sur"]


def move_options(eng: Engine, game: int = 0) -> list[tuple[int, tuple[int, ...]]]:
    """Every full move of the mover of ``game`` now: ``(card, captured card ids)``.

    At any decision (the compiled ``decision_moves``, what the agents read too). In the
    PLAY phase a card that captures nothing appears once with ``()``: it is laid on
    the table. In the CAPTURE phase (a card played with several options, some of its
    cards perhaps taken already) the ways left to finish the move: the pending card
    with each option that extends the cards taken, those included. Empty when the
    game is over.
    """
    cards = np.empty(4096, dtype=np.int64)
    capt = np.empty(4096, dtype=np.int64)
    n = K.decision_moves(eng.state, int(game), cards, capt)
    if n < 0:
        raise RuntimeError("too many capture options to enumerate")
    return [(int(cards[i]), tuple(cards_of(capt[i]))) for i in range(n)]


def move_to_actions(
    eng: Engine, game: int, card: int | str, captured: Sequence[int | str]
) -> list[int]:
    """The action sequence that makes the full move ``(card, captured)`` in ``game`` from
    this decision (mid-capture: the TAKEs still due; ``captured`` is the whole option,
    the cards taken already included)."""
    c = parse_card(card)
    cap = sorted(parse_cards(captured))
    if (c, tuple(cap)) not in move_options(eng, game):
        raise ValueError(f"({card_code(c)}, {[card_code(x) for x in cap]}) is not a legal move")
    out = np.empty(64, dtype=np.int64)
    n = K.move_actions(eng.state, int(game), c, sum(1 << x for x in cap), out)
    return [int(a) for a in out[:n]]


def determinize(
    eng: Engine, game: int, n: int, seat: int | None = None, seed: int | None = None
) -> Engine:
    """``n`` copies of ``game`` in which the cards ``seat`` cannot see are re-dealt.

    The cards in other seats' hands (face-up Ru Baaz cards excepted) and in the stock
    are permuted uniformly at random over those places: each copy is a position
    consistent with what ``seat`` (default: the mover) has seen. This is the sampling
    step of determinized / information-set search
    (:meth:`pasur_env.core.batch_engine.BatchEngine.determinize`).
    """
    return eng.determinize(game, n, seat, seed)  # type: ignore[return-value]


def hidden_cards(eng: Engine, game: int, seat: int) -> list[int]:
    """Card ids that ``seat`` cannot see in ``game`` (other hands and the stock)."""
    return cards_of(K.hidden_from(eng.state, int(game), int(seat), eng.rules.open_hand))


def capture_is_sur(eng: Engine, game: int, card: int | str, captured: Sequence[int | str]
                   ) -> bool:
    """Whether the full move ``(card, captured)`` would be a sur in ``game``."""
    mask = sum(1 << parse_card(x) for x in captured)
    return bool(K.capture_is_sur(eng.state, int(game), eng.params, parse_card(card), mask))
