"""The one MaskablePPO entry (:mod:`train.ppo`): ``--game`` picks a game's plug-in
(:mod:`train.ppo.games`), whose settings it runs with; a setting a game has no use for
is refused in one line; a new game trains through its row alone; the old
``train.rummy_ppo`` forwards to it with a one-line deprecation warning.

The runs of each game end to end are in ``test_train.py`` and ``test_rummy_train.py``.
"""

from __future__ import annotations

import dataclasses
import json
import shlex
import subprocess
import sys

import pytest

pytest.importorskip("sb3_contrib")

from train import ppo  # noqa: E402
from train.common.config import check_configs  # noqa: E402
from train.ppo.games import PPO_GAMES, PpoGame, register_game  # noqa: E402


def test_each_game_runs_with_the_settings_of_its_row() -> None:
    assert tuple(PPO_GAMES) == ("pasur", "persian_rummy")
    for game, row in PPO_GAMES.items():
        configs = ppo.configs_of(row)
        check_configs(ppo.Args, configs)  # a row names fields of Args only
        for config in configs:
            args = ppo.parse_args(["--game", game, "--config", config, "--no-progress"])
            expected = {**dataclasses.asdict(ppo.Args()), **configs[config], "game": game,
                        "config": config, "progress": False}
            assert dataclasses.asdict(args) == expected, (game, config)
    assert ppo.parse_args([]).game == "pasur"  # the default game
    rummy = ppo.parse_args(["--game", "persian_rummy"])
    assert (rummy.name, rummy.bc_teacher, rummy.shaping) == ("rummy", "rollout", False)


@pytest.mark.parametrize("argv", [
    ["--game", "persian_rummy", "--config", "tiny", "--seed", "3", "--learner-seat", "1"],
    ["--config", "long", "--no-shaping", "--opponent", "greedy"],
])
def test_the_reproducing_command_gives_the_same_settings(argv) -> None:
    args = ppo.parse_args([*argv, "--no-progress"])
    again = ppo.parse_args([*shlex.split(" ".join(ppo.cli_of(args))), "--no-progress"])
    assert again == args


@pytest.mark.parametrize(("argv", "said"), [
    (["--game", "persian_rummy", "--shaping"], "--shaping: not a setting of persian_rummy"),
    (["--partner", "greedy"], "--partner: not a setting of pasur"),
    (["--game", "chess"], "unknown game 'chess'"),
])
def test_what_a_game_does_not_take_is_refused_in_one_line(argv, said, capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        ppo.parse_args(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("python -m train.ppo: error: ") and said in err[0]


def test_the_old_opponent_schedule_spelling_works_with_a_warning(capsys) -> None:
    args = ppo.parse_args(["--opponent-schedule", "greedy:1>0.5,self:0>1"])
    assert args.opponent == "greedy:1>0.5,self:0>1"
    assert capsys.readouterr().err.splitlines() == [
        "python -m train.ppo: --opponent-schedule is deprecated, use --opponent"]


def test_rummy_ppo_warns_in_one_line_and_forwards_its_arguments(monkeypatch, capsys) -> None:
    from train import rummy_ppo

    seen = []
    monkeypatch.setattr(ppo, "main", lambda argv: seen.append(argv) or "run")
    assert rummy_ppo.main(["--config", "tiny", "--seed", "3"]) == "run"
    assert seen == [["--game", "persian_rummy", "--config", "tiny", "--seed", "3"]]
    assert capsys.readouterr().err == ("train.rummy_ppo is deprecated; use python -m train.ppo "
                                       "--game persian_rummy\n")


def test_rummy_ppo_on_the_command_line_is_the_persian_rummy_pipeline() -> None:
    done = subprocess.run([sys.executable, "-m", "train.rummy_ppo", "--help"],
                          capture_output=True, text=True, check=True)
    assert done.stderr.splitlines() == [
        "train.rummy_ppo is deprecated; use python -m train.ppo --game persian_rummy"]
    help_text = " ".join(done.stdout.split())
    assert "python -m train.ppo" in help_text and "rollout" in help_text  # its teacher


def test_a_new_game_trains_through_its_row_alone(tmp_path) -> None:
    """The toy game (``tests/toy_game``) registers its rows, the PPO one included, and
    ``python -m train.ppo --game toy`` trains, evaluates and reports it: no shared code
    knows it."""
    import toy_game
    from toy_game.training import PPO_GAME

    toy_game.register()
    register_game(PPO_GAME)
    try:
        run = ppo.main(["--game", "toy", "--name", "t", "--out", str(tmp_path)])
        final = json.loads((run / "final_eval.json").read_text())
        assert {r["b"] for r in final} == {"greedy", "random"}
        assert "Three-card fishing PPO run" in (run / "report.md").read_text()
        assert any(p.name.startswith("model_") for p in (run / "checkpoints").iterdir())
        with pytest.raises(TypeError, match="takes a PpoGame"):
            register_game("toy")  # type: ignore[arg-type]
        assert isinstance(PPO_GAMES["toy"], PpoGame)
    finally:
        PPO_GAMES.unregister("toy")
        toy_game.unregister()
