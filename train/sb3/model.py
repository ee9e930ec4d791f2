"""The MaskablePPO model of the SB3 pipeline (:mod:`train.ppo`): build it from the run's
settings, resume it from a checkpoint, learn and save it.

Every game's run names its settings alike (``n_steps``, ``learning_rate``, ``net_arch``,
``total_timesteps``...), so one builder serves both games.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from train.common.run_dir import start_run_dir
from train.sb3.callbacks import save_checkpoint

__all__ = ["start_sb3_run", "new_model", "resume_model", "learn_and_save"]


def start_sb3_run(args: Any) -> Path:
    """Seed torch, numpy and ``random`` with ``args.seed``, set torch's threads, and
    create the run folder (with ``config.json``)."""
    import torch
    from stable_baselines3.common.utils import set_random_seed

    torch.set_num_threads(args.torch_threads)
    set_random_seed(args.seed)
    return start_run_dir(args)


def new_model(args: Any, env: Any, run_dir: Path) -> Any:
    """A fresh MaskablePPO on ``env``: an MLP policy of ``args.net_arch``, the step size
    annealed linearly from ``learning_rate`` to a tenth of it, TensorBoard in ``tb/``."""
    from sb3_contrib import MaskablePPO

    lr0 = args.learning_rate
    return MaskablePPO(
        "MlpPolicy", env, n_steps=args.n_steps, batch_size=args.batch_size,
        n_epochs=args.n_epochs, learning_rate=lambda frac: lr0 * (0.1 + 0.9 * frac),
        gamma=args.gamma, gae_lambda=args.gae_lambda, clip_range=args.clip_range,
        ent_coef=args.ent_coef, vf_coef=args.vf_coef, seed=args.seed, device=args.device,
        policy_kwargs={"net_arch": [int(x) for x in args.net_arch.split(",")]},
        tensorboard_log=str(run_dir / "tb"), verbose=0,
    )


def resume_model(ckpt: Path, env: Any, device: str) -> Any:
    """The MaskablePPO saved in checkpoint ``ckpt``, attached to ``env``."""
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(ckpt, env=env, device=device)
    print(f"resuming from {ckpt} at {model.num_timesteps:,} steps")
    return model


def learn_and_save(args: Any, model: Any, env: Any, run_dir: Path,
                   callbacks: Callable[[], list[Any]], resumed: bool, run_start: float) -> float:
    """PPO up to ``args.total_timesteps``, then ``model.zip`` and a last checkpoint;
    closes ``env``. ``callbacks()`` is only called when there are steps left (they open
    the run's files). Returns the seconds since ``run_start`` (cloning and PPO)."""
    remaining = args.total_timesteps - model.num_timesteps
    if remaining > 0:
        model.learn(remaining, callback=callbacks(), progress_bar=args.progress,
                    reset_num_timesteps=not resumed, tb_log_name="ppo")
    train_seconds = time.time() - run_start
    model.save(run_dir / "model.zip")
    save_checkpoint(model, run_dir)
    env.close()
    return train_seconds
