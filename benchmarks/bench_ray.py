"""The strong pipeline on Ray: labelling throughput with 1 and 2 workers, and a ladder's
wall time here and on the cluster, on a local two-node cluster (one CPU per node).

Run in the Ray venv from the repository root (docs/distributed.md quotes its output)::

    .venv-rllib/bin/python benchmarks/bench_ray.py labelling --decisions 6000
    .venv-rllib/bin/python benchmarks/bench_ray.py ladder random greedy heuristic ismcts net \
        --rounds 400

``labelling`` labels the same shards (``train.move_net``'s settings: 240 rollouts, a 2-deal
horizon, the default opponent mix) with 1 worker, then with 2, after a warm-up shard
on each node; both give the same data, so the rates compare like with like.
``ladder`` plays ``pasur tournament`` here (numba's threads on every core), then with
the pairs as Ray tasks, and checks that the figures agree.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.evaluation.distributed import quiet_ray_environment, ray_tmpdir  # noqa: E402

MIX = {"self": 1.0, "heuristic": 1.0, "greedy": 0.5, "random": 0.25}


@contextlib.contextmanager
def two_nodes() -> Iterator[None]:
    """A head and a worker node of one CPU each on loopback, the driver connected."""
    import ray
    from ray.cluster_utils import Cluster

    quiet_ray_environment()
    with ray_tmpdir():
        cluster = Cluster(initialize_head=True,
                          head_node_args={"num_cpus": 1, "include_dashboard": False})
        try:
            cluster.add_node(num_cpus=1)
            ray.init(address=cluster.address, log_to_driver=False)
            try:
                yield
            finally:
                ray.shutdown()
        finally:
            cluster.shutdown()


def _timed_shard(job: object, shard: int) -> tuple[object, float]:
    """A labelling shard in a Ray task, and the CPU seconds the task took."""
    from train.move_net.distributed import _label_shard_task

    t0 = time.process_time()
    data = _label_shard_task(job, shard)  # type: ignore[arg-type]
    return data, time.process_time() - t0


def cpu_tasks() -> object:
    """Labelling tasks that also add up their CPU seconds (``.cpu``): a rate that a
    loaded machine does not change, next to the wall-clock one that it does."""
    from agents.evaluation.distributed import RayTasks

    class CpuTasks(RayTasks):
        cpu = 0.0

        def next(self) -> tuple[object, object]:
            key, (data, cpu) = super().next()
            self.cpu += cpu
            return key, data

    return CpuTasks(_timed_shard)


def labelling(decisions: int, batch: int, budget: int) -> None:
    """Labelled decisions per second with 1 and 2 workers (same shards, same data)."""
    from train.move_net.distributed import LabelJob, label_sharded

    job = LabelJob(7001, 2, budget, 0.05, None, 2, batch, MIX)
    warm = LabelJob(9001, 2, budget, 0.05, None, 2, batch, MIX)
    with two_nodes():
        label_sharded(warm, 30 * batch, cpu_tasks(), 2)  # two shards: a warm worker per node
        out = {}
        for workers in (1, 2):
            tasks = cpu_tasks()
            t0 = time.perf_counter()
            data = label_sharded(job, decisions, tasks, workers)
            seconds = time.perf_counter() - t0
            out[workers] = data
            print(f"{workers} worker(s): {len(data):,} decisions in {seconds:.1f} s = "
                  f"{len(data) / seconds:.1f} labelled decisions/s; the workers' CPU: "
                  f"{tasks.cpu:.1f} s, {len(data) / tasks.cpu:.1f} decisions per CPU-second")
        same = all((getattr(out[1], f) == getattr(out[2], f)).all()
                   for f in ("obs", "offsets", "feats", "values", "states"))
        print(f"same data with 1 and 2 workers: {same}")


def ladder(agents: list[str], rounds: int) -> None:
    """A tournament's wall time here, then with its pairs on the cluster."""
    from agents.evaluation.distributed import play_pairs_on_ray
    from agents.evaluation.tournament import tournament

    t0 = time.perf_counter()
    here = tournament(agents, rounds=rounds, progress=False)
    local_s = time.perf_counter() - t0
    print(f"here: {local_s:.1f} s wall")
    with two_nodes():
        t0 = time.perf_counter()
        far = tournament(agents, rounds=rounds, progress=False, run_pairs=play_pairs_on_ray)
        ray_s = time.perf_counter() - t0
    print(f"two 1-CPU nodes: {ray_s:.1f} s wall")
    print(f"same ladder: {bool((here.elo == far.elo).all() and (here.diff == far.diff).all())}")
    print(here.table())


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="what", required=True)
    lab = sub.add_parser("labelling")
    lab.add_argument("--decisions", type=int, default=6000)
    lab.add_argument("--games-per-shard", type=int, default=64)
    lab.add_argument("--label-budget", type=int, default=240)
    lad = sub.add_parser("ladder")
    lad.add_argument("agents", nargs="+")
    lad.add_argument("--rounds", type=int, default=400)
    args = p.parse_args()
    if args.what == "labelling":
        labelling(args.decisions, args.games_per_shard, args.label_budget)
    else:
        ladder(args.agents, args.rounds)


if __name__ == "__main__":
    main()
