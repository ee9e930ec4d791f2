"""Suit relabellings are symmetries of the rules (pasur_env.pasur.symmetry): a relabelled
position encodes to the relabelled observation, offers the relabelled moves with the
same features, and plays out to the same points."""

from __future__ import annotations

import numpy as np
import pytest

from agents.pasur.move_net.features import candidate_moves, move_row_permutation
from pasur_env import Engine
from pasur_env.pasur import kernels as K
from pasur_env.pasur.cards import TEN_DIAMONDS
from pasur_env.pasur.moves import move_options, move_to_actions
from pasur_env.pasur.observation import encode
from pasur_env.pasur.symmetry import (
    observation_permutation,
    permute_states,
    random_card_permutations,
)


def positions(players: int, seed: int, steps: int) -> Engine:
    eng = Engine(48, seed=seed, num_players=players, episode="round", auto_reset=False)
    eng.playout(steps, seed=seed)
    return eng


def relabelled(eng: Engine, perm: np.ndarray) -> Engine:
    new = Engine(eng.num_games, seed=0, num_players=eng.num_players, episode="round",
                 auto_reset=False)
    new.state[:] = permute_states(eng.state, perm)
    return new


def test_permutations_keep_ranks_clubs_and_ten_of_diamonds() -> None:
    perms = random_card_permutations(np.random.default_rng(0), 500)
    ids = np.arange(52)
    assert (np.sort(perms, axis=1) == ids).all()
    assert (perms // 4 == ids // 4).all()
    assert (perms[:, ids % 4 == 0] == ids[ids % 4 == 0]).all()
    assert (perms[:, TEN_DIAMONDS] == TEN_DIAMONDS).all()
    assert len({p.tobytes() for p in perms}) > 490  # they do vary


@pytest.mark.parametrize("players", [2, 3, 4])
def test_encoding_commutes_with_relabelling(players: int) -> None:
    rng = np.random.default_rng(players)
    for steps in (0, 7, 19, 40):  # PLAY and CAPTURE phases, later deals
        eng = positions(players, steps, steps)
        perm = random_card_permutations(rng, 1)[0]
        live = np.flatnonzero(eng.phase != K.DONE)
        ix = observation_permutation(eng.rules, perm)
        assert np.array_equal(encode(relabelled(eng, perm), live), encode(eng, live)[:, ix])


@pytest.mark.parametrize("players", [2, 4])
def test_moves_and_their_features_commute_with_relabelling(players: int) -> None:
    rng = np.random.default_rng(10 + players)
    eng = positions(players, 5, 30)
    perm = random_card_permutations(rng, 1)[0]
    games = np.flatnonzero(eng.phase == K.PLAY)
    off, _, _, feats = candidate_moves(eng, games)
    off2, _, _, feats2 = candidate_moves(relabelled(eng, perm), games)
    assert np.array_equal(off, off2)
    moved = feats[:, move_row_permutation(perm)]
    for i in range(games.size):
        a, b = moved[off[i]:off[i + 1]], feats2[off[i]:off[i + 1]]
        assert np.array_equal(a[np.lexsort(a.T)], b[np.lexsort(b.T)])


@pytest.mark.parametrize("players", [2, 3, 4])
def test_relabelled_games_play_out_to_the_same_points(players: int) -> None:
    """Full moves are relabelled (a capture's TAKEs go in ascending id order, so the
    single TAKE actions are not), and the round ends with the same points."""
    rng = np.random.default_rng(20 + players)
    eng = Engine(12, seed=players, num_players=players, episode="round", auto_reset=False)
    perm = random_card_permutations(rng, 1)[0]
    twin = relabelled(eng, perm)
    for g in range(eng.num_games):
        one = np.array([g])
        while eng.phase[g] != K.DONE:
            options = move_options(eng, g)
            assert sorted((int(perm[c]), tuple(sorted(perm[list(cap)].tolist())))
                          for c, cap in options) == sorted(move_options(twin, g))
            card, cap = options[rng.integers(len(options))]
            acts = move_to_actions(eng, g, card, cap)
            twin_acts = move_to_actions(twin, g, int(perm[card]), perm[list(cap)].tolist())
            for a, ta in zip(acts, twin_acts, strict=True):
                info, twin_info = eng.step(np.array([a]), games=one), twin.step(
                    np.array([ta]), games=one)
            assert (twin.state[g, K.MOVER], twin.state[g, K.PHASE]) == (
                eng.state[g, K.MOVER], eng.state[g, K.PHASE])
        assert np.array_equal(info.round_points, twin_info.round_points)


def test_a_relabelling_that_breaks_the_rules_is_refused() -> None:
    eng = positions(2, 0, 0)
    swap_clubs = np.arange(52)
    swap_clubs[[0, 1]] = [1, 0]  # A♣ <-> A♦
    with pytest.raises(ValueError, match="not a symmetry of the rules"):
        permute_states(eng.state, swap_clubs)
    with pytest.raises(ValueError, match="permutation of the 52 card ids"):
        observation_permutation(eng.rules, np.zeros(52, dtype=np.int64))
