"""Card ids, text codes, pretty printing, and the rule configuration (docs/rules.md §1, §8)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from pasur_env import (
    PRESETS,
    RULE_FLAGS,
    Engine,
    Rules,
    action_str,
    card_code,
    card_str,
    make_rules,
    parse_card,
    parse_cards,
    parse_deck,
)
from pasur_env.pasur.cards import (
    RANKS,
    SUIT_SYMBOLS,
    SUITS,
    VALUE_OF,
    card_id,
    cards_of,
    cards_str,
    mask_of,
)

# ---- card ids (§1) ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "code, cid",
    [("AC", 0), ("AD", 1), ("2C", 4), ("10D", 37), ("JC", 40), ("QC", 44), ("KS", 51)],
)
def test_reference_card_ids(code: str, cid: int) -> None:
    assert parse_card(code) == cid
    assert card_code(cid) == code


def test_card_id_formula() -> None:
    for r in range(13):
        for s in range(4):
            assert card_id(r, s) == 4 * r + s
    with pytest.raises(ValueError):
        card_id(13, 0)
    with pytest.raises(ValueError):
        card_id(0, 4)


@pytest.mark.parametrize("text", ["10D", "TD", "td", "10d", "10♦", "T♦", " 10D "])
def test_ten_of_diamonds_spellings(text: str) -> None:
    assert parse_card(text) == 37


@pytest.mark.parametrize("text, cid", [("KS", 51), ("ks", 51), ("K♠", 51), ("ah", 2), ("Q♥", 46)])
def test_other_spellings(text: str, cid: int) -> None:
    assert parse_card(text) == cid


def test_round_trip_all_cards() -> None:
    seen = set()
    for c in range(52):
        code = card_code(c)
        assert parse_card(code) == c
        assert parse_card(code.lower()) == c
        assert parse_card(card_str(c)) == c
        assert code[:-1] == RANKS[c // 4] and code[-1] == SUITS[c % 4]
        seen.add(code)
    assert len(seen) == 52
    # ids pass through unchanged
    assert [parse_card(c) for c in range(52)] == list(range(52))
    assert parse_card(np.int64(37)) == 37


def test_numeral_values() -> None:
    assert VALUE_OF[parse_card("AC")] == 1
    assert VALUE_OF[parse_card("10D")] == 10
    assert VALUE_OF[parse_card("7H")] == 7
    assert all(VALUE_OF[c] == 0 for c in range(40, 52))
    assert all(VALUE_OF[c] == c // 4 + 1 for c in range(40))


def test_pretty_printing() -> None:
    assert card_str(37) == "10♦"
    assert card_str(0) == "A♣"
    assert card_str(51) == "K♠"
    assert card_str(46) == "Q♥"
    for c in range(52):
        assert card_str(c).endswith(SUIT_SYMBOLS[c % 4])
    assert cards_str([51, 0, 37]) == "A♣ 10♦ K♠"
    assert cards_str([]) == ""
    assert action_str(37) == "PLAY 10D"
    assert action_str(52 + 51) == "TAKE KS"
    assert "invalid" in action_str(104)


def test_parse_cards_and_deck() -> None:
    assert parse_cards("AC 10D, KS") == [0, 37, 51]
    assert parse_cards(["AC", 37, "ks"]) == [0, 37, 51]
    deck = [card_code(c) for c in range(52)][::-1]
    assert parse_deck(deck).tolist() == list(range(52))[::-1]
    assert parse_deck(" ".join(deck)).tolist() == list(range(52))[::-1]
    assert parse_deck(np.arange(52)).tolist() == list(range(52))
    assert parse_deck(np.arange(52)).dtype == np.int64


def test_mask_of_and_cards_of() -> None:
    assert mask_of([]) == 0
    assert mask_of(["AC"]) == 1
    assert mask_of(["AC", "2C", "KS"]) == (1 << 0) | (1 << 4) | (1 << 51)
    assert mask_of([37, "10D"]) == 1 << 37
    assert cards_of(0) == []
    assert cards_of((1 << 51) | (1 << 3) | 1) == [0, 3, 51]
    assert cards_of(np.int64(1 << 37)) == [37]
    assert cards_of((1 << 52) - 1) == list(range(52))
    rng = np.random.default_rng(0)
    for _ in range(50):
        ids = sorted(set(rng.integers(0, 52, size=rng.integers(0, 20)).tolist()))
        assert cards_of(mask_of(ids)) == ids
    with pytest.raises(ValueError):
        cards_of(1 << 52)
    with pytest.raises(ValueError):
        cards_of(-1)


# ---- rules (§5, §6, §8) -------------------------------------------------------------------

CLASSIC = {
    "num_players": 2,
    "target_score": 62,
    "sur_points": 5,
    "sur_cancel": True,
    "sur_cutoff": False,
    "jack_sur": "never",
    "initial_jacks": "bury",
    "clubs_points": 7,
    "clubs_rule": "most",
    "club_tie": "nobody",
    "open_hand": False,
    "cards": None,
    "hand_size": 4,
    "table_size": 4,
}


def test_rule_flags_are_the_documented_ones() -> None:
    assert set(RULE_FLAGS) == set(CLASSIC)


def test_defaults_are_classic() -> None:
    r = Rules()
    for name, value in CLASSIC.items():
        assert getattr(r, name) == value, name
    assert make_rules() == r
    assert make_rules("classic") == r
    assert make_rules("classic").preset == "classic"
    assert Engine(1, seed=0).rules == r


def test_presets() -> None:
    assert set(PRESETS) == {"classic", "cfr_paper", "mini", "small"}
    cfr = make_rules("cfr_paper")
    assert cfr.initial_jacks == "redeal"
    assert cfr.sur_cancel is False
    assert cfr.preset == "cfr_paper"
    for name, value in CLASSIC.items():
        if name not in ("initial_jacks", "sur_cancel"):
            assert getattr(cfr, name) == value, name
    assert Engine(1, seed=0, preset="cfr_paper").rules == cfr


def test_make_rules_overrides() -> None:
    r = make_rules("cfr_paper", num_players=3, clubs_points=13)
    assert (r.num_players, r.clubs_points) == (3, 13)
    assert (r.initial_jacks, r.sur_cancel) == ("redeal", False)
    r2 = make_rules(sur_points=3, jack_sur="lone_jack")
    assert r2.sur_points == 3 and r2.jack_sur == "lone_jack" and r2.target_score == 62
    base = Rules(num_players=4)
    r3 = make_rules(rules=base, target_score=100)
    assert r3.num_players == 4 and r3.target_score == 100
    assert base.target_score == 62  # the original is untouched
    assert make_rules(rules=base) is base
    r4 = base.replace(sur_cutoff=True)
    assert r4.sur_cutoff and r4.num_players == 4 and not base.sur_cutoff
    eng = Engine(2, seed=0, preset="cfr_paper", num_players=4)
    assert eng.rules.num_players == 4 and eng.rules.initial_jacks == "redeal"
    assert eng.hands.shape == (2, 4)


def test_rules_frozen() -> None:
    r = Rules()
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.sur_points = 3  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.num_players = 3  # type: ignore[misc]
    assert r.sur_points == 5
    assert hash(r) == hash(Rules())


@pytest.mark.parametrize("players, sides", [(2, 2), (3, 3), (4, 2)])
def test_num_sides(players: int, sides: int) -> None:
    r = Rules(num_players=players)
    assert r.num_sides == sides
    eng = Engine(1, seed=0, num_players=players)
    assert eng.scores.shape == (1, sides)
    assert eng.piles.shape == (1, sides)
    assert eng.hands.shape == (1, players)


def test_side_of() -> None:
    assert [Rules(num_players=2).side_of(s) for s in range(2)] == [0, 1]
    assert [Rules(num_players=3).side_of(s) for s in range(3)] == [0, 1, 2]
    assert [Rules(num_players=4).side_of(s) for s in range(4)] == [0, 1, 0, 1]
    eng = Engine(1, seed=0, num_players=4)
    assert [eng.side_of(s) for s in range(4)] == [0, 1, 0, 1]


def test_valid_flag_combinations_accepted() -> None:
    Rules(num_players=3, club_tie="third")
    Rules(num_players=2, open_hand=True)
    Rules(clubs_rule="per_club", clubs_points=13, sur_points=0, target_score=1)
    Rules(jack_sur="lone_jack", initial_jacks="redeal", sur_cutoff=True, sur_cancel=False)
