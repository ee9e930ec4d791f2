"""Training-env throughput: PasurVecEnv steps/s and the env's share of MaskablePPO time.

1. ``PasurVecEnv`` learner steps per second (``num_envs`` games advance one learner
   decision per ``step``; the greedy opponent's batched moves in between are
   included) at ``num_envs`` = 1, 16, 256, learner actions uniformly random among
   the legal ones (drawn from ``action_masks()``, outside the timed env calls only
   for the draw itself).
2. ``MaskablePPO`` (sb3-contrib defaults: MlpPolicy [64, 64], batch 64, 10 epochs)
   on ``PasurVecEnv(16)`` with ``n_steps=128`` for ~20k steps: wall time inside the
   env (``reset``, ``step_wait`` and the ``action_masks`` queries) versus the rest
   (policy forward passes, rollout buffer, gradient updates).

Prints markdown tables (and ``--json``). Torch runs on ``--torch-threads`` threads
(default 1: on small shared CPUs torch's thread pool makes tiny nets far slower).

    python benchmarks/bench_train_env.py
    python benchmarks/bench_train_env.py --sizes 1 16 256 --seconds 3 --ppo-steps 20480
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    counts = masks.sum(axis=1)
    k = np.minimum((rng.random(len(masks)) * counts).astype(np.int64), counts - 1)
    return np.argmax(np.cumsum(masks, axis=1) > k[:, None], axis=1).astype(np.int64)


def bench_steps(num_envs: int, seconds: float, opponent: str, seed: int) -> dict:
    from agents import make_agent
    from pasur_env import PasurVecEnv

    env = PasurVecEnv(num_envs, opponent=make_agent(opponent), seed=seed)
    rng = np.random.default_rng(seed)
    env.reset()
    for _ in range(20):  # warm-up (JIT caches, allocator)
        env.step(random_legal(env.action_masks(), rng))
    steps = episodes = 0
    env_time = 0.0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        t0 = time.perf_counter()
        masks = env.action_masks()
        t1 = time.perf_counter()
        acts = random_legal(masks, rng)
        t2 = time.perf_counter()
        _, _, dones, _ = env.step(acts)
        env_time += (t1 - t0) + (time.perf_counter() - t2)
        steps += num_envs
        episodes += int(dones.sum())
    wall = time.perf_counter() - start
    return {
        "num_envs": num_envs,
        "learner_steps_per_s": steps / env_time,
        "loop_steps_per_s": steps / wall,
        "episodes_per_s": episodes / env_time,
        "us_per_vec_step": 1e6 * env_time / (steps / num_envs),
    }


class _Timer:
    def __init__(self) -> None:
        self.total = 0.0

    def wrap(self, fn):  # noqa: ANN001, ANN202
        def timed(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
            t = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.total += time.perf_counter() - t

        return timed


def bench_ppo(num_envs: int, n_steps: int, total: int, opponent: str, seed: int) -> dict:
    from sb3_contrib import MaskablePPO

    from agents import make_agent
    from pasur_env import PasurVecEnv

    env = PasurVecEnv(num_envs, opponent=make_agent(opponent), seed=seed)
    timer = _Timer()
    # instance attributes shadow the methods: every env call SB3 makes is timed
    env.step_wait = timer.wrap(env.step_wait)
    env.reset = timer.wrap(env.reset)
    env.env_method = timer.wrap(env.env_method)
    model = MaskablePPO("MlpPolicy", env, n_steps=n_steps, seed=seed, device="cpu", verbose=0)
    model.learn(n_steps * num_envs)  # warm-up rollout + update, not counted
    timer.total = 0.0
    start = time.perf_counter()
    model.learn(total, reset_num_timesteps=True)
    wall = time.perf_counter() - start
    return {
        "num_envs": num_envs,
        "n_steps": n_steps,
        "timesteps": int(model.num_timesteps),
        "wall_s": wall,
        "env_s": timer.total,
        "rest_s": wall - timer.total,
        "env_share": timer.total / wall,
        "fps": model.num_timesteps / wall,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1, 16, 256])
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--opponent", default="greedy")
    ap.add_argument("--ppo-envs", type=int, default=16)
    ap.add_argument("--ppo-n-steps", type=int, default=128)
    ap.add_argument("--ppo-steps", type=int, default=20480, help="0 skips the PPO split")
    ap.add_argument("--torch-threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    import numba

    results: dict = {"steps": [], "ppo": None}
    for n in args.sizes:
        results["steps"].append(bench_steps(n, args.seconds, args.opponent, args.seed))
    print(f"## PasurVecEnv throughput (opponent={args.opponent}, random legal learner, "
          f"numba threads={numba.get_num_threads()})\n")
    print("| num_envs | learner steps/s | episodes/s | µs per vec step |")
    print("|---:|---:|---:|---:|")
    for r in results["steps"]:
        print(f"| {r['num_envs']} | {r['learner_steps_per_s']:,.0f} | "
              f"{r['episodes_per_s']:,.1f} | {r['us_per_vec_step']:,.0f} |")

    if args.ppo_steps > 0:
        import torch

        torch.set_num_threads(args.torch_threads)
        p = bench_ppo(args.ppo_envs, args.ppo_n_steps, args.ppo_steps, args.opponent, args.seed)
        results["ppo"] = p
        print(f"\n## MaskablePPO on PasurVecEnv({p['num_envs']}), n_steps={p['n_steps']}, "
              f"{p['timesteps']:,} steps, torch threads={args.torch_threads}\n")
        print("| part | seconds | share |")
        print("|---|---:|---:|")
        print(f"| env (reset, step_wait, action_masks) | {p['env_s']:.2f} | "
              f"{100 * p['env_share']:.1f}% |")
        print(f"| policy + update (rest) | {p['rest_s']:.2f} | "
              f"{100 * (1 - p['env_share']):.1f}% |")
        print(f"| total | {p['wall_s']:.2f} | {p['fps']:,.0f} steps/s |")
    if args.json:
        print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
