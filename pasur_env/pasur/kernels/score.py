"""Counting a round (docs/rules.md §6): card points, clubs, surs, game end."""

from __future__ import annotations

import numpy as np

from pasur_env.core.bits import popcount
from pasur_env.core.compile import njit
from pasur_env.pasur.kernels.state import (
    ACE_BITS,
    CLUB_BITS,
    I_CLUB_POINTS,
    I_CLUBS,
    I_GAME_END,
    I_PILES,
    I_POINTS,
    I_ROUND_END,
    I_SCORES,
    I_SURS,
    I_WINNER,
    JACK_BITS,
    LAST_CAP,
    P_CLUB_TIE,
    P_CLUBS_POINTS,
    P_CLUBS_RULE,
    P_EPISODE_ROUND,
    P_PLAYERS,
    P_SIDES,
    P_SUR_CANCEL,
    P_SUR_CUTOFF,
    P_SUR_POINTS,
    P_TARGET,
    PILE,
    SCORE,
    SURS,
    TABLE,
    TEN_DIAMONDS_BIT,
    TEN_DIAMONDS_POINTS,
    TWO_CLUBS_BIT,
    TWO_CLUBS_POINTS,
    side_of,
)


@njit(cache=True, inline="always")
def card_points(cards: int) -> int:
    """Points the cards of a mask are worth by themselves (10♦ 3, 2♣ 2, aces, jacks 1)."""
    pts = popcount(cards & ACE_BITS) + popcount(cards & JACK_BITS)
    if cards & TEN_DIAMONDS_BIT:
        pts += TEN_DIAMONDS_POINTS
    if cards & TWO_CLUBS_BIT:
        pts += TWO_CLUBS_POINTS
    return pts


@njit(cache=True)
def _club_leader(clubs: np.ndarray, sides: int, params: np.ndarray) -> tuple[int, int]:
    """``(side scoring the clubs or -1, points it scores)`` from each side's club count."""
    most = -1
    for s in range(sides):
        most = max(most, clubs[s])
    n_most = 0
    leader = -1
    for s in range(sides):
        if clubs[s] == most:
            n_most += 1
            leader = s
    club_award = params[P_CLUBS_POINTS] if params[P_CLUBS_RULE] == 0 else min(most, 7)
    if n_most > 1:
        leader = -1
        if params[P_CLUB_TIE] == 1 and sides == 3 and n_most == 2:
            for s in range(sides):
                if clubs[s] != most:
                    leader = s
    return leader, club_award


@njit(cache=True)
def _winner(params: np.ndarray, info: np.ndarray, i: int) -> None:
    """Game end and winner (§6), or the round's winner for one-round episodes, into row
    ``i`` of ``info``."""
    sides = params[P_SIDES]
    col = I_POINTS if params[P_EPISODE_ROUND] == 1 else I_SCORES
    best = -1
    for s in range(sides):
        if best < 0 or info[i, col + s] > info[i, col + best]:
            best = s
    for s in range(sides):
        if s != best and info[i, col + s] == info[i, col + best]:
            best = -1
            break
    if params[P_EPISODE_ROUND] == 1:
        info[i, I_GAME_END] = 1
        info[i, I_WINNER] = best
    elif best >= 0 and info[i, I_SCORES + best] >= params[P_TARGET]:
        info[i, I_GAME_END] = 1
        info[i, I_WINNER] = best


@njit(cache=True)
def score_round(st: np.ndarray, b: int, params: np.ndarray, info: np.ndarray, i: int) -> None:
    """Sweep the leftovers, score the round (§6), and record it in row ``i`` of ``info``:
    each side's points, game score, surs, clubs, the pile counted (after the sweep)
    and the club points it won, so a score sheet can show every category."""
    num_players = params[P_PLAYERS]
    sides = params[P_SIDES]
    last = st[b, LAST_CAP]
    if last >= 0:
        s = side_of(last, num_players)
        st[b, PILE + s] |= st[b, TABLE]
        st[b, TABLE] = 0
    clubs = np.zeros(3, dtype=np.int64)
    for s in range(sides):
        clubs[s] = popcount(st[b, PILE + s] & CLUB_BITS)
    leader, club_award = _club_leader(clubs, sides, params)
    target = params[P_TARGET]
    for s in range(sides):
        pts = card_points(st[b, PILE + s])
        info[i, I_PILES + s] = st[b, PILE + s]
        info[i, I_CLUB_POINTS + s] = club_award if s == leader else 0
        if s == leader:
            pts += club_award
        surs = st[b, SURS + s]
        if params[P_SUR_CANCEL] == 1 and sides == 2:
            surs = max(0, surs - st[b, SURS + 1 - s])
        if params[P_SUR_CUTOFF] == 1 and 5 * st[b, SCORE + s] >= 4 * target:
            surs = 0
        pts += surs * params[P_SUR_POINTS]
        info[i, I_POINTS + s] = pts
        info[i, I_SURS + s] = st[b, SURS + s]
        info[i, I_CLUBS + s] = clubs[s]
    for s in range(sides):
        st[b, SCORE + s] += info[i, I_POINTS + s]
        info[i, I_SCORES + s] = st[b, SCORE + s]
    info[i, I_ROUND_END] = 1
    _winner(params, info, i)
