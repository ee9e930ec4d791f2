"""The multi-agent examples (train/marl/, docs/multi_agent.md): `make venv` installs
Tianshou and TorchRL (the marl dependency group), so `make test` runs these; skipped only
in a venv without them (the lowest-versions and wheel venvs). Tiny sizes: these check the
plumbing and the reward bookkeeping, not play."""

import numpy as np
import pytest

pytest.importorskip("tianshou")
pytest.importorskip("torchrl")

from tianshou.data import Batch  # noqa: E402

from train.marl import tianshou_example as ts  # noqa: E402
from train.marl import torchrl_example as trl  # noqa: E402
from train.marl.envs import aec_env  # noqa: E402


@pytest.mark.parametrize("game", ["pasur", "persian_rummy"])
def test_tianshou_random_returns_are_the_game_scores(game):
    """With reward="points" over a whole game, each seat's column of the buffer sums
    to that seat's final game score (the env's info), and to Tianshou's returns."""
    buffer, stats = ts.collect_random(game, n_episode=1, seed=3, episode="game",
                                      reward="points")
    batch = ts.in_order(buffer)
    assert batch.done.sum() == 1 and batch.done[-1]
    assert np.array_equal(batch.rew.sum(axis=0), np.asarray(batch.info.scores[-1]))
    assert np.array_equal(stats.returns[0], batch.rew.sum(axis=0))
    # every action was legal for the agent that took it
    assert all(batch.obs.mask[t][batch.act[t]] for t in range(len(batch)))


def test_tianshou_files_rewards_with_the_mover_and_credit_own_rows_fixes_it():
    """2-player Pasur, round episodes: one seat ends every round, so the other seat's
    own rows hold no reward at all; credit_own_rows gives each seat its full return."""
    buffer, _ = ts.collect_random("pasur", n_episode=3, seed=0, episode="round",
                                  reward="points")
    b = ts.in_order(buffer)
    agents = ["player_0", "player_1"]
    ids = np.asarray(b.obs.agent_id)
    own = [b.rew[ids == a, i].sum() for i, a in enumerate(agents)]
    totals = b.rew.sum(axis=0)
    assert min(own) == 0 and totals.min() > 0  # one seat's rows never see its points
    credited = ts.credit_own_rows(ids, b.rew, b.done, agents)
    assert np.allclose([credited[ids == a].sum() for a in agents], totals)


def test_credit_own_rows_by_hand():
    ids = np.array(["a", "b", "a", "b", "a", "b"])
    rew = np.array([[0, 0], [1, -1], [0, 0], [0, 0], [0, 0], [2, 3]], dtype=float)
    done = np.array([0, 0, 0, 1, 0, 1], dtype=bool)
    # episode 1: a's row 0 gets its reward paid at b's row 1; b's row 1 its own
    # episode 2: a's row 4 gets the 2 paid at the final row, b's row 5 gets 3
    assert credit(ids, rew, done).tolist() == [1, -1, 0, 0, 2, 3]
    with pytest.raises(ValueError, match="rows x seats"):
        ts.credit_own_rows(ids, rew[:, :1], done, ["a", "b"])


def credit(ids, rew, done):
    return ts.credit_own_rows(ids, rew, done, ["a", "b"])


def test_tianshou_masked_dqn_trains_a_few_hundred_steps():
    result, learner = ts.train_dqn(steps=200, seed=0)
    assert result.train_step >= 200 and result.update_step > 0
    env = ts.make_env("pasur", episode="round", reward="diff")
    obs, _ = env.reset(seed=1)
    out = learner.policy(Batch(obs=Batch(obs=obs["obs"][None], mask=np.array([obs["mask"]])),
                               info={}))
    assert obs["mask"][int(out.act[0])]  # the greedy action is legal


@pytest.mark.parametrize("game", ["pasur", "persian_rummy"])
def test_torchrl_rollout_masks_and_rewards(game):
    """One round of masked random play through TorchRL's PettingZooWrapper: exactly
    one agent acts per row and its action is legal; replaying the actions in the plain
    AEC env gives the same rewards per agent and step."""
    td = trl.rollout(game, seed=5, episode="round", reward="points")
    agents = sorted(g for g in td.keys() if isinstance(g, str) and g.startswith("player_"))
    acting = np.stack([td[a, "mask"].reshape(-1).numpy() for a in agents], axis=1)
    assert (acting.sum(axis=1) == 1).all()
    env = aec_env(game, episode="round", reward="points")
    env.reset(seed=5)  # what the wrapper's seed does; its rollout then resets unseeded
    env.reset()
    paid = {a: 0.0 for a in agents}
    for t in range(td.batch_size[0]):
        mover = agents[int(acting[t].argmax())]
        assert env.agent_selection == mover
        action = int(td[mover, "action"][t].reshape(-1)[0])
        assert td[mover, "action_mask"][t].reshape(-1)[action]
        env.step(action)
        for a in agents:
            assert float(td["next", a, "reward"][t].sum()) == env.rewards[a]
            paid[a] += env.rewards[a]
    assert all(env.terminations.values())
    round_points = env.infos[agents[0]]["round_points"]
    assert [paid[a] for a in agents] == [float(p) for p in round_points]


def test_an_unknown_game_is_a_value_error():
    for make in (ts.make_env, trl.make_env):
        with pytest.raises(ValueError, match="unknown game 'chess'"):
            make("chess")
