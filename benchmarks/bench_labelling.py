"""Labelling throughput of the move-network pipeline (``train.move_net``): labelled
decisions per second of each game's labeller as the pipeline runs it, next to the game's
engine playing random moves, measured in the same process and run.

Each game (``--game``, default: every game of ``train.move_net.games.NET_GAMES``) is
labelled with the settings of its own run, ``make train GAME=<id>`` (the named
configuration its plug-in names, ``NetGame.config``: Pasur's label budget, horizon and
exploration, Persian Rummy's determinizations, each game's batch of games and opponent
mix), seeded by ``--seed``:

* *first iteration*: ``train.move_net.pipeline.label`` as the run calls it in its first
  iteration, the opponent mix without the network; it plays whole batches of the run's
  size until ``--decisions`` are labelled, so the figure is over at least one batch;
* *with the network*: ``train.move_net.pipeline.net_labelling``, the budget's measure of
  the later iterations (one batch of at most 64 games against the whole mix, a network
  of the run's width among the opponents: here an untrained one, which costs the same
  per move as a trained one);
* with ``--config NAME`` (repeatable) the named configurations given instead of the
  game's own, each labelled in the same run (``--config default --config long``: Pasur's
  ``make train`` and ``make train-long`` labels, 120 rollouts per decision one deal deep
  and 240 two deals deep); a configuration may be followed by flags of the pipeline in
  the same quoted argument (``--config default --config "default --no-label-endgame"``:
  the labels with and without the exact last deal);
* *reference*: the game's engine playing uniformly random legal moves in one compiled
  loop (``playout``, ``--playout-batch`` games; the median of 3 runs of
  ``--playout-seconds``).

Why this reference: labelling is search, and search costs simulated engine steps.
Each labelled decision plays ``label_budget`` rollouts (Pasur: spread over the candidate
moves, one or two deals deep, the heuristic playing; Persian Rummy: every candidate played out
by greedy on each determinization). The playout rate is the speed of those engine steps
with no policy on top, on the same machine at the same moment, so the ratio
*engine decisions per labelled decision* (playout rate / labelling rate) is a cost that
the machine's speed and load mostly cancel out of: it says how far labelling is from the
bare simulation, and a change to the rollouts or to the labeller's own work moves it.
(An agent's rate, ``ismcts``'s say, would add a tree search and a budget the labels do
not use.) The table also gives the bytes per labelled decision of the data as the run
saves it (compressed) and as arrays in memory.

Compilation and the numba cache loads happen first, in a warm-up batch of 2 games of
each path and the parallel builds of the kernels it ran, timed apart. Run with one
numba thread for a single-core figure::

    NUMBA_NUM_THREADS=1 python benchmarks/bench_labelling.py
    NUMBA_NUM_THREADS=1 python benchmarks/bench_labelling.py --game pasur --json lab.json
    python benchmarks/bench_labelling.py --game pasur --config default --config long
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shlex
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pasur_env.core.compile import warm_parallel_twins  # noqa: E402
from pasur_env.games import game_info  # noqa: E402
from train.move_net.games import NET_GAMES, net_game  # noqa: E402
from train.move_net.pipeline import Args, State, label, net_labelling, parse_args  # noqa: E402


def settings(game: str, seed: int, config: str | None = None) -> Args:
    """The settings of ``game``'s own run (its plug-in's named configuration), or of the
    named ``config`` followed by any flags of ``train.move_net`` (``"default
    --no-label-endgame"``), no bars."""
    name, *flags = shlex.split(config) if config else [net_game(game).config]
    return parse_args(["--config", name, *flags, "--seed", str(seed), "--no-progress"])


def configs_of(game: str, asked: list[str] | None) -> list[str]:
    """The configurations to label ``game`` with: those of ``asked`` that are the game's
    (all of them when none is), else the game's own."""
    if not asked:
        return [net_game(game).config]
    return [c for c in asked if settings(game, 0, c).game == game]


def labelling_rates(args: Args, decisions: int) -> dict[str, float]:
    """Labelled decisions per second in the first iteration (``decisions`` or more, whole
    batches) and with the network among the opponents (0 when the mix has none), and
    the bytes per decision of the data compressed and in memory."""
    game = net_game(args.game)
    t0 = time.perf_counter()
    data = label(args, game, State(), decisions, None)
    seconds = time.perf_counter() - t0
    net = game.net_class().init(data.obs.shape[1], args.hidden, args.hidden // 2,
                                seed=args.seed, num_players=args.players)
    return {"decisions": len(data), "seconds": seconds,
            "first_iteration": len(data) / seconds,
            "with_net": net_labelling(args, game, net, time.perf_counter),
            "bytes_per_decision": len(data.to_bytes()) / len(data),
            "array_bytes_per_decision": data.nbytes / len(data)}


def playout_rate(args: Args, batch: int, seconds: float, repeats: int = 3) -> float:
    """Decisions/s of the game's engine (``args.players`` players) playing uniformly
    random legal moves in one compiled loop: the median of ``repeats`` runs."""
    eng = game_info(args.game).engine(batch, players=args.players, seed=args.seed,
                                      episode="round")
    eng.playout(2, seed=0)  # compile / load the cache
    runs = []
    for r in range(repeats):
        steps, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            eng.playout(16, seed=1 + r * 1_000_000 + steps)
            steps += 16
        runs.append(steps * batch / (time.perf_counter() - t0))
    return statistics.median(runs)


def measure(game: str, decisions: int, seed: int, playout_batch: int,
            playout_seconds: float, config: str | None = None) -> dict[str, Any]:
    """Every figure of one game and configuration (module docstring), after a warm-up."""
    args = settings(game, seed, config)
    t0 = time.perf_counter()
    labelling_rates(dataclasses.replace(args, batch=2), 1)
    warm_parallel_twins()  # a batch of 2 runs the serial builds; the run's the parallel
    warm = time.perf_counter() - t0
    return {"game": game, "config": config or args.config,
            "labels": net_game(game).label_text(args),
            "batch": args.batch, "opponent_mix": args.opponent_mix, "warm_up_s": warm,
            **labelling_rates(args, decisions),
            "playout": playout_rate(args, playout_batch, playout_seconds)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", choices=list(NET_GAMES), action="append",
                    help="a game to label (repeat for more; default: every game)")
    ap.add_argument("--decisions", type=int, default=6000,
                    help="first-iteration decisions to label, in whole batches of the "
                         "run's size (default 6000: Pasur one batch of 256 games, about "
                         "a minute on one core; Persian Rummy three of 64, some 15 s)")
    ap.add_argument("--config", action="append",
                    help="a named configuration of train.move_net to label with instead of "
                         "the game's own, optionally followed by its flags in one quoted "
                         "argument (\"default --no-label-endgame\"); repeat to compare; "
                         "those of other games are skipped")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--playout-batch", type=int, default=1024)
    ap.add_argument("--playout-seconds", type=float, default=2.0)
    ap.add_argument("--json", help="also write the results to this file")
    args = ap.parse_args()
    if args.decisions < 1:
        ap.error(f"--decisions must be positive, got {args.decisions}")

    # an unknown --config is refused by train.move_net's own parser (settings)
    rows = [measure(g, args.decisions, args.seed, args.playout_batch, args.playout_seconds, c)
            for g in args.game or list(NET_GAMES) for c in configs_of(g, args.config)]
    if not rows:
        ap.error(f"none of --config {', '.join(args.config)} is a configuration of "
                 f"{', '.join(args.game or NET_GAMES)}")
    threads = os.environ.get("NUMBA_NUM_THREADS", "all")
    print(f"Labelling as train.move_net runs it, NUMBA_NUM_THREADS={threads}, "
          f"seed {args.seed}\n")
    print("| game (configuration) | labelled decisions (first iteration) "
          "| first iteration decisions/s | with the network decisions/s "
          "| random playout decisions/s | engine decisions per labelled decision "
          "| bytes/decision saved (in memory) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        net = f"{r['with_net']:,.1f}" if r["with_net"] else "-"
        print(f"| {r['game']} ({r['config']}) | {r['decisions']:,} in {r['seconds']:.1f} s "
              f"| {r['first_iteration']:,.1f} | {net} | {r['playout']:,.0f} "
              f"| {r['playout'] / r['first_iteration']:,.0f} "
              f"| {r['bytes_per_decision']:,.0f} ({r['array_bytes_per_decision']:,.0f}) |")
    print()
    for r in rows:
        print(f"{r['game']} (--config {r['config']}): {r['labels']}; batches of "
              f"{r['batch']} games; opponents {r['opponent_mix']}; warm-up "
              f"{r['warm_up_s']:.1f} s")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
