"""Scripted positions and decks, one test per rule of ``docs/rules.md`` (pgx style).

Each test builds a position or a deck, plays a few actions and asserts on the state,
the legal mask and the scores. Positions come from ``Engine.from_positions``; cards
not named in a test fill the stock and side 0's pile so every position is complete.
"""

from __future__ import annotations

import numpy as np
import pytest

from pasur_env import Engine, Position, parse_card, parse_cards
from pasur_env.pasur.cards import cards_of
from pasur_env.pasur.moves import move_options

C = parse_card


def ids(codes: str) -> list[int]:
    return parse_cards(codes)


def mask(codes: str) -> int:
    return sum(1 << c for c in ids(codes))


def position(
    hands: list[str],
    table: str,
    *,
    stock_size: int = 0,
    stock: str | None = None,
    piles: list[str] | None = None,
    dealer: int | None = None,
    **kw,
) -> Position:
    """A complete position: unnamed cards fill the stock, then the first pile."""
    P = len(hands)
    named = [c for h in hands for c in ids(h)] + ids(table)
    named += ids(stock) if stock else []
    for p in piles or []:
        named += ids(p)
    rest = [c for c in range(52) if c not in named]
    stock_ids = ids(stock) if stock is not None else rest[:stock_size]
    rest = [c for c in rest if c not in stock_ids]
    sides = 2 if P == 4 else P
    pile_ids = [ids(p) for p in piles] if piles else [[] for _ in range(sides)]
    pile_ids[0] = pile_ids[0] + rest
    return Position(
        hands=[ids(h) for h in hands],
        table=ids(table),
        stock=stock_ids,
        piles=pile_ids,
        dealer=P - 1 if dealer is None else dealer,
        **kw,
    )


def engine(pos: Position, **flags) -> Engine:
    return Engine.from_positions([pos], **flags)


def play(eng: Engine, *codes: str):
    """Play a sequence of actions in game 0: 'PLAY:7C' style or plain codes.

    A plain code is PLAY in the PLAY phase and TAKE in the CAPTURE phase.
    """
    info = None
    for code in codes:
        off = 52 if eng.phase[0] == 1 else 0
        info = eng.step(np.array([off + C(code)]))
    return info


def legal_codes(eng: Engine) -> list[str]:
    from pasur_env.pasur.cards import card_code

    return [card_code(a % 52) for a in eng.legal_actions(0)]


def card_points(pile: set[int]) -> int:
    """Independent count of the card points of a pile (no clubs, no surs)."""
    pts = sum(1 for c in pile if c // 4 in (0, 10))  # aces and jacks
    pts += 3 if C("10D") in pile else 0
    pts += 2 if C("2C") in pile else 0
    return pts


# ---- §4 capture options -----------------------------------------------------------
WORKED_TABLE = "AC 2D 2H 4S 10C"
WORKED = {
    "10D": ["AC"],
    "9C": ["2D", "2H"],
    "8C": ["AC 2D", "AC 2H"],
    "7C": ["4S", "2D 2H"],
    "6C": ["AC 4S", "AC 2D 2H"],
    "5C": ["2D 4S", "2H 4S"],
    "4C": ["AC 2D 4S", "AC 2H 4S"],
    "3C": ["2D 2H 4S"],
    "2S": ["AC 2D 2H 4S"],
    "AS": ["10C"],
}


@pytest.mark.parametrize("card", list(WORKED))
def test_worked_example_options(card: str) -> None:
    pos = position([f"{card} KS KH KD", "QS QH QD QC"], WORKED_TABLE, stock_size=32)
    eng = engine(pos)
    opts = {tuple(sorted(cap)) for c, cap in move_options(eng, 0) if c == C(card)}
    assert opts == {tuple(sorted(ids(o))) for o in WORKED[card]}


def test_single_option_applies_at_once() -> None:
    eng = engine(position(["10D KS KH KD", "QS QH QD QC"], WORKED_TABLE, stock_size=32))
    play(eng, "10D")
    assert eng.table[0] == mask("2D 2H 4S 10C")
    assert eng.piles[0, 0] & mask("10D AC") == mask("10D AC")
    assert eng.phase[0] == 0 and eng.current_player[0] == 1


def test_capture_phase_ascending_order() -> None:
    """6 over A,2,2,4,10: options {A,4} and {A,2D,2H}; each is exactly one sequence."""
    eng = engine(position(["6C KS KH KD", "QS QH QD QC"], WORKED_TABLE, stock_size=32))
    play(eng, "6C")
    assert eng.phase[0] == 1 and eng.pending[0] == C("6C")
    assert legal_codes(eng) == ["AC"]  # the smallest id of both options
    play(eng, "AC")
    assert legal_codes(eng) == ["2D", "4S"]  # 2H would skip 2D of {A,2D,2H}
    assert eng.current_player[0] == 0  # same agent during its CAPTURE phase
    play(eng, "2D")
    assert legal_codes(eng) == ["2H"]
    play(eng, "2H")
    assert eng.phase[0] == 0 and eng.current_player[0] == 1
    assert eng.table[0] == mask("4S 10C")
    assert eng.piles[0, 0] & mask("6C AC 2D 2H") == mask("6C AC 2D 2H")


def test_capture_choice_nine_takes_either_two() -> None:
    eng = engine(position(["9C KS KH KD", "QS QH QD QC"], WORKED_TABLE, stock_size=32))
    play(eng, "9C")
    assert legal_codes(eng) == ["2D", "2H"]
    play(eng, "2H")
    assert eng.table[0] == mask("AC 2D 4S 10C")


def test_forced_capture_and_laying_another_card() -> None:
    eng = engine(position(["5C KS 9H 8D", "QS QH QD QC"], "6D 4H", stock_size=32))
    mask_ = eng.legal_mask()[0]
    assert mask_[C("5C")] and mask_[C("KS")]  # any card may be played
    play(eng, "5C")  # has an option: must capture, never laid
    assert not eng.table[0] >> C("5C") & 1
    assert eng.table[0] == mask("4H")
    eng = engine(position(["5C KS 9H 8D", "QS QH QD QC"], "6D 4H", stock_size=32))
    play(eng, "KS")  # no option: laid
    assert eng.table[0] == mask("6D 4H KS")


def test_numeral_never_takes_courts() -> None:
    eng = engine(position(["AC KS 9H 8D", "QS QH QD QC"], "JD KD 9S", stock_size=32))
    assert {cap for c, cap in move_options(eng, 0) if c == C("AC")} == {()}  # no 10 on table


def test_jack_takes_numerals_and_jacks_not_courts() -> None:
    eng = engine(position(["JD KS 9H 8D", "AS 2S 3S 4S"], "3C JH KC QD 7H", stock_size=32))
    play(eng, "JD")
    assert eng.table[0] == mask("KC QD")
    assert eng.piles[0, 0] & mask("JD 3C JH 7H") == mask("JD 3C JH 7H")
    assert eng.surs[0].tolist() == [0, 0]


def test_jack_with_only_courts_is_laid() -> None:
    eng = engine(position(["JD KS 9H 8D", "AS 2S 3S 4S"], "KC QD", stock_size=32))
    play(eng, "JD")
    assert eng.table[0] == mask("KC QD JD")


def test_queen_and_king_choice() -> None:
    eng = engine(position(["QS KS 9H 8D", "AS 2S 3S 4S"], "QC QD 5H KD", stock_size=32))
    play(eng, "QS")
    assert eng.phase[0] == 1 and legal_codes(eng) == ["QC", "QD"]
    play(eng, "QD")
    assert eng.table[0] == mask("QC 5H KD")
    assert eng.piles[0, 0] & mask("QS QD") == mask("QS QD")
    play(eng, "AS")  # player 1 lays (no 10 on table)
    play(eng, "KS")  # single king: taken at once
    assert eng.table[0] == mask("QC 5H AS")


# ---- §5 sur --------------------------------------------------------------------------
def test_sur_when_table_cleared() -> None:
    eng = engine(position(["5C KS 9H 8D", "AS 2S 3S 4S"], "6D", stock_size=32))
    play(eng, "5C")
    assert eng.table[0] == 0 and eng.surs[0].tolist() == [1, 0]


def test_no_sur_for_jack_by_default() -> None:
    eng = engine(position(["JD KS 9H 8D", "AS 2S 3S 4S"], "3C JH", stock_size=32))
    play(eng, "JD")
    assert eng.table[0] == 0 and eng.surs[0].tolist() == [0, 0]


@pytest.mark.parametrize("table, sur", [("JH", True), ("3C", False), ("JH 3C", False)])
def test_lone_jack_sur(table: str, sur: bool) -> None:
    eng = engine(
        position(["JD KS 9H 8D", "AS 2S 3S 4S"], table, stock_size=32), jack_sur="lone_jack"
    )
    play(eng, "JD")
    assert eng.table[0] == 0 and eng.surs[0, 0] == int(sur)


def test_no_sur_in_last_deal() -> None:
    # stock empty: this is the last deal
    eng = engine(position(["5C KS 9H 8D", "AS 2S 3S 4S"], "6D", stock_size=0))
    play(eng, "5C")
    assert eng.table[0] == 0 and eng.surs[0].tolist() == [0, 0]


def test_king_can_make_sur() -> None:
    eng = engine(position(["KS 5C 9H 8D", "AS 2S 3S 4S"], "KD", stock_size=32))
    play(eng, "KS")
    assert eng.surs[0].tolist() == [1, 0]


# ---- §6 end of round and scoring ----------------------------------------------------------
def finish_round(hands: list[str], table: str, piles: list[str], play_card: str, **kw):
    pos = position(
        hands,
        table,
        piles=piles,
        stock_size=0,
        **{k: v for k, v in kw.items() if k in ("surs", "scores", "last_capturer", "dealer")},
    )
    flags = {k: v for k, v in kw.items() if k not in ("surs", "scores", "last_capturer", "dealer")}
    eng = engine(pos, **flags)
    info = play(eng, play_card)
    assert info.round_end[0]
    return eng, info


def test_round_end_scoring_and_leftovers_to_last_capturer() -> None:
    # side 1 holds all clubs but 2C; the dealer (seat 1) lays KH (no capture);
    # the leftovers go to seat 0, the last capturer
    clubs = " ".join(f"{r}C" for r in ["A", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"])
    eng, info = finish_round(["", "KH"], "10D 2C", ["", clubs], "KH", last_capturer=0)
    pile0 = set(range(52)) - set(ids(clubs)) - {C("KH"), C("10D"), C("2C")}
    # seat 0 gets its pile plus the leftovers 10D 2C KH
    expected0 = card_points(pile0 | {C("10D"), C("2C"), C("KH")})
    expected1 = card_points(set(ids(clubs))) + 7
    assert info.round_points[0].tolist() == [expected0, expected1]
    assert sum(info.round_points[0]) == 20
    assert info.clubs[0].tolist() == [1, 12]


def test_leftovers_score_for_nobody_without_capture() -> None:
    eng, info = finish_round(["", "KH"], "10D 2C", ["AC 3C", "4C"], "KH", last_capturer=-1)
    # nobody captured this round: 10D, 2C (5 points) stay unscored
    assert sum(info.round_points[0]) == 15


@pytest.mark.parametrize("cancel, expected", [(True, (10, 0)), (False, (15, 5))])
def test_sur_cancellation_two_sides(cancel: bool, expected: tuple[int, int]) -> None:
    eng, info = finish_round(
        ["", "9H"], "", ["", ""], "9H", surs=[3, 1], last_capturer=0, sur_cancel=cancel
    )
    base = info.round_points[0] - np.array(expected)
    assert base.sum() == 20


def test_no_sur_cancellation_for_three_players() -> None:
    eng, info = finish_round(
        ["", "", "9H"], "", ["", "", ""], "9H", surs=[2, 1, 0], last_capturer=0
    )
    assert sum(info.round_points[0]) == 20 + 15
    assert info.surs[0].tolist() == [2, 1, 0]


def test_sur_cutoff_at_80_percent() -> None:
    # side 0 starts the round at 50 >= 0.8 * 62: its 1 sur scores nothing but cancels
    eng, info = finish_round(
        ["", "9H"],
        "",
        ["", ""],
        "9H",
        surs=[1, 3],
        scores=[50, 10],
        last_capturer=0,
        sur_cutoff=True,
    )
    total_cards = 20
    assert sum(info.round_points[0]) == total_cards + 10  # side 1: (3 - 1) * 5
    eng, info = finish_round(
        ["", "9H"],
        "",
        ["", ""],
        "9H",
        surs=[3, 1],
        scores=[50, 10],
        last_capturer=0,
        sur_cutoff=True,
    )
    assert sum(info.round_points[0]) == total_cards  # side 0's 2 net surs are cut off


CLUBS = [f"{r}C" for r in ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]]


def three_player_clubs(split: tuple[int, int, int], **flags):
    piles = [
        " ".join(CLUBS[: split[0]]),
        " ".join(CLUBS[split[0] : split[0] + split[1]]),
        " ".join(CLUBS[split[0] + split[1] :]),
    ]
    return finish_round(["", "", "9H"], "", piles, "9H", last_capturer=0, **flags)


def test_clubs_tie_scores_nobody() -> None:
    eng, info = three_player_clubs((6, 6, 1))
    assert info.clubs[0].tolist() == [6, 6, 1]
    assert sum(info.round_points[0]) == 13


def test_clubs_tie_third_player() -> None:
    eng, info = three_player_clubs((6, 6, 1), club_tie="third")
    no_tie_rule = three_player_clubs((6, 6, 1))[1]
    assert (info.round_points[0] - no_tie_rule.round_points[0]).tolist() == [0, 0, 7]


def test_clubs_points_13_and_per_club() -> None:
    _, base = three_player_clubs((8, 4, 1))
    _, thirteen = three_player_clubs((8, 4, 1), clubs_points=13)
    _, per_club = three_player_clubs((8, 4, 1), clubs_rule="per_club")
    assert (thirteen.round_points[0] - base.round_points[0]).tolist() == [6, 0, 0]
    assert (per_club.round_points[0] - base.round_points[0]).tolist() == [0, 0, 0]  # min(8, 7)
    _, per_club5 = three_player_clubs((5, 4, 4), clubs_rule="per_club")
    _, base5 = three_player_clubs((5, 4, 4))
    assert (per_club5.round_points[0] - base5.round_points[0]).tolist() == [-2, 0, 0]


def test_team_scoring_four_players() -> None:
    eng, info = finish_round(
        ["", "", "", "9H"], "", ["AC AD 10D", "AH AS 2C"], "9H", last_capturer=3
    )
    # partners 1 and 3 share side 1; the leftover 9H goes to side 1 (seat 3 laid it)
    assert info.round_points.shape == (1, 2)
    assert sum(info.round_points[0]) == 20
    assert eng.scores[0].tolist() == info.round_points[0].tolist()


def test_team_capture_goes_to_partner_pile() -> None:
    hands = ["KS 5C 9H 8D", "AS 2S 3S 4S", "5D 7D 8S 9S", "AH 2H 3H 4H"]
    eng = engine(position(hands, "6C", stock_size=16, dealer=1))
    assert eng.current_player[0] == 2  # the seat after the dealer leads
    play(eng, "5D")  # seat 2 captures 6C with a sur for side 0 (seats 0 and 2)
    assert eng.piles[0, 0] & mask("5D 6C") == mask("5D 6C")
    assert eng.surs[0].tolist() == [1, 0] and eng.last_capturer[0] == 2


# ---- §3 the deal ---------------------------------------------------------------------------
def plain_deck() -> list[int]:
    """A deck whose first 12 cards hold no jack, queen or king (ids 0..51 in order)."""
    return list(range(52))


def test_deal_order_and_first_player() -> None:
    eng = Engine(1, seed=0)
    eng.reset(deck=plain_deck(), dealer=0)
    assert eng.hand(0, 1) == list(range(0, 4))  # seat after the dealer first
    assert eng.hand(0, 0) == list(range(4, 8))
    assert eng.table[0] == sum(1 << c for c in range(8, 12))
    assert eng.stock(0) == list(range(12, 52))
    assert eng.current_player[0] == 1 and eng.dealer[0] == 0


def test_default_dealer_is_last_seat() -> None:
    for P in (2, 3, 4):
        eng = Engine(1, seed=0, num_players=P)
        eng.reset(deck=plain_deck())
        assert eng.dealer[0] == P - 1 and eng.current_player[0] == 0
        assert eng.hand(0, 0) == [0, 1, 2, 3]


def test_bury_single_jack() -> None:
    deck = plain_deck()
    j = deck.index(C("JC"))
    deck[8], deck[j] = deck[j], deck[8]  # JC is the first table card
    top = deck[12]
    eng = Engine(1, seed=3)
    eng.reset(deck=deck)
    table = set(cards_of(eng.table[0]))
    assert C("JC") not in table and top in table and len(table) == 4
    assert C("JC") in eng.stock(0) and len(eng.stock(0)) == 40
    assert eng.hand(0, 0) == deck[0:4]


def test_bury_jack_position_is_uniform() -> None:
    deck = plain_deck()
    j = deck.index(C("JC"))
    deck[8], deck[j] = deck[j], deck[8]
    eng = Engine(4000, seed=1)
    eng.reset(deck=deck)
    positions = np.array([eng.stock(b).index(C("JC")) for b in range(4000)])
    counts = np.bincount(positions, minlength=40)
    assert counts.shape == (40,) and counts.min() > 50  # all 40 slots, roughly uniform


@pytest.mark.parametrize("bad", ["JC JD", "QC QD QH", "KC KD KH"])
def test_initial_table_redeal_triggers(bad: str) -> None:
    deck = plain_deck()
    for i, c in enumerate(ids(bad)):
        k = deck.index(c)
        deck[8 + i], deck[k] = deck[k], deck[8 + i]
    eng = Engine(50, seed=2)
    eng.reset(deck=deck)
    for b in range(50):
        table = eng.table[b]
        assert bin(table & mask("JC JD JH JS")).count("1") == 0
        assert bin(table & mask("QC QD QH QS")).count("1") < 3
        assert bin(table & mask("KC KD KH KS")).count("1") < 3
    # the deal restarted from a reshuffled deck: hands differ from the given order
    assert any(eng.hand(b, 0) != deck[0:4] for b in range(50))


def test_initial_jacks_redeal_mode() -> None:
    deck = plain_deck()
    j = deck.index(C("JC"))
    deck[8], deck[j] = deck[j], deck[8]
    eng = Engine(50, seed=4, initial_jacks="redeal")
    eng.reset(deck=deck)
    assert all(eng.table[b] & mask("JC JD JH JS") == 0 for b in range(50))
    assert any(eng.hand(b, 0) != deck[0:4] for b in range(50))
    # no queen/king rule in redeal mode: three queens stay
    deck = plain_deck()
    for i, c in enumerate(ids("QC QD QH")):
        k = deck.index(c)
        deck[8 + i], deck[k] = deck[k], deck[8 + i]
    eng = Engine(1, seed=4, initial_jacks="redeal")
    eng.reset(deck=deck)
    assert eng.table[0] & mask("QC QD QH") == mask("QC QD QH")


@pytest.mark.parametrize("P, deals", [(2, 6), (3, 4), (4, 3)])
def test_deals_per_round_and_48_turns(P: int, deals: int) -> None:
    eng = Engine(1, seed=5, num_players=P)
    rng = np.random.default_rng(0)
    turns = 0
    seen_deals = set()
    while True:
        seen_deals.add(int(eng.deal_index[0]))
        info = eng.step(eng.random_actions(rng))
        if eng.phase[0] == 0:  # back in the PLAY phase: a turn ended
            turns += 1
        if info.round_end[0]:
            break
    assert turns == 48 and seen_deals == set(range(deals))


def test_dealer_rotation_between_rounds() -> None:
    eng = Engine(1, seed=6, num_players=3)
    rng = np.random.default_rng(1)
    dealers = [int(eng.dealer[0])]
    while len(dealers) < 4:
        info = eng.step(eng.random_actions(rng))
        if info.round_end[0] and not info.game_end[0]:
            dealers.append(int(eng.dealer[0]))
            assert eng.current_player[0] == (eng.dealer[0] + 1) % 3
    assert dealers == [2, 0, 1, 2]


# ---- game end ---------------------------------------------------------------------------
def test_game_end_at_target_and_auto_reset() -> None:
    eng, info = finish_round(["", "9H"], "", ["", ""], "9H", scores=[55, 30], last_capturer=0)
    assert info.game_end[0] and info.winner[0] == 0
    assert info.scores[0, 0] >= 62
    assert eng.scores[0].tolist() == [0, 0] and eng.round_index[0] == 0  # auto reset


def test_tie_at_target_plays_on() -> None:
    pile0 = "AC AD AH AS JC JD JH JS 10D 2C"  # 13 card points, 3 clubs
    # side 0 gets the other 10 clubs (7 points): 63 + 7 = 57 + 13 = 70, a tie above target
    eng, info = finish_round(["", "9H"], "", ["", pile0], "9H", scores=[63, 57], last_capturer=1)
    assert info.round_points[0].tolist() == [7, 13]
    assert not info.game_end[0] and info.scores[0].tolist() == [70, 70]
    assert eng.round_index[0] == 1 and eng.scores[0].tolist() == [70, 70]
    assert eng.dealer[0] == 0  # the next round is dealt by the next seat
    assert eng.current_player[0] == 1


def test_round_episode_mode() -> None:
    pos = position(["", "9H"], "", piles=["", ""], stock_size=0, last_capturer=0)
    eng = Engine.from_positions([pos], episode="round")
    info = play(eng, "9H")
    assert info.round_end[0] and info.game_end[0] and info.winner[0] == 0
    assert eng.dealer[0] == 1  # a fresh round with the default dealer


def test_no_auto_reset_waits_in_done() -> None:
    pos = position(["", "9H"], "", piles=["", ""], stock_size=0, last_capturer=0, scores=[60, 0])
    eng = Engine.from_positions([pos], auto_reset=False)
    info = play(eng, "9H")
    assert info.game_end[0] and eng.phase[0] == 2
    assert not eng.legal_mask()[0].any()
    eng.step(np.array([-1]))  # the only legal action while DONE
    eng.reset_games(np.array([True]))
    assert eng.phase[0] == 0 and eng.scores[0].tolist() == [0, 0]


# ---- §7 Ru Baaz -------------------------------------------------------------------------
def test_open_hand_faceup_card() -> None:
    eng = Engine(1, seed=0, open_hand=True)
    eng.reset(deck=plain_deck())
    assert eng.faceup(0) == [0, 4]  # the first card dealt to each player
    eng.step(np.array([2]))  # player 0 plays another card: face-up card unchanged
    assert eng.faceup(0) == [0, 4]
    eng.step(np.array([4]))  # player 1 plays its face-up card: the next one turns up
    assert eng.faceup(0) == [0, 5]
    render = eng.render(0, viewer=0)
    assert "##" in render and "2♦" in render  # 5 = 2♦ is visible to player 0


def test_closed_hand_has_no_faceup() -> None:
    eng = Engine(1, seed=0)
    assert eng.faceup(0) == [-1, -1]
