"""Advancing games by one action (docs/rules.md §4-§6, §9), resets and random playouts.

Every public kernel here loops over games with ``prange``; it is compiled twice,
serial and parallel (:mod:`pasur_env.core.compile`), and numba runs ``prange`` as
``range`` in the serial build. Kernels that act on some games of a batch take their
indices (``games``); their per-game outputs (``info``, ``bad``) are indexed like
``games``.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from pasur_env.core.compile import njit
from pasur_env.core.rng import GOLDEN, splitmix_next, unit_float
from pasur_env.pasur.kernels.capture import capture_is_sur, is_complete, resolve_play
from pasur_env.pasur.kernels.deal import deal_hands, new_game, start_round
from pasur_env.pasur.kernels.legal import action_is_legal, pick_legal
from pasur_env.pasur.kernels.score import score_round
from pasur_env.pasur.kernels.state import (
    CAPTURE,
    DEAL,
    DEALER,
    DONE,
    HAND,
    I_ACTOR,
    I_GAME_END,
    I_ROUND_END,
    I_WINNER,
    LAST_CAP,
    MOVER,
    NINFO,
    ORDER,
    P_HAND_SIZE,
    P_PLAYERS,
    PENDING,
    PHASE,
    PILE,
    PLAY,
    PLAYED,
    ROUND,
    SELECTION,
    STOCK_POS,
    SURS,
    TABLE,
    TAKE_OFFSET,
    TURN,
    side_of,
)


@njit(cache=True)
def _capture(st: np.ndarray, b: int, params: np.ndarray, card: int, captured: int) -> None:
    seat = st[b, MOVER]
    side = side_of(seat, params[P_PLAYERS])
    if capture_is_sur(st, b, params, card, captured):
        st[b, SURS + side] += 1
    st[b, TABLE] &= ~captured
    st[b, PILE + side] |= captured | (1 << card)
    st[b, LAST_CAP] = seat


@njit(cache=True)
def _end_turn(
    st: np.ndarray, b: int, params: np.ndarray, info: np.ndarray, i: int, auto_reset: bool
) -> None:
    """Pass the turn; deal, score the round, end or restart the game as due (§3, §6)."""
    num_players = params[P_PLAYERS]
    st[b, PHASE] = PLAY
    st[b, PENDING] = -1
    st[b, SELECTION] = 0
    st[b, TURN] += 1
    st[b, MOVER] = (st[b, MOVER] + 1) % num_players
    hand_size = params[P_HAND_SIZE]
    if st[b, TURN] % (hand_size * num_players) != 0:
        return
    if st[b, STOCK_POS] < 52:
        deal_hands(st, b, num_players, hand_size)
        st[b, DEAL] += 1
        return
    score_round(st, b, params, info, i)
    if info[i, I_GAME_END] == 1:
        if auto_reset:
            new_game(st, b, params, True)
        else:
            st[b, PHASE] = DONE
    else:
        st[b, ROUND] += 1
        st[b, DEALER] = (st[b, DEALER] + 1) % num_players
        start_round(st, b, params, True)


@njit(cache=True)
def apply_action(
    st: np.ndarray,
    b: int,
    a: int,
    params: np.ndarray,
    info: np.ndarray,
    i: int,
    auto_reset: bool,
) -> None:
    """Advance game ``b`` by the (already validated) action ``a``; report in row ``i`` of
    ``info`` (a row index rather than a row view: a view costs a reference count in
    this hottest loop)."""
    for k in range(NINFO):
        info[i, k] = 0
    info[i, I_WINNER] = -1
    seat = st[b, MOVER]
    info[i, I_ACTOR] = seat
    phase = st[b, PHASE]
    if phase == DONE:
        return
    if phase == PLAY:
        card = a
        st[b, HAND + seat] &= ~(1 << card)
        st[b, PLAYED + seat] |= 1 << card
        for j in range(4):
            if st[b, ORDER + 4 * seat + j] == card:
                st[b, ORDER + 4 * seat + j] = -1
        n, captured = resolve_play(st[b, TABLE], card)
        if n == 0:
            st[b, TABLE] |= 1 << card
        elif n == 1:
            _capture(st, b, params, card, captured)
        else:
            st[b, PHASE] = CAPTURE
            st[b, PENDING] = card
            st[b, SELECTION] = 0
            return
    else:
        card = st[b, PENDING]
        sel = st[b, SELECTION] | (1 << (a - TAKE_OFFSET))
        if not is_complete(card, sel):
            st[b, SELECTION] = sel
            return
        _capture(st, b, params, card, sel)
    _end_turn(st, b, params, info, i, auto_reset)


@njit(cache=True, parallel=False, nogil=True)
def step_kernel(
    st: np.ndarray,
    params: np.ndarray,
    games: np.ndarray,
    actions: np.ndarray,
    info: np.ndarray,
    bad: np.ndarray,
    auto_reset: bool,
) -> int:
    """Validate the action ``actions[i]`` of every game ``games[i]``, then (only if all
    are legal) apply them, reporting in ``info[i]``; return the number of illegal ones."""
    nbad = 0
    for i in prange(games.shape[0]):
        ok = action_is_legal(st, games[i], actions[i])
        bad[i] = not ok
        nbad += 0 if ok else 1
    if nbad:
        return nbad
    for i in prange(games.shape[0]):
        apply_action(st, games[i], actions[i], params, info, i, auto_reset)
    return 0


@njit(cache=True, parallel=False, nogil=True)
def reset_kernel(st: np.ndarray, params: np.ndarray, which: np.ndarray, shuffle: bool) -> None:
    """Start a new game in every game ``b`` with ``which[b]``."""
    for b in prange(st.shape[0]):
        if which[b]:
            new_game(st, b, params, shuffle)


@njit(cache=True, parallel=False, nogil=True)
def playout_kernel(
    st: np.ndarray, params: np.ndarray, steps: int, seed_base: np.uint64, auto_reset: bool
) -> np.ndarray:
    """Play ``steps`` uniformly random legal actions in every game; rounds ended per game.

    The action choice uses a per-game splitmix stream derived from ``seed_base`` so the
    deal streams in the state are not disturbed by the policy's randomness. A game
    that ends with ``auto_reset`` off waits in DONE for the rest of the playout.
    """
    B = st.shape[0]
    rounds = np.zeros(B, dtype=np.int64)
    info = np.empty((B, NINFO), dtype=np.int64)
    for b in prange(B):
        z = seed_base + np.uint64(b) * GOLDEN
        for _ in range(steps):
            z, x = splitmix_next(z)
            a = pick_legal(st, b, unit_float(x))
            if a < 0:
                break
            apply_action(st, b, a, params, info, b, auto_reset)
            rounds[b] += info[b, I_ROUND_END]
    return rounds
