"""The OpenSpiel games (python_pasur, python_persian_rummy) and the openspiel:BOT agents.

OpenSpiel's own random-simulation test, playthroughs compared with the saved ones in
tests/data/openspiel/ (regenerate with ``PASUR_WRITE_PLAYTHROUGHS=1``), agreement with
the engines, the chance model of the initial-table check, resampling, and the bots.
Skipped only when the ``openspiel`` extra is missing (``make test-openspiel`` fails then).
"""

from __future__ import annotations

import gzip
import os
import sys
from pathlib import Path

import numpy as np
import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason="the openspiel extra is not installed: pip install 'pasur-env[openspiel]'"
)

from agents.registry import build_agent, make_agent, parse_agent_spec  # noqa: E402
from pasur_env.core.extras import MissingExtraError  # noqa: E402
from pasur_env.core.policy import GameView  # noqa: E402
from pasur_env.openspiel import agreement, load_game  # noqa: E402
from pasur_env.pasur import kernels as K  # noqa: E402
from pasur_env.pasur.cards import parse_card  # noqa: E402
from pasur_env.pasur.engine import Engine  # noqa: E402
from pasur_env.pasur.moves import determinize  # noqa: E402
from pasur_env.rummy.engine import RummyEngine  # noqa: E402

DATA = Path(__file__).parent / "data" / "openspiel"
PASUR_CASES = [
    pytest.param({"players": 2}, id="P2"),
    pytest.param({"players": 3}, id="P3"),
    pytest.param({"players": 4}, id="P4"),
    pytest.param({"preset": "cfr_paper"}, id="cfr_paper"),
    pytest.param({"open_hand": True, "jack_sur": "lone_jack"}, id="P2-open"),
    pytest.param({"preset": "mini"}, id="mini"),
    pytest.param({"preset": "small", "initial_jacks": "bury"}, id="small-bury"),
    pytest.param({"cards": "AC 2C 3C 5C 6H 8C 9D 10D JS QH QS KD", "hand_size": 2,
                  "table_size": 0}, id="no-table"),
]
#: the saved playthroughs: (file, game string, seed)
PLAYTHROUGHS = [
    ("python_pasur.txt.gz", "python_pasur(preset=cfr_paper)", 7),
    ("python_persian_rummy.txt.gz", "python_persian_rummy()", 7),
]


@pytest.mark.parametrize("params", PASUR_CASES)
def test_random_sim_test_pasur(params):
    game = load_game("pasur", **params)
    assert game.num_players() == params.get("players", 2)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_random_sim_test_persian_rummy():
    pyspiel.random_sim_test(load_game("persian_rummy"), num_sims=1, serialize=True,
                            verbose=False)


@pytest.mark.parametrize(("name", "game_string", "seed"), PLAYTHROUGHS)
def test_playthrough_matches_the_saved_one(name, game_string, seed):
    from open_spiel.python.algorithms import generate_playthrough

    text = generate_playthrough.playthrough(game_string, None, seed=seed)
    path = DATA / name
    if os.environ.get("PASUR_WRITE_PLAYTHROUGHS"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(gzip.compress(text.encode(), mtime=0))
    assert text == gzip.decompress(path.read_bytes()).decode()


@pytest.mark.parametrize(("game", "params"), [
    ("pasur", {"players": 2}), ("pasur", {"players": 3}), ("pasur", {"players": 4}),
    ("pasur", {"preset": "cfr_paper"}), ("pasur", {"preset": "mini"}),
    ("pasur", {"preset": "small", "initial_jacks": "bury"}), ("persian_rummy", {}),
])
def test_agreement_with_the_engine(game, params):
    result = agreement(game, 4, seed=1, **params)
    assert result["decisions"] > 0
    assert result["legal_mismatches"] == 0 and result["return_mismatches"] == 0


def _deal_table(state, cards: list[str]) -> None:
    for code in cards:
        assert state.is_chance_node()
        state.apply_action(parse_card(code))


def test_a_lone_jack_is_buried_at_a_chance_position():
    game = load_game("pasur", players=2)
    state = game.new_initial_state()
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 52 and abs(sum(p for _, p in outcomes) - 1) < 1e-12
    _deal_table(state, ["JC", "2H", "5S", "9D"])
    # the top stock card (slot 12) is dealt, then the jack's place among 52 - 12
    assert state.queue == [("card", 12), ("bury", 40)]
    state.apply_action(parse_card("3H"))
    assert len(state.chance_outcomes()) == 40
    state.apply_action(5)
    assert state.public_events == ["bury JC"]
    assert state.deck[12 + 5] == parse_card("JC")
    assert state.stage == "hands" and len(state.queue) == 8  # the hands come next
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    assert state.engine.table[0] == sum(1 << parse_card(c) for c in ("3H", "2H", "5S", "9D"))


def test_variant_parameters_reach_the_rules():
    rules = load_game("pasur", preset="mini").spec.rules
    assert rules.preset == "mini" and rules.hand_size == 2 and len(rules.cards) == 9
    rules = load_game("pasur", cards="AC,2C,10D,JS,QH,QS,5C,6H", hand_size=1,
                      table_size=2).spec.rules
    assert rules.deck_size == 8 and rules.table_size == 2
    state = load_game("pasur", preset="mini").new_initial_state()
    # only the variant's cards are dealt, and (redeal) not its jack to the table
    assert len(state.chance_outcomes()) == 8


def test_redeal_deals_the_first_table_from_the_non_jacks():
    """The redeal as a conditioned distribution: no table chance node has a jack as an
    outcome (one used to start the deal again at the root: an infinite tree)."""
    game = load_game("pasur", preset="cfr_paper")
    state = game.new_initial_state()
    jacks = {parse_card(c) for c in ("JC", "JD", "JH", "JS")}
    for left, code in enumerate(("2H", "5S", "9D", "KH")):
        outcomes = dict(state.chance_outcomes())
        assert len(outcomes) == 48 - left and not jacks & set(outcomes)
        assert all(p == pytest.approx(1 / len(outcomes)) for p in outcomes.values())
        state.apply_action(parse_card(code))
    with pytest.raises(ValueError, match="not an outcome"):
        game.new_initial_state().apply_action(parse_card("JC"))
    assert state.stage == "hands" and state.public_events == []
    assert jacks <= set(dict(state.chance_outcomes()))  # the hands may hold jacks


def _mid_round(game_id: str, seed: int):
    game = load_game(game_id)
    state = game.new_initial_state()
    rng = np.random.default_rng(seed)
    decisions = 0
    while decisions < 30:  # well inside the round
        if state.is_chance_node():
            outcomes = [o for o, _ in state.chance_outcomes()]
            state.apply_action(outcomes[int(rng.integers(len(outcomes)))])
        else:
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
            decisions += 1
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    return game, state


@pytest.mark.parametrize("game_id", ["pasur", "persian_rummy"])
def test_resample_keeps_the_information_state(game_id):
    game, state = _mid_round(game_id, 3)
    player = state.current_player()
    draws = iter(np.random.default_rng(0).random(100))
    moved = 0
    for _ in range(5):
        other = state.resample_from_infostate(player, lambda: next(draws))
        assert other.information_state_string(player) == state.information_state_string(player)
        assert other.legal_actions() == state.legal_actions()
        deck = other.deck
        assert sorted(deck.tolist()) == list(range(len(deck)))  # still a permutation
        moved += other.engine.state[0].tolist() != state.engine.state[0].tolist()
    assert moved > 0


@pytest.mark.parametrize("game_id", ["pasur", "persian_rummy"])
def test_serialize_and_clone_round_trip(game_id):
    game, state = _mid_round(game_id, 5)
    back = game.deserialize_state(state.serialize())
    assert str(back) == str(state) and back.legal_actions() == state.legal_actions()
    clone = state.clone()
    clone.apply_action(clone.legal_actions()[0])
    assert str(state) == str(back)  # the clone moved alone


def test_openspiel_agents_are_registered_with_options():
    assert parse_agent_spec("openspiel:ismcts:max_time=0.5,simulations=7") == (
        "openspiel:ismcts", {"max_time": 0.5, "simulations": 7})
    agent = build_agent("openspiel:ismcts:simulations=7,uct_c=1.5", seed=0)
    assert agent.name == "openspiel:ismcts" and agent.simulations == 7 and agent.uct_c == 1.5
    assert make_agent("openspiel:mcts", game="persian_rummy").name == "openspiel:mcts"
    with pytest.raises(ValueError, match="max_time"):
        make_agent("openspiel:mcts", max_time=1.0)
    with pytest.raises(ValueError):
        make_agent("openspiel:ismcts", simulations=0)


@pytest.mark.parametrize("spec", ["openspiel:mcts:simulations=6",
                                  "openspiel:ismcts:simulations=6"])
def test_openspiel_agents_depend_only_on_the_information_set(spec):
    eng = Engine(4, seed=2, episode="round")
    eng.playout(9, seed=4)
    agent = build_agent(spec)
    moved = 0
    for g in range(4):
        seat = int(eng.current_player[g])
        twin = determinize(eng, g, 1, seat=seat, seed=100 + g)
        moved += any(eng.hands[g, p] != twin.hands[0, p] for p in range(2) if p != seat)
        mask = eng.legal_mask([g])
        agent.reset(11)
        a = agent.act(None, mask, GameView(eng, [g]))
        agent.reset(11)
        b = agent.act(None, mask, GameView(twin, [0]))
        assert a[0] == b[0] and mask[0, a[0]]
    assert moved > 0


def test_openspiel_agents_play_persian_rummy():
    eng = RummyEngine(2, seed=3, episode="round")
    eng.playout(20, seed=1)
    for spec in ("openspiel:mcts:simulations=4", "openspiel:ismcts:simulations=4"):
        agent = build_agent(spec, seed=0, game="persian_rummy")
        mask = eng.legal_mask()
        actions = agent.act(None, mask, GameView.all(eng))
        assert mask[np.arange(2), actions].all()


def test_ismcts_time_budget_stops_the_search():
    eng = Engine(1, seed=6, episode="round")
    agent = build_agent("openspiel:ismcts:max_time=0.01,simulations=1000000", seed=0)
    action = agent.act(None, eng.legal_mask(), GameView.all(eng))  # returns: not 1e6 sims
    assert eng.legal_mask()[0, action[0]]


def test_missing_open_spiel_names_the_extra(monkeypatch):
    from agents.learned import openspiel_bot

    monkeypatch.setitem(sys.modules, "pyspiel", None)
    with pytest.raises(MissingExtraError, match=r"openspiel extra .*pasur-env\[openspiel\]"):
        openspiel_bot._modules()
    assert K.DECK > 0  # the engine itself never needs open_spiel
