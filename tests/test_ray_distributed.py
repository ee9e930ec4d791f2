"""The strong pipeline on Ray: sharded search labelling (``train.move_net --address``),
``pasur eval`` and ``pasur tournament`` with ``--address``, a killed worker, a killed
driver resumed, on a local two-node cluster (``ray.cluster_utils.Cluster``, one CPU
per node, as the RLlib test).

Needs the Ray venv (``make rllib``); ``make test-rllib`` runs these with the RLlib
tests and fails if any is skipped. Ray's temporary files go to a folder removed
afterwards; the last test checks that nothing of Ray is left behind.
"""

from __future__ import annotations

import json
import os
import pathlib
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

ray = pytest.importorskip("ray", reason="Ray is not installed (make rllib)")

from agents.apps.cli import main as pasur  # noqa: E402
from agents.evaluation.distributed import (  # noqa: E402
    evaluate_on_ray,
    quiet_ray_environment,
    ray_tmpdir,
)
from agents.evaluation.match import evaluate  # noqa: E402
from train.move_net import pipeline as train_net  # noqa: E402
from train.move_net.data import Dataset, SearchLabeler, generate  # noqa: E402
from train.move_net.distributed import (  # noqa: E402
    LabelJob,
    LocalTasks,
    label_shard,
    label_sharded,
    packed_shard,
    ray_tasks,
)

pytestmark = pytest.mark.rllib
ROOT = pathlib.Path(__file__).resolve().parent.parent
MIX = {"self": 1.0, "heuristic": 1.0, "greedy": 0.5, "random": 0.25}
#: a tiny run whose iterations take several shards (4 games per shard)
TINY = ["--config", "tiny", "--batch", "4", "--total-decisions", "400"]
FIELDS = ("obs", "offsets", "feats", "values", "states")


@pytest.fixture(scope="class")
def cluster():
    """A head and a worker node, one CPU each, on loopback; the driver connected."""
    from ray.cluster_utils import Cluster

    quiet_ray_environment()
    with ray_tmpdir():
        c = Cluster(initialize_head=True, head_node_args={"num_cpus": 1,
                                                          "include_dashboard": False})
        try:
            c.add_node(num_cpus=1)
            ray.init(address=c.address, log_to_driver=False)
            try:
                yield c
            finally:
                ray.shutdown()
        finally:
            c.shutdown()


def same_data(a: Dataset, b: Dataset) -> bool:
    return len(a) == len(b) and all(np.array_equal(getattr(a, f), getattr(b, f))
                                    for f in FIELDS)


def run_files(run: pathlib.Path) -> dict[str, np.ndarray]:
    """Every array of a run's labelled data and network (not the network's metadata,
    which names the run and its minutes)."""
    out = {}
    for path in sorted(run.glob("data/*.npz")) + [run / "net.npz"]:
        with np.load(path, allow_pickle=False) as d:
            out.update({f"{path.name}/{k}": d[k] for k in d.files if k != "meta"})
    return out


def test_shard_zero_is_the_first_batch_of_the_local_run() -> None:
    """The documented difference from the single-machine run: shard 0 is its first batch
    (same seeds), later shards start their own streams."""
    job = LabelJob(1000, 2, 16, 0.05, None, 2, 4, MIX)
    labeler = SearchLabeler(16, seed=1000, explore=0.05, plies=None, horizon=2)
    local = generate(labeler, 400, num_players=2, seed=1000, opponents=MIX, batch=4)
    first = label_shard(job, 0)
    assert 0 < len(first) < len(local) and same_data(local.head(len(first)), first)
    sharded = label_sharded(job, 400, LocalTasks(), 1)
    n = min(len(local), len(sharded))
    assert len(sharded) >= 400 and not same_data(local.head(n), sharded.head(n))


class LastFirst(LocalTasks):
    """Shards finishing in the reverse order of their submission (as on a cluster)."""

    def next(self):
        key, args = self.pending.pop()
        return key, packed_shard(*args)


def test_shards_finishing_out_of_order_give_the_same_data() -> None:
    job = LabelJob(4001, 2, 16, 0.05, None, 2, 4, MIX)
    here = label_sharded(job, 300, LocalTasks(), 1)
    for workers in (2, 3, 5):
        assert same_data(label_sharded(job, 300, LastFirst(), workers), here)


def _kill_first_labelling_worker(killed: list[int], stop: threading.Event) -> None:
    """SIGKILL the first Ray worker seen running a labelling shard."""
    while not stop.is_set() and not killed:
        for p in pathlib.Path("/proc").iterdir():
            if not p.name.isdigit():
                continue
            try:
                title = (p / "cmdline").read_bytes().split(b"\0")[0]
            except OSError:
                continue
            if title.startswith(b"ray::_label_shard_task"):
                os.kill(int(p.name), signal.SIGKILL)
                killed.append(int(p.name))
                return
        time.sleep(0.002)


def _figures(res) -> dict:
    out = res.to_json()
    for key in ("seconds", "decisions_per_s", "seconds_per_decision", "date"):
        out.pop(key, None)
    return out


class TestOnTwoNodes:
    """The tests that need the cluster (it is shut down before the last test)."""

    def test_workers_import_this_tree(self, cluster) -> None:
        @ray.remote(num_cpus=1)
        def where() -> str:
            import train.move_net.distributed as d

            return d.__file__

        nodes = {n["NodeID"] for n in ray.nodes() if n["Alive"]}
        assert len(nodes) == 2
        assert pathlib.Path(ray.get(where.remote())).resolve().is_relative_to(ROOT)

    def test_labelling_is_the_same_with_any_number_of_workers(self, cluster) -> None:
        job = LabelJob(2001, 2, 16, 0.05, None, 2, 4, MIX)
        here = label_sharded(job, 300, LocalTasks(), 1)
        for workers in (1, 2, 4):
            assert same_data(label_sharded(job, 300, ray_tasks(), workers), here)

    def test_tiny_train_net_is_bit_identical_with_1_and_2_workers(self, cluster, tmp_path) -> None:
        runs = {}
        for workers in (1, 2):
            runs[workers] = train_net.main(TINY + ["--name", f"w{workers}", "--out",
                                                  str(tmp_path), "--address", "auto",
                                                  "--workers", str(workers)])
        one, two = run_files(runs[1]), run_files(runs[2])
        assert len(one) > 5 and one.keys() == two.keys()
        for key in one:
            assert np.array_equal(one[key], two[key]), key
        assert len(list(runs[1].glob("data/iteration_*.npz"))) == 2
        report = (runs[1] / "report.md").read_text()
        assert "--address auto" in report  # the command to reproduce says how it was labelled

    def test_a_killed_worker_loses_only_its_shard(self, cluster) -> None:
        job = LabelJob(3001, 2, 64, 0.05, None, 2, 8, MIX)
        expected = label_sharded(job, 600, LocalTasks(), 1)
        killed: list[int] = []
        stop = threading.Event()
        killer = threading.Thread(target=_kill_first_labelling_worker, args=(killed, stop))
        killer.start()
        try:
            got = label_sharded(job, 600, ray_tasks(), 2)
        finally:
            stop.set()
            killer.join()
        print(f"killed worker pid {killed}")
        assert killed, "no labelling worker was seen to kill"
        assert same_data(got, expected)

    def test_a_killed_driver_resumes_from_its_checkpoint(self, cluster, tmp_path) -> None:
        """The driver (a process of its own) is killed in its second iteration; ``--resume``
        continues from the first iteration's checkpoint and ends with the network of the
        run that was never interrupted."""
        whole = train_net.main(TINY + ["--name", "whole", "--out", str(tmp_path),
                                       "--address", "auto"])
        flags = TINY + ["--name", "cut", "--out", str(tmp_path), "--address", "auto"]
        env = dict(os.environ, PYTHONPATH=str(ROOT), RAY_ADDRESS=cluster.address)
        driver = subprocess.Popen([sys.executable, "-m", "train.move_net", *flags], cwd=ROOT,
                                  env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        checkpoint = tmp_path / "cut" / "checkpoint.json"
        try:
            deadline = time.time() + 300
            while not checkpoint.exists() and driver.poll() is None and time.time() < deadline:
                time.sleep(0.01)
            assert checkpoint.exists(), "the driver made no checkpoint"
        finally:
            driver.kill()
            driver.wait()
        assert json.loads(checkpoint.read_text())["iteration"] == 1
        assert not (tmp_path / "cut" / "net.npz").exists()  # it died before the end
        resumed = train_net.main(flags + ["--resume"])
        a, b = run_files(whole), run_files(resumed)
        assert a.keys() == b.keys()
        for key in a:
            assert np.array_equal(a[key], b[key]), key

    def test_pasur_eval_on_the_cluster_equals_the_local_one(self, cluster, tmp_path) -> None:
        args = ["greedy", "heuristic", "--rounds", "400", "--games", "20", "--seed", "5",
                "--no-progress", "--json"]
        assert pasur(["eval", *args, str(tmp_path / "local.json")]) == 0
        assert pasur(["eval", *args, str(tmp_path / "ray.json"), "--address", "auto",
                      "--shard-rounds", "100"]) == 0
        local, far = (json.loads((tmp_path / f"{n}.json").read_text()) for n in ("local", "ray"))
        for d in (local, far):
            for key in ("seconds", "decisions_per_s", "seconds_per_decision", "date"):
                d.pop(key, None)
        assert far == local
        assert pasur(["eval", "greedy", "random", "--address", "auto", "--shard-rounds",
                      "0"]) == 2
        # a stochastic agent: the same figures as here while the match is one chunk, and
        # the same for any chunking of the work over workers
        here = evaluate("random", "greedy", rounds=200, seed=2, progress=False)
        assert _figures(evaluate_on_ray("random", "greedy", rounds=200, seed=2, progress=False,
                                        shard_rounds=200)) == _figures(here)

    def test_pasur_tournament_on_the_cluster_equals_the_local_one(self, cluster, tmp_path) -> None:
        args = ["random", "greedy", "heuristic", "--rounds", "100", "--no-progress",
                "--bootstrap", "20", "--json"]
        assert pasur(["tournament", *args, str(tmp_path / "local.json")]) == 0
        assert pasur(["tournament", *args, str(tmp_path / "ray.json"), "--address", "auto"]) == 0
        local, far = (json.loads((tmp_path / f"{n}.json").read_text()) for n in ("local", "ray"))
        for d in (local, far):
            d.pop("seconds")
            d.pop("date")
            for row in d["ladder"]:
                row.pop("seconds_per_decision")
            for m in d["matches"]:
                for key in ("seconds", "decisions_per_s", "seconds_per_decision", "date"):
                    m.pop(key, None)
        assert far == local

    def test_pasur_ladder_add_on_the_cluster_equals_the_local_one(self, cluster,
                                                                   tmp_path) -> None:
        """``pasur ladder add --address`` plays the new member's pairs on Ray: the stored
        per-deal results are those of the same additions played here."""
        for where in ("local", "ray"):
            for agent in ("random", "greedy", "heuristic"):
                extra = ["--address", "auto"] if where == "ray" else []
                assert pasur(["ladder", "add", agent, "--rounds", "100", "--no-progress",
                              "--ladder", str(tmp_path / f"{where}.json"), *extra]) == 0
        local, far = (json.loads((tmp_path / f"{n}.json").read_text()) for n in ("local", "ray"))
        for d in (local, far):
            for m in d["members"]:
                m.pop("added")
            for p in d["pairs"]:
                for key in ("seconds", "seconds_per_decision"):
                    p.pop(key)
        assert far == local and len(far["pairs"]) == 3

    def test_best_response_on_the_cluster_equals_the_local_one(self, cluster,
                                                               tmp_path) -> None:
        """``best_response(..., address=)`` (``pasur best-response --address``) trains here
        and plays the exploiter's evaluation on Ray: the same network as without it (the
        training is seeded, on one thread) and the same gain, interval and per-deal
        figures. ``random`` draws random numbers: its draws are those of the local match
        because the evaluation is one Ray task (rounds <= the shard size, as in the
        stochastic-agent case of the eval test above)."""
        from agents.evaluation.distributed import SHARD_ROUNDS
        from train.best_response import Ppo, best_response

        kwargs = dict(decisions=256, rounds=100, seed=4, ppo=Ppo(envs=8, hidden=16))
        assert kwargs["rounds"] <= SHARD_ROUNDS
        here = best_response("random", save=tmp_path / "here.npz", **kwargs)
        far = best_response("random", save=tmp_path / "far.npz", address="auto", **kwargs)
        with np.load(tmp_path / "here.npz") as a, np.load(tmp_path / "far.npz") as b:
            nets = [k for k in a.files if k != "header"]  # not its date, seconds
            assert nets and all(np.array_equal(a[k], b[k]) for k in nets)
        assert far.used["decisions"] == here.used["decisions"] >= 256
        assert (far.gain, far.ci95, far.rounds) == (here.gain, here.ci95, here.rounds)
        a, b = _figures(here.evaluation), _figures(far.evaluation)
        assert a.pop("a") != b.pop("a")  # the exploiters' files are named apart (and
        assert a.pop("provenance")["b"] == b.pop("provenance")["b"]  # their dates differ)
        assert b == a

    def test_search_best_response_on_the_cluster_equals_the_local_one(self, cluster,
                                                                      tmp_path) -> None:
        """``--method search --address``: the saved search exploiter plays its
        evaluation on Ray (each worker builds it and its agent from the file) with the
        same gain and per-deal figures as here (one task, as above)."""
        from train.best_response import search_best_response

        kwargs = dict(particles=2, rounds=20, seed=4, preset="mini")
        here = search_best_response("greedy", save=tmp_path / "here.json", **kwargs)
        far = search_best_response("greedy", save=tmp_path / "far.json", address="auto",
                                   **kwargs)
        assert (far.gain, far.ci95, far.rounds) == (here.gain, here.ci95, here.rounds)
        a, b = _figures(here.evaluation), _figures(far.evaluation)
        assert a.pop("a") != b.pop("a")
        assert a.pop("provenance")["b"] == b.pop("provenance")["b"]
        assert b == a


def test_bad_addresses_are_refused(capsys) -> None:
    assert pasur(["eval", "greedy", "random", "--address", "local:x"]) == 2
    assert "local:N" in capsys.readouterr().err
    assert pasur(["eval", "greedy", "random", "--address", "local",
                  "--save-games", "games"]) == 2
    with pytest.raises(SystemExit):
        train_net.parse_args(["--address", "auto", "--time-budget-min", "5"])


def test_no_stray_ray_state(stray_ray_state) -> None:
    """Run last: the tests created no /tmp/ray, no auth token, no leftover temp folder."""
    assert stray_ray_state() == []
