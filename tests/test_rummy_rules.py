"""Persian Rummy: scripted decks, one test per rule of ``docs/persian_rummy.md`` (pgx style).

Each test deals named hands (:func:`pasur_env.rummy.decks.deck_for`; dealer seat 3, so
seat 0 plays first), plays actions written as the rules speak (``"PICK 5S"``) and
asserts on the state, the exact legal mask and the scores.
"""

from __future__ import annotations

import numpy as np
import pytest

from pasur_env.rummy import RummyEngine, action_str, parse_action
from pasur_env.rummy import kernels as K
from pasur_env.rummy.cards import mask_of, parse_card
from pasur_env.rummy.decks import deck_for


def game(hands: list[str], up: str, stock: str = "", **flags) -> RummyEngine:
    eng = RummyEngine(1, seed=0, episode=flags.pop("episode", "round"), auto_reset=False,
                      **flags)
    eng.reset(deck=deck_for(hands, up, stock))
    return eng


def legal(eng: RummyEngine) -> set[str]:
    return {action_str(a) for a in eng.legal_actions(0)}


def play(eng: RummyEngine, *actions: str):
    info = None
    for a in actions:
        info = eng.step(np.array([parse_action(a)]))
    return info


def draw_and_discard(eng: RummyEngine) -> None:
    """The mover draws the top stock card and discards it."""
    before = set(eng.hand(0, eng.mover()))
    play(eng, "DRAW_STOCK")
    (drawn,) = set(eng.hand(0, eng.mover())) - before
    eng.step(np.array([K.DISCARD0 + drawn]))


def value(codes: str) -> int:
    from pasur_env.rummy.kernels.melds import mask_value

    return int(mask_value(mask_of(codes.split())))


# ---- melds ----------------------------------------------------------------------------
@pytest.mark.parametrize("codes, ok", [
    ("5C 5D 5H", True), ("5C 5D 5H 5S", True), ("5C 5D", False),
    ("4S 5S 6S", True), ("JS QS KS AS", True), ("QH KH AH", True),
    ("AH 2H 3H", False), ("KH AH 2H", False), ("4S 5S 7S", False), ("4S 5H 6S", False),
    ("JK1 JK2 JK3", True), ("JK1 JK2 JK3 JK4", True), ("JK1 JK2", False),
    ("JK1 5C 5D", False), ("JK1 4S 5S", False), ("2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC", True),
])
def test_set_and_run_validity(codes, ok):
    assert K.is_meld(mask_of(codes.split())) == ok


def test_card_values():
    assert value("JK1") == 20 and value("AS") == 15
    assert value("10C JD QH KS") == 40 and value("2C 9D") == 11


# ---- the deal ---------------------------------------------------------------------------
def test_deal_one_at_a_time_from_the_seat_after_the_dealer():
    eng = RummyEngine(1, seed=0)
    deck = [f"{r}{s}" for r in ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
            for s in "CDHS"] + ["JK1", "JK2", "JK3", "JK4"]
    eng.reset(deck=deck, dealer=1)
    # dealer 1: card k goes to seat (2 + k) % 4 (seat 2: A..7 of clubs); card 28 is
    # turned up (8C, which seat 2 may take for the run 6C 7C 8C)
    assert eng.hand(0, 2) == [parse_card(deck[k]) for k in range(0, 28, 4)]
    assert eng.pile() == [parse_card("8C")]
    assert eng.stock_size[0] == 27 and eng.mover() == 2
    assert legal(eng) == {"DRAW_STOCK", "TAKE 8C"}


# ---- the discard pile ----------------------------------------------------------------------
HANDS_A = ["5S 6S 2C 3D 9H JC KD", "4C 8D 10H QC 2H 3H 7C",
           "4D 8C 10D QD 5H 6D 9C", "4H 8H 10C QH 5C 6C 9D"]


def test_take_discard_obliges_the_first_meld_to_use_the_target():
    eng = game(HANDS_A, "7S")
    assert legal(eng) == {"DRAW_STOCK", "TAKE 7S"}
    play(eng, "TAKE 7S")
    assert eng.taken(0, 0) == [parse_card("7S")] and eng.pile() == []
    # only the meld around 7S can be started: no discard (the target is neither
    # discardable nor may the turn end before it is melded), no other pick
    assert legal(eng) == {"PICK 5S"}
    play(eng, "PICK 5S")
    assert legal(eng) == {"PICK 6S"}
    play(eng, "PICK 6S", "PICK 7S")
    assert legal(eng) == {"MELD"}
    play(eng, "MELD")
    assert eng.melds() == [[parse_card(c) for c in ("5S", "6S", "7S")]]
    assert eng.taken(0, 0) == []
    assert legal(eng) == {f"DISCARD {c}" for c in ("2C", "3D", "9H", "JC", "KD")}


def test_illegal_discard_under_the_obligation_raises():
    eng = game(HANDS_A, "7S")
    play(eng, "TAKE 7S")
    with pytest.raises(ValueError, match=r"illegal action .*DISCARD 7S.*legal actions: \[77\]"):
        play(eng, "DISCARD 7S")
    with pytest.raises(ValueError, match="DISCARD 2C"):
        play(eng, "DISCARD 2C")


def test_take_refused_when_the_target_cannot_be_melded():
    eng = game(HANDS_A, "8S".replace("8S", "AD"))
    assert legal(eng) == {"DRAW_STOCK"}
    with pytest.raises(ValueError, match="TAKE AD"):
        play(eng, "TAKE AD")


HANDS_B = ["2C 4D 6H 8C QD 3S 5C", "2D 4H 6C 8D QH 3C 5D",
           "2H 4C 6D 8H QC 3D 5H", "2S 4S 6S 7D 9D KC KH"]


def test_take_deep_card_takes_the_cards_above_and_melds_with_them():
    eng = game(HANDS_B, "9S", stock="10S JS")
    play(eng, "DRAW_STOCK", "DISCARD 10S", "DRAW_STOCK", "DISCARD JS")
    assert eng.pile() == [parse_card(c) for c in ("9S", "10S", "JS")]
    # 9S melds with the two cards above it; 10S or JS alone cannot be melded
    assert legal(eng) == {"DRAW_STOCK", "TAKE 9S"}
    play(eng, "TAKE 9S")
    assert eng.pile() == []
    assert eng.taken(0, 2) == [parse_card(c) for c in "9S 10S JS".split()]
    assert legal(eng) == {"PICK 9S"}
    play(eng, "PICK 9S", "PICK 10S", "PICK JS", "MELD")
    assert eng.taken(0, 2) == [] and len(eng.hand(0, 2)) == 7


HANDS_C = ["6S 7S 8S 5C 5D 5H KD", "5S 9S 2D 3H JC QH AD",
           "2H 4C 6D 8H QC 3D 10H", "2S 4S 6C 7D 9D KC KH"]


def _melds_of_seat_0(eng: RummyEngine) -> None:
    play(eng, "DRAW_STOCK")  # 2C
    assert {"PICK 5C", "PICK 6S", "DISCARD KD"} <= legal(eng)
    play(eng, "PICK 5C", "PICK 5D", "PICK 5H", "MELD", "PICK 6S", "PICK 7S", "PICK 8S", "MELD",
         "DISCARD KD")


def test_lay_off_on_the_other_teams_meld_is_credited_to_the_layer_and_target_choice():
    eng = game(HANDS_C, "10C", stock="2C 10S")
    _melds_of_seat_0(eng)
    play(eng, "DRAW_STOCK")  # seat 1 draws 10S
    assert {"LAY_OFF 5S", "LAY_OFF 9S"} <= legal(eng)
    assert "LAY_OFF 10S" not in legal(eng)  # 10S only fits after 9S
    play(eng, "LAY_OFF 5S")  # 5S extends the set of fives and the run 6S-8S
    assert eng.phase[0] == K.CHOOSE and legal(eng) == {"TARGET 0", "TARGET 1"}
    play(eng, "TARGET 0")  # meld 0 is the set of fives (laid first)
    play(eng, "LAY_OFF 9S")  # one meld only: laid at once
    assert eng.phase[0] == K.MELDING
    st = eng.state[0]
    assert st[K.CREDIT + 1] == mask_of(["5S", "9S"])
    assert st[K.CREDIT] == mask_of("5C 5D 5H 6S 7S 8S".split())
    assert st[K.BONUS] == st[K.BONUS + 1] == 0  # a four-set completed later is not doubled
    assert eng.melds()[1] == sorted(parse_card(c) for c in "6S 7S 8S 9S".split())


def test_take_for_a_lay_off_only_and_a_deep_take_into_a_set():
    eng = game(HANDS_C, "10C", stock="2C 10S")
    _melds_of_seat_0(eng)
    play(eng, "DRAW_STOCK", "LAY_OFF 9S", "DISCARD 10S")
    # seat 2 holds 10H: 10S alone only lays off on the run; 10C (bottom) takes KD and
    # 10S too and makes the set 10C 10S 10H; KD cannot be melded
    assert legal(eng) == {"DRAW_STOCK", "TAKE 10C", "TAKE 10S"}
    play(eng, "TAKE 10S")
    assert legal(eng) == {"LAY_OFF 10S"}
    play(eng, "LAY_OFF 10S")
    assert eng.state[0, K.CREDIT] >> parse_card("10S") & 1  # seat 2 is team 0
    assert legal(eng) == {f"DISCARD {c}" for c in "2H 4C 6D 8H QC 3D 10H".split()}


# ---- going out and scoring --------------------------------------------------------------------
HANDS_D = ["QC QD QH QS 2H 3H 4H", "2D 4D 6C 8D JH 3C 5D",
           "AC 4C 6D 8H 9C 3D 10H", "2S 4S 6S 7D 9D KC KH"]


def _left(seat_codes: str) -> int:
    return value(seat_codes)


@pytest.mark.parametrize("double", [True, False])
def test_going_out_by_melding_scores_25_and_a_four_set_laid_at_once_doubles(double):
    eng = game(HANDS_D, "JC", stock="5H", four_set_double=double)
    play(eng, "DRAW_STOCK", "PICK QC", "PICK QD", "PICK QH", "PICK QS", "MELD")
    info = play(eng, "PICK 2H", "PICK 3H", "PICK 4H", "PICK 5H", "MELD")
    assert info.round_end[0] and info.went_out[0] == 0 and info.game_end[0]
    fours = 40 * (2 if double else 1)
    assert info.round_points[0].tolist() == [
        fours + 14 + 25 - _left(HANDS_D[2]), -_left(HANDS_D[1]) - _left(HANDS_D[3])]
    assert eng.phase[0] == K.DONE


def test_three_of_a_kind_then_the_fourth_laid_off_is_not_doubled():
    eng = game(HANDS_D, "JC", stock="5H")
    play(eng, "DRAW_STOCK", "PICK QC", "PICK QD", "PICK QH", "MELD", "LAY_OFF QS")
    info = play(eng, "PICK 2H", "PICK 3H", "PICK 4H", "PICK 5H", "MELD")
    assert info.round_points[0, 0] == 40 + 14 + 25 - _left(HANDS_D[2])


@pytest.mark.parametrize("goes_out", [False, True])
def test_emptying_the_hand_by_discarding(goes_out):
    eng = game(HANDS_D, "JC", stock="9S", last_discard_goes_out=goes_out)
    play(eng, "DRAW_STOCK", "PICK QC", "PICK QD", "PICK QH", "PICK QS", "MELD",
         "PICK 2H", "PICK 3H", "PICK 4H", "MELD")
    assert legal(eng) == {"DISCARD 9S"}
    info = play(eng, "DISCARD 9S")
    assert bool(info.round_end[0]) == goes_out
    if goes_out:
        assert info.went_out[0] == 0
        assert info.round_points[0, 0] == 80 + 9 + 25 - _left(HANDS_D[2])
    else:  # the round goes on; seat 0 draws again at its next turn
        assert eng.hand(0, 0) == [] and eng.mover() == 1
        for _seat in (1, 2, 3):
            draw_and_discard(eng)
        assert eng.mover() == 0 and "DRAW_STOCK" in legal(eng)
        draw_and_discard(eng)
        assert eng.hand(0, 0) == []


def test_stock_runs_out_then_four_passes_end_the_round_without_bonus():
    eng = RummyEngine(1, seed=5, episode="round", auto_reset=False)
    for _ in range(27):  # every player draws and discards the card drawn
        draw_and_discard(eng)
    assert eng.stock_size[0] == 0
    hands = [eng.state[0, K.HAND + s] for s in range(4)]
    for k in range(4):
        assert "PASS" in legal(eng) and "DRAW_STOCK" not in legal(eng)
        info = play(eng, "PASS")
        assert bool(info.round_end[0]) == (k == 3)
    assert info.went_out[0] == -1
    expect = [-int(K.mask_value(hands[t] | hands[t + 2])) for t in (0, 1)]
    assert info.round_points[0].tolist() == expect


# ---- the game -----------------------------------------------------------------------------
def test_a_game_is_two_deals_the_next_seat_deals_the_second():
    eng = RummyEngine(1, seed=3, episode="game", auto_reset=False)
    rng = np.random.default_rng(0)
    points, ends = [], []
    while eng.phase[0] != K.DONE:
        info = eng.step(eng.random_actions(rng))
        if info.round_end[0]:
            points.append(info.round_points[0].copy())
            ends.append(bool(info.game_end[0]))
            if not info.game_end[0]:
                assert eng.state[0, K.DEAL] == 1 and eng.state[0, K.DEALER] == 0
                assert eng.mover() == 1 and eng.stock_size[0] == 27
    assert ends == [False, True]
    total = points[0] + points[1]
    assert info.scores[0].tolist() == total.tolist()
    assert info.winner[0] == (0 if total[0] > total[1] else 1 if total[1] > total[0] else -1)


def test_one_deal_game_flag():
    eng = RummyEngine(1, seed=3, episode="game", auto_reset=False, deals=1)
    rng = np.random.default_rng(0)
    rounds = 0
    while eng.phase[0] != K.DONE:
        rounds += int(eng.step(eng.random_actions(rng)).round_end[0])
    assert rounds == 1
