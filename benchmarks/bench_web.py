"""Load on the web table: N concurrent games of every table kind and agent, over HTTP.

Starts ``pasur serve`` in a subprocess (uvicorn, one worker, 127.0.0.1) and reads the
agents each table offers from ``/api/setup``. Then N client threads each play one game:
game ``k`` sits at table kind ``k mod K`` (Pasur with 2, 3 and 4 players, and Persian
Rummy when the server offers it; ``--no-rummy`` leaves it out) with opponents taken in
turn from the agents that table offers, so every agent (``ppo`` at 2-player tables,
``net``, the searches...) plays. The person's seat plays random legal moves, closing
round sheets, until the game ends or the time is up. Every ``move`` request is timed
from the client's side (it includes the agents' answers).

Every kernel is compiled first (``pasur warmup``, in its own process; ``--no-warmup``
leaves it to the server, which then holds the compiler's memory and stalls while it
compiles). The server's resident memory (RSS, from ``/proc``) is read after it starts, after a
warm-up (one game per table kind and agent to its first moves, untimed: compiled
kernels and models loaded), after ``--churn`` games are created and deleted one after
another, and at the end. The server's CPU time (user + system, from ``/proc``) over the
timed run, per move, is less sensitive than the latencies to other processes on the
machine: compare it between checkouts when the machine is not quiet (the clients' CPU
time per move, mostly reading the answers, shares the machine too). ``--agents`` keeps
only the named agents (``NAME`` at every table, ``GAME:NAME`` at that game's), to compare
checkouts that offer different agents.
Any status other than 200/201/204, and any transport error, counts as an error.

    python benchmarks/bench_web.py --games 50 --seconds 120 --churn 1000
    python benchmarks/bench_web.py --games 4 --seconds 10 --churn 20   # a smoke run
    python benchmarks/bench_web.py --agents random,greedy,rollout,pasur:ismcts,pasur:net
"""

from __future__ import annotations

import argparse
import json
import os
import random
import socket
import subprocess
import sys
import threading
import time
from typing import Any

import httpx


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_mb(pid: int) -> float:
    """Resident memory of process ``pid`` in MB (Linux ``/proc``; NaN elsewhere)."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return float("nan")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` in seconds (Linux ``/proc``; NaN elsewhere)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return float("nan")


def compile_kernels() -> float:
    """``pasur warmup`` in its own process: every kernel compiled into the cache before
    the server starts (seconds taken; quick when the cache is warm). A server that
    compiles holds the compiler's memory from then on, and stalls every request while
    it compiles: the figures would measure the compiler, not the server."""
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "agents.apps.cli", "warmup"], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def start_server(port: int, max_games: int) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "agents.apps.cli", "serve", "--port", str(port),
           "--max-games", str(max_games)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    base = f"http://127.0.0.1:{port}"
    for _ in range(1200):
        try:
            if httpx.get(f"{base}/api/setup", timeout=60).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("the server did not start: " + proc.stderr.read().decode()[-2000:])


def table_kinds(setup: dict[str, Any], rummy: bool,
                agents: list[str] | None = None) -> list[tuple[str, int, list[str]]]:
    """(game, players, offered agents) of every table kind the benchmark mixes (only
    ``agents`` among them, when given: a name, or ``game:name`` for that game's tables)."""
    games = setup.get("games", {"pasur": {"players": [2, 3, 4], "offered": setup["offered"]}})
    kinds = [("pasur", p, games["pasur"]["offered"][str(p)]) for p in (2, 3, 4)]
    if rummy and "persian_rummy" in games:
        kinds.append(("persian_rummy", 4, games["persian_rummy"]["offered"]["4"]))
    if agents:
        kinds = [(g, p, [a for a in offered if a in agents or f"{g}:{a}" in agents])
                 for g, p, offered in kinds]
        empty = [f"{g} {p}p" for g, p, offered in kinds if not offered]
        if empty:
            raise SystemExit(f"--agents leaves no agent at {', '.join(empty)}")
    return kinds


def start_body(k: int, kind: tuple[str, int, list[str]], target: int) -> dict[str, Any]:
    game, players, offered = kind
    opponents = [offered[(k + j) % len(offered)] for j in range(players - 1)]
    body: dict[str, Any] = {"game": game, "players": players, "opponents": opponents,
                            "seed": 1000 + k}
    if game == "pasur":
        body["flags"] = {"target_score": target}
    return body


def next_move(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A random legal move of the person (Pasur ``{card, take}``, Rummy ``{action}``)."""
    legal = view["legal"]
    if view.get("game") == "persian_rummy":
        return {"action": rng.choice(legal["actions"]), "version": view["version"]}
    card = rng.choice(sorted(legal))
    opts = legal[card]
    return {"card": card, "take": rng.choice(opts) if opts else [], "version": view["version"]}


def play_game(c: httpx.Client, body: dict[str, Any], deadline: float, out: dict) -> None:
    rng = random.Random(body["seed"])
    kind = f"{body['game']} {body['players']}p"
    r = c.post("/api/games", json=body)
    if r.status_code != 201:
        out["errors"].append(f"start {body['opponents']} {r.status_code}: {r.text[:200]}")
        return
    gid, view = r.json()["id"], r.json()["view"]
    while view["phase"] != "over" and time.time() < deadline:
        if view["phase"] == "round_over":
            r = c.post(f"/api/games/{gid}/continue")
        else:
            t0 = time.perf_counter()
            r = c.post(f"/api/games/{gid}/move", json=next_move(view, rng))
            out["latency"].setdefault(kind, []).append(time.perf_counter() - t0)
        if r.status_code != 200:
            out["errors"].append(f"{kind} {body['opponents']} {r.status_code}: {r.text[:200]}")
            return
        view = r.json()
    out["finished"] += view["phase"] == "over"
    c.delete(f"/api/games/{gid}")


def warm_up(base: str, kinds: list[tuple[str, int, list[str]]], out: dict) -> None:
    """One game of each kind and agent to its first moves, untimed: the compiled kernels
    (numba's cache or first compilation) and the models are loaded before the run."""
    with httpx.Client(base_url=base, timeout=900) as c:
        for kind in kinds:
            for k in range(len(kind[2])):
                play_game(c, start_body(k, kind, 31), time.time() + 1.0,
                          {"latency": {}, "errors": out["errors"], "finished": 0})


def churn(base: str, n: int, out: dict) -> None:
    """Create and delete ``n`` games one after another (2-player, greedy)."""
    with httpx.Client(base_url=base, timeout=120) as c:
        for k in range(n):
            r = c.post("/api/games", json={"opponents": ["greedy"], "seed": k})
            if r.status_code != 201:
                out["errors"].append(f"churn {r.status_code}: {r.text[:200]}")
                return
            if c.delete(f"/api/games/{r.json()['id']}").status_code != 204:
                out["errors"].append("churn: delete refused")


def pct(lat: list[float], q: float) -> float:
    lat = sorted(lat)
    return round(1000 * lat[min(len(lat) - 1, int(q * len(lat)))], 1) if lat else float("nan")


def run(games: int, seconds: float, churn_games: int, rummy: bool, target: int,
        agents: list[str] | None = None, warmup: bool = True) -> dict:
    compiled = round(compile_kernels(), 1) if warmup else None
    port = free_port()
    proc = start_server(port, max_games=max(200, games + 10))
    base = f"http://127.0.0.1:{port}"
    out: dict[str, Any] = {"latency": {}, "errors": [], "finished": 0}
    try:
        rss = {"after start": rss_mb(proc.pid)}
        setup = httpx.get(f"{base}/api/setup", timeout=60).json()
        kinds = table_kinds(setup, rummy, agents)
        warm_up(base, kinds, out)
        rss["after warm-up"] = rss_mb(proc.pid)
        churn(base, churn_games, out)
        rss[f"after {churn_games:,} games created and deleted"] = rss_mb(proc.pid)
        deadline = time.time() + seconds

        def one(k: int) -> None:
            with httpx.Client(base_url=base, timeout=600) as c:
                try:
                    play_game(c, start_body(k, kinds[k % len(kinds)], target), deadline, out)
                except httpx.HTTPError as e:
                    out["errors"].append(f"transport: {e!r}")

        threads = [threading.Thread(target=one, args=(k,)) for k in range(games)]
        t0, cpu0, mine0 = time.perf_counter(), cpu_seconds(proc.pid), time.process_time()
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=seconds + 900)
        wall, cpu = time.perf_counter() - t0, cpu_seconds(proc.pid) - cpu0
        clients = time.process_time() - mine0
        rss["at the end"] = rss_mb(proc.pid)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    every = [x for v in out["latency"].values() for x in v]
    rows = {kind: {"moves": len(v), "p50_ms": pct(v, 0.5), "p95_ms": pct(v, 0.95),
                   "p99_ms": pct(v, 0.99)} for kind, v in sorted(out["latency"].items())}
    rows["all"] = {"moves": len(every), "p50_ms": pct(every, 0.5), "p95_ms": pct(every, 0.95),
                   "p99_ms": pct(every, 0.99)}
    return {"games": games, "kinds": [f"{g} {p}p" for g, p, _ in kinds], "warmup_s": compiled,
            "agents": sorted({a for *_, offered in kinds for a in offered}),
            "seconds": round(wall, 1), "moves_per_s": round(len(every) / wall, 1),
            "server_cpu_s": round(cpu, 1),
            "server_cpu_ms_per_move": round(1000 * cpu / max(len(every), 1), 2),
            "client_cpu_ms_per_move": round(1000 * clients / max(len(every), 1), 2),
            "latency": rows, "rss_mb": rss, "finished_games": out["finished"],
            "errors": len(out["errors"]), "first_errors": out["errors"][:5]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=50, help="concurrent games (default 50)")
    ap.add_argument("--seconds", type=float, default=120.0, help="time limit of the games")
    ap.add_argument("--churn", type=int, default=1000,
                    help="games created and deleted before the run (default 1000)")
    ap.add_argument("--target-score", type=int, default=31,
                    help="Pasur games' target score (default 31: a few rounds)")
    ap.add_argument("--no-rummy", dest="rummy", action="store_false",
                    help="leave Persian Rummy tables out")
    ap.add_argument("--agents", help="comma-separated agents: only these sit at the tables, "
                    "NAME at every game's, GAME:NAME at that game's (default: every agent "
                    "each table offers)")
    ap.add_argument("--no-warmup", dest="warmup", action="store_false",
                    help="start the server without compiling the kernels first "
                    "(`pasur warmup`): with an empty cache it compiles them itself")
    ap.add_argument("--json", help="also write the results to this file")
    args = ap.parse_args()
    agents = [a.strip() for a in args.agents.split(",") if a.strip()] if args.agents else None
    r = run(args.games, args.seconds, args.churn, args.rummy, args.target_score, agents,
            args.warmup)
    if r["warmup_s"] is not None:
        print(f"kernels compiled first (pasur warmup): {r['warmup_s']} s")
    print(f"{r['games']} games over {', '.join(r['kinds'])}; agents: {', '.join(r['agents'])}")
    print(f"{r['seconds']} s, {r['moves_per_s']} moves/s, {r['finished_games']} games finished, "
          f"{r['errors']} errors {r['first_errors'] or ''}")
    print(f"server CPU: {r['server_cpu_s']} s, {r['server_cpu_ms_per_move']} ms per move; "
          f"the clients' (reading the answers): {r['client_cpu_ms_per_move']} ms per move")
    print("| table | moves | p50 ms | p95 ms | p99 ms |\n|---|---:|---:|---:|---:|")
    for kind, row in r["latency"].items():
        print(f"| {kind} | {row['moves']:,} | {row['p50_ms']} | {row['p95_ms']} | "
              f"{row['p99_ms']} |")
    print("server RSS: " + "; ".join(f"{k}: {v} MB" for k, v in r["rss_mb"].items()))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(r, fh, indent=2)


if __name__ == "__main__":
    main()
