"""Every input is checked once (``pasur_env.core.args``), both games alike: the same bad
input raises the same exception type with the same words in Pasur and Persian Rummy."""

from __future__ import annotations

import numpy as np
import pytest

from pasur_env import Engine, Rules
from pasur_env.core.args import FlagTypeError, check_seed
from pasur_env.core.batch_engine import BatchEngine
from pasur_env.rummy import RummyEngine
from pasur_env.rummy.rules import RummyRules

DECK = {Engine: 52, RummyEngine: 56}


@pytest.fixture(params=[Engine, RummyEngine], ids=["pasur", "rummy"])
def cls(request: pytest.FixtureRequest) -> type[BatchEngine]:
    return request.param


# ---- 1. decks are ordered sequences -------------------------------------------------------


@pytest.mark.parametrize("kind", [set, lambda ids: dict.fromkeys(ids), iter])
def test_unordered_deck_is_a_type_error(cls: type[BatchEngine], kind) -> None:
    eng = cls(1, seed=0)
    before = eng.state.copy()
    with pytest.raises(TypeError, match="a deck must be an ordered sequence"):
        eng.reset(deck=kind(range(DECK[cls])))
    np.testing.assert_array_equal(eng.state, before)


def test_ordered_decks_deal_alike(cls: type[BatchEngine]) -> None:
    ids = list(range(DECK[cls]))[::-1]
    states = []
    for deck in (ids, tuple(ids), np.array(ids), np.array(ids, dtype=np.uint8)):
        eng = cls(1, seed=0)
        eng.reset(deck=deck)
        states.append(eng.state.copy())
    for st in states[1:]:
        np.testing.assert_array_equal(st, states[0])


def test_rummy_reset_game_refuses_a_set_deck() -> None:
    with pytest.raises(TypeError, match="a deck must be an ordered sequence"):
        RummyEngine(2, seed=0).reset_game(1, deck=set(range(56)))


# ---- 2. game indices, seats, parallel -------------------------------------------------------


@pytest.mark.parametrize("games", [[0.7], [True], np.array([True, False]), [0.0, 1.0]])
def test_game_indices_must_be_integers(cls: type[BatchEngine], games) -> None:
    eng = cls(4, seed=0)
    before = eng.state.copy()
    with pytest.raises(TypeError, match="games must be integer game indices"):
        eng.step(np.zeros(len(games), dtype=np.int64), games=games)
    with pytest.raises(TypeError, match="games must be integer game indices"):
        eng.legal_mask(games)
    np.testing.assert_array_equal(eng.state, before)


@pytest.mark.parametrize("game", [-1, -2, 4, 100])
def test_one_game_out_of_range_is_a_value_error(cls: type[BatchEngine], game: int) -> None:
    eng = cls(4, seed=0)
    for call in (eng.legal_actions, eng.mover, eng.phase_name, eng.render):
        with pytest.raises(ValueError, match=r"game must be in 0\.\.3"):
            call(game)


@pytest.mark.parametrize("game", [0.0, 1.5, True, "1"])
def test_one_game_of_the_wrong_type_is_a_type_error(cls: type[BatchEngine], game) -> None:
    eng = cls(4, seed=0)
    for call in (eng.legal_actions, eng.mover, eng.phase_name):
        with pytest.raises(TypeError, match="game must be an int"):
            call(game)


@pytest.mark.parametrize("game", [-2, -1, 4])
def test_rummy_reset_game_out_of_range(game: int) -> None:
    eng = RummyEngine(4, seed=0)
    before = eng.state.copy()
    with pytest.raises(ValueError, match=r"game must be in 0\.\.3"):
        eng.reset_game(game)
    np.testing.assert_array_equal(eng.state, before)
    with pytest.raises(TypeError, match="game must be an int"):
        eng.reset_game(1.0)


@pytest.mark.parametrize("seat", [-1, 4, 7])
def test_hand_of_a_seat_out_of_range(cls: type[BatchEngine], seat: int) -> None:
    eng = cls(2, seed=0) if cls is RummyEngine else cls(2, seed=0, num_players=4)
    with pytest.raises(ValueError, match=r"seat must be in 0\.\.3"):
        eng.hand(0, seat)
    with pytest.raises(TypeError, match="seat must be an int"):
        eng.hand(0, 1.0)
    with pytest.raises(ValueError, match=r"game must be in 0\.\.1"):
        eng.hand(2, 0)


def test_pasur_hand_seat_range_follows_the_players() -> None:
    eng = Engine(1, seed=0, num_players=2)
    assert len(eng.hand(0, 1)) == 4
    with pytest.raises(ValueError, match=r"seat must be in 0\.\.1"):
        eng.hand(0, 2)


@pytest.mark.parametrize("parallel", ["yes", 1, 0.0])
def test_parallel_must_be_none_or_a_bool(cls: type[BatchEngine], parallel) -> None:
    with pytest.raises(TypeError, match="parallel must be None, True or False"):
        cls(1, parallel=parallel)
    assert cls(1, parallel=np.bool_(False)).parallel is False


def test_auto_reset_must_be_a_bool(cls: type[BatchEngine]) -> None:
    with pytest.raises(TypeError, match="auto_reset must be True or False"):
        cls(1, auto_reset="no")


# ---- 3. messages that name the argument and its range ----------------------------------------


@pytest.mark.parametrize("action", [2**63, 2**64 + 3, -(2**63) - 1])
def test_actions_beyond_int64_name_their_range(cls: type[BatchEngine], action: int) -> None:
    eng = cls(1, seed=0)
    before = eng.state.copy()
    pattern = rf"action {action} is out of range: actions are ids -1\.\.{eng.NUM_ACTIONS - 1}"
    with pytest.raises(ValueError, match=pattern):
        eng.step_single(action)
    with pytest.raises(ValueError, match=pattern):
        eng.step([action])
    np.testing.assert_array_equal(eng.state, before)


def test_uint64_actions_do_not_wrap(cls: type[BatchEngine]) -> None:
    eng = cls(1, seed=0)
    with pytest.raises(ValueError, match="is out of range"):
        eng.step(np.array([2**63], dtype=np.uint64))
    with pytest.raises(ValueError, match="is out of range"):
        eng.step_single(np.uint64(2**63))


@pytest.mark.parametrize("action", [1.0, True, "3"])
def test_step_single_refuses_non_integer_actions(cls: type[BatchEngine], action) -> None:
    with pytest.raises(TypeError, match="action must be an int"):
        cls(1, seed=0).step_single(action)


@pytest.mark.parametrize("rules_cls, flags", [
    (Rules, {"target_score": 2**63}), (Rules, {"sur_points": 2**63}),
    (Rules, {"clubs_points": 2**64}), (RummyRules, {"deals": 2**63}),
])
def test_rule_flags_beyond_int64_name_their_range(rules_cls: type, flags: dict) -> None:
    (name, value), = flags.items()
    with pytest.raises(ValueError, match=rf"{name} must be in \d\.\.9223372036854775807, got"):
        rules_cls(**flags)


def test_rules_of_the_wrong_type(cls: type[BatchEngine]) -> None:
    expected = "Rules" if cls is Engine else "RummyRules"
    with pytest.raises(TypeError, match=rf"rules must be a {expected} object or None, got str"):
        cls(1, rules="default")


@pytest.mark.parametrize("rules_cls, flags", [
    (Rules, {"num_players": 2.0}), (Rules, {"target_score": 62.0}),
    (Rules, {"sur_points": True}), (Rules, {"sur_cancel": 1}), (RummyRules, {"deals": 2.0}),
    (RummyRules, {"four_set_double": "yes"}),
])
def test_rule_flags_of_the_wrong_type_are_type_errors(rules_cls: type, flags: dict) -> None:
    (name, _), = flags.items()
    with pytest.raises(TypeError, match=name) as err:
        rules_cls(**flags)
    assert isinstance(err.value, FlagTypeError) and isinstance(err.value, ValueError)


# ---- 4. seeds: None, an int or a numpy int >= 0 ----------------------------------------------


@pytest.mark.parametrize("seed", [np.int64(5), np.uint32(5), np.int8(5)])
def test_numpy_seeds_are_seeds(cls: type[BatchEngine], seed) -> None:
    ref = cls(3, seed=5)
    np.testing.assert_array_equal(cls(3, seed=seed).state, ref.state)
    eng = cls(3, seed=0)
    eng.reset(seed=seed)
    np.testing.assert_array_equal(eng.state, ref.state)
    a, b = ref.copy(), ref.copy()
    assert a.playout(50, seed=seed) == b.playout(50, seed=5)
    np.testing.assert_array_equal(a.state, b.state)
    a.seed_streams(seed, np.int64(2))
    b.seed_streams(5, 2)
    np.testing.assert_array_equal(a.state, b.state)


def test_rummy_reset_game_takes_numpy_seeds() -> None:
    a, b = RummyEngine(2, seed=0), RummyEngine(2, seed=0)
    a.reset_game(1, seed=np.uint32(3))
    b.reset_game(1, seed=3)
    np.testing.assert_array_equal(a.state, b.state)
    with pytest.raises(ValueError, match="seed must be a non-negative int or None"):
        a.reset_game(1, seed=-1)


@pytest.mark.parametrize("seed, error", [(True, TypeError), (1.0, TypeError), ("1", TypeError),
                                         (np.int64(-1), ValueError), (-1, ValueError)])
def test_the_one_seed_rule(seed, error: type) -> None:
    with pytest.raises(error, match="seed must be a non-negative int or None"):
        check_seed(seed)
    assert check_seed(np.uint64(2**64 - 1)) == 2**64 - 1 and check_seed(None) is None


def test_both_engines_take_every_64_bit_seed_and_no_larger(cls: type[BatchEngine]) -> None:
    """One seed range, 0..2**64 - 1, for every seeded call of either engine (Rummy's
    playout raised OverflowError above 2**63 - 1... and 2**64 was taken by Pasur's)."""
    for seed in (2**63, 2**64 - 1, np.uint64(2**64 - 1)):
        eng = cls(1, seed=seed)
        eng.reset(seed=seed)
        eng.seed_streams(seed)
        eng.playout(5, seed=seed)
    for call in (lambda: cls(1, seed=2**64), lambda: cls(1, seed=0).reset(seed=2**64),
                 lambda: cls(1, seed=0).playout(5, seed=2**64),
                 lambda: cls(1, seed=0).seed_streams(2**70)):
        with pytest.raises(ValueError, match=r"seed must be a non-negative int or None, at most"):
            call()


# ---- 5. dealers: one check for both games --------------------------------------------


@pytest.mark.parametrize("dealer", [True, 1.0, "1", np.float64(1)])
def test_dealer_of_the_wrong_type(cls: type[BatchEngine], dealer) -> None:
    eng = cls(1, seed=0)
    with pytest.raises(TypeError, match="dealer must be"):
        eng.reset(dealer=dealer)


@pytest.mark.parametrize("dealer", [-1, 4, np.int64(9)])
def test_dealer_out_of_range(cls: type[BatchEngine], dealer) -> None:
    eng = cls(1, seed=0, **({"num_players": 4} if cls is Engine else {}))
    with pytest.raises(ValueError, match=r"dealer must be a seat in 0\.\.3"):
        eng.reset(dealer=dealer)


def test_numpy_dealers_deal_like_ints(cls: type[BatchEngine]) -> None:
    a, b = cls(2, seed=4), cls(2, seed=4)
    a.reset(seed=4, dealer=np.int64(1))
    b.reset(seed=4, dealer=1)
    np.testing.assert_array_equal(a.state, b.state)
