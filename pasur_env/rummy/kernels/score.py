"""The count at a round's end (``docs/persian_rummy.md`` §6-§7) and the game's end.

A team scores the values of the cards it put on the table, plus its bonus (the
doubled four-sets and the 25 for going out, both booked when they happen), minus the
values left in its two players' hands. A game is ``deals`` deals (one with
``episode="round"``); the higher total wins, an equal total is a draw.
"""

from __future__ import annotations

import numpy as np

from pasur_env.core.compile import njit
from pasur_env.rummy.kernels.deal import next_deal, start_game
from pasur_env.rummy.kernels.melds import mask_value
from pasur_env.rummy.kernels.state import (
    BONUS,
    CREDIT,
    DEAL,
    DONE,
    HAND,
    I_GAME_END,
    I_POINTS,
    I_ROUND_END,
    I_SCORES,
    I_WINNER,
    P_DEALS,
    P_EPISODE_ROUND,
    PHASE,
    SCORE,
)


@njit(cache=True)
def team_points(st: np.ndarray, b: int, team: int) -> int:
    """Round points of ``team`` (seats ``team`` and ``team + 2``)."""
    left = st[b, HAND + team] | st[b, HAND + team + 2]
    return mask_value(st[b, CREDIT + team]) + st[b, BONUS + team] - mask_value(left)


@njit(cache=True)
def end_round(
    st: np.ndarray, b: int, params: np.ndarray, info: np.ndarray, auto_reset: bool
) -> None:
    """Count the round into the scores and the info row, then deal on, reset or stop."""
    info[I_ROUND_END] = 1
    for k in range(2):
        p = team_points(st, b, k)
        info[I_POINTS + k] = p
        st[b, SCORE + k] += p
        info[I_SCORES + k] = st[b, SCORE + k]
    if params[P_EPISODE_ROUND] == 0 and st[b, DEAL] + 1 < params[P_DEALS]:
        next_deal(st, b)
        return
    info[I_GAME_END] = 1
    s0, s1 = st[b, SCORE], st[b, SCORE + 1]
    info[I_WINNER] = 0 if s0 > s1 else (1 if s1 > s0 else -1)
    if auto_reset:
        start_game(st, b, True)
    else:
        st[b, PHASE] = DONE
