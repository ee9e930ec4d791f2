"""The command line's one vocabulary (``agents.apps.flags``, ``docs/cli.md``): every
``pasur`` command and every ``python -m train.*`` entry point lists the shared flags in
its ``--help``; old spellings work with a one-line warning; errors are one line under
the command's name, with "did you mean"; the messages of the project's own words."""

from __future__ import annotations

import importlib
import io
import json
import re
import socket

import pytest

from agents.apps.cli import build_parser, main
from agents.apps.terminal import HELP, play
from pasur_env.version import __version__

SHARED = ("--game", "--seed", "--progress", "--no-progress", "--rounds", "--json", "--out",
          "--name", "AGENT")
#: the shared flags each command takes (docs/cli.md's table)
PASUR = {
    "eval": {"--game", "--seed", "--progress", "--no-progress", "--rounds", "--json"},
    "tournament": {"--game", "--seed", "--progress", "--no-progress", "--rounds", "--json",
                   "AGENT"},
    "play": {"--game", "--seed", "AGENT"},
    "demo": {"--game", "--seed", "AGENT"},
    "exploitability": {"--game", "--seed", "--json", "AGENT"},
    "best-response": {"--game", "--seed", "--progress", "--no-progress", "--rounds", "--json",
                      "AGENT"},
    "compare": {"--json"},
    "warmup": {"--game", "--progress", "--no-progress", "AGENT"},
    "agents": {"--game"},
    "replay": {"--game"},
    "serve": set(),
    "doctor": set(),
    "ladder": set(),  # its actions' flags: LADDER
}
#: the shared flags of ``pasur ladder``'s actions
LADDER = {
    "add": {"--game", "--seed", "--progress", "--no-progress", "--rounds", "AGENT"},
    "show": {"--json"},
    "exploitability": set(),
    "best-response": {"--progress", "--no-progress", "--rounds"},
}
TRAIN = {
    "move_net": {"--game", "--seed", "--progress", "--no-progress", "--rounds", "--out", "--name"},
    "ppo": {"--game", "--seed", "--progress", "--no-progress", "--rounds", "--out", "--name"},
    "rummy_ppo": {"--game", "--seed", "--progress", "--no-progress", "--rounds", "--out",
                  "--name"},
    "rllib_ppo": {"--game", "--seed", "--progress", "--no-progress", "--rounds", "--out",
                  "--name"},
    "cfr": {"--game", "--progress", "--no-progress", "--out", "--name"},
    "opponent_fit": {"--game", "--seed", "--rounds", "--json", "AGENT"},
    "export": set(),
    "best_response": {"--game", "--seed", "--progress", "--no-progress", "--rounds", "--json",
                      "AGENT"},
}
#: the module of an entry point that is a package (``python -m train.move_net``)
TRAIN_MODULE = {"move_net": "train.move_net.pipeline"}


def _words(text: str) -> str:
    """Help text without rich's box drawing, on one line."""
    return " ".join(re.sub(r"[│╭╮╰╯─]", " ", text).split())


def _shared_in(help_text: str) -> set[str]:
    return {f for f in SHARED if re.search(rf"(?<![\w-]){re.escape(f)}(?![\w-])", help_text)}


def _subcommands() -> dict:
    parser = build_parser()
    action = next(a for a in parser._actions if a.dest == "command")
    return action.choices


@pytest.mark.parametrize("command", sorted(PASUR))
def test_every_pasur_command_lists_its_shared_flags(command: str) -> None:
    text = _words(_subcommands()[command].format_help())
    assert _shared_in(text) == PASUR[command], text
    if "--seed" in PASUR[command]:  # the one rule, said in every --help
        assert "default 0, as in every command" in text
    if "--progress" in PASUR[command]:
        assert "on when stderr is a terminal" in text


@pytest.mark.parametrize("action", sorted(LADDER))
def test_the_ladder_actions_list_their_shared_flags(action: str) -> None:
    ladder = _subcommands()["ladder"]
    sub = next(a for a in ladder._actions if a.dest == "ladder_command")
    assert set(sub.choices) == set(LADDER)
    text = _words(sub.choices[action].format_help())
    assert _shared_in(text) == LADDER[action], text
    if "--seed" in LADDER[action]:
        assert "default 0, as in every command" in text


@pytest.mark.parametrize("entry", sorted(TRAIN))
def test_every_training_entry_point_lists_its_shared_flags(entry: str, capsys) -> None:
    module = importlib.import_module(TRAIN_MODULE.get(entry, f"train.{entry}"))
    with pytest.raises(SystemExit) as exit_:
        module.main(["--help"])
    assert exit_.value.code == 0
    text = _words(capsys.readouterr().out)
    assert _shared_in(text) == TRAIN[entry], text
    if "--seed" in TRAIN[entry]:
        assert "default 0, as in every command" in text
    if "--progress" in TRAIN[entry]:
        assert "on when stderr is a terminal" in text


def test_every_command_is_in_the_tables() -> None:
    from agents.apps import flags

    assert set(_subcommands()) == set(PASUR)
    assert {p.split()[-1].removeprefix("train.") for p in flags.DEPRECATED
            if p.startswith("python")} <= set(TRAIN)


def test_version(capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0 and capsys.readouterr().out == f"pasur {__version__}\n"


# ---- old spellings ------------------------------------------------------------------------
def test_an_old_spelling_works_with_a_one_line_warning(capsys) -> None:
    assert main(["demo", "--agent", "greedy", "--episode", "round"]) == 0
    out = capsys.readouterr()
    assert out.err.splitlines()[0] == ("pasur demo: --agent is deprecated, name the agents "
                                       "without it: pasur demo greedy")
    assert "player_0 (greedy)" in out.out
    assert main(["eval", "greedy", "random", "--rounds", "4", "--mode", "round",
                 "--no-progress"]) == 0
    assert "pasur eval: --mode is deprecated, use --episode" in capsys.readouterr().err


def test_old_training_spellings_are_rewritten(capsys) -> None:
    from train import opponent_fit
    from train.move_net import pipeline as net

    args = net.parse_args(["--no-progress-bar", "--runs-dir", "elsewhere",
                           "--final-eval-rounds", "40", "--games-per-batch", "8"])
    assert (args.progress, args.out, args.rounds, args.batch) == (False, "elsewhere", 40, 8)
    err = capsys.readouterr().err.splitlines()
    assert err == ["python -m train.move_net: --no-progress-bar is deprecated, use --no-progress",
                   "python -m train.move_net: --runs-dir is deprecated, use --out",
                   "python -m train.move_net: --final-eval-rounds is deprecated, use --rounds",
                   "python -m train.move_net: --games-per-batch is deprecated, use --batch"]
    assert opponent_fit.parse_args(["--agent", "greedy", "--rounds", "4"]).agent == "greedy"
    assert "--agent is deprecated" in capsys.readouterr().err


def test_the_old_train_net_command_warns_in_one_line_and_runs_the_same(capsys,
                                                                      monkeypatch) -> None:
    """``python -m train.net`` is ``python -m train.move_net`` for one release: one line
    on stderr, then the pipeline with the same arguments."""
    from train import net
    from train.move_net import pipeline

    seen = []
    monkeypatch.setattr(pipeline, "main", lambda argv=None: seen.append(argv) or "ran")
    assert net.main(["--config", "tiny", "--name", "x"]) == "ran"
    assert seen == [["--config", "tiny", "--name", "x"]]
    err = capsys.readouterr().err.splitlines()
    assert err == [net.DEPRECATION] and "python -m train.move_net" in err[0]


def test_the_old_train_net_module_still_runs_as_a_command() -> None:
    import subprocess
    import sys

    res = subprocess.run([sys.executable, "-m", "train.net", "--help"], capture_output=True,
                         text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stderr.splitlines()[0].startswith("python -m train.net is deprecated")
    assert "usage: python -m train.move_net" in res.stdout


def test_the_seed_defaults_to_0_everywhere() -> None:
    from train import opponent_fit, ppo
    from train.move_net import pipeline as net

    parser = build_parser()
    for command in ("eval", "tournament", "play", "demo", "exploitability"):
        argv = {"eval": ["a", "b"], "tournament": ["a", "b"], "exploitability": ["a"]}
        assert parser.parse_args([command, *argv.get(command, [])]).seed == 0
    assert net.parse_args([]).seed == ppo.parse_args([]).seed == 0
    assert opponent_fit.parse_args([]).seed == 0


def test_progress_is_on_only_for_a_terminal(capsys) -> None:
    from agents.apps import flags

    assert flags.progress_on(None, io.StringIO()) is False
    assert flags.progress_on(True, io.StringIO()) is True
    assert main(["eval", "random", "random", "--rounds", "200"]) == 0
    assert capsys.readouterr().err == ""  # no bar into a file or a pipe


# ---- errors in one line, did you mean -------------------------------------------------------
def _one_line(capsys, command: str) -> str:
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"pasur {command}: error: "), err
    assert "usage:" not in err and "Traceback" not in err
    return lines[0]


@pytest.mark.parametrize(("argv", "fix"), [
    (["eval", "heurstic", "random", "--rounds", "2"], "did you mean 'heuristic'?"),
    (["eval", "greedy", "random", "--rounds", "2", "--preset", "mnii"], "did you mean 'mini'?"),
    (["eval", "greedy", "random", "--rouns", "2"], "did you mean '--rounds'?"),
    (["eval", "greedy", "random", "--game", "pasr"], "did you mean 'pasur'?"),
    (["replay", "x.jsonl", "--game", "persian_rumy"], "did you mean 'persian_rummy'?"),
    (["eval", "greedy", "random", "--rule", "sur_pionts=3"], "did you mean 'sur_points'?"),
    (["eval", "ismcts:budgt=2", "random", "--rounds", "2"], "did you mean 'budget'?"),
    (["evl", "greedy", "random"], "did you mean 'eval'?"),
])
def test_did_you_mean(argv: list[str], fix: str, capsys) -> None:
    try:
        rc = main(argv)
    except SystemExit as e:  # a parse error: argparse's exit, after one line
        rc = e.code
    assert rc == 2
    err = capsys.readouterr().err
    assert fix in err and len(err.strip().splitlines()) == 1 and "usage:" not in err, err


def test_an_agent_option_it_does_not_take_is_named_in_the_projects_words(capsys) -> None:
    assert main(["eval", "ismcts:budgt=2", "random", "--rounds", "2"]) == 2
    line = _one_line(capsys, "eval")
    assert "agent 'ismcts' has no option 'budgt'" in line and "its options: budget" in line
    assert "__init__" not in line


def test_value_errors_are_one_line_without_the_usage(capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["eval", "greedy", "random", "--rounds", "x"])
    assert exit_.value.code == 2
    assert "invalid int value: 'x'" in _one_line(capsys, "eval")
    with pytest.raises(SystemExit):
        main(["eval", "greedy"])
    assert "required: B" in _one_line(capsys, "eval")


def test_rounds_not_whole_deals_are_refused_saying_the_multiple(capsys) -> None:
    assert main(["eval", "greedy", "random", "--rounds", "3"]) == 2
    line = _one_line(capsys, "eval")
    assert "--rounds 3" in line and "multiple of 2 (2 or 4)" in line
    assert main(["tournament", "greedy", "random", "--players", "3", "--rounds", "8"]) == 2
    assert "multiple of 6 (6 or 12)" in _one_line(capsys, "tournament")
    assert main(["eval", "greedy", "random", "--rounds", "2", "--games", "3"]) == 2
    assert "--games 3" in _one_line(capsys, "eval")
    rc = main(["eval", "greedy", "random", "--players", "3", "--rounds", "6", "--json"])
    assert rc == 0 and json.loads(capsys.readouterr().out)["rounds"] == 6


def test_a_busy_port_says_to_choose_another(capsys) -> None:
    pytest.importorskip("uvicorn")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert main(["serve", "--port", str(port)]) == 2
    line = _one_line(capsys, "serve")
    assert f"port {port} on 127.0.0.1 is in use" in line and f"--port {port + 1}" in line
    assert "Errno" not in line


def test_serve_holds_blas_to_the_threads_asked(monkeypatch, capsys) -> None:
    """The server's many small network products run on one BLAS thread by default (a
    thread pool made them several times slower under concurrent games)."""
    uvicorn = pytest.importorskip("uvicorn")
    from threadpoolctl import threadpool_info

    seen: list[list[int]] = []

    def fake_run(app, **kw) -> None:  # noqa: ANN001
        seen.append([p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"])

    monkeypatch.setattr(uvicorn, "run", fake_run)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    assert main(["serve", "--port", str(port)]) == 0
    assert seen and all(n == 1 for n in seen[0])
    assert main(["serve", "--blas-threads", "0"]) == 2
    assert "--blas-threads must be at least 1" in _one_line(capsys, "serve")


def test_replaying_an_eval_result_says_it_is_not_a_record(tmp_path, capsys) -> None:
    result = tmp_path / "ev.json"
    assert main(["eval", "greedy", "random", "--rounds", "4", "--json", str(result)]) == 0
    capsys.readouterr()
    assert main(["replay", str(result)]) == 2
    line = _one_line(capsys, "replay")
    assert "is not a game record" in line and "pasur eval --save-games DIR" in line
    assert "None" not in line


# ---- the terminal --------------------------------------------------------------------------
def test_pasur_terminal_gives_a_hint() -> None:
    out = io.StringIO()
    play("greedy", seed=3, episode="round", input_stream=io.StringIO("hint\nquit\n"),
         output_stream=out)
    text = out.getvalue()
    hint = next(line for line in text.splitlines() if " would play " in line)
    assert re.search(r"would play (10|[2-9AJQK])[♣♦♥♠] and (take|lay it on the table)", hint)
    assert "hint" in HELP


CODE_ACTION = re.compile(r"\b(PLAY|TAKE|PICK|LAY_OFF|DISCARD) (10|[2-9AJQKT])[CDHS]\b")


def test_text_output_writes_cards_with_suit_symbols(tmp_path, capsys) -> None:
    assert main(["demo", "greedy", "--game", "persian_rummy", "--episode", "round"]) == 0
    text = capsys.readouterr().out
    assert not CODE_ACTION.search(text) and re.search(r"DISCARD (10|[2-9AJQK])[♣♦♥♠]", text)
    folder = tmp_path / "games"
    assert main(["eval", "greedy", "random", "--rounds", "2", "--save-games", str(folder)]) == 0
    capsys.readouterr()
    assert main(["replay", str(next(folder.glob("*.jsonl"))), "--all"]) == 0
    text = capsys.readouterr().out
    assert not CODE_ACTION.search(text) and re.search(r"PLAY (10|[2-9AJQK])[♣♦♥♠]", text)


def test_the_greeting_says_the_seed() -> None:
    out = io.StringIO()
    play("greedy", seed=7, input_stream=io.StringIO("quit\n"), output_stream=out)
    assert "the deals of seed 7" in out.getvalue()


def test_a_training_evaluation_says_when_it_rounds_up(capsys) -> None:
    """The training scripts' evaluations play whole deals: a count that is not one is
    played rounded up, and the run says so in one line (never silently)."""
    from train.common.evaluation import evaluate_game

    res = evaluate_game("greedy", "random", game="pasur", rounds=3, seed=0)
    assert res.rounds == 4
    assert "evaluation vs random: 3 rounds played as 4, whole deals of 2 seatings" in (
        capsys.readouterr().err)
    evaluate_game("greedy", "random", game="pasur", rounds=4, seed=0)
    assert "rounds played as" not in capsys.readouterr().err
