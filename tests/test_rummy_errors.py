"""Persian Rummy: bad inputs raise clear errors and change nothing."""

from __future__ import annotations

import numpy as np
import pytest

from pasur_env.rummy import RummyEngine, parse_action, parse_card
from pasur_env.rummy.decks import deck_for

FULL = [f"{r}{s}" for r in ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
        for s in "CDHS"] + ["JK1", "JK2", "JK3", "JK4"]


@pytest.mark.parametrize("deck, message", [
    (FULL[:55], "must have 56 cards .52 \\+ 4 jokers., got 55"),
    (FULL + ["AC"], "got 57"),
    (FULL[:55] + ["AC"], r"duplicate cards \['AC'\] and lacks \['JK4'\]"),
    (FULL[:55] + ["JK5"], "unknown joker code 'JK5'"),
    (FULL[:55] + ["1C"], "unknown card code '1C'"),
    (list(range(55)) + [56], "card id must be in 0..55, got 56"),
])
def test_malformed_decks_are_refused_and_leave_the_game_untouched(deck, message):
    eng = RummyEngine(1, seed=0)
    before = eng.state.copy()
    with pytest.raises(ValueError, match=message):
        eng.reset(deck=deck)
    assert (eng.state == before).all()


def test_a_deck_of_ids_and_codes_is_accepted():
    eng = RummyEngine(1)
    eng.reset(deck=list(range(56)))
    eng.reset(deck=" ".join(FULL))
    assert parse_card("jk3") == 54


def test_illegal_actions_name_the_game_the_action_and_the_legal_ones():
    eng = RummyEngine(3, seed=0)
    before = eng.state.copy()
    acts = np.array([0, 0, 114])
    with pytest.raises(ValueError, match=r"illegal action 114 \(MELD\) in game 2 for player_0 "
                                         r"in the DRAW phase; legal actions: \[0"):
        eng.step(acts)
    assert (eng.state == before).all()  # not even the legal games moved
    for bad in (-1, 245, 10_000):
        with pytest.raises(ValueError, match="illegal action"):
            eng.step(np.array([bad, 0, 0]))


def test_bad_action_arrays_and_game_indices():
    eng = RummyEngine(2, seed=0)
    with pytest.raises(TypeError, match="integer array"):
        eng.step(np.array([0.0, 0.0]))
    with pytest.raises(ValueError, match="shape"):
        eng.step(np.array([0, 0, 0]))
    with pytest.raises(ValueError, match="ascending distinct"):
        eng.step(np.array([0, 0]), games=[1, 0])
    with pytest.raises(ValueError, match="which must have shape"):
        eng.reset_games(np.ones(3, dtype=bool))


@pytest.mark.parametrize("kwargs, err, message", [
    ({"deals": 0}, ValueError, "deals must be >= 1"),
    ({"deals": 1.5}, ValueError, "deals must be a positive int"),
    ({"four_set_double": "yes"}, ValueError, "four_set_double must be True or False"),
    ({"last_discard_goes_out": 1}, ValueError, "last_discard_goes_out must be True or False"),
    ({"target_score": 62}, TypeError, "unknown Persian Rummy rule flag"),
    ({"episode": "match"}, ValueError, "episode must be"),
    ({"num_games": 0}, ValueError, "num_games must be >= 1"),
])
def test_wrong_flags(kwargs, err, message):
    with pytest.raises(err, match=message):
        RummyEngine(**kwargs)


def test_bad_reset_arguments():
    eng = RummyEngine(1)
    with pytest.raises(ValueError, match="dealer must be a seat"):
        eng.reset(dealer=4)
    with pytest.raises(ValueError, match="seed must be a non-negative int"):
        eng.reset(seed=-1)
    with pytest.raises(ValueError, match="unknown action"):
        parse_action("DISCARD")
    with pytest.raises(ValueError, match="named more than once"):
        deck_for(["AC 2C 3C 4C 5C 6C 7C"] * 4, "8C")
