"""The one home of the engine's constants: state columns, phases, actions, params, infos.

A batch of B games is one ``int64`` array ``state`` of shape ``(B, NCOL)``; one row
is one game, so copying, slicing and building batches of positions (what search
agents need) are plain numpy row operations, and each game's data is contiguous for
the per-game loops of the kernels. Sets of cards are 52-bit masks (bit ``c`` = card
id ``c``; the card groups come from :mod:`pasur_env.pasur.cards`).

The rules reach the kernels as the small ``params`` vector built by
:meth:`pasur_env.pasur.rules.Rules.as_params` (indices ``P_*``); a step reports what it did
in an ``info`` row per game (columns ``I_*``, read by :class:`pasur_env.StepInfo`).
"""

from __future__ import annotations

import numpy as np

from pasur_env.core.bits import popcount
from pasur_env.core.compile import njit
from pasur_env.pasur.cards import (  # noqa: F401 - re-exported: the kernels' card groups
    ACE_BITS,
    ALL_BITS,
    CLUB_BITS,
    JACK_BITS,
    KING_BITS,
    NUMERAL_BITS,
    QUEEN_BITS,
    TEN_DIAMONDS_BIT,
    TEN_DIAMONDS_POINTS,
    TWO_CLUBS_BIT,
    TWO_CLUBS_POINTS,
)

# ---- state columns -------------------------------------------------------------
HAND = 0  # 4: hand of each seat (mask)
ORDER = 4  # 16: cards of the current deal of each seat in dealing order, -1 when played
TABLE = 20  # table (mask)
PILE = 21  # 3: captured pile of each side (mask)
SURS = 24  # 3: surs of each side this round
SCORE = 27  # 3: game score of each side
DECK = 30  # 52: card order of this round; the stock is DECK[STOCK_POS:]
STOCK_POS = 82  # index of the top stock card in DECK (52 = stock empty)
DEALER = 83  # dealer seat of this round
START_DEALER = 84  # dealer of the first round of each game (reset option)
MOVER = 85  # seat to move
PHASE = 86  # PLAY, CAPTURE or DONE
PENDING = 87  # card played that awaits its capture choice, -1 if none
SELECTION = 88  # table cards chosen so far in the CAPTURE phase (mask)
TURN = 89  # turns finished in this round (0..48)
DEAL = 90  # index of the current deal in the round (0-based)
LAST_CAP = 91  # seat of the last capturer this round, -1 if none
ROUND = 92  # rounds finished in this game
RNG = 93  # splitmix64 state of this game
PLAYED = 94  # 4: cards each seat has played this round (mask; public: every play is seen)
NCOL = 98

#: seats and sides the state has room for
MAX_SEATS = 4
MAX_SIDES = 3
#: turns in a round of the full game, for every number of players (docs/rules.md §2; a
#: small variant has fewer: :func:`turns_per_round`)
TURNS_PER_ROUND = 48

# ---- phases ----------------------------------------------------------------------
PLAY, CAPTURE, DONE = 0, 1, 2
PHASE_NAMES = ("PLAY", "CAPTURE", "DONE")

# ---- actions (docs/rules.md §9) ----------------------------------------------------
NUM_ACTIONS = 104  # 0..51 PLAY card id, 52..103 TAKE table card id + TAKE_OFFSET
TAKE_OFFSET = 52

# ---- params indices ----------------------------------------------------------------
P_PLAYERS, P_SIDES, P_TARGET, P_SUR_POINTS, P_SUR_CANCEL, P_SUR_CUTOFF = 0, 1, 2, 3, 4, 5
P_JACK_SUR, P_INITIAL_JACKS, P_CLUBS_POINTS, P_CLUBS_RULE, P_CLUB_TIE, P_EPISODE_ROUND = (
    6,
    7,
    8,
    9,
    10,
    11,
)
P_HAND_SIZE, P_TABLE_SIZE, P_DECK = 12, 13, 14  # cards per hand, first table; deck (mask)
NPARAMS = 15

# ---- step info columns ---------------------------------------------------------------
I_ROUND_END, I_GAME_END, I_WINNER, I_ACTOR = 0, 1, 2, 3
I_POINTS, I_SCORES, I_SURS, I_CLUBS = 4, 7, 10, 13  # 3 each: one per side
I_PILES, I_CLUB_POINTS = 16, 19  # 3 each: the piles counted (masks), the club points won
NINFO = 22

#: reachable numeral sums 0..10 as a bit set (capture-option search)
SUM_BITS = 0x7FF


@njit(cache=True, inline="always")
def side_of(seat: int, num_players: int) -> int:
    """Scoring side of a seat: partners share a side when 4 play."""
    return seat % 2 if num_players == 4 else seat


@njit(cache=True, inline="always")
def is_last_deal(st: np.ndarray, b: int) -> bool:
    """Whether game ``b`` is in the deal that emptied the stock."""
    return st[b, STOCK_POS] >= 52


@njit(cache=True, inline="always")
def turns_per_round(params: np.ndarray) -> int:
    """Turns in a round of the rules ``params``: every card dealt to a hand (48 in the
    full game; a small variant's deck less its first table)."""
    return popcount(params[P_DECK]) - params[P_TABLE_SIZE]


#: the constants (upper-case names) and accessors, for ``from .state import *``
__all__ = [n for n in dir() if n.isupper()] + ["side_of", "is_last_deal", "turns_per_round"]
