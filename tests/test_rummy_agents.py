"""Persian Rummy agents: the greedy rules on scripted deals, the duplicate evaluation, CLI."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents import make_agent
from agents.apps.cli import main
from agents.evaluation.match import duplicate_engine, evaluate
from agents.registry import agent_names
from agents.rummy.greedy import greedy_rummy_actions
from pasur_env.core.loop import decide
from pasur_env.core.policy import GameView
from pasur_env.rummy import RummyEngine, action_str
from pasur_env.rummy import kernels as K
from pasur_env.rummy.decks import deck_for

HANDS_A = ["5S 6S 2C 3D 9H JC KD", "4C 8D 10H QC 2H 3H 7C",
           "4D 8C 10D QD 5H 6D 9C", "4H 8H 10C QH 5C 6C 9D"]
HANDS_D = ["QC QD QH QS 2H 3H 4H", "2D 4D 6C 8D JH 3C 5D",
           "AC 4C 6D 8H 9C 3D 10H", "2S 4S 6S 7D 9D KC KH"]


def greedy_turn(hands: list[str], up: str, stock: str = "") -> list[str]:
    """Seat 0's greedy turn on a scripted deal, as action texts."""
    eng = RummyEngine(1, seed=0, episode="round", auto_reset=False)
    eng.reset(deck=deck_for(hands, up, stock))
    out = []
    while eng.mover() == 0 and eng.phase[0] != K.DONE:
        a = greedy_rummy_actions(eng, np.array([0]))
        out.append(action_str(a[0]))
        eng.step(a)
    return out


def test_greedy_lays_the_four_set_at_once_and_goes_out():
    assert greedy_turn(HANDS_D, "JC", "5H") == [
        "DRAW_STOCK", "PICK QC", "PICK QD", "PICK QH", "PICK QS", "MELD",
        "PICK 2H", "PICK 3H", "PICK 4H", "PICK 5H", "MELD"]


def test_greedy_takes_the_discard_that_melds_then_discards_its_most_valuable_card():
    assert greedy_turn(HANDS_A, "7S") == [
        "TAKE 7S", "PICK 5S", "PICK 6S", "PICK 7S", "MELD", "DISCARD KD"]


def test_greedy_with_nothing_to_meld_draws_and_sheds_value():
    # AD does not meld, the stock card 2S neither: discard the most valuable card (KD)
    assert greedy_turn(HANDS_A, "AD", "2S") == ["DRAW_STOCK", "DISCARD KD"]


def test_greedy_beats_random_and_mirror_matches_are_even():
    res = evaluate("greedy", "random", rounds=400, seed=1, game="persian_rummy", progress=False)
    assert res.rounds == 400 and res.ci95[0] > 0 and res.win_rate > 0.6
    mirror = evaluate("greedy", "greedy", rounds=100, seed=1, game="persian_rummy",
                      progress=False)
    assert mirror.mean_point_diff == 0.0  # deterministic agents: the seatings cancel


def test_duplicate_deals_do_not_depend_on_the_batch():
    whole = duplicate_engine(5, 2, seed=3, game="persian_rummy")
    part = duplicate_engine(3, 2, seed=3, offset=2, game="persian_rummy")
    assert (whole.state[4:] == part.state).all()
    assert (whole.state[0] == whole.state[1]).all()  # a deal is repeated for both seatings


def test_unknown_agent_and_bad_rounds():
    with pytest.raises(ValueError, match="unknown Persian Rummy agent 'heuristic'"):
        make_agent("heuristic", game="persian_rummy")
    with pytest.raises(ValueError, match="rounds"):
        evaluate("greedy", "random", rounds=0, game="persian_rummy")


def test_cli_eval_persian_rummy(capsys, tmp_path):
    out = tmp_path / "r.json"
    assert main(["eval", "--game", "persian_rummy", "greedy", "random", "--rounds", "100",
                 "--json", str(out)]) == 0
    assert "Persian Rummy: greedy vs random, 100 rounds" in capsys.readouterr().out
    assert json.loads(out.read_text())["rounds"] == 100
    assert main(["eval", "--game", "persian_rummy", "greedy", "random", "--players", "3"]) == 2
    assert "does not take --players" in capsys.readouterr().err
    assert main(["eval", "--game", "persian_rummy", "greedy", "random", "--rounds", "10",
                 "--rule", "deals=0"]) == 2


def _hidden_permuted(eng: RummyEngine, seat: int, seed: int) -> RummyEngine:
    """A copy of game 0 with the cards ``seat`` cannot see dealt differently."""
    from agents.rummy.rollout import determinize

    other = eng.copy()
    determinize(other.state, 0, seat, np.uint64(seed))
    return other


def test_determinize_keeps_sizes_and_public_cards():
    eng = RummyEngine(1, seed=4, episode="round", auto_reset=False)
    rng = np.random.default_rng(0)
    for _ in range(60):
        eng.step(eng.random_actions(rng))
    seat = eng.mover()
    other = _hidden_permuted(eng, seat, 99)
    a, b = eng.state[0], other.state[0]
    assert a[K.HAND + seat] == b[K.HAND + seat]
    for o in range(4):
        assert bin(a[K.HAND + o]).count("1") == bin(b[K.HAND + o]).count("1")
        assert a[K.TAKEN + o] == b[K.TAKEN + o] and b[K.TAKEN + o] & ~b[K.HAND + o] == 0
    assert (a[K.PILE:K.PILE + 56] == b[K.PILE:K.PILE + 56]).all()
    assert (a[K.MELD:K.MELD + 18] == b[K.MELD:K.MELD + 18]).all()
    assert not (a == b).all()


def test_agents_never_read_hidden_cards():
    eng = RummyEngine(16, seed=8, episode="round", auto_reset=False)
    rng = np.random.default_rng(1)
    for _ in range(40):
        live = np.flatnonzero(eng.phase != K.DONE)
        eng.step(eng.random_actions(rng, live), games=live)
    for name in ("greedy", "rollout"):
        for g in np.flatnonzero(eng.phase != K.DONE)[:6]:
            one = eng.take([g])
            seat = one.mover()
            twin = _hidden_permuted(one, seat, 5)
            acts = []
            for e in (one, twin):
                options = {"samples": 2} if name == "rollout" else {}
                agent = make_agent(name, game="persian_rummy", seed=0, **options)
                acts.append(int(agent.act(None, e.legal_mask(), GameView(e, np.array([0])))[0]))
            assert acts[0] == acts[1]


def test_rollout_beats_greedy_on_a_small_match():
    from agents.rummy import RummyRolloutAgent

    res = evaluate(RummyRolloutAgent(samples=2, seed=0), "greedy", rounds=40, seed=0,
                   game="persian_rummy", progress=False)
    assert res.ci95[0] > 0
    with pytest.raises(ValueError, match="samples"):
        RummyRolloutAgent(samples=0)


#: options that keep each Rummy agent quick in the mixed-turn test (a new agent needs none)
_QUICK = {"rollout": {"samples": 2}, "ismcts": {"budget": 8}}


def test_every_agent_acts_on_turns_other_agents_began():
    """Each decision of every turn is made by an agent drawn at random among all the
    Persian Rummy agents, so agents meet turns, and half-built melds, that another
    agent began: every one must choose a legal action there (``decide`` checks it)."""
    names = agent_names("persian_rummy")
    policies = [make_agent(n, game="persian_rummy", seed=i, **_QUICK.get(n, {}))
                for i, n in enumerate(names)]
    eng = RummyEngine(16, seed=36, episode="round")
    games = np.arange(eng.num_games)
    rng = np.random.default_rng(36)
    last = np.full(len(games), -1)
    met = np.zeros(len(names), dtype=np.int64)  # melds begun by another agent, per agent
    for _ in range(200):
        who = rng.integers(len(names), size=len(games))
        others = (eng.state[:, K.PICKED] != 0) & (last != who) & (last >= 0)
        np.add.at(met, who[others], 1)
        eng.step(decide(eng, games, policies, who))
        last = who
    assert (met >= 30).all(), dict(zip(names, met.tolist(), strict=True))


def test_rollout_rows_are_the_determinizations_in_order() -> None:
    """The compiled builder of the rollout agent's rows gives, for each decision, its
    ``samples`` determinizations drawn in order from one random stream, each repeated
    once per candidate: what a plain loop over decisions, samples and candidates gives,
    to the bit (so the labels of the Rummy network did not change with it)."""
    from agents.rummy.rollout import determinize, rollout_rows

    eng = RummyEngine(8, seed=11, episode="round", auto_reset=False)
    rng = np.random.default_rng(3)
    for _ in range(5):
        eng.step(eng.random_actions(rng))
    games = np.array([1, 4, 6], dtype=np.int64)
    cands = [[3, 7], [5], [0, 2, 9]]
    offsets = np.array([0, 2, 3, 6], dtype=np.int64)
    flat = np.array([a for c in cands for a in c], dtype=np.int64)
    rows, first, team, z = rollout_rows(eng.state, games, offsets, flat, 4, np.uint64(99))
    want_rows, want_first, want_team, zz = [], [], [], np.uint64(99)
    for g, cs in zip(games.tolist(), cands, strict=True):
        seat = int(eng.state[g, K.MOVER])
        for _ in range(4):
            row = eng.state[g:g + 1].copy()
            zz = np.uint64(determinize(row, 0, seat, zz))
            for a in cs:
                want_rows.append(row[0])
                want_first.append(a)
                want_team.append(seat % 2)
    np.testing.assert_array_equal(rows, np.stack(want_rows))
    assert first.tolist() == want_first and team.tolist() == want_team and z == zz
    assert len({r.tobytes() for r in rows[:8:2]}) > 1  # the samples differ
