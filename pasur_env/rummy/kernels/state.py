"""The one home of the Persian Rummy engine's constants: state columns, phases, actions.

Same design as the Pasur engine (:mod:`pasur_env.pasur.kernels.state`): a batch of B games is
one ``int64`` array ``(B, NCOL)``, one row per game, so copying and slicing games are
plain numpy row operations. Sets of cards are 56-bit masks (bit ``c`` = card ``c``).
The rules reach the kernels as the small ``params`` vector (indices ``P_*``); a step
reports what it did in an info row per game (columns ``I_*``).
See ``docs/persian_rummy.md`` for the rules and the action interface.
"""

from __future__ import annotations

# ---- state columns -------------------------------------------------------------
HAND = 0  # 4: hand of each seat (mask)
TAKEN = 4  # 4: cards each seat took from the discard pile and still holds (public, mask)
DECK = 8  # 56: card order of this deal; the stock is DECK[STOCK_POS:]
STOCK_POS = 64  # index of the top stock card in DECK (56 = stock empty)
PILE = 65  # 56: the discard pile in order, bottom first
PILE_N = 121  # cards in the discard pile
MELD = 122  # 18: the melds on the table in the order they were laid (masks)
NMELDS = 140  # melds on the table
CREDIT = 141  # 2: cards each team put on the table this deal (mask)
BONUS = 143  # 2: extra points of each team this deal (four-sets doubled, going out)
SCORE = 145  # 2: game total of each team
DEALER = 147  # dealer of this deal
START_DEALER = 148  # dealer of the first deal of each game
MOVER = 149  # seat to move
PHASE = 150  # DRAW, MELD, CHOOSE or DONE
PICKED = 151  # cards picked into the meld being built (mask)
TARGET = 152  # the discard-pile card still to be melded this turn, -1 if none
PENDING = 153  # the card of a LAY_OFF awaiting its TARGET choice, -1 if none
PASSES = 154  # passes in a row
DEAL = 155  # index of the current deal in the game (0-based)
TURNS = 156  # decisions taken in this deal
RNG = 157  # splitmix64 state of this game
NCOL = 158

NUM_CARDS = 56
MAX_MELDS = 18
HAND_SIZE = 7
GO_OUT_BONUS = 25

# ---- phases ----------------------------------------------------------------------
DRAW, MELDING, CHOOSE, DONE = 0, 1, 2, 3
PHASE_NAMES = ("DRAW", "MELD", "CHOOSE", "DONE")

# ---- actions (docs/persian_rummy.md §8) -------------------------------------------
DRAW_STOCK = 0
TAKE0 = 1  # TAKE_DISCARD card c = TAKE0 + c
PASS = 57
PICK0 = 58  # PICK hand card c = PICK0 + c
MELD_ACTION = 114
LAYOFF0 = 115  # LAY_OFF hand card c = LAYOFF0 + c
TARGET0 = 171  # TARGET meld m = TARGET0 + m
DISCARD0 = 189  # DISCARD hand card c = DISCARD0 + c
NUM_ACTIONS = 245

# ---- params indices ----------------------------------------------------------------
P_DEALS, P_FOUR_DOUBLE, P_DISCARD_OUT, P_EPISODE_ROUND = 0, 1, 2, 3
NPARAMS = 4

# ---- step info columns ---------------------------------------------------------------
I_ROUND_END, I_GAME_END, I_WINNER, I_ACTOR, I_OUT = 0, 1, 2, 3, 4
I_POINTS, I_SCORES = 5, 7  # 2 each: one per team
NINFO = 9

#: the constants (upper-case names), for ``from .state import *``
__all__ = [n for n in dir() if n.isupper()]
