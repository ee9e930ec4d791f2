"""Persian Rummy throughput: the batched engine and the AEC env, next to the references.

Measured in one process and run:

* engine, ``step``: ``eng.step(eng.random_actions(rng))`` at batch B (one Python call
  per decision of all B games; the sampler draws from the legal actions in compiled
  code), from the 20th decision on (as ``bench_engine.py``'s step API figure);
* engine, ``playout``: the random playout inside one compiled loop;
* the same two for Pasur's engine (``pasur_env.Engine``, B games), in the same run, so
  the two engines are compared on the same machine at the same moment;
* AEC: ``persian_rummy_v0.env()`` (and its ``raw_env``) driven by the loop of
  ``benchmarks/bench_env.py`` with random legal actions, next to ``texas_holdem_v4`` and
  the null env (no game: the ceiling of any env through PettingZoo's wrappers and this
  loop), each the median of ``--repeats`` runs of ``--seconds``.

Run with one numba thread for the single-thread engine figure::

    NUMBA_NUM_THREADS=1 python benchmarks/bench_rummy.py
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_env import null_env, run_loop  # noqa: E402


def engine_rates(batch: int, seconds: float, repeats: int,
                 game: str = "persian_rummy") -> dict[str, float]:
    """Decisions/s of ``game``'s engine at ``batch`` (step API and compiled playout)."""
    if game == "persian_rummy":
        from pasur_env.rummy import RummyEngine

        eng = RummyEngine(batch, seed=0, episode="round")
    elif game == "pasur":
        from pasur_env import Engine

        eng = Engine(batch, seed=0)
    else:
        raise ValueError(f"game must be 'persian_rummy' or 'pasur', got {game!r}")
    rng = np.random.default_rng(0)
    for _ in range(20):  # compile / load the cache, and leave the opening position
        eng.step(eng.random_actions(rng))
    eng.playout(2)
    step_runs, playout_runs = [], []
    for _ in range(repeats):
        n, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            eng.step(eng.random_actions(rng))
            n += 1
        step_runs.append(n * batch / (time.perf_counter() - t0))
        steps = max(1, int(n))
        t0 = time.perf_counter()
        eng.playout(steps, seed=n)
        playout_runs.append(steps * batch / (time.perf_counter() - t0))
    return {"step": statistics.median(step_runs), "playout": statistics.median(playout_runs)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--batch", type=int, default=4096)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json", help="also write the results to this file")
    ap.add_argument("--engines-only", action="store_true",
                    help="only the two engines (no AEC loop)")
    args = ap.parse_args()

    from pettingzoo.classic import texas_holdem_v4

    from pasur_env import persian_rummy_v0

    threads = os.environ.get("NUMBA_NUM_THREADS", "all")
    results: dict = {"engine": engine_rates(args.batch, args.seconds, args.repeats),
                     "pasur_engine": engine_rates(args.batch, args.seconds, args.repeats,
                                                  game="pasur")}
    envs = {} if args.engines_only else {
        "persian_rummy_v0 (game of 2 deals)": persian_rummy_v0.env,
        "texas_holdem_v4": texas_holdem_v4.env,
        "null env (no game; wrapper + loop ceiling)": null_env,
        "persian_rummy_v0.raw_env": persian_rummy_v0.raw_env,
        "texas_holdem_v4.raw_env": texas_holdem_v4.raw_env,
    }
    for make in envs.values():  # warm-up: imports, numba cache loads
        run_loop(make, 0.3, 0)
    for name, make in envs.items():
        runs = [run_loop(make, args.seconds, 1000 * r) for r in range(args.repeats)]
        results[name] = {"decisions_per_s": statistics.median(r[0] for r in runs),
                         "games_per_s": statistics.median(r[1] for r in runs)}
    eng, ref = results["engine"], results["pasur_engine"]
    print(f"Engines, B={args.batch}, NUMBA_NUM_THREADS={threads}, random legal play, median "
          f"of {args.repeats} x {args.seconds:g} s\n")
    print("| engine | step API decisions/s | compiled playout decisions/s |")
    print("|---|---:|---:|")
    print(f"| Persian Rummy | {eng['step']:,.0f} | {eng['playout']:,.0f} |")
    print(f"| Pasur | {ref['step']:,.0f} | {ref['playout']:,.0f} |")
    print(f"| Persian Rummy / Pasur | {eng['step'] / ref['step']:.2f} "
          f"| {eng['playout'] / ref['playout']:.2f} |\n")
    if envs:
        print(f"AEC loop, random legal actions, median of {args.repeats} x {args.seconds:g} s\n")
        print("| env | decisions/s | us/decision | games/s | vs texas_holdem_v4 (same wrapping) |")
        print("|---|---:|---:|---:|---:|")
    for name in envs:
        r = results[name]
        base = results["texas_holdem_v4" + (".raw_env" if "raw_env" in name else "")]
        d = r["decisions_per_s"]
        print(f"| {name} | {d:,.0f} | {1e6 / d:.1f} | {r['games_per_s']:,.2f} "
              f"| {d / base['decisions_per_s']:.2f}x |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
