"""PasurVecEnv: SB3 VecEnv semantics, equality with the single env, self-play pool, MaskablePPO."""

from __future__ import annotations

import numpy as np
import pytest

from agents import make_agent
from pasur_env import GameView, PasurSingleAgentEnv
from pasur_env.pasur.observation import encode
from train.common.pool import OpponentPool

pytest.importorskip("stable_baselines3")
pytest.importorskip("sb3_contrib")

from pasur_env import PasurVecEnv  # noqa: E402


def pick(mask: np.ndarray, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


@pytest.mark.parametrize("learner_seat", [0, "random"])
def test_vec_env_equals_single_envs(learner_seat):
    n, seed, T = 3, 40, 70  # 70 steps span 2-3 episodes per game
    vec = PasurVecEnv(n, opponent=make_agent("greedy"), learner_seat=learner_seat, seed=seed)
    singles = [
        PasurSingleAgentEnv(opponent=make_agent("greedy"), learner_seat=learner_seat)
        for _ in range(n)
    ]
    vobs = vec.reset()
    sobs = [s.reset(seed=seed + i)[0] for i, s in enumerate(singles)]
    assert vec.get_attr("learner_seat") == [s.learner_seat for s in singles]
    assert np.array_equal(vobs, np.stack(sobs))
    rv = [np.random.default_rng(i) for i in range(n)]
    rs = [np.random.default_rng(i) for i in range(n)]
    episodes = 0
    for _ in range(T):
        masks = vec.action_masks()
        assert masks.any(axis=1).all(), "empty mask at a learner decision"
        for i, s in enumerate(singles):
            assert np.array_equal(masks[i], s.action_masks())
        vobs, vrew, vdone, vinfos = vec.step(np.array([pick(masks[i], rv[i]) for i in range(n)]))
        for i, s in enumerate(singles):
            o, r, term, trunc, info = s.step(pick(s.action_masks(), rs[i]))
            assert r == vrew[i] and (term or trunc) == vdone[i]
            assert info.get("round_points") == vinfos[i].get("round_points")
            assert info.get("scores") == vinfos[i].get("scores")
            if vdone[i]:
                episodes += 1
                assert np.array_equal(o, vinfos[i]["terminal_observation"])
                assert vinfos[i]["TimeLimit.truncated"] is False
                o, _ = s.reset()
            assert np.array_equal(o, vobs[i])
    assert episodes >= n


def test_terminal_observation_is_the_learners_and_rewards_zero_sum():
    """Learner = greedy at seat 0 and at seat 1 on the same seeds: the same games."""
    n, seed = 4, 7
    greedy = make_agent("greedy")
    totals = {}
    for seat in (0, 1):
        vec = PasurVecEnv(n, opponent=make_agent("greedy"), learner_seat=seat, seed=seed)
        vec.reset()
        ret = np.zeros(n)
        finished = np.zeros(n, dtype=bool)
        while not finished.all():
            eng = vec.games.engine
            acts = greedy.act(None, vec.action_masks(), GameView.all(eng))
            obs, rew, done, infos = vec.step(acts)
            ret += rew * ~finished
            for i in np.flatnonzero(done & ~finished):
                finished[i] = True
                term = infos[i]["terminal_observation"]
                pts = infos[i]["round_points"]
                assert ret[i] == pts[seat] - pts[1 - seat]
                # the learner's view of the final state: its hand plane is empty
                assert term[:52].sum() == 0
                assert obs[i][:52].sum() == 4  # the new episode's first hand
        totals[seat] = ret
    assert np.array_equal(totals[0], -totals[1]) and np.abs(totals[0]).sum() > 0


def test_terminal_observation_matches_engine_view():
    vec = PasurVecEnv(2, learner_seat=1, seed=3)
    vec.reset()
    rng = np.random.default_rng(0)
    while True:
        # one step before the end every game is at its last learner decision; keep a copy
        before = vec.games.engine.copy()
        seats = vec.games.seat.copy()
        masks = vec.action_masks()
        acts = np.array([pick(m, rng) for m in masks])
        _, _, done, infos = vec.step(acts)
        if done.any():
            i = int(np.flatnonzero(done)[0])
            # replay the last step on the copy to get the final state
            from pasur_env.pasur.learner_games import LearnerGames

            lg = LearnerGames(2, vec.rules, "round", "diff", None, 1, OpponentPool(["greedy"]))
            lg.engine.state[:] = before.state
            lg.seat[:] = seats
            for g in range(2):
                lg._assign_opponent(g, lg.pool.sample(lg.rngs[g]))
            lg.learner_step(acts)
            final = lg.engine
            assert final.phase[i] == 2
            mine = encode(final, np.array([i]), np.array([1]))[0]
            theirs = encode(final, np.array([i]), np.array([0]))[0]
            assert np.array_equal(infos[i]["terminal_observation"], mine)
            assert not np.array_equal(infos[i]["terminal_observation"], theirs)
            break


def test_seed_reset_and_vecenv_plumbing():
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    vec = PasurVecEnv(5, opponent=make_agent("random"), learner_seat="random")
    vec.seed(123)
    o1 = vec.reset()
    seats = vec.get_attr("learner_seat")
    vec.step(np.array([int(np.flatnonzero(m)[0]) for m in vec.action_masks()]))
    vec.seed(123)
    assert np.array_equal(o1, vec.reset()) and vec.get_attr("learner_seat") == seats
    o3 = vec.reset()  # unseeded: new deals
    assert not np.array_equal(o1, o3)
    assert is_masking_supported(vec)
    m = get_action_masks(vec)
    assert m.shape == (5, 104) and m.dtype == bool and m.any(axis=1).all()
    assert vec.env_method("action_masks", indices=[1])[0].shape == (104,)
    assert vec.get_attr("reward_mode") == ["diff"] * 5
    assert vec.env_is_wrapped(object) == [False] * 5
    assert len(vec.env_method("render", indices=0)) == 1
    vec.set_attr("foo", 3)
    assert vec.get_attr("foo", [0, 2]) == [3, 3]
    bad = np.array([int(np.flatnonzero(~mm)[0]) for mm in vec.action_masks()])
    with pytest.raises(ValueError, match="illegal action .* in env 0 .*legal actions"):
        vec.step(bad)


def test_truncation_and_game_episodes():
    vec = PasurVecEnv(3, episode="game", reward="points", max_rounds=1, target_score=500, seed=0)
    vec.reset()
    rng = np.random.default_rng(1)
    while True:
        _, _, done, infos = vec.step(np.array([pick(m, rng) for m in vec.action_masks()]))
        if done.any():
            assert all(infos[i]["TimeLimit.truncated"] for i in np.flatnonzero(done))
            break


def test_opponent_pool_swaps_per_game_and_records():
    pool = OpponentPool(["greedy", "random", ("h", "heuristic", 2.0)], sampling="weights", seed=0)
    assert np.allclose(pool.probabilities(), [0.25, 0.25, 0.5])
    vec = PasurVecEnv(16, opponent=pool, seed=0)
    vec.reset()
    names0 = vec.get_attr("opponent_name")
    assert len(set(names0)) == 3
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(60):
        _, _, done, _ = vec.step(np.array([pick(m, rng) for m in vec.action_masks()]))
        ended += int(done.sum())
    assert sum(e.games for e in pool) == ended > 0
    assert vec.get_attr("opponent_name") != names0  # swapped as games reset
    pool.sampling = "prioritized"
    p = pool.probabilities()
    assert np.isclose(p.sum(), 1) and (p > 0).all()
    pool.sampling = "latest"
    assert pool.sample(rng).name == "h"
    pool.sampling = "uniform"
    pool.latest_prob = 0.5
    assert np.allclose(pool.probabilities(), [1 / 6, 1 / 6, 2 / 3])


def test_maskable_ppo_trains_on_vec_env_with_self_play():
    from sb3_contrib import MaskablePPO

    from agents import policy_snapshot
    from train.sb3.callbacks import SnapshotEvery

    pool = OpponentPool(["greedy"], sampling="uniform", max_size=3, seed=0)
    vec = PasurVecEnv(8, opponent=pool, learner_seat="random", seed=0)
    model = MaskablePPO(
        "MlpPolicy", vec, n_steps=128, batch_size=256, n_epochs=1,
        policy_kwargs={"net_arch": [32]}, seed=0, device="cpu",
    )
    model.learn(2048, callback=SnapshotEvery(pool, every=1024))
    assert model.num_timesteps >= 2048
    assert len(pool) == 3 and pool.entries[0].pinned and pool.names[1].startswith("snapshot@")
    # a snapshot is frozen: it does not follow the learner's later updates
    snap = policy_snapshot(model, deterministic=True)
    obs = vec.reset()
    masks = vec.action_masks()
    view = GameView.all(vec.games.engine)
    a0 = snap.act(obs, masks, view)
    expected, _ = model.predict(obs, action_masks=masks, deterministic=True)
    assert np.array_equal(a0, expected)
    model.learn(1024)
    assert np.array_equal(snap.act(obs, masks, view), a0)
    assert masks[np.arange(8), a0].all()
