"""PettingZoo AEC loop throughput: pasur_v0 against PettingZoo classic references.

Every env is driven by the same loop (the one in PettingZoo's docs), with uniformly
random legal actions drawn from the action mask, through the standard wrappers
(`env()`), measured in the same process and run:

    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else rng.choice(flatnonzero(mask))
        env.step(action)

Reported: decisions/s (non-None actions) and games/s, median of ``--repeats`` runs
of ``--seconds`` each. Needs the ``bench`` extra (``pettingzoo[classic]``).

    python benchmarks/bench_env.py
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable

import numpy as np


def run_loop(make_env: Callable, seconds: float, seed: int) -> tuple[float, float]:
    env = make_env()
    rng = np.random.default_rng(seed)
    decisions = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset(seed=seed + games)
        for _agent in env.agent_iter():
            obs, reward, termination, truncation, info = env.last()
            if termination or truncation:
                action = None
            else:
                action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
                decisions += 1
            env.step(action)
        games += 1
    dt = time.perf_counter() - start
    env.close()
    return decisions / dt, games / dt


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--seconds", type=float, default=5.0, help="length of one timed run")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json", help="also write the results to this file")
    args = ap.parse_args()

    from pettingzoo.classic import connect_four_v3, texas_holdem_v4

    from pasur_env import pasur_v0

    envs: dict[str, Callable] = {
        "pasur_v0 (2 players, game to 62)": lambda: pasur_v0.env(),
        "pasur_v0 (2 players, episode=round)": lambda: pasur_v0.env(episode="round"),
        "texas_holdem_v4": lambda: texas_holdem_v4.env(),
        "connect_four_v3": lambda: connect_four_v3.env(),
    }
    for make in envs.values():  # warm-up: imports, numba cache loads
        run_loop(make, 0.3, 0)
    results = {}
    for name, make in envs.items():
        runs = [run_loop(make, args.seconds, 1000 * r) for r in range(args.repeats)]
        results[name] = {
            "decisions_per_s": statistics.median(r[0] for r in runs),
            "games_per_s": statistics.median(r[1] for r in runs),
        }
    ref_holdem = results["texas_holdem_v4"]["decisions_per_s"]
    ref_c4 = results["connect_four_v3"]["decisions_per_s"]
    print(
        f"AEC loop with env() wrappers, random legal actions, median of {args.repeats} x "
        f"{args.seconds:g} s\n"
    )
    print("| env | decisions/s | games/s | vs texas_holdem_v4 | vs connect_four_v3 |")
    print("|---|---:|---:|---:|---:|")
    for name, r in results.items():
        print(
            f"| {name} | {r['decisions_per_s']:,.0f} | {r['games_per_s']:,.1f} "
            f"| {r['decisions_per_s'] / ref_holdem:.2f}x | {r['decisions_per_s'] / ref_c4:.2f}x |"
        )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
