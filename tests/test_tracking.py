"""The public training utilities (``docs/training.md``): seeds, the wall-time budget, the
duplicate-deal evaluation every N steps with its CSV, TensorBoard scalars and plot, in a
plain loop and as SB3 callbacks, at tiny sizes."""

from __future__ import annotations

import csv
import random

import numpy as np
import pytest

from train.common.plots import plot_learning_curve
from train.common.tracking import (
    EVALS_HEADER,
    BatchPolicy,
    DuplicateEvaluation,
    WallClock,
    seed_everything,
)


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_seed_everything_seeds_python_numpy_torch_and_gives_env_seeds():
    import torch

    seeds = seed_everything(5, num_envs=4)
    draws = (random.random(), np.random.rand(), float(torch.rand(1)))
    assert seed_everything(5, num_envs=4) == seeds
    assert (random.random(), np.random.rand(), float(torch.rand(1))) == draws
    assert len(set(seeds)) == 4 and all(isinstance(s, int) and s >= 0 for s in seeds)
    assert seed_everything(6, num_envs=4) != seeds
    for bad in (-1, 1.5, True, "3"):
        with pytest.raises(ValueError, match="seed"):
            seed_everything(bad)
    with pytest.raises(ValueError, match="num_envs"):
        seed_everything(0, num_envs=0)


def test_wall_clock_budget():
    clock = FakeClock()
    budget = WallClock(2, clock=clock)
    assert not budget.over()
    clock.now += 119
    assert not budget.over() and budget.elapsed() == 119
    clock.now += 1
    assert budget.over()
    clock.now += 10**6
    assert not WallClock(0, start=0.0, clock=clock).over()  # 0: no limit
    with pytest.raises(ValueError, match="minutes"):
        WallClock(-1)


def first_legal(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """A batched policy as a torch loop's would be: (n, N), (n, A) -> (n,)."""
    assert obs.ndim == 2 and masks.shape[0] == obs.shape[0]
    return masks.argmax(axis=1)


def read_rows(path) -> list[dict[str, str]]:
    with open(path) as fh:
        return list(csv.DictReader(fh))


@pytest.mark.parametrize("game", ["pasur", "persian_rummy"])
def test_duplicate_evaluation_in_a_plain_loop(tmp_path, game):
    evaluation = DuplicateEvaluation("random", game=game, rounds=4, seed=0, every=10,
                                     log_dir=tmp_path)
    policy = BatchPolicy(first_legal)
    ran = [step for step in range(0, 25, 5) if evaluation(step, policy) is not None]
    evaluation.close()
    assert ran == [0, 10, 20]
    rows = read_rows(tmp_path / "evals.csv")
    assert list(rows[0]) == EVALS_HEADER
    assert [int(r["timesteps"]) for r in rows] == [0, 10, 20]
    assert {r["opponent"] for r in rows} == {"random"}
    assert len({r["mean_point_diff"] for r in rows}) == 1  # the same deals, the same policy
    assert list((tmp_path / "tb").glob("events.out.tfevents.*"))
    png = plot_learning_curve(tmp_path / "evals.csv")
    assert png == tmp_path / "evals.png" and png.stat().st_size > 0


def test_batch_policy_refuses_illegal_answers():
    from train.common.evaluation import evaluate_game

    bad = BatchPolicy(lambda obs, masks: (~masks).argmax(axis=1), name="bad")
    with pytest.raises(ValueError, match="illegal"):
        evaluate_game(bad, "random", game="pasur", rounds=2, seed=0)
    with pytest.raises(TypeError, match="callable"):
        BatchPolicy(3)


def test_sb3_periodic_evaluation_and_time_limit(tmp_path):
    pytest.importorskip("sb3_contrib")
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecMonitor

    from pasur_env import PasurVecEnv
    from train.sb3.callbacks import PeriodicEvaluation, TimeLimit

    torch.set_num_threads(1)
    env = VecMonitor(PasurVecEnv(2, seed=0), str(tmp_path / "monitor.csv"))
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=64, n_epochs=1,
                        policy_kwargs={"net_arch": [16]}, seed=0, device="cpu")
    evals = PeriodicEvaluation(64, ["random"], 4, 0, tmp_path / "evals.csv", append=False)
    model.learn(256, callback=[evals])
    rows = read_rows(tmp_path / "evals.csv")
    assert [int(r["timesteps"]) for r in rows] == [64, 128, 192, 256]
    assert plot_learning_curve(tmp_path / "monitor.csv", tmp_path / "lc.png") is not None

    clock = FakeClock()
    limit = TimeLimit(1, clock=clock)
    clock.now += 61  # the budget is spent: learning stops at its first step
    model.learn(10_000, callback=limit, reset_num_timesteps=True)
    assert model.num_timesteps <= 64


def test_the_training_guide_loop_runs(tmp_path, monkeypatch):
    """The plain-loop example of docs/training.md runs as written and leaves its CSV,
    TensorBoard log and plot."""
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs" / "training.md").read_text()
    section = text.split("## Your own training loop: public utilities", 1)[1].split("\n## ")[0]
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    assert len(blocks) == 1
    monkeypatch.chdir(tmp_path)
    exec(compile(blocks[0], "docs/training.md", "exec"), {})  # noqa: S102 - our own doc
    rows = read_rows(tmp_path / "runs" / "mine" / "evals.csv")
    assert {r["opponent"] for r in rows} == {"random", "greedy"} and len(rows) >= 4
    assert (tmp_path / "runs" / "mine" / "evals.png").exists()
    assert list((tmp_path / "runs" / "mine" / "tb").glob("events.out.tfevents.*"))
