"""The single-agent Gymnasium env: checkers, semantics, opponents, MaskablePPO."""

from __future__ import annotations

import pickle
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env

from agents import PolicyAgent, make_agent
from pasur_env import CallablePolicy, GameView, PasurSingleAgentEnv
from pasur_env.pasur.observation import encode, observation_size
from train.common.pool import OpponentPool


@pytest.fixture
def one_torch_thread():
    """SB3 tests: tiny nets on a shared 2-core box, torch's thread pool costs more than it gives."""
    pytest.importorskip("stable_baselines3")
    pytest.importorskip("sb3_contrib")
    import torch

    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


def first_legal(obs: np.ndarray, mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def play_episode(env: PasurSingleAgentEnv, seed: int, policy=None):
    """Play one episode; return (rewards, infos, final obs)."""
    obs, _ = env.reset(seed=seed)
    rewards, infos = [], []
    while True:
        mask = env.action_masks()
        assert mask.any(), "empty mask at a learner decision"
        assert env.engine.current_player[0] == env.learner_seat
        a = policy(env) if policy is not None else first_legal(obs, mask)
        obs, r, term, trunc, info = env.step(a)
        rewards.append(r)
        infos.append(info)
        if term or trunc:
            return rewards, infos, obs


def greedy_learner(env: PasurSingleAgentEnv) -> int:
    """The learner plays the greedy agent's move (deterministic)."""
    agent = make_agent("greedy")
    return int(agent.act(None, env.action_masks()[None], GameView(env.engine, np.zeros(1)))[0])


def test_gymnasium_checker():
    # check_step_determinism samples its action *before* a seeded reset, so with illegal
    # actions raising no card game with masks passes it; "random" replaces them
    env = gymnasium.make("pasur_env/Pasur-v0", illegal_action="random")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gym_check_env(env.unwrapped)
    env.close()


def test_sb3_checker_with_raising_default(one_torch_thread):
    from stable_baselines3.common.env_checker import check_env

    env = PasurSingleAgentEnv()
    assert env.illegal_action == "raise"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(env, warn=True)  # action_space.sample() draws legal actions


def test_illegal_action_raises_and_names_legal_ones():
    env = PasurSingleAgentEnv()
    env.reset(seed=3)
    mask = env.action_masks()
    bad = int(np.flatnonzero(~mask)[0])
    with pytest.raises(ValueError, match=rf"illegal action {bad} .*legal actions: \["):
        env.step(bad)
    with pytest.raises(TypeError):
        env.step(1.5)
    env2 = PasurSingleAgentEnv(illegal_action="random")
    env2.reset(seed=3)
    _, _, _, _, info = env2.step(bad)
    assert info["illegal_action"] == bad


def test_sample_is_legal_and_reset_is_seeded():
    env = PasurSingleAgentEnv(learner_seat="random", opponent=make_agent("random"))
    o1, i1 = env.reset(seed=11)
    for _ in range(10):
        assert env.action_masks()[env.action_space.sample()]
    env.step(env.action_space.sample())
    o2, i2 = env.reset(seed=11)
    assert np.array_equal(o1, o2) and i1.keys() == i2.keys()
    assert all(np.array_equal(i1[k], i2[k]) for k in i1)  # the mask is an array
    seats = {env.reset(seed=s)[1]["learner_seat"] for s in range(12)}
    assert seats == {0, 1}
    assert env.observation_space.contains(o1)


def test_rewards_zero_sum_between_seats_and_match_round_points():
    returns = {}
    for seat in (0, 1):
        env = PasurSingleAgentEnv(learner_seat=seat, opponent=make_agent("greedy"))
        rewards, infos, _ = play_episode(env, seed=5, policy=greedy_learner)
        returns[seat] = sum(rewards)
        ends = [i for i in infos if "round_points" in i]
        assert len(ends) == 1 and rewards[-1] == returns[seat]
        pts = ends[0]["round_points"]
        assert returns[seat] == pts[seat] - pts[1 - seat]
    assert returns[0] == -returns[1] and returns[0] != 0


def test_terminal_observation_is_the_learners():
    env = PasurSingleAgentEnv(learner_seat=1)
    _, _, final = play_episode(env, seed=2)
    eng = env.engine
    assert eng.phase[0] == 2
    assert np.array_equal(final, encode(eng, np.zeros(1, np.int64), np.array([1]))[0])
    assert not np.array_equal(final, encode(eng, np.zeros(1, np.int64), np.array([0]))[0])
    # ended: nothing is legal; the mask allows any action (a vector env ignores it)
    assert env.action_masks().all() and not env.games.learner_masks().any()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_game_episode_points_and_truncation():
    env = PasurSingleAgentEnv(episode="game", reward="points", max_rounds=2, target_score=200)
    rewards, infos, _ = play_episode(env, seed=1)
    ends = [i for i in infos if "round_points" in i]
    assert len(ends) == 2
    assert sum(rewards) == sum(i["round_points"][0] for i in ends)
    assert ends[-1]["scores"][0] == sum(i["round_points"][0] for i in ends)
    # last step: truncated, not terminated
    env.reset(seed=1)
    while True:
        _, _, term, trunc, _ = env.step(first_legal(None, env.action_masks()))
        if term or trunc:
            break
    assert trunc and not term


def test_opponent_kinds_and_multiplayer():
    calls = []

    def fn(obs, mask):
        calls.append(obs.shape)
        return int(np.flatnonzero(mask)[-1])

    for opp in (make_agent("random"), make_agent("heuristic", seed=0), fn, CallablePolicy(fn)):
        env = PasurSingleAgentEnv(opponent=opp)
        play_episode(env, seed=0)
    assert calls and calls[0] == (observation_size(env.rules),)
    env = PasurSingleAgentEnv(num_players=4, learner_seat="random", reward="diff")
    rewards, _, obs = play_episode(env, seed=4)
    assert obs.shape == (observation_size(env.rules),) and env.observation_space.shape == obs.shape
    env3 = PasurSingleAgentEnv(num_players=3, opponent=make_agent("random"), reward="win")
    rewards, _, _ = play_episode(env3, seed=4)
    assert rewards[-1] in (-1.0, 0.0, 1.0)
    with pytest.raises(ValueError):
        PasurSingleAgentEnv(learner_seat=2)
    with pytest.raises(ValueError):
        PasurSingleAgentEnv(reward="nope")
    with pytest.raises(TypeError):
        PasurSingleAgentEnv(opponent=3)
    # the game does not resolve names: the agents package does (and the error says so)
    with pytest.raises(TypeError, match=r"make_agent\('greedy'\)"):
        PasurSingleAgentEnv(opponent="greedy")


def test_pickle_and_render():
    env = PasurSingleAgentEnv(render_mode="ansi", opponent=make_agent("greedy"))
    env.reset(seed=0)
    assert "learner" in env.render()
    clone = pickle.loads(pickle.dumps(env))
    assert np.array_equal(clone.reset(seed=0)[0], env.reset(seed=0)[0])
    assert type(pickle.loads(pickle.dumps(env.action_space))) is gymnasium.spaces.Discrete


def test_maskable_ppo_trains_and_plays_as_opponent(tmp_path, one_torch_thread):
    from sb3_contrib import MaskablePPO

    env = PasurSingleAgentEnv(opponent=make_agent("random"), learner_seat="random")
    model = MaskablePPO(
        "MlpPolicy", env, n_steps=512, batch_size=256, n_epochs=1,
        policy_kwargs={"net_arch": [32]}, seed=0, device="cpu",
    )
    model.learn(2048)
    assert model.num_timesteps >= 2048
    path = tmp_path / "m.zip"
    model.save(path)
    # the trained model as an opponent: wrapped, loaded by the registry, in a pool
    for opp in (PolicyAgent(model), make_agent(str(path))):
        env2 = PasurSingleAgentEnv(opponent=opp)
        play_episode(env2, seed=1)
    with pytest.raises(TypeError, match="PolicyAgent"):
        PasurSingleAgentEnv(opponent=model)  # an SB3 model is not a policy: the error says how
    agent = make_agent(str(path), deterministic=True)
    assert isinstance(agent, PolicyAgent)
    pool = OpponentPool(["greedy"], sampling="latest")
    pool.add_snapshot(model, deterministic=True)
    env3 = PasurSingleAgentEnv(opponent=pool)
    play_episode(env3, seed=2)
    assert env3.opponent_name.startswith("snapshot")
