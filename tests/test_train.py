"""The training pipeline end to end at tiny sizes: run, report, resume, load as an agent."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from agents import make_agent  # noqa: E402
from pasur_env import Engine, GameView  # noqa: E402
from pasur_env.pasur.observation import encode  # noqa: E402
from train import ppo  # noqa: E402


def test_args_cli_and_configs(capsys) -> None:
    from train.sb3.callbacks import parse_schedule

    args = ppo.parse_args(["--config", "tiny", "--seed", "3", "--no-shaping"])
    assert args.total_timesteps == 4096 and args.seed == 3 and args.shaping is False
    long = ppo.parse_args(["--config", "long", "--total-timesteps", "10"])
    assert long.config == "long" and long.bc_rounds == 24_000 and long.total_timesteps == 10
    assert ppo.cli_of(long) == ["--config long", "--total-timesteps 10"]
    with pytest.raises(SystemExit):
        ppo.parse_args(["--config", "nope"])
    assert parse_schedule("random:1>0.1,self:0>2") == {"random": (1.0, 0.1), "self": (0.0, 2.0)}
    with pytest.raises(SystemExit):  # --help shows every field's docstring (tyro)
        ppo.parse_args(["--help"])
    assert "rollout length per game between updates" in " ".join(capsys.readouterr().out.split())


def test_train_end_to_end_resume_and_load(tmp_path) -> None:
    run = ppo.main(["--config", "tiny", "--name", "t", "--out", str(tmp_path)])
    for name in ("model.zip", "config.json", "report.md", "final_eval.json", "evals.csv",
                 "monitor.csv", "learning_curve.png", "eval_curves.png"):
        assert (run / name).exists(), name
    report = (run / "report.md").read_text()
    assert "| random |" in report and "95% CI" in report and "learning_curve.png" in report
    final = json.loads((run / "final_eval.json").read_text())
    assert {r["b"] for r in final} == {"random", "greedy", "heuristic"}
    assert all("ci95" in r and "mean_point_diff" in r for r in final)
    ckpts = sorted((run / "checkpoints").glob("model_*.zip"))
    assert ckpts

    # resume: continue the same run to a larger budget from its latest checkpoint
    ppo.main(["--config", "tiny", "--name", "t", "--out", str(tmp_path), "--resume",
              "--total-timesteps", "6144"])
    cfg = json.loads((run / "config.json").read_text())
    assert cfg["total_timesteps"] == 6144
    newest = sorted((run / "checkpoints").glob("model_*.zip"))[-1]
    assert int(newest.stem.split("_")[1]) >= 6144

    # the saved model is an agent: it acts legally in batched games
    agent = make_agent(str(run / "model.zip"), seed=0)
    eng = Engine(16, seed=1)
    rng = np.random.default_rng(0)
    for _ in range(200):
        idx = np.arange(16)
        mask = eng.legal_mask()
        acts = agent.act(encode(eng, idx), mask, GameView(eng, idx))
        assert mask[idx, acts].all()
        eng.step(acts if rng.random() < 0.5 else eng.random_actions(rng))

    # the exported (shipping) file plays exactly like the saved model
    from train.export import export

    small = export(run / "model.zip", tmp_path / "exported.zip")
    assert small.stat().st_size < (run / "model.zip").stat().st_size
    twin = make_agent(str(small), seed=0)
    eng = Engine(16, seed=2)
    idx = np.arange(16)
    for _ in range(50):
        mask = eng.legal_mask()
        obs = encode(eng, idx)
        acts = agent.act(obs, mask, GameView(eng, idx))
        assert np.array_equal(acts, twin.act(obs, mask, GameView(eng, idx)))
        eng.step(acts)


def test_policy_agent_rejects_another_observation_layout(tmp_path) -> None:
    from sb3_contrib import MaskablePPO

    from agents import PolicyAgent
    from pasur_env.pasur.vector_env import PasurVecEnv

    venv = PasurVecEnv(2, opponent=make_agent("random"), seed=0, num_players=3)
    model = MaskablePPO("MlpPolicy", venv, n_steps=8, batch_size=16,
                        policy_kwargs={"net_arch": [8]})
    agent = PolicyAgent(model, name="three-player model")
    eng = Engine(4, seed=0)  # two players: a different observation size
    idx = np.arange(4)
    with pytest.raises(ValueError, match="three-player model.*expects observations of shape"):
        agent.act(encode(eng, idx), eng.legal_mask(), GameView(eng, idx))


def test_cloning_data_against_a_random_seat() -> None:
    from train.bc import collect

    own = collect("heuristic", 40, seed=0)
    mixed = collect("heuristic", 40, seed=0, vs_random=1.0)
    # every round has a random seat whose moves are not recorded: about half the decisions
    assert 0.35 * len(own.actions) < len(mixed.actions) < 0.65 * len(own.actions)
    assert mixed.masks[np.arange(len(mixed.actions)), mixed.actions].all()
    with pytest.raises(ValueError, match="vs_random"):
        collect("heuristic", 4, seed=0, vs_random=1.5)


def test_opponent_fit_recovers_the_heuristic_as_its_own_sharpest_model(capsys) -> None:
    """The heuristic's own plays are always a best-scored move, so the fit picks the
    sharpest model with no floor; every recorded play is a move of its position (the
    multi-step captures completed from their TAKEs); a random player's plays are better
    explained by a soft model."""
    from train import opponent_fit

    rec = opponent_fit.record_plays("heuristic", 4, 0)
    plays = opponent_fit.play_scores(rec)
    assert len(plays) > 50
    assert all(s[i] >= s.max() for s, i in plays)
    assert any(bin(t).count("1") >= 2 for t in rec.taken)  # a capture of several cards
    assert opponent_fit.main(["heuristic", "--rounds", "4"]) == (5.0, 0.0)
    assert "best: beta 5.0, floor 0.0" in capsys.readouterr().out
    beta, floor = opponent_fit.main(["random", "--rounds", "4"])
    assert beta <= 0.75 or floor >= 0.2


def test_the_one_config_parser_presets_overrides_and_bad_fields(capsys) -> None:
    """Every script parses through :func:`train.common.config.parse_config_args`: a
    preset replaces the defaults, a flag overrides the preset, and a field that does
    not exist is a clear error (on the command line and in a preset table)."""
    from dataclasses import dataclass

    from train.common.config import config_cli, parse_config_args

    @dataclass
    class Settings:
        config: str = "default"
        """the preset"""
        steps: int = 10
        """steps to run"""
        fast: bool = False
        """go fast"""

    presets = {"default": {}, "big": {"steps": 1000}}

    def parse(argv: list[str]) -> Settings:
        return parse_config_args(Settings, presets, argv, "prog", "doc",
                                 check=lambda s: "steps must be > 0" if s.steps <= 0 else None)

    assert parse([]) == Settings()
    big = parse(["--config", "big"])
    assert (big.config, big.steps) == ("big", 1000)
    over = parse(["--config", "big", "--steps", "5", "--fast"])
    assert (over.steps, over.fast) == (5, True)
    assert config_cli(over, presets) == ["--config big", "--steps 5", "--fast"]
    capsys.readouterr()
    for argv, message in ((["--config", "huge"], "unknown --config 'huge'"),
                          (["--stepz", "3"], "--stepz"),
                          (["--steps", "0"], "steps must be > 0")):
        with pytest.raises(SystemExit) as exit_info:
            parse(argv)
        assert exit_info.value.code == 2
        assert message in capsys.readouterr().err
    with pytest.raises(ValueError, match=r"preset 'big' of .*Settings sets unknown field\(s\) "
                                         r"\['stepz'\]"):
        parse_config_args(Settings, {"default": {}, "big": {"stepz": 1}}, [], "prog", None)
    with pytest.raises(ValueError, match="need a 'default' entry"):
        parse_config_args(Settings, {"big": {}}, [], "prog", None)
