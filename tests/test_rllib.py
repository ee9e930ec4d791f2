"""Ray RLlib: the training script at tiny sizes (both modes, P = 2, 3, 4, resume), its
checkpoints as agents (``rllib:PATH``), and PPO sampling on a two-node local cluster.

Needs the Ray venv (``make rllib``; ``make test-rllib`` runs only these and fails if any
is skipped). Ray's dashboard and auth-token file are off, and its temporary files go
to a folder that is removed afterwards (checked by the last test).
"""

from __future__ import annotations

import os
import pathlib

import numpy as np
import pytest

ray = pytest.importorskip("ray", reason="Ray RLlib is not installed (make rllib)")
pytest.importorskip("ray.rllib")

from agents.evaluation.match import evaluate  # noqa: E402
from agents.registry import make_agent  # noqa: E402
from train import rllib_ppo  # noqa: E402
from train.rllib.env import (  # noqa: E402
    MAIN,
    make_multi_agent_env,
    make_single_agent_env,
    quiet_ray_environment,
    ray_tmpdir,
    selfplay_mapping,
)

pytestmark = pytest.mark.rllib
DEFAULT_RAY_DIR = pathlib.Path("/tmp/ray")
AUTH_TOKEN = pathlib.Path.home() / ".ray" / "auth_token"
_BEFORE = (DEFAULT_RAY_DIR.exists(), AUTH_TOKEN.exists())
_TEMP_BEFORE = set(pathlib.Path("/tmp").glob("pasur-ray-*"))


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> pathlib.Path:
    return tmp_path_factory.mktemp("runs")


def tiny(runs: pathlib.Path, name: str, *flags: str) -> pathlib.Path:
    return rllib_ppo.main(["--config", "tiny", "--name", name, "--out", str(runs), *flags])


def test_adapters_use_rllibs_keys_and_masks() -> None:
    env = make_single_agent_env({"opponents": "greedy:1,random:1", "seed": 3})
    obs, _ = env.reset(seed=0)
    assert set(obs) == {"observations", "action_mask"} and env.observation_space.contains(obs)
    assert obs["action_mask"].sum() >= 1
    ma = make_multi_agent_env({"env_kwargs": {"num_players": 3}})
    obs, _ = ma.reset(seed=0)
    (agent, o), = obs.items()
    assert ma.observation_spaces[agent].contains(o)
    obs, rew, term, trunc, _ = ma.step({agent: int(np.flatnonzero(o["action_mask"])[0])})
    assert len(obs) == 1 and not term["__all__"]


def test_selfplay_mapping_is_consistent_per_episode() -> None:
    for episode in range(50):
        for players in (2, 3, 4):
            seats = [selfplay_mapping(f"player_{s}", episode, players=players, snapshots=3)
                     for s in range(players)]
            again = [selfplay_mapping(f"player_{s}", episode, players=players, snapshots=3)
                     for s in range(players)]
            assert seats == again and MAIN in seats
            assert all(m == MAIN or m in ("snap_1", "snap_2", "snap_3") for m in seats)
            if players == 4:  # partners: main plays both seats of its team
                main = seats.index(MAIN)
                assert seats[(main + 2) % 4] == MAIN


@pytest.mark.parametrize("mode,players", [("single", 2), ("selfplay", 3), ("selfplay", 4)])
def test_tiny_runs_give_agents_that_act_legally(runs, mode, players) -> None:
    run = tiny(runs, f"{mode}{players}", "--mode", mode, "--players", str(players))
    assert (run / "report.md").exists() and (run / "progress.csv").exists()
    assert (run / "tb").is_dir() and (run / "checkpoint").is_dir()
    for path in (run / "module", run / "checkpoint"):  # module folder or whole checkpoint
        res = evaluate(f"rllib:{path}", "random", rounds=24, players=players, seed=1,
                       progress=False)  # every action goes through check_actions
        assert res.rounds == 24 and np.isfinite(res.mean_point_diff)


def test_resume_continues_the_run(runs) -> None:
    run = tiny(runs, "resume", "--mode", "selfplay")
    first = (run / "progress.csv").read_text().splitlines()
    tiny(runs, "resume", "--mode", "selfplay", "--resume", "--total-env-steps", "800")
    rows = (run / "progress.csv").read_text().splitlines()
    assert rows[: len(first)] == first
    iterations = [int(r.split(",")[0]) for r in rows[1:]]
    assert iterations == list(range(1, len(iterations) + 1)) and len(iterations) > len(first) - 1


def test_a_module_saved_before_the_tree_was_split_still_plays() -> None:
    """A module written by version 0.2.0 before the core/pasur/rummy split pickles its class
    as ``agents.rllib_module.MaskedPPOModule``; the old name still imports, and the module
    plays exactly as it did then (this result was measured with the tree of that time)."""
    old = pathlib.Path(__file__).parent / "data" / "rllib_module_0.2.0"
    assert b"agents.rllib_module" in (old / "class_and_ctor_args.pkl").read_bytes()
    res = evaluate(f"rllib:{old}", "greedy", rounds=200, seed=0, progress=False)
    assert res.mean_point_diff == pytest.approx(-7.69)
    assert (res.round_wins, res.round_ties, res.round_losses) == (40, 4, 156)


def test_a_module_refuses_another_player_count(runs, monkeypatch) -> None:
    monkeypatch.chdir(runs)  # a relative path, as typed on the command line
    agent = make_agent("rllib:single2/module")
    with pytest.raises(ValueError, match="observation features"):
        evaluate(agent, "random", rounds=6, players=3, seed=0, progress=False)
    with pytest.raises(FileNotFoundError, match="no such RLlib checkpoint"):
        make_agent(f"rllib:{runs / 'nowhere'}")


def test_env_runners_sample_on_two_nodes() -> None:
    """A head and a worker node (one CPU each) on loopback; two env runners needing
    one CPU each must land one per node, and both sample episodes of pasur_v0."""
    from ray.cluster_utils import Cluster

    quiet_ray_environment()
    with ray_tmpdir():
        cluster = Cluster(initialize_head=True, head_node_args={
            "num_cpus": 1, "include_dashboard": False})
        try:
            cluster.add_node(num_cpus=1)
            ray.init(address=cluster.address, log_to_driver=False)
            nodes = {n["NodeID"] for n in ray.nodes() if n["Alive"]}
            assert len(nodes) == 2
            args = rllib_ppo.parse_args(["--config", "tiny", "--mode", "selfplay",
                                         "--num-env-runners", "2"])
            algo = rllib_ppo.build_config(args).build_algo()
            try:
                def where_and_how_much(runner):
                    episodes = runner.sample(num_timesteps=60, random_actions=False)
                    steps = sum(len(e) for e in episodes)
                    return ray.get_runtime_context().get_node_id(), os.getpid(), steps

                work = algo.env_runner_group.foreach_env_runner(where_and_how_much,
                                                                local_env_runner=False)
                for node, pid, steps in work:
                    print(f"env runner pid {pid} on node {node[:12]}: {steps} env steps")
                assert {node for node, _, _ in work} == nodes
                assert all(steps >= 60 for _, _, steps in work)
                result = algo.train()
                print("one PPO iteration on the cluster:",
                      result["env_runners"]["num_env_steps_sampled_lifetime"], "env steps")
            finally:
                algo.stop()
        finally:
            ray.shutdown()
            cluster.shutdown()


def test_no_stray_ray_state() -> None:
    """Run last: the tests created no /tmp/ray, no auth token, no leftover temp folder."""
    if not _BEFORE[0]:
        assert not DEFAULT_RAY_DIR.exists()
    if not _BEFORE[1]:
        assert not AUTH_TOKEN.exists()
    assert set(pathlib.Path("/tmp").glob("pasur-ray-*")) <= _TEMP_BEFORE
    assert "RAY_TMPDIR" not in os.environ or not os.environ["RAY_TMPDIR"].startswith(
        "/tmp/pasur-ray-")
