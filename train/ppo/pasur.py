"""Pasur's plug-in of the MaskablePPO pipeline (:class:`train.ppo.games.PpoGame`): its
settings (the defaults of :class:`train.ppo.Args` are Pasur's), its learner seat, the
shaping of its rewards and the value target that goes with it, its teacher's decisions.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from train.ppo.games import PpoGame, ValueTarget

__all__ = ["PPO_GAME"]

#: named configurations (``--config``); ``default`` is the defaults of ``Args``
CONFIGS: dict[str, dict[str, Any]] = {
    "default": {},
    "long": {  # about 45 min on 2 cores; stronger against greedy and heuristic
        "total_timesteps": 2_000_000,
        "bc_rounds": 24_000,
        "bc_vs_random": 0.5,
        "bc_epochs": 6,
        "opponent": "random:0.5>0.2,greedy:1>1,heuristic:1>1,self:0>1",
        "snapshot_every": 200_000,
        "max_snapshots": 8,
        "eval_every": 500_000,
        "checkpoint_every": 250_000,
        "rounds": 10_000,
        "games": 300,
    },
    "tiny": {  # tests and smoke runs
        "total_timesteps": 4_096,
        "num_envs": 8,
        "bc_rounds": 16,
        "bc_epochs": 1,
        "bc_vs_random": 0.5,
        "bc_torch_threads": 1,
        "n_steps": 64,
        "batch_size": 256,
        "n_epochs": 1,
        "net_arch": "32",
        "snapshot_every": 1_024,
        "eval_every": 2_048,
        "eval_rounds": 40,
        "rounds": 40,
        "games": 2,
        "checkpoint_every": 2_048,
        "progress": False,
    },
}


def _env_kwargs(args: Any) -> dict[str, Any]:
    seat = args.learner_seat
    return {"learner_seat": int(seat) if seat.isdigit() else seat}


def _wrap(args: Any, env: Any, venv: Any) -> Any:
    """Potential-based shaping (``--shaping``): captured points paid as they are taken."""
    if not args.shaping:
        return env
    from train.sb3.wrappers import PotentialShaping

    return PotentialShaping(env, venv.rules, gamma=args.gamma)


def _collect(args: Any) -> Any:
    from train.bc import collect

    return collect(args.bc_teacher, args.bc_rounds, seed=args.seed + 500,
                   vs_random=args.bc_vs_random)


def _value_target(args: Any, env: Any) -> ValueTarget:
    """The round results minus the shaping potential (the value of the shaped reward),
    scaled like the training rewards."""
    phi = env.venv.w if args.shaping else None  # the shaping potential's weights

    def value_target(obs: np.ndarray, returns: np.ndarray) -> np.ndarray:
        base = returns.astype(np.float64)
        if phi is not None:  # in chunks: obs is large and stored as float16
            for i in range(0, len(obs), 65536):
                base[i:i + 65536] -= obs[i:i + 65536].astype(np.float32) @ phi
        return (base * args.reward_scale).astype(np.float32)

    return value_target


PPO_GAME = PpoGame(
    "pasur", CONFIGS, _env_kwargs, _collect, _value_target, wrap=_wrap,
    unused=("partner",),
)
