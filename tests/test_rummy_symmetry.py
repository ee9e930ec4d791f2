"""Suit and joker relabellings are symmetries of Persian Rummy (pasur_env.rummy.symmetry):
a relabelled position observes as the relabelled observation, offers the relabelled
actions, steps to the relabelled position, plays out to the same points, and its move
rows are the relabelled rows."""

from __future__ import annotations

import numpy as np
import pytest

from agents.rummy.move_net.features import (
    _C,
    MOVE_WIDTH,
    candidate_actions,
    candidate_features,
    move_row_permutation,
)
from pasur_env.rummy import RummyEngine
from pasur_env.rummy import kernels as K
from pasur_env.rummy.symmetry import (
    check_permutation,
    observation_permutation,
    permute_states,
    random_card_permutations,
)


def positions(seed: int, steps: int) -> RummyEngine:
    eng = RummyEngine(48, seed=seed, episode="round", auto_reset=False)
    eng.playout(steps, seed=seed)
    return eng


def relabelled(eng: RummyEngine, perm: np.ndarray) -> RummyEngine:
    new = RummyEngine(eng.num_games, seed=0, episode="round", auto_reset=False)
    new.state[:] = permute_states(eng.state, perm)
    return new


def action_permutation(perm: np.ndarray) -> np.ndarray:
    """Action id -> the relabelled action's id (the card of a card action moves)."""
    ix = np.arange(K.NUM_ACTIONS, dtype=np.int64)
    for base in (K.TAKE0, K.PICK0, K.LAYOFF0, K.DISCARD0):
        ix[base:base + K.NUM_CARDS] = base + perm
    return ix


def test_permutations_exchange_suits_alike_and_jokers() -> None:
    perms = random_card_permutations(np.random.default_rng(0), 500)
    ids = np.arange(56)
    assert (np.sort(perms, axis=1) == ids).all()
    assert (perms[:, :52] // 4 == ids[:52] // 4).all()
    suits = perms[:, :52] % 4
    assert (suits.reshape(500, 13, 4) == suits[:, None, :4]).all()  # every rank alike
    assert (perms[:, 52:] >= 52).all()
    assert len({p.tobytes() for p in perms}) > 300  # of 576 (about 334 expected)


@pytest.mark.parametrize("steps", [0, 9, 30, 80, 200])
def test_observation_and_legal_actions_commute_with_relabelling(steps: int) -> None:
    rng = np.random.default_rng(steps)
    eng = positions(steps, steps)
    perm = random_card_permutations(rng, 1)[0]
    twin = relabelled(eng, perm)
    live = np.flatnonzero(eng.state[:, K.PHASE] != K.DONE)
    ix = observation_permutation(perm)
    for seat in range(4):
        assert np.array_equal(twin.observe(live, seat), eng.observe(live, seat)[:, ix])
    # picks go in ascending card id: the meld is relabelled, its single PICKs are not
    whole = live[eng.state[live, K.PICKED] == 0]
    moved = np.zeros((whole.size, K.NUM_ACTIONS), dtype=bool)
    moved[:, action_permutation(perm)] = eng.legal_mask(whole)
    other = np.r_[0:K.PICK0, K.MELD_ACTION:K.NUM_ACTIONS]
    assert np.array_equal(twin.legal_mask(whole)[:, other], moved[:, other])
    picks = slice(K.PICK0, K.MELD_ACTION)
    assert np.array_equal(twin.legal_mask(whole)[:, picks].any(1), moved[:, picks].any(1))


def test_steps_commute_with_relabelling() -> None:
    rng = np.random.default_rng(5)
    eng = positions(3, 25)
    perm = random_card_permutations(rng, 1)[0]
    twin = relabelled(eng, perm)
    act = action_permutation(perm)
    for _ in range(60):
        games = np.flatnonzero((eng.state[:, K.PHASE] != K.DONE) & (eng.state[:, K.PICKED] == 0))
        if games.size == 0:
            break
        mask = eng.legal_mask(games)
        mask[:, K.PICK0:K.MELD_ACTION] = False  # a pick's legality reads card ids
        games, mask = games[mask.any(1)], mask[mask.any(1)]
        a = np.array([rng.choice(np.flatnonzero(m)) for m in mask], dtype=np.int64)
        eng.step(a, games=games)
        twin.step(act[a], games=games)
        assert np.array_equal(twin.state, permute_states(eng.state, perm))


def test_relabelled_rounds_play_out_to_the_same_points() -> None:
    """Actions are relabelled and each meld's picks re-sorted; the points are the same."""
    rng = np.random.default_rng(7)
    eng = RummyEngine(8, seed=11, episode="round", auto_reset=False)
    perm = random_card_permutations(rng, 1)[0]
    twin = relabelled(eng, perm)
    act = action_permutation(perm)
    for g in range(eng.num_games):
        one, picks = np.array([g]), []
        while eng.state[g, K.PHASE] != K.DONE:
            a = int(rng.choice(np.flatnonzero(eng.legal_mask(one)[0])))
            info = eng.step(np.array([a]), games=one)
            if K.PICK0 <= a < K.MELD_ACTION:
                picks.append(int(act[a]))
                continue
            for p in sorted(picks) + [int(act[a])]:
                twin_info = twin.step(np.array([p]), games=one)
            picks = []
            assert np.array_equal(twin.state[g], permute_states(eng.state[g:g + 1], perm)[0])
        assert np.array_equal(info.round_points, twin_info.round_points)


def test_move_rows_commute_with_relabelling() -> None:
    rng = np.random.default_rng(3)
    eng = positions(4, 60)
    perm = random_card_permutations(rng, 1)[0]
    twin = relabelled(eng, perm)
    games = np.flatnonzero((eng.state[:, K.PHASE] != K.DONE) & (eng.state[:, K.PICKED] == 0))
    mask = eng.legal_mask(games)
    off, acts, greedy = candidate_actions(eng, games, mask)
    feats = candidate_features(eng, games, off, acts, greedy)
    act = action_permutation(perm)
    twin_feats = candidate_features(twin, games, off, act[acts], act[greedy])
    planes = np.r_[_C:_C + 3 * K.NUM_CARDS]  # greedy's own tie-breaks read card ids
    ix = move_row_permutation(perm)
    assert feats.shape[1] == MOVE_WIDTH
    assert np.array_equal(feats[:, ix][:, planes], twin_feats[:, planes])
    assert np.array_equal(feats[:, :6], twin_feats[:, :6])


def test_a_relabelling_that_breaks_the_rules_is_refused() -> None:
    eng = positions(0, 0)
    two_suits = np.arange(56)
    two_suits[[0, 1]] = [1, 0]  # aces' suits exchanged, the other ranks' not
    with pytest.raises(ValueError, match="not a symmetry of the rules"):
        permute_states(eng.state, two_suits)
    joker_for_ace = np.arange(56)
    joker_for_ace[[0, 52]] = [52, 0]
    with pytest.raises(ValueError, match="not a symmetry of the rules"):
        check_permutation(joker_for_ace)
    with pytest.raises(ValueError, match="permutation of the 56 card ids"):
        observation_permutation(np.zeros(56, dtype=np.int64))
