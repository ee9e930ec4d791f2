"""Persian Rummy ``ismcts`` at tiny budgets: legal actions, no peeking, determinism,
threads, the values used for labelling, and the options of the registry spec."""

from __future__ import annotations

import numpy as np
import pytest

from agents import build_agent, make_agent
from agents.evaluation.match import evaluate
from agents.rummy.ismcts import RummyISMCTSAgent
from agents.rummy.rollout import determinize
from pasur_env.core.policy import GameView
from pasur_env.rummy import RummyEngine
from pasur_env.rummy import kernels as K

MODES = [{"tree": False}, {"tree": True}]


def _positions(seed: int = 8, n: int = 12, steps: int = 40) -> RummyEngine:
    """``n`` one-round games after ``steps`` random decisions (the finished ones dropped)."""
    eng = RummyEngine(n, seed=seed, episode="round", auto_reset=False)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        live = np.flatnonzero(eng.phase != K.DONE)
        eng.step(eng.random_actions(rng, live), games=live)
    return eng.take(np.flatnonzero(eng.phase != K.DONE))


def _act(agent: RummyISMCTSAgent, eng: RummyEngine) -> np.ndarray:
    return agent.act(None, eng.legal_mask(), GameView(eng, np.arange(eng.num_games)))


@pytest.mark.parametrize("mode", MODES)
def test_plays_legal_actions_whole_rounds(mode):
    agent = RummyISMCTSAgent(seed=0, budget=8, **mode)
    eng = RummyEngine(3, seed=2, episode="round", auto_reset=False)
    for _ in range(400):
        live = np.flatnonzero(eng.phase != K.DONE)
        if not len(live):
            break
        acts = agent.act(None, eng.legal_mask(live), GameView(eng, live))
        eng.step(acts, games=live)  # the engine refuses an illegal action
    assert (eng.phase == K.DONE).all()


@pytest.mark.parametrize("mode", MODES)
def test_never_reads_hidden_cards(mode):
    eng = _positions()
    for g in range(min(6, eng.num_games)):
        one = eng.take([g])
        twin = one.copy()
        determinize(twin.state, 0, one.mover(), np.uint64(5))
        acts = [int(_act(RummyISMCTSAgent(seed=0, budget=24, **mode), e)[0]) for e in (one, twin)]
        assert acts[0] == acts[1]


@pytest.mark.parametrize("mode", MODES)
def test_same_seed_same_play_and_threads_do_not_matter(mode):
    eng = _positions()
    a = _act(RummyISMCTSAgent(seed=3, budget=24, parallel=False, **mode), eng)
    b = _act(RummyISMCTSAgent(seed=3, budget=24, parallel=True, **mode), eng)
    assert (a == b).all()


def test_values_mark_illegal_actions_and_agree_with_the_choice():
    eng = _positions()
    view = GameView(eng, np.arange(eng.num_games))
    mask = eng.legal_mask()
    values = RummyISMCTSAgent(seed=1, budget=40).values(mask, view)
    assert values.shape == (eng.num_games, K.NUM_ACTIONS)
    assert (np.isnan(values) == ~mask).all()  # flat search: every legal action is valued
    choice = eng.take(np.flatnonzero(mask.sum(axis=1) > 1))  # act searches only these
    acts = _act(RummyISMCTSAgent(seed=1, budget=40), choice)
    best = np.nanargmax(RummyISMCTSAgent(seed=1, budget=40).values(
        choice.legal_mask(), GameView(choice, np.arange(choice.num_games))), axis=1)
    assert choice.num_games > 3 and (best == acts).all()
    tree = RummyISMCTSAgent(seed=1, budget=40, tree=True).values(mask, view)
    assert not np.isfinite(tree[~mask]).any() and np.isfinite(tree).any(axis=1).all()
    with pytest.raises(ValueError, match="mask"):
        RummyISMCTSAgent(budget=4).values(mask[:, :10], view)


def test_options_from_the_spec_and_bad_options():
    agent = build_agent("ismcts:budget=50,tree=true,c=20", seed=0, game="persian_rummy")
    assert isinstance(agent, RummyISMCTSAgent)
    assert (agent.budget, agent.tree, agent.c) == (50, True, 20.0)
    default = make_agent("ismcts", game="persian_rummy")
    assert (default.budget, default.tree) == (200, False)
    with pytest.raises(ValueError, match="budget"):
        RummyISMCTSAgent(budget=0)
    with pytest.raises(TypeError, match="tree"):
        RummyISMCTSAgent(tree="yes")
    with pytest.raises(ValueError, match="c must be"):
        RummyISMCTSAgent(c=-1.0)
    with pytest.raises(TypeError):
        build_agent("ismcts:samples=3", game="persian_rummy")


def test_beats_greedy_on_a_small_match():
    res = evaluate(RummyISMCTSAgent(seed=0, budget=24), "greedy", rounds=40, seed=0,
                   game="persian_rummy", progress=False)
    assert res.ci95[0] > 0
