"""Throughput of the batched engine under uniformly random legal play.

Three ways of driving B games, each timed as the median of ``--repeats`` runs:

* ``step``: the public API, one Python call per decision for all B games:
  ``engine.step(engine.random_actions(rng))`` (the sampler draws uniformly from each
  game's legal-action mask inside a compiled kernel, with numpy uniforms).
* ``mask+numpy``: ``engine.legal_mask()`` then a vectorised numpy draw
  (``argmax(mask * uniform)``), then ``engine.step`` — what a user's own policy costs.
* ``playout``: the whole random playout inside one compiled loop (no Python per step).

Each thread count runs in its own process, because numba fixes its thread pool at
import (``NUMBA_NUM_THREADS``). Compile/cache-load time is reported separately.

    python benchmarks/bench_engine.py                   # the README table
    python benchmarks/bench_engine.py --batch-sizes 1 4096 --threads 1
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def _measure(batch: int, repeats: int, decisions: int) -> dict:
    import numpy as np

    from pasur_env import Engine

    t0 = time.perf_counter()
    warm = Engine(2, seed=0)
    warm.step(warm.random_actions(np.random.default_rng(0)))
    warm.legal_mask()
    warm.playout(10)
    big = Engine(max(batch, 2), seed=0)  # parallel kernels compile/load on first use
    big.step(big.random_actions(np.random.default_rng(0)))
    big.legal_mask()
    big.playout(2)
    compile_s = time.perf_counter() - t0

    steps = int(min(20000, max(100, decisions // batch)))
    out: dict = {"batch": batch, "steps": steps, "compile_s": compile_s}

    def run_step(eng, rng, steps):
        rounds = 0
        t = time.perf_counter()
        for _ in range(steps):
            rounds += int(eng.step(eng.random_actions(rng)).round_end.sum())
        return time.perf_counter() - t, rounds

    def run_mask(eng, rng, steps):
        rounds = 0
        t = time.perf_counter()
        for _ in range(steps):
            mask = eng.legal_mask()
            acts = np.argmax(mask * rng.random(mask.shape, dtype=np.float32), axis=1)
            rounds += int(eng.step(acts).round_end.sum())
        return time.perf_counter() - t, rounds

    def run_playout(eng, rng, steps):
        t = time.perf_counter()
        rounds = eng.playout(steps, seed=int(rng.integers(1 << 30)))
        return time.perf_counter() - t, rounds

    for name, fn in (("step", run_step), ("mask+numpy", run_mask), ("playout", run_playout)):
        # the numpy path is slow: a quarter of the steps, same statistics
        n = max(100, steps // 4) if name == "mask+numpy" else steps
        rates, rrates = [], []
        for r in range(repeats):
            eng = Engine(batch, seed=r)
            rng = np.random.default_rng(r)
            for _ in range(20):  # leave the opening position
                eng.step(eng.random_actions(rng))
            dt, rounds = fn(eng, rng, n)
            rates.append(batch * n / dt)
            rrates.append(rounds / dt)
        out[name] = {
            "decisions_per_s": statistics.median(rates),
            "rounds_per_s": statistics.median(rrates),
        }
    return out


def _compile_time() -> float:
    """Seconds for the first calls (import excluded) in a process with an empty numba cache."""
    code = (
        "import time, numpy as np\n"
        "from pasur_env import Engine\n"
        "t = time.perf_counter()\n"
        "e = Engine(2, seed=0); e.step(e.random_actions(np.random.default_rng(0)))\n"
        "e.legal_mask(); e.playout(10)\n"
        "print(time.perf_counter() - t)\n"
    )
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, NUMBA_NUM_THREADS="1")
        out = subprocess.run([sys.executable, "-c", code], env=env, check=True,
                             capture_output=True, text=True)
    return float(out.stdout.strip().splitlines()[-1])


def _worker(args: argparse.Namespace) -> None:
    results = [_measure(b, args.repeats, args.decisions) for b in args.batch_sizes]
    print(json.dumps(results))


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--batch-sizes", type=int, nargs="+", default=[1, 256, 4096, 16384])
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument(
        "--decisions",
        type=int,
        default=2_000_000,
        help="decisions per timed run (steps = decisions / B, within 100..20000)",
    )
    ap.add_argument("--json", help="also write the results to this file")
    ap.add_argument("--_worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args._worker:
        _worker(args)
        return

    rows = []
    for threads in args.threads:
        env = dict(os.environ, NUMBA_NUM_THREADS=str(threads))
        cmd = [
            sys.executable,
            __file__,
            "--_worker",
            "--repeats",
            str(args.repeats),
            "--decisions",
            str(args.decisions),
            "--batch-sizes",
            *map(str, args.batch_sizes),
        ]
        res = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True)
        for r in json.loads(res.stdout.strip().splitlines()[-1]):
            r["threads"] = threads
            rows.append(r)

    print(f"pasur_env engine, uniformly random legal play, median of {args.repeats} runs\n")
    print(
        "| B | threads | step API decisions/s | step API rounds/s | mask+numpy decisions/s "
        "| compiled playout decisions/s | compiled playout rounds/s |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(
            f"| {r['batch']} | {r['threads']} | {r['step']['decisions_per_s']:,.0f} "
            f"| {r['step']['rounds_per_s']:,.0f} | {r['mask+numpy']['decisions_per_s']:,.0f} "
            f"| {r['playout']['decisions_per_s']:,.0f} | {r['playout']['rounds_per_s']:,.0f} |"
        )
    comp = {r["threads"]: r["compile_s"] for r in rows}
    cold = _compile_time()
    print(
        f"\ncompile time (empty numba cache, serial kernels): {cold:.1f} s; first calls "
        "with a warm cache: " + ", ".join(f"{t} thread(s): {s:.2f} s" for t, s in comp.items())
    )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
