"""The Persian Rummy training pipeline end to end at tiny size: run, report, resume, and
the saved model as an agent of ``pasur eval --game persian_rummy``."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from agents import make_agent  # noqa: E402
from agents.apps.cli import main as cli_main  # noqa: E402
from train import ppo  # noqa: E402
from train.bc import collect_rummy  # noqa: E402

RUMMY = ["--game", "persian_rummy"]


def test_args_and_configs(capsys) -> None:
    args = ppo.parse_args([*RUMMY, "--config", "tiny", "--seed", "3", "--opponent", "random"])
    assert args.total_timesteps == 1_024 and args.seed == 3 and args.opponent == "random"
    assert ppo.cli_of(args) == ["--game persian_rummy", "--config tiny", "--seed 3",
                                "--opponent random"]
    with pytest.raises(SystemExit):  # Pasur's long configuration is not Persian Rummy's
        ppo.parse_args([*RUMMY, "--config", "long"])
    with pytest.raises(SystemExit):  # --help shows every field's docstring (tyro)
        ppo.parse_args([*RUMMY, "--help"])
    assert "whose self-play the policy imitates" in " ".join(capsys.readouterr().out.split())


def test_cloning_data_is_the_teachers_legal_play() -> None:
    own = collect_rummy("greedy", 12, seed=0)
    assert own.obs.shape == (len(own.actions), 685) and own.obs.dtype == np.float16
    assert own.masks[np.arange(len(own.actions)), own.actions].all()
    assert set(np.unique(own.returns)) != {0.0}  # the round results reached the decisions
    mixed = collect_rummy("greedy", 12, seed=0, vs_random=1.0)  # one random seat per deal
    assert 0.5 * len(own.actions) < len(mixed.actions) < len(own.actions)
    with pytest.raises(ValueError, match="vs_random"):
        collect_rummy("greedy", 4, seed=0, vs_random=2.0)


def test_train_end_to_end_resume_and_load(tmp_path, capsys) -> None:
    run = ppo.main([*RUMMY, "--config", "tiny", "--name", "t", "--out", str(tmp_path)])
    for name in ("model.zip", "config.json", "bc.json", "report.md", "final_eval.json",
                 "evals.csv", "monitor.csv", "learning_curve.png"):
        assert (run / name).exists(), name
    report = (run / "report.md").read_text()
    assert "| greedy |" in report and "| random |" in report and "95% CI" in report
    final = json.loads((run / "final_eval.json").read_text())
    assert {r["b"] for r in final} == {"greedy", "random"}
    assert all(r["rounds"] == 20 and len(r["ci95"]) == 2 for r in final)

    ppo.main([*RUMMY, "--config", "tiny", "--name", "t", "--out", str(tmp_path), "--resume",
              "--total-timesteps", "2048"])
    newest = sorted((run / "checkpoints").glob("model_*.zip"))[-1]
    assert int(newest.stem.split("_")[1]) >= 2048

    # the saved model is a Persian Rummy agent, on the command line too
    agent = make_agent(str(run / "model.zip"), game="persian_rummy", seed=0)
    assert agent.needs_observation
    capsys.readouterr()
    assert cli_main(["eval", "--game", "persian_rummy", str(run / "model.zip"), "greedy",
                     "--rounds", "8", "--no-progress"]) == 0
    assert "model.zip vs greedy, 8 rounds" in capsys.readouterr().out
