"""Tianshou 2.0 on the pasur_env AEC envs: random collection on both games and a tiny
masked DQN on ``pasur_v0``, plus :func:`credit_own_rows`, the fix for Tianshou's
reward filing in turn-based games (``docs/multi_agent.md``, "The pitfall").

Run in the main venv (``make venv`` installs Tianshou, the ``marl`` dependency group):
``.venv/bin/python -m train.marl.tianshou_example``. Nothing in pasur_env, agents or the
other pipelines imports this file.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from tianshou.algorithm import (
    DQN,
    MARLRandomDiscreteMaskedOffPolicyAlgorithm,
    MultiAgentOffPolicyAlgorithm,
)
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, CollectStats, ReplayBuffer, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.env.pettingzoo_env import PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

from pasur_env.games import GAME_IDS
from train.marl.envs import aec_env


def make_env(game: str = "pasur", **options: Any) -> PettingZooEnv:
    """One AEC env of ``game`` in Tianshou's ``PettingZooEnv`` (it turns the dict
    observation into ``obs``, ``mask`` and ``agent_id``, and returns the step's reward
    of every agent as a list indexed by seat)."""
    return PettingZooEnv(aec_env(game, **options))


def random_algorithm(env: PettingZooEnv) -> MultiAgentOffPolicyAlgorithm:
    """Uniform legal play for every seat (Tianshou's masked random algorithm)."""
    players = [MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
               for _ in env.agents]
    return MultiAgentOffPolicyAlgorithm(algorithms=players, env=env)


def collect_random(game: str = "pasur", n_episode: int = 2, seed: int = 0,
                   **options: Any) -> tuple[ReplayBuffer, CollectStats]:
    """``n_episode`` episodes of random play, in one env (so the buffer keeps the
    order of the moves). The buffer's ``rew`` has one column per seat."""
    env = DummyVectorEnv([lambda: make_env(game, **options)])
    env.seed(seed)
    np.random.seed(seed)
    buffer = VectorReplayBuffer(100_000, 1)
    collector = Collector[CollectStats](random_algorithm(make_env(game, **options)), env,
                                        buffer)
    stats = collector.collect(n_episode=n_episode, reset_before_collect=True)
    return buffer, stats


def credit_own_rows(agent_ids: np.ndarray, rew: np.ndarray, done: np.ndarray,
                    agents: list[str]) -> np.ndarray:
    """Each row's reward for the agent that moved in it: the sum of that agent's
    column from this row up to (not including) its next move in the same episode.

    Why: Tianshou files a step's rewards with the mover's row, and each agent's
    learner reads only its own column of its own rows, so a reward paid at a step
    another seat made (a round end) is lost to it. Summing the column up to the
    agent's next move is PettingZoo's own convention (what ``last()`` would return):
    every reward lands on the agent's last transition before it was paid.
    ``agent_ids``, ``rew`` (rows x seats) and ``done`` are in the order of play.
    """
    rew = np.asarray(rew, dtype=np.float64)
    if rew.ndim != 2 or rew.shape != (len(agent_ids), len(agents)):
        raise ValueError(f"rew must be rows x seats = ({len(agent_ids)}, {len(agents)}), "
                         f"got shape {rew.shape}")
    seat = {a: i for i, a in enumerate(agents)}
    out = np.zeros(len(agent_ids))
    last_row: dict[str, int] = {}
    for t, agent in enumerate(agent_ids):
        last_row[agent] = t
        for a, row in last_row.items():
            out[row] += rew[t, seat[a]]
        if done[t]:
            last_row = {}
    return out


def in_order(buffer: ReplayBuffer) -> Any:
    """The buffer's rows in the order they were added (one env, no wrap-around)."""
    return buffer[np.arange(len(buffer))]


def dqn_player(env: PettingZooEnv, hidden: int = 64, lr: float = 1e-3) -> DQN:
    """A small DQN over the ``observation`` vector; Tianshou's Q-policy applies the
    ``mask`` (illegal actions get -inf before the argmax and in exploration)."""
    n_obs = env.observation_space["observation"].shape[0]
    net = Net(state_shape=n_obs, action_shape=env.action_space.n, hidden_sizes=[hidden])
    policy = DiscreteQLearningPolicy(model=net, action_space=env.action_space,
                                     eps_training=0.2, eps_inference=0.0)
    return DQN(policy=policy, optim=AdamOptimizerFactory(lr=lr), n_step_return_horizon=1,
               gamma=0.99, target_update_freq=50)


def train_dqn(steps: int = 400, seed: int = 0, num_envs: int = 2) -> tuple[Any, Any]:
    """A masked DQN as ``player_0`` against random play in 2-player Pasur, for
    ``steps`` environment steps (a smoke run, not a strong agent). Round episodes
    with ``reward="diff"``: every round pays, zero-sum."""
    torch.manual_seed(seed)
    np.random.seed(seed)
    options = {"episode": "round", "reward": "diff"}
    env = make_env("pasur", **options)
    learner = dqn_player(env)
    opponent = MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=[learner, opponent], env=env)
    train_envs = DummyVectorEnv([lambda: make_env("pasur", **options)] * num_envs)
    test_envs = DummyVectorEnv([lambda: make_env("pasur", **options)])
    train_envs.seed(seed)
    test_envs.seed(seed + 1000)
    train = Collector[CollectStats](algorithm, train_envs,
                                    VectorReplayBuffer(10_000, num_envs),
                                    exploration_noise=True)
    test = Collector[CollectStats](algorithm, test_envs, exploration_noise=True)
    train.reset()
    train.collect(n_step=64)
    result = algorithm.run_training(OffPolicyTrainerParams(
        training_collector=train, test_collector=test, max_epochs=1, epoch_num_steps=steps,
        collection_step_num_env_steps=16, test_step_num_episodes=1, batch_size=32,
        update_step_num_gradient_steps_per_sample=0.25, test_in_training=False,
        show_progress=False, verbose=False,
        multi_agent_return_reduction=lambda rews: rews[:, 0]))
    return result, learner


if __name__ == "__main__":
    for name in GAME_IDS:
        buf, stats = collect_random(name, n_episode=1, episode="round", reward="points")
        print(name, "random round:", len(buf), "moves, returns per seat",
              stats.returns[0].tolist())
    print(train_dqn(steps=300)[0])
