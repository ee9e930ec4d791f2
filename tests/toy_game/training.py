"""The toy game's row of the MaskablePPO pipeline (:class:`train.ppo.games.PpoGame`):
its settings alone (no teacher to clone, no reward wrappers, no callbacks of its own);
registered by ``train.ppo.games.register_game(PPO_GAME)``."""

from __future__ import annotations

from typing import Any

import numpy as np

from train.ppo.games import PpoGame


def _no_teacher(args: Any) -> Any:
    raise ValueError("the toy game has no teacher to clone: --bc-rounds 0")


PPO_GAME = PpoGame(
    "toy",
    {"default": {"name": "toy", "total_timesteps": 256, "num_envs": 4, "n_steps": 32,
                 "batch_size": 64, "n_epochs": 1, "net_arch": "16", "shaping": False,
                 "bc_rounds": 0, "opponent": "greedy:1>0.5,self:0>1", "snapshot_every": 128,
                 "eval_every": 128, "eval_rounds": 20, "eval_opponents": "greedy,random",
                 "rounds": 20, "games": 0, "checkpoint_every": 128, "progress": False}},
    env_kwargs=lambda args: {}, collect=_no_teacher,
    value_target=lambda args, env: lambda obs, r: r.astype(np.float32),
    unused=("shaping", "partner"),
)
