"""The Pasur move toolkit: what an agent that reasons about whole moves needs, compiled.

A *full move* is a played card plus the capture set it takes (``captured = 0`` when
the card is laid). The engine acts one action at a time (PLAY a card, then TAKE its
captures card by card in the CAPTURE phase); an agent that thinks in whole moves lists
the moves open at a decision with :func:`decision_moves`, picks one, and turns it into
the action due now with :func:`emit_action` (one game) or :func:`emit_actions` (a
batch). In the CAPTURE phase the moves are the pending card's options that extend the
selection made so far, so the same agent decides whole moves in both phases.
:func:`decision_moves` and :func:`option_extends` are the rules' own
(:mod:`pasur_env.pasur.kernels.moves`), the ones :mod:`agents.pasur.toolkit` and
:func:`pasur_env.pasur.moves.move_options` read.

A search plays moves on one-game copies (:func:`play_full_move`) under the rules of
:func:`round_params` (the copy stops at the round's end). Everything but
:func:`round_params` is a numba function, callable from the agents' own compiled
kernels; the greedy, heuristic, ISMCTS, endgame and network agents are built on it.
"""

from __future__ import annotations

import numpy as np

from pasur_env.core.compile import njit
from pasur_env.pasur import kernels as K
from pasur_env.pasur.kernels.moves import decision_moves, option_extends

__all__ = [
    "MOVE_BUF",
    "ROW0",
    "EMPTY",
    "NO_RESET",
    "popcnt",
    "low",
    "side_of",
    "option_extends",
    "decision_moves",
    "emit_action",
    "emit_actions",
    "play_full_move",
    "round_params",
]

#: buffer length for the moves of one decision (``cards`` and ``capts`` of
#: :func:`decision_moves`): more than any Pasur decision has
MOVE_BUF = 256
#: row 0 of a one-game scratch state, the empty card set and "no automatic reset", as
#: *typed* (non-literal) constants: a literal ``0``/``False`` argument makes numba
#: compile a second specialization of every engine kernel down the call chain
ROW0 = np.int64(0)
EMPTY = np.int64(0)
NO_RESET = np.bool_(False)


# Plain (not numba-IR-inlined) wrappers of the engine's ``inline="always"`` bit helpers:
# IR inlining at every call site makes large kernels slow to compile; LLVM still
# inlines these.
@njit("int64(int64)", cache=True)
def popcnt(x: int) -> int:
    """The number of cards in card set ``x`` (a 52-bit mask): how many cards a capture
    takes, for an agent's own scoring kernel."""
    return K.popcount(x)


@njit("int64(int64)", cache=True)
def low(x: int) -> int:
    """The lowest card id in card set ``x``: walks a capture set card by card in the
    order the engine takes them."""
    return K.lowest(x)


@njit("int64(int64, int64)", cache=True)
def side_of(seat: int, num_players: int) -> int:
    """The side (team) of ``seat`` at a table of ``num_players``: whose points a move
    adds to, in a search that values moves per side."""
    return K.side_of(seat, num_players)


@njit(cache=True)
def emit_action(st: np.ndarray, b: int, card: int, captured: int) -> int:
    """The action that advances full move ``(card, captured)`` in game ``b`` now: the
    card in the PLAY phase, the next card to TAKE in the CAPTURE phase. An agent that
    chose a whole move plays it with one call per decision."""
    if st[b, K.PHASE] == K.PLAY:
        return card
    return K.TAKE_OFFSET + low(captured & ~st[b, K.SELECTION])


@njit(cache=True)
def play_full_move(
    work: np.ndarray, card: int, captured: int, rparams: np.ndarray, info: np.ndarray
) -> bool:
    """Play full move ``(card, captured)`` in the one-game copy ``work``: PLAY the card
    (unless it is pending), then its TAKEs in ascending order. Returns whether the round
    ended on it (``info`` holds that step's result): a search's step from one decision
    to the next."""
    seat = work[0, K.MOVER]
    first = True
    while first or (work[0, K.PHASE] == K.CAPTURE and work[0, K.MOVER] == seat):
        first = False
        a = emit_action(work, ROW0, card, captured)
        K.apply_action(work, ROW0, a, rparams, info, ROW0, NO_RESET)
        if info[0, K.I_ROUND_END]:
            return True
    return False


@njit(cache=True)
def emit_actions(
    st: np.ndarray, games: np.ndarray, cards: np.ndarray, capts: np.ndarray, out: np.ndarray
) -> None:
    """:func:`emit_action` for a batch, written to ``out``: the action due now for move
    ``(cards[i], capts[i])`` of game ``games[i]``; how a batched agent turns the moves it
    chose into the actions it returns."""
    for i in range(games.shape[0]):
        out[i] = emit_action(st, games[i], cards[i], capts[i])


def round_params(engine: object) -> np.ndarray:
    """The rules of ``engine`` with one-round episodes (a copy of its parameter row):
    what a search plays its copies under, so that a copy stops at the round's end and
    reports its scoring."""
    rparams = engine.params.copy()  # type: ignore[attr-defined]
    rparams[K.P_EPISODE_ROUND] = 1
    return rparams
