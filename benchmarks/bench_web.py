"""Load on the web table: N concurrent games played through HTTP on loopback.

Starts ``pasur serve`` in a subprocess (uvicorn, one worker, 127.0.0.1), then N client
threads each start a game (2 players, the opponent given) and play the person's seat
with random legal moves (closing round sheets as they come) until the game ends or
the time is up. Every ``move`` request is timed from the client's side (it includes the
opponent's answer); the figures are the latency percentiles, the requests per second
and the errors (any status other than 200/201, or a transport error).

    python benchmarks/bench_web.py --games 50 --opponent greedy --seconds 60
"""

from __future__ import annotations

import argparse
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import threading
import time

import httpx


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int, max_games: int) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "agents.apps.cli", "serve", "--port", str(port),
           "--max-games", str(max_games)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    base = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            if httpx.get(f"{base}/api/setup", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("the server did not start: " + proc.stderr.read().decode()[-2000:])


def play_game(base: str, opponent: str, seed: int, deadline: float, out: dict) -> None:
    rng = random.Random(seed)
    with httpx.Client(base_url=base, timeout=120) as c:
        try:
            r = c.post("/api/games", json={"opponents": [opponent], "seed": seed})
            if r.status_code != 201:
                out["errors"].append(f"start {r.status_code}: {r.text[:200]}")
                return
            gid, view = r.json()["id"], r.json()["view"]
            while view["phase"] != "over" and time.time() < deadline:
                if view["phase"] == "round_over":
                    r = c.post(f"/api/games/{gid}/continue")
                else:
                    card = rng.choice(sorted(view["legal"]))
                    opts = view["legal"][card]
                    t0 = time.perf_counter()
                    r = c.post(f"/api/games/{gid}/move",
                               json={"card": card, "take": rng.choice(opts) if opts else []})
                    out["latency"].append(time.perf_counter() - t0)
                if r.status_code != 200:
                    out["errors"].append(f"{r.status_code}: {r.text[:200]}")
                    return
                view = r.json()
            out["finished"] += view["phase"] == "over"
        except httpx.HTTPError as e:
            out["errors"].append(f"transport: {e!r}")


def run(games: int, opponent: str, seconds: float) -> dict:
    port = free_port()
    proc = start_server(port, max_games=max(200, games))
    base = f"http://127.0.0.1:{port}"
    out = {"latency": [], "errors": [], "finished": 0}
    deadline = time.time() + seconds
    threads = [threading.Thread(target=play_game, args=(base, opponent, 1000 + k, deadline, out))
               for k in range(games)]
    t0 = time.perf_counter()
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=seconds + 120)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    wall = time.perf_counter() - t0
    lat = sorted(out["latency"])

    def pct(q: float) -> float:
        return 1000 * lat[min(len(lat) - 1, int(q * len(lat)))] if lat else float("nan")

    return {"games": games, "opponent": opponent, "seconds": round(wall, 1),
            "moves": len(lat), "moves_per_s": round(len(lat) / wall, 1),
            "p50_ms": round(pct(0.50), 1), "p95_ms": round(pct(0.95), 1),
            "p99_ms": round(pct(0.99), 1),
            "mean_ms": round(1000 * statistics.fmean(lat), 1) if lat else None,
            "finished_games": out["finished"], "errors": len(out["errors"]),
            "first_errors": out["errors"][:3]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=50, help="concurrent games (default 50)")
    ap.add_argument("--opponent", action="append", default=None,
                    help="opponent agent (repeat for several runs; default greedy and ppo)")
    ap.add_argument("--seconds", type=float, default=60.0, help="time limit of a run")
    ap.add_argument("--json", help="also write the results to this file")
    args = ap.parse_args()
    results = [run(args.games, opp, args.seconds) for opp in (args.opponent or ["greedy", "ppo"])]
    print("| games | opponent | moves | moves/s | p50 ms | p95 ms | p99 ms | finished | errors |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        print(f"| {r['games']} | {r['opponent']} | {r['moves']:,} | {r['moves_per_s']} | "
              f"{r['p50_ms']} | {r['p95_ms']} | {r['p99_ms']} | {r['finished_games']} | "
              f"{r['errors']} |")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=2)


if __name__ == "__main__":
    main()
