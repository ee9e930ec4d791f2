"""The one play loop, subset steps of the engine, and the layers (the game never
imports its players)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import numpy as np
import pytest

from agents import make_agent
from pasur_env import Engine, GameView, RandomPolicy, as_opponents, as_policy
from pasur_env.core.loop import DecisionClock, decide, play
from pasur_env.pasur import kernels as K


def test_step_on_some_games_leaves_the_others_alone() -> None:
    eng = Engine(6, seed=3, parallel=False)
    twin = eng.copy()
    games = np.array([1, 4])
    acts = eng.random_actions(np.random.default_rng(0))[games]
    info = eng.step(acts, games=games)
    assert info.actor.shape == (2,)
    untouched = [0, 2, 3, 5]
    assert np.array_equal(eng.state[untouched], twin.state[untouched])
    twin.step(acts, games=games)
    assert np.array_equal(eng.state, twin.state)
    assert np.array_equal(eng.legal_mask(games), eng.legal_mask()[games])
    for bad in ([4, 1], [1, 1], [6], [-1]):
        with pytest.raises(ValueError, match="ascending distinct indices"):
            eng.step(np.zeros(len(bad), dtype=np.int64), games=bad)
    legal = eng.random_actions(np.random.default_rng(1))[games]
    with pytest.raises(ValueError, match="illegal action 103 .* in game 4"):
        eng.step(np.array([legal[0], 103]), games=games)
    assert np.array_equal(eng.state, twin.state)  # an illegal step changes nothing


def test_play_stops_at_unplayed_seats_and_counts_decisions() -> None:
    eng = Engine(8, seed=1, episode="round", auto_reset=False)
    seat_policy = np.zeros((8, 2), dtype=np.int64)
    seat_policy[:, 1] = -1  # seat 1 is "the learner": the loop stops there
    clock = DecisionClock()
    play(eng, [make_agent("greedy")], seat_policy, clock=clock)
    assert (eng.current_player == 1).all() and (eng.phase != K.DONE).all()
    assert clock.decisions[0] >= 8 and clock.per_decision(0) > 0
    # both seats played: every round ends, and each policy is asked once per iteration
    calls = []

    class Counting(RandomPolicy):
        def act(self, obs, mask, view):
            calls.append(len(view.games))
            return super().act(obs, mask, view)

    eng = Engine(8, seed=1, episode="round", auto_reset=False)
    play(eng, [Counting(seed=0), make_agent("heuristic")], np.tile([0, 1], (8, 1)))
    assert (eng.phase == K.DONE).all() and sum(calls) >= 8 * 24


def test_decide_checks_every_action() -> None:
    class Cheater(RandomPolicy):
        name = "cheater"

        def act(self, obs, mask, view):
            return np.full(len(view.games), 103, dtype=np.int64)

    eng = Engine(4, seed=0)
    before = eng.state.copy()
    with pytest.raises(ValueError, match=r"agent 'cheater' chose illegal action 103 \(TAKE KS\) "
                       r"in game 0; legal actions: \["):
        decide(eng, np.arange(4), [Cheater()], np.zeros(4, dtype=np.int64))
    assert np.array_equal(eng.state, before)


def test_opponents_are_objects_names_are_refused() -> None:
    assert as_policy(make_agent("greedy")).name == "greedy"
    fn = as_policy(lambda obs, mask: int(np.flatnonzero(mask)[0]))
    eng = Engine(2, seed=0)
    obs = np.zeros((2, 1), dtype=np.float32)
    assert fn.act(obs, eng.legal_mask(), GameView.all(eng)).shape == (2,)
    with pytest.raises(TypeError, match=r"agents.make_agent\('heuristic'\)"):
        as_policy("heuristic")
    with pytest.raises(TypeError, match="Policy protocol"):
        as_opponents(3.5)
    assert len(as_opponents(RandomPolicy())) == 1


def test_the_game_imports_none_of_its_players() -> None:
    """Importing the whole game package loads neither agents nor train (the lint's layer
    contract checks the source; this checks the running interpreter)."""
    vec = ", pasur_env.pasur.vector_env" if importlib.util.find_spec("stable_baselines3") else ""
    code = (
        f"import sys, pasur_env{vec}, pasur_env.core.loop; "
        "bad = [m for m in sys.modules if m.split('.')[0] in ('agents', 'train')]; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
