"""Inference from the opponent's last play (agents/inference.py): the play is read off the
public change, the determinization holding the opponent's true hand explains a heuristic
opponent's play best, and the weights reach the search only when asked for."""

from __future__ import annotations

import numpy as np

from agents._moves import MOVE_BUF, decision_moves
from agents.heuristic import heuristic_actions, heuristic_params, heuristic_scores
from agents.inference import NREC, R_VALID, after_move_records, opponent_play, play_weights
from agents.ismcts import canonical_infoset, search_values
from agents.net.features import candidate_moves
from pasur_env import Engine
from pasur_env import kernels as K
from pasur_env.cards import mask_of

HP = heuristic_params()


def _to_our_play(eng: Engine, rng: np.random.Generator) -> bool:
    """Random actions until game 0 is at a PLAY decision; False if the round ended."""
    for _ in range(200):
        if eng.state[0, K.PHASE] == K.DONE:
            return False
        if eng.state[0, K.PHASE] == K.PLAY and rng.random() < 0.3:
            return True
        eng.step(eng.random_actions(rng))
    return False


def _positions(n: int) -> list[tuple[Engine, np.ndarray, int, int, int, np.ndarray]]:
    """Positions after: our move (a random full move, recorded), the opponent's heuristic
    play. Returns (engine, record, opponent's card, what it took, our seat, the true
    state before the opponent's play): card and capture are read from its true hand and
    the table (what the test may see)."""
    out = []
    rng = np.random.default_rng(5)
    for seed in range(n):
        eng = Engine(1, seed=seed, episode="round")
        if not _to_our_play(eng, rng):
            continue
        seat = int(eng.state[0, K.MOVER])
        moves = eng.move_options(0)
        card, cap = moves[int(rng.integers(len(moves)))]
        rec = after_move_records(eng, np.array([0]), np.array([card]), np.array([mask_of(cap)]))
        for a in eng.move_to_actions(0, card, cap):
            eng.step([a])
        if eng.state[0, K.PHASE] == K.DONE:
            continue
        opp = 1 - seat
        hand0, table0 = set(eng.hand(0, opp)), int(eng.state[0, K.TABLE])
        before = eng.state.copy()
        while eng.state[0, K.MOVER] == opp and eng.state[0, K.PHASE] != K.DONE:
            eng.step(heuristic_actions(eng, np.array([0]), HP))
        if eng.state[0, K.PHASE] != K.PLAY:
            continue
        played = hand0 - set(eng.hand(0, opp))
        if len(played) != 1:  # a new deal refilled the hands: nothing to read
            out.append((eng, rec[0], -1, 0, seat, before))
            continue
        (c,) = played
        taken = table0 & ~int(eng.state[0, K.TABLE])
        out.append((eng, rec[0], c, taken, seat, before))
    return out


def test_the_opponents_play_is_read_from_the_public_change() -> None:
    positions = _positions(80)
    read = 0
    for eng, rec, card, taken, *_ in positions:
        got = opponent_play(eng.state, 0, rec)
        if card < 0:
            assert got == (-1, 0)
            continue
        if eng.state[0, K.DEAL] != rec[2]:  # the opponent's play ended the deal
            assert got == (-1, 0)
            continue
        assert got == (card, taken)
        read += 1
    assert read >= 20
    # a record of another position does not fit: nothing is read
    eng, rec, *_ = positions[0]
    stale = rec.copy()
    stale[3] += 2
    assert opponent_play(eng.state, 0, stale) == (-1, 0)
    assert opponent_play(eng.state, 0, np.zeros(NREC, dtype=np.int64)) == (-1, 0)


def _play_probability(before: np.ndarray, params: np.ndarray, card: int, taken: int,
                      beta: float) -> float:
    """softmax(beta * heuristic score) of the play made, in the true position before it."""
    cards, capts = np.empty(MOVE_BUF, np.int64), np.empty(MOVE_BUF, np.int64)
    n = decision_moves(before, 0, cards, capts)
    scores = np.empty(MOVE_BUF)
    heuristic_scores(before, 0, params, False, HP, cards, capts, n, scores)
    p = np.exp(beta * (scores[:n] - scores[:n].max()))
    made = np.flatnonzero((cards[:n] == card) & (capts[:n] == taken))
    return float(p[made[0]] / p.sum())


def test_the_true_hand_explains_a_heuristic_opponent_well() -> None:
    """The determinization holding the opponent's real hand is weighted as the play's
    probability in the real position before it (computed there, independently): at
    least that fraction of the best weight; and the play rules some hands out."""
    sharp = 0
    for eng, rec, card, taken, seat, before in _positions(80):
        if card < 0 or opponent_play(eng.state, 0, rec)[0] < 0:
            continue
        canon = np.empty((1, K.NCOL), dtype=np.int64)
        canonical_infoset(eng.state, 0, seat, False, canon)
        dets = np.empty((64, K.NCOL), dtype=np.int64)
        K.determinize_kernel(canon, 0, seat, False, np.arange(1, 64, dtype=np.int64), dets[1:])
        dets[0] = eng.state[0]  # the opponent's real hand
        w = np.empty(64)
        assert play_weights(eng.state, 0, rec, dets, 64, eng.params, False, HP, 50.0, w)
        assert abs(w.mean() - 1.0) < 1e-9
        p_true = _play_probability(before, eng.params, card, taken, 50.0)
        assert p_true > 0.2  # the heuristic made this play there
        assert w[0] >= p_true * w.max() * (1 - 1e-9)
        sharp += w.min() < 1e-3 * w.max()
        w0 = np.empty(64)
        assert not play_weights(eng.state, 0, rec, dets, 64, eng.params, False, HP, 0.0, w0)
        assert (w0 == 1.0).all()
    assert sharp >= 5  # the play rules some hands out


def test_the_weights_reach_the_search_only_with_a_fitting_record_and_beta() -> None:
    found = [(e, r) for e, r, card, *_ in _positions(80)
             if card >= 0 and opponent_play(e.state, 0, r)[0] >= 0]
    assert len(found) >= 10
    changed = 0
    for eng, rec in found[:10]:
        games = np.array([0])
        offsets = candidate_moves(eng, games)[0]
        seeds = np.array([7], dtype=np.int64)
        plain = search_values(eng, games, offsets, seeds, budget=64)
        recs = rec[None, :].copy()
        assert np.array_equal(plain, search_values(eng, games, offsets, seeds, budget=64,
                                                   records=recs, beta=0.0))
        bad = recs.copy()
        bad[0, R_VALID] = 0
        assert np.array_equal(plain, search_values(eng, games, offsets, seeds, budget=64,
                                                   records=bad, beta=3.0))
        weighted = search_values(eng, games, offsets, seeds, budget=64, records=recs, beta=3.0)
        changed += offsets[1] > 1 and not np.array_equal(plain, weighted)
    assert changed >= 3
