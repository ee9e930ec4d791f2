"""Every bad input raises a clear error that names the problem, and leaves the games untouched."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from pasur_env import Engine, Position, Rules, card_code, make_rules, parse_card, parse_deck
from pasur_env.pasur import kernels as K
from pasur_env.pasur.moves import move_options, move_to_actions

CODES = [card_code(c) for c in range(52)]


# ---- decks ---------------------------------------------------------------------------------

BAD_DECKS = {
    "51 cards": (CODES[:51], r"52 cards.*51"),
    "53 cards": (CODES + ["AC"], r"52 cards.*53"),
    "empty": ([], r"52 cards.*0"),
    "duplicate": (CODES[:51] + ["AC"], r"duplicate.*AC.*KS"),
    "unknown 1X": (CODES[:51] + ["1X"], r"unknown card code '1X'"),
    "unknown 11C": (["11C"] + CODES[1:], r"unknown card code '11C'"),
    "id 52": (list(range(51)) + [52], r"0\.\.51.*52"),
}


@pytest.mark.parametrize("name", list(BAD_DECKS))
def test_parse_deck_rejects(name: str) -> None:
    deck, pattern = BAD_DECKS[name]
    with pytest.raises(ValueError, match=pattern):
        parse_deck(deck)


@pytest.mark.parametrize("name", list(BAD_DECKS))
def test_engine_reset_rejects_bad_deck(name: str) -> None:
    deck, pattern = BAD_DECKS[name]
    eng = Engine(3, seed=0)
    before = eng.state.copy()
    with pytest.raises(ValueError, match=pattern):
        eng.reset(deck=deck)
    np.testing.assert_array_equal(eng.state, before)


def test_engine_reset_rejects_bad_deck_row() -> None:
    eng = Engine(2, seed=0)
    good = list(range(52))
    with pytest.raises(ValueError, match="duplicate"):
        eng.reset(deck=np.array([good, [0] + good[:-1]]))
    with pytest.raises(ValueError, match=r"B=2 rows, got 3"):
        eng.reset(deck=np.array([good] * 3))


def test_failed_reset_leaves_state_unchanged() -> None:
    """A reset that raises must not half-reset the games (here: the first dealer)."""
    eng = Engine(2, seed=0)
    eng.reset(dealer=0)
    before = eng.state.copy()
    with pytest.raises(ValueError):
        eng.reset(deck=CODES[:51])
    np.testing.assert_array_equal(eng.state, before)  # START_DEALER must stay 0
    with pytest.raises(ValueError):
        eng.reset(seed=5, dealer=7)
    np.testing.assert_array_equal(eng.state, before)  # the random streams must not be reseeded


def test_parse_card_errors() -> None:
    for bad in ["1X", "11C", "", "K", "10", "KX", "1O D", "JJ"]:
        with pytest.raises(ValueError, match="unknown card code"):
            parse_card(bad)
    for bad in [52, -1, 100]:
        with pytest.raises(ValueError, match="0..51"):
            parse_card(bad)
    with pytest.raises(TypeError):
        parse_card(True)
    with pytest.raises(TypeError):
        parse_card(1.0)  # type: ignore[arg-type]


# ---- configuration -----------------------------------------------------------------------


def test_unknown_rule_flag() -> None:
    with pytest.raises(TypeError, match="foo"):
        Engine(1, foo=1)
    with pytest.raises(TypeError, match="foo"):
        make_rules(foo=1)
    with pytest.raises(TypeError, match="foo"):
        Rules().replace(foo=1)


def test_unknown_preset() -> None:
    with pytest.raises(ValueError, match="bogus"):
        Engine(1, preset="bogus")
    with pytest.raises(ValueError, match="bogus"):
        make_rules("bogus")


@pytest.mark.parametrize("players", [0, 1, 5, 6])
def test_bad_player_count(players: int) -> None:
    with pytest.raises(ValueError, match="num_players"):
        Engine(1, num_players=players)
    with pytest.raises(ValueError, match="num_players"):
        Rules(num_players=players)


@pytest.mark.parametrize(
    "flags, name",
    [
        ({"jack_sur": "x"}, "jack_sur"),
        ({"clubs_rule": "x"}, "clubs_rule"),
        ({"initial_jacks": "x"}, "initial_jacks"),
        ({"club_tie": "x"}, "club_tie"),
        ({"club_tie": "third"}, "club_tie"),
        ({"club_tie": "third", "num_players": 4}, "club_tie"),
        ({"open_hand": True, "num_players": 3}, "open_hand"),
        ({"open_hand": True, "num_players": 4}, "open_hand"),
        ({"sur_points": -1}, "sur_points"),
        ({"clubs_points": -7}, "clubs_points"),
        ({"target_score": 0}, "target_score"),
        ({"target_score": -5}, "target_score"),
        ({"sur_cancel": "yes"}, "sur_cancel"),
        ({"sur_cutoff": 1}, "sur_cutoff"),
        ({"open_hand": "no"}, "open_hand"),
        ({"num_players": True}, "num_players"),
        ({"sur_points": 2.5}, "sur_points"),
    ],
)
def test_bad_flag_values(flags: dict, name: str) -> None:
    with pytest.raises(ValueError, match=name):
        Engine(1, **flags)
    with pytest.raises(ValueError, match=name):
        Rules(**flags)


def test_bad_flag_in_replace_and_preset_override() -> None:
    with pytest.raises(ValueError, match="jack_sur"):
        Rules().replace(jack_sur="always")
    with pytest.raises(ValueError, match="open_hand"):
        make_rules("cfr_paper", num_players=3, open_hand=True)


def test_bad_engine_arguments() -> None:
    with pytest.raises(ValueError, match="num_games"):
        Engine(0)
    with pytest.raises(TypeError, match="num_games"):
        Engine(1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="episode"):
        Engine(1, episode="match")
    with pytest.raises(ValueError, match="seed"):
        Engine(1, seed=-1)
    with pytest.raises(TypeError):
        Engine(1, rules="classic")  # type: ignore[arg-type]


# ---- actions ---------------------------------------------------------------------------


def _first_card_not_in_hand(eng: Engine, b: int) -> int:
    hand = int(eng.hands[b, eng.current_player[b]])
    return next(c for c in range(52) if not (hand >> c) & 1)


def _check_illegal(eng: Engine, actions: np.ndarray, game: int) -> str:
    before = eng.state.copy()
    legal = eng.legal_actions(game)
    with pytest.raises(ValueError) as exc:
        eng.step(actions)
    msg = str(exc.value)
    assert f"game {game}" in msg
    assert f"illegal action {int(actions[game])}" in msg
    assert str(legal) in msg
    np.testing.assert_array_equal(eng.state, before)
    return msg


@pytest.mark.parametrize("bad_game", [0, 2, 4])
def test_illegal_play_leaves_batch_unchanged(bad_game: int) -> None:
    rng = np.random.default_rng(bad_game)
    eng = Engine(5, seed=7)
    for _ in range(23):
        eng.step(eng.random_actions(rng))
    while (eng.phase != K.PLAY).any():
        eng.step(eng.random_actions(rng))
    good = eng.random_actions(rng)
    # a card not in the mover's hand
    acts = good.copy()
    acts[bad_game] = _first_card_not_in_hand(eng, bad_game)
    msg = _check_illegal(eng, acts, bad_game)
    assert "PLAY" in msg
    # a TAKE action in the PLAY phase
    acts = good.copy()
    acts[bad_game] = 52 + int(eng.hand(bad_game)[0])
    _check_illegal(eng, acts, bad_game)
    # out of range
    for a in (104, 1000, -1, -53):
        acts = good.copy()
        acts[bad_game] = a
        _check_illegal(eng, acts, bad_game)
    # the good actions still work afterwards
    eng.step(good)


def test_several_illegal_games_reported() -> None:
    eng = Engine(4, seed=3)
    acts = np.full(4, 104)
    before = eng.state.copy()
    with pytest.raises(ValueError, match=r"game 0.*3 other game"):
        eng.step(acts)
    np.testing.assert_array_equal(eng.state, before)


def _reach_capture_phase(seed: int) -> Engine:
    rng = np.random.default_rng(seed)
    for s in range(50):
        eng = Engine(1, seed=seed + s)
        for _ in range(400):
            if eng.phase[0] == K.CAPTURE:
                return eng
            eng.step(eng.random_actions(rng))
    raise AssertionError("no CAPTURE phase reached")


def test_illegal_action_in_capture_phase() -> None:
    eng = _reach_capture_phase(11)
    legal = eng.legal_actions(0)
    assert legal and all(52 <= a < 104 for a in legal)
    # a PLAY action during the capture choice
    card = eng.hand(0)[0] if eng.hand(0) else 0
    msg = _check_illegal(eng, np.array([card]), 0)
    assert "CAPTURE" in msg
    # a TAKE of a card that is not a legal next pick
    not_legal = next(a for a in range(52, 104) if a not in legal)
    _check_illegal(eng, np.array([not_legal]), 0)
    for a in (104, -1):
        _check_illegal(eng, np.array([a]), 0)
    # mid-capture the moves are the ways left to finish it: the pending card's options
    pending = int(eng.state[0, K.PENDING])
    assert {c for c, _ in move_options(eng, 0)} == {pending} and len(move_options(eng, 0)) >= 2


def test_done_phase_only_accepts_minus_one() -> None:
    rng = np.random.default_rng(0)
    eng = Engine(1, seed=0, auto_reset=False, target_score=1)
    for _ in range(200):
        if eng.phase[0] == K.DONE:
            break
        eng.step(eng.random_actions(rng))
    assert eng.phase[0] == K.DONE
    assert not eng.legal_mask().any()
    msg = _check_illegal(eng, np.array([0]), 0)
    assert "DONE" in msg
    before = eng.state.copy()
    eng.step(np.array([-1]))
    np.testing.assert_array_equal(eng.state, before)
    eng.reset_games(np.array([True]))
    assert eng.phase[0] == K.PLAY


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.bool_])
def test_wrong_action_dtype(dtype: type) -> None:
    eng = Engine(3, seed=0)
    acts = eng.random_actions(np.random.default_rng(0)).astype(dtype)
    before = eng.state.copy()
    with pytest.raises(TypeError, match="integer"):
        eng.step(acts)
    np.testing.assert_array_equal(eng.state, before)


def test_wrong_action_dtype_python_values() -> None:
    eng = Engine(1, seed=0)
    with pytest.raises(TypeError):
        eng.step([float(eng.legal_actions(0)[0])])
    with pytest.raises(TypeError):
        eng.step(["AC"])


@pytest.mark.parametrize("B", [1, 3])
def test_wrong_action_shape(B: int) -> None:
    eng = Engine(B, seed=0)
    acts = eng.random_actions(np.random.default_rng(0))
    before = eng.state.copy()
    for bad in (np.append(acts, acts[0]), acts.reshape(B, 1), acts[:-1], np.stack([acts, acts])):
        with pytest.raises(ValueError, match="shape"):
            eng.step(bad)
    if B > 1:
        with pytest.raises(ValueError, match="shape"):
            eng.step(np.int64(acts[0]))
    np.testing.assert_array_equal(eng.state, before)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_bad_dealer(players: int) -> None:
    eng = Engine(2, seed=0, num_players=players)
    for bad in (players, -1, 7, [0, players]):
        with pytest.raises(ValueError, match="dealer"):
            eng.reset(dealer=bad)
    eng.reset(dealer=players - 1)
    eng.reset(dealer=[0, players - 1])
    assert eng.current_player.tolist() == [1, 0]


def test_engine_misc_errors() -> None:
    eng = Engine(2, seed=0)
    with pytest.raises(ValueError):
        eng.take([])
    with pytest.raises(ValueError, match="0..1"):
        eng.take([2])
    with pytest.raises(ValueError, match="0..1"):
        eng.take([-1])
    with pytest.raises(ValueError, match="shape"):
        eng.reset_games(np.array([True]))
    with pytest.raises(ValueError, match="not a legal move"):
        move_to_actions(eng, 0, _first_card_not_in_hand(eng, 0), [])


# ---- positions ---------------------------------------------------------------------------


def _fresh_position() -> dict:
    """A legal P=2 position right after the first deal (dealer 1, player_0 to move)."""
    return dict(
        hands=[CODES[0:4], CODES[4:8]],
        table=CODES[8:12],
        stock=CODES[12:52],
        piles=[[], []],
        dealer=1,
    )


def test_valid_position_builds() -> None:
    eng = Engine.from_positions([Position(**_fresh_position())])
    assert eng.current_player[0] == 0
    assert eng.stock_size[0] == 40
    assert sorted(eng.hand(0, 0)) == [0, 1, 2, 3]


@pytest.mark.parametrize(
    "change, pattern",
    [
        ({"table": CODES[8:11]}, r"every card once.*missing \['3S'\]"),
        ({"table": CODES[8:12] + ["AC"]}, r"every card once.*duplicates \['AC'\]"),
        ({"table": CODES[8:11] + ["1X"]}, r"unknown card code '1X'"),
        ({"hands": [CODES[0:3], CODES[3:8]], "table": CODES[8:12]}, r"hand"),
        ({"hands": [CODES[0:4], CODES[4:7]], "table": CODES[7:12]}, r"hand sizes"),
        ({"hands": [CODES[0:2], CODES[2:8]], "table": CODES[8:12]}, r"hand"),
        ({"hands": [[], []], "table": CODES[0:12]}, r"hands are empty"),
        ({"piles": [[]]}, r"2 piles"),
        ({"stock": CODES[12:51], "piles": [["KS"], []]}, r"stock of 39"),
        ({"stock": CODES[12:48], "piles": [CODES[48:52], []]}, r"stock of 36"),
        ({"stock": CODES[8:52], "table": []}, r"stock of 44"),
        ({"dealer": 2}, r"dealer"),
        ({"dealer": -1}, r"dealer"),
        ({"last_capturer": 5}, r"last_capturer"),
        ({"surs": [0, 0, 0]}, r"surs and scores"),
        ({"scores": [0]}, r"surs and scores"),
    ],
)
def test_invalid_position(change: dict, pattern: str) -> None:
    spec = _fresh_position()
    spec.update(change)
    with pytest.raises(ValueError, match=pattern):
        Engine.from_positions([Position(**spec)])


def test_position_with_wrong_number_of_hands() -> None:
    spec = _fresh_position()
    spec.update(hands=[CODES[0:4]], table=CODES[4:12])
    with pytest.raises(ValueError, match="2 hands"):
        Engine.from_positions([Position(**spec)], num_players=2)
    with pytest.raises(ValueError, match="num_players|hands"):
        Engine.from_positions([Position(**spec)])
    spec.update(hands=[CODES[0:4], CODES[4:8], []], table=CODES[8:12])
    with pytest.raises(ValueError, match="2 hands"):
        Engine.from_positions([Position(**spec)], num_players=2)


def test_invalid_position_in_batch_and_empty_batch() -> None:
    good = Position(**_fresh_position())
    bad = dataclasses.replace(good, table=CODES[8:11])
    with pytest.raises(ValueError, match="every card once"):
        Engine.from_positions([good, bad])
    with pytest.raises(ValueError, match="at least one"):
        Engine.from_positions([])


def test_position_hand_sizes_for_four_players() -> None:
    # P=4, dealer 3: seats 0,1 have played once (2 turns of this deal), seats 2,3 not yet
    spec = dict(
        hands=[CODES[0:3], CODES[3:6], CODES[6:10], CODES[10:14]],
        table=CODES[14:20],
        stock=CODES[20:52],
        piles=[[], []],
        dealer=3,
    )
    eng = Engine.from_positions([Position(**spec)], num_players=4)
    assert eng.current_player[0] == 2
    spec["hands"] = [CODES[0:4], CODES[4:7], CODES[7:10], CODES[10:14]]
    with pytest.raises(ValueError, match="hand sizes"):
        Engine.from_positions([Position(**spec)], num_players=4)
