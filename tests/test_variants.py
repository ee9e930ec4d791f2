"""Small Pasur variants (docs/rules.md, "Small variants"): a deck subset, hand and table
sizes, and the ``mini`` / ``small`` presets, played by hand from fixed decks."""

from __future__ import annotations

import numpy as np
import pytest

from pasur_env import Engine, Rules, make_rules, parse_card, parse_cards
from pasur_env.pasur import kernels as K

MINI = "AC 2C 5C 6H 9D 10D JS QH QS"


def ids(codes: str) -> list[int]:
    return parse_cards(codes)


def play(eng: Engine, codes: str) -> list:
    """Play cards in order (each with a single capture option), returning the infos."""
    infos = []
    for code in codes.split():
        c = parse_card(code)
        assert c in eng.legal_actions(0), (code, eng.render(0))
        infos.append(eng.step([c]))
    return infos


def test_mini_game_by_hand_sur_in_first_deal_none_in_last() -> None:
    eng = Engine(1, seed=0, preset="mini", episode="round", auto_reset=False)
    # seat 0 (after dealer 1): 5C AC; seat 1: 9D QS; table 6H; then 2 + 2 from the stock
    eng.reset(deck="5C AC 9D QS 6H JS 2C 10D QH")
    assert eng.table[0] == sum(1 << c for c in ids("6H"))
    assert eng.hand(0, 0) == ids("5C AC") and eng.hand(0, 1) == ids("9D QS")
    assert eng.stock(0) == ids("JS 2C 10D QH")
    play(eng, "5C")  # 5 + 6 = 11 clears the table in the first deal: a sur
    assert eng.surs[0].tolist() == [1, 0]
    play(eng, "QS AC 9D")  # nothing to take: all three are laid
    assert eng.deal_index[0] == 1 and eng.stock_size[0] == 0
    assert eng.hand(0, 0) == ids("JS 2C") and eng.hand(0, 1) == ids("10D QH")
    play(eng, "JS")  # the jack takes the numerals AC 9D, leaving QS
    play(eng, "QH")  # QH takes QS and clears the table: the last deal makes no sur
    assert eng.surs[0].tolist() == [1, 0] and eng.table[0] == 0
    infos = play(eng, "2C 10D")  # both laid; the leftovers go to the last capturer
    info = infos[-1]
    assert info.round_end[0] and info.game_end[0]
    # side 0: AC 1 + JS 1 + clubs (AC 5C: 2 of 3) 7 + one sur 5; side 1: 2C 2 + 10D 3
    assert info.round_points[0].tolist() == [14, 5]
    assert info.clubs[0].tolist() == [2, 1]
    assert info.piles[0, 1] == sum(1 << c for c in ids("QH QS 2C 10D"))
    assert eng.state[0, K.PHASE] == K.DONE


@pytest.mark.parametrize(
    ("deck", "moves", "clubs", "club_points", "points"),
    [
        # 4 clubs in play: 3-1 is a strict majority ...
        ("5C 2C 6H 8S 3C 9D QH AC QS 10D JS", "5C 6H 2C 8S AC 10D QS JS",
         [1, 3], [0, 7], [3, 11]),
        # ... and 2-2 a tie: nobody scores the clubs
        ("5C 8S 6H 2C 3C 9D QH 10D QS JS AC", "5C 6H 8S 2C QS AC 10D JS",
         [2, 2], [0, 0], [5, 2]),
    ],
)
def test_clubs_majority_counts_the_deck_clubs_only(
    deck: str, moves: str, clubs: list, club_points: list, points: list
) -> None:
    r = make_rules("small", cards="AC 2C 3C 5C 6H 8S 9D 10D JS QH QS".split(), table_size=3)
    eng = Engine(1, seed=0, rules=r, episode="round", auto_reset=False)
    eng.reset(deck=deck)  # seats 0, 1 two cards each, a table of 3, then 2 + 2
    info = play(eng, moves)[-1]
    assert info.round_end[0]
    assert info.surs[0].tolist() == [0, 0]
    assert info.clubs[0].tolist() == clubs
    assert info.club_points[0].tolist() == club_points
    assert info.round_points[0].tolist() == points


@pytest.mark.parametrize(
    ("flags", "match"),
    [
        ({"cards": ["AC", "AC", "2C"]}, "duplicate"),
        ({"cards": ["ZZ"]}, "card"),
        ({"cards": [52]}, "card"),
        ({"hand_size": 5}, "hand_size"),
        ({"hand_size": 0}, "hand_size"),
        ({"table_size": 5}, "table_size"),
        ({"hand_size": 3, "num_players": 3}, "whole deals"),
        ({"hand_size": 2}, "at most 6"),
        ({"cards": MINI.split(), "hand_size": 2, "table_size": 2, "initial_jacks": "redeal"},
         "whole deals"),
        ({"cards": "AC 2C 5C JS QH".split(), "hand_size": 2, "table_size": 1}, "bury"),
        ({"cards": "JC JD JH AC 2C".split(), "hand_size": 1, "table_size": 3,
          "initial_jacks": "redeal"}, "initial-table"),
    ],
)
def test_bad_variant_flags_raise_value_errors(flags: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        make_rules(**flags)


def test_variant_normal_form() -> None:
    r = Rules(cards=("QS", "AC", 4), hand_size=1, table_size=1, initial_jacks="redeal")
    assert r.cards == (0, 4, 47)
    assert Rules(cards=tuple(range(52))).cards is None  # all 52: the full game
    assert make_rules("mini").deals_per_round == 2
    assert make_rules("small").deals_per_round == 2
    assert make_rules("classic").turns_per_round == 48
    with pytest.raises(TypeError):
        make_rules(cards=5)


def test_variant_deck_must_hold_the_variants_cards() -> None:
    eng = Engine(1, seed=0, preset="mini")
    with pytest.raises(ValueError, match="9 cards"):
        eng.reset(deck=list(range(52)))
    with pytest.raises(ValueError, match="not in the game's deck"):
        eng.reset(deck="AC 2C 5C 6H 9D 10D JS QH KS")


# ---- the envs, the agents and the command line on the variants ----------------------------
@pytest.mark.parametrize("preset", ["mini", "small"])
def test_pettingzoo_api_on_variants(preset: str) -> None:
    from pettingzoo.test import api_test, render_test, seed_test

    from pasur_env import pasur_v0

    api_test(pasur_v0.env(preset=preset), num_cycles=200)
    seed_test(lambda: pasur_v0.env(preset=preset), num_cycles=200)
    render_test(lambda render_mode=None: pasur_v0.env(render_mode=render_mode, preset=preset))
    env = pasur_v0.env(preset=preset)
    env.reset(seed=0, options={"deck": list(make_rules(preset).cards)})
    assert env.observation_space(env.agents[0])["observation"].shape == (957,)


def test_vector_env_on_mini() -> None:
    pytest.importorskip("stable_baselines3")
    pytest.importorskip("sb3_contrib")
    from agents import make_agent
    from pasur_env import PasurSingleAgentEnv, PasurVecEnv

    n, seed = 3, 7
    vec = PasurVecEnv(n, opponent=make_agent("greedy"), seed=seed, preset="mini")
    singles = [PasurSingleAgentEnv(opponent=make_agent("greedy"), preset="mini")
               for _ in range(n)]
    vobs = vec.reset()
    sobs = [s.reset(seed=seed + i)[0] for i, s in enumerate(singles)]
    assert np.array_equal(vobs, np.stack(sobs))
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(30):
        masks = vec.action_masks()
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        vobs, vrew, vdone, vinfos = vec.step(acts)
        for i, s in enumerate(singles):
            o, r, term, trunc, info = s.step(int(acts[i]))
            assert r == vrew[i] and (term or trunc) == vdone[i]
            if vdone[i]:
                episodes += 1
                assert sum(info["round_points"]) >= 14  # the mini deck's 7 + 7 club points
                o, _ = s.reset()
            assert np.array_equal(o, vobs[i])
    assert episodes >= 2 * n  # one-round episodes of 4 learner decisions or so


def test_every_registered_agent_plays_mini() -> None:
    from agents import agent_names
    from agents.evaluation.match import evaluate

    for name in agent_names("pasur"):
        spec = f"{name}:budget=4" if "ismcts" in name else name
        r = evaluate(spec, "random", rounds=8, preset="mini", batch=4, progress=False)
        assert r.rounds == 8 and r.rules["cards"] == tuple(ids(MINI)), name


def test_cli_eval_on_mini(capsys) -> None:
    from agents.apps.cli import main

    assert main(["eval", "greedy", "random", "--preset", "mini", "--rounds", "200",
                 "--no-progress"]) == 0
    assert "greedy (A) vs random (B)" in capsys.readouterr().out
