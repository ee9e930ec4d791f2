"""TorchRL on the pasur_env AEC envs: ``PettingZooWrapper`` over ``pasur_v0`` /
``persian_rummy_v0`` and a rollout of masked random play (``docs/multi_agent.md``).

Run in the main venv (``make venv`` installs TorchRL, the ``marl`` dependency group):
``.venv/bin/python -m train.marl.torchrl_example``. Nothing in pasur_env, agents or the
other pipelines imports this file.
"""

from __future__ import annotations

from typing import Any

import torch
from tensordict import TensorDictBase
from torchrl.envs.libs.pettingzoo import PettingZooWrapper

from pasur_env.games import GAME_IDS
from train.marl.envs import aec_env


def make_env(game: str = "pasur", seed: int = 0, **options: Any) -> PettingZooWrapper:
    """One AEC env of ``game`` as a TorchRL env. AEC envs need ``use_mask=True`` (one
    group per agent; ``(agent, "mask")`` says who acts); the legal actions are in
    ``(agent, "action_mask")``."""
    return PettingZooWrapper(aec_env(game, **options), use_mask=True,
                             categorical_actions=True, seed=seed)


class MaskedRandomPolicy:
    """Uniform legal play for the agent that acts: a stand-in for a learned policy
    module, showing where the masks are (read by a real module the same way)."""

    def __init__(self, env: PettingZooWrapper, seed: int = 0) -> None:
        self.groups = list(env.group_map)
        self.generator = torch.Generator().manual_seed(seed)

    def __call__(self, td: TensorDictBase) -> TensorDictBase:
        for group in self.groups:
            legal = td[group, "action_mask"].float()  # (1, n_actions), zeros if not acting
            if td[group, "mask"].any():
                action = torch.multinomial(legal[0], 1, generator=self.generator)
            else:
                action = torch.zeros(1, dtype=torch.int64)
            td[group, "action"] = action
        return td


def rollout(game: str = "pasur", max_steps: int = 1000, seed: int = 0,
            **options: Any) -> TensorDictBase:
    """One episode (or ``max_steps``) of masked random play, as a TensorDict with one
    row per move; ``("next", agent, "reward")`` holds every agent's reward of each
    step, paid or not to the mover."""
    env = make_env(game, seed=seed, **options)
    return env.rollout(max_steps, policy=MaskedRandomPolicy(env, seed),
                       break_when_any_done=True)


if __name__ == "__main__":
    for name in GAME_IDS:
        td = rollout(name, episode="round", reward="points")
        agents = [g for g in td.keys() if isinstance(g, str) and g.startswith("player_")]
        print(name, td.batch_size[0], "moves, returns",
              [float(td["next", a, "reward"].sum()) for a in sorted(agents)])
