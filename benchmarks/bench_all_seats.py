"""All-seats env throughput (``pasur_env.AllSeatsEnv``) beside the raw engine's, both games.

Measured in one process and run, at the same batch size B, with uniformly random legal
actions drawn by the engine's compiled sampler (``engine.random_actions``) in every row:

* ``engine step``: ``eng.step(eng.random_actions(rng))`` on an engine that restarts its
  finished games itself (``auto_reset=True``): the rules alone, no observation;
* ``engine step + observe + mask``: the same plus ``eng.observe()`` and
  ``eng.legal_mask()`` every step: what any env handing out observations and masks
  must at least do (the floor of the all-seats env);
* ``AllSeatsEnv.step``: the env (``reward="diff"``, ``episode="round"``): the checked
  actions, every seat's rewards, episode ends, terminal observations of every seat and
  the same-step restart of finished games, besides the above.

Decisions/s = B x steps / seconds (every row of a step is a decision), the median of
``--repeats`` runs of ``--seconds`` each, after a warm-up (numba cache loads)::

    python benchmarks/bench_all_seats.py [--batch 1024] [--seconds 3] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections.abc import Callable

import numpy as np

from pasur_env import AllSeatsEnv
from pasur_env.games import GAME_IDS, game_info


def _rate(step: Callable[[], object], batch: int, seconds: float) -> float:
    """Decisions/s of ``step`` (one decision in each of ``batch`` games per call)."""
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        step()
        n += 1
    return n * batch / (time.perf_counter() - t0)


def rates(game: str, batch: int, seconds: float, repeats: int) -> dict[str, float]:
    """Decisions/s of ``game``'s engine, engine + observe + mask, and the all-seats env."""
    rng = np.random.default_rng(0)
    eng = game_info(game).engine(batch, seed=0, episode="round")
    env = AllSeatsEnv(game, num_envs=batch, reward="diff", episode="round")
    env.reset(seed=0)

    def engine_step() -> None:
        eng.step(eng.random_actions(rng))

    def engine_observe() -> None:
        eng.step(eng.random_actions(rng))
        eng.observe()
        eng.legal_mask()

    def env_step() -> None:
        env.step(env.engine.random_actions(rng))

    rows = {"engine step": engine_step, "engine step + observe + mask": engine_observe,
            "AllSeatsEnv.step": env_step}
    for step in rows.values():  # warm-up: numba cache loads, past the opening position
        for _ in range(20):
            step()
    return {name: statistics.median(_rate(step, batch, seconds) for _ in range(repeats))
            for name, step in rows.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json", help="also write the results to this file")
    args = ap.parse_args()
    results = {g: rates(g, args.batch, args.seconds, args.repeats) for g in GAME_IDS}
    threads = os.environ.get("NUMBA_NUM_THREADS", "all")
    print(f"B={args.batch}, NUMBA_NUM_THREADS={threads}, random legal actions, median of "
          f"{args.repeats} x {args.seconds:g} s\n")
    print("| game | engine step | engine step + observe + mask | AllSeatsEnv.step "
          "| env / engine step | env / engine + observe + mask |")
    print("|---|---:|---:|---:|---:|---:|")
    for game, r in results.items():
        raw, floor, env = (r["engine step"], r["engine step + observe + mask"],
                           r["AllSeatsEnv.step"])
        print(f"| {game_info(game).title} | {raw:,.0f} | {floor:,.0f} | {env:,.0f} "
              f"| {env / raw:.2f} | {env / floor:.2f} |")
    print("\n(decisions/s)")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"batch": args.batch, "threads": threads, "decisions_per_s": results},
                      f, indent=2)


if __name__ == "__main__":
    main()
