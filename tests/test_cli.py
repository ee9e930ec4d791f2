"""The ``pasur`` command line and the terminal game, at tiny sizes."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from agents.apps.cli import main
from agents.apps.terminal import play
from pasur_env import card_code, parse_cards

ROOT = Path(__file__).resolve().parents[1]
JSON_KEYS = {"a", "b", "rounds", "mean_point_diff", "ci95", "round_win_rate", "seconds"}

# player_0 (leads) holds 7H 3C 5D QH; the table shows 2D 2S 4S 9C: 7H takes 4S or 2D+2S
_FIRST = parse_cards("7H 3C 5D QH 8C 6H KD AS 4S 2D 2S 9C")
DECK = " ".join(card_code(c) for c in _FIRST + [c for c in range(52) if c not in _FIRST])


def test_eval_writes_json(tmp_path, capsys) -> None:
    out = tmp_path / "x.json"
    rc = main(["eval", "random", "random", "--rounds", "200", "--json", str(out), "--no-progress"])
    assert rc == 0
    data = json.loads(out.read_text())
    assert JSON_KEYS <= set(data)
    assert data["a"] == "random" and data["b"] == "random" and data["rounds"] == 200
    lo, hi = data["ci95"]
    assert lo <= data["mean_point_diff"] <= hi
    assert "mean point diff" in capsys.readouterr().out


def test_eval_options_and_json_to_stdout(capsys) -> None:
    rc = main(["eval", "greedy", "random", "--rounds", "12", "--players", "3", "--seed", "4",
               "--games", "6", "--rule", "target_score=20", "sur_points=3", "--json",
               "--no-progress"])
    assert rc == 0
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert data["players"] == 3 and data["rounds"] == 12 and data["games"] == 6
    assert data["rules"]["target_score"] == 20 and data["rules"]["sur_points"] == 3
    assert "game win rate" in captured.err and data["seed"] == 4


def test_cli_errors_are_messages_not_tracebacks(capsys) -> None:
    assert main(["eval", "random", "nobody", "--rounds", "2", "--no-progress"]) == 2
    assert "unknown agent" in capsys.readouterr().err
    assert main(["eval", "random", "random", "--rounds", "2", "--rule", "bogus=1"]) == 2
    assert "bogus" in capsys.readouterr().err
    assert main(["eval", "random", "random", "--rule", "target_score"]) == 2
    assert "flag=value" in capsys.readouterr().err
    assert main(["tournament", "random", "--rounds", "2", "--no-progress"]) == 2
    with pytest.raises(SystemExit):
        main(["eval", "random"])  # argparse: missing agent B


def test_tournament_tiny(tmp_path, capsys) -> None:
    md, js = tmp_path / "ladder.md", tmp_path / "t.json"
    argv = ["tournament", "random", "greedy", "heuristic", "--rounds", "12", "--bootstrap", "10",
            "--markdown", str(md), "--json", str(js), "--no-progress"]
    try:
        import matplotlib  # noqa: F401

        argv += ["--plot", str(tmp_path / "ladder.png")]
    except ImportError:
        pass
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "Elo" in out and "heuristic" in out
    assert "| rank | agent | Elo" in md.read_text()
    data = json.loads(js.read_text())
    assert {r["agent"] for r in data["ladder"]} == {"random", "greedy", "heuristic"}
    assert len(data["matches"]) == 3 and all(JSON_KEYS <= set(m) for m in data["matches"])


def test_agents_listing(capsys) -> None:
    assert main(["agents"]) == 0
    names = capsys.readouterr().out.split()
    assert {"random", "greedy", "heuristic", "ismcts"} <= set(names)


def test_python_dash_m_agents() -> None:
    r = subprocess.run([sys.executable, "-m", "agents", "agents"], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "greedy" in r.stdout


# ---- playing in the terminal ------------------------------------------------------------------
SCRIPT = [
    "",  # empty line
    "garbage",  # not a card
    "KS",  # not in the hand
    "9",  # no such list number
    "help",
    "7H",  # two options: 4S, or 2D + 2S
    "4S 2D",  # not an option
    "XX",  # not a card
    "9C",  # on the table but not a capture of 7H
    "AH",  # not on the table
    "7",  # no such option number
    "back",  # choose a card again
    "7H 4S 2D",  # one-line full move that is not an option
    "7H 2S",  # one-line partial capture: asks for the rest
    "clear",
    "2D",  # one card at a time, not in id order of the action interface
    "2S",
]


def test_play_scripted_round_with_invalid_input(monkeypatch, capsys) -> None:
    lines = SCRIPT + ["1"] * 400
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(lines) + "\n"))
    rc = main(["play", "greedy", "--seed", "3", "--episode", "round",
               "--deck", DECK])
    assert rc == 0
    out = capsys.readouterr().out
    for text in (
        "'garbage' is not a card",
        "K♠ is not in your hand",
        "There is no play number 9",
        "Commands:",
        "7♥ can take: 1) 4♠  2) 2♦ 2♠",
        "2♦ 4♠ is not one of 7♥'s captures",
        "'XX' is not a card",
        "9♣ is not one of 7♥'s captures",
        "A♥ is not on the table",
        "There is no capture option 7",
        "(chosen so far: 2♠)",
        "You play 7♥ and take 2♦ 2♠",
        "player_1 (greedy) plays",
        "=== round over ===",
        "=== game over ===",
        "Final scores",
    ):
        assert text in out, text
    assert "view of player_0" in out and "player_1 hand: ##" in out
    assert "end of input" not in out  # the round finished before the script ran out


@pytest.mark.parametrize("players,seat", [(2, 1), (3, 0), (4, 2)])
def test_play_whole_round_by_numbers(players: int, seat: int) -> None:
    out = io.StringIO()
    rc = play("random", players=players, seat=seat, seed=players, episode="round",
              input_stream=io.StringIO("1\n" * 400), output_stream=out)
    text = out.getvalue()
    assert rc == 0 and "=== round over ===" in text and "=== game over ===" in text
    assert text.count("You play") == 48 // players
    if players == 4:
        assert "your partner" in text and "your team" in text


def test_play_end_of_input_and_quit() -> None:
    out = io.StringIO()
    assert play("greedy", seed=1, input_stream=io.StringIO("1\n1\n"), output_stream=out) == 0
    assert "end of input" in out.getvalue() and "Bye." in out.getvalue()
    out = io.StringIO()
    assert play("greedy", seed=1, input_stream=io.StringIO("quit\n"), output_stream=out) == 0
    assert "Bye." in out.getvalue() and "You play" not in out.getvalue()


def test_play_one_opponent_per_seat(monkeypatch, capsys) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 300))
    rc = main(["play", "random", "greedy", "--players", "3",
               "--episode", "round", "--seed", "1"])
    out = capsys.readouterr().out
    assert rc == 0 and "player_1 (random)" in out and "player_2 (greedy)" in out


def test_demo_prints_a_game_between_agents(capsys) -> None:
    assert main(["demo", "--players", "3", "--seed", "2", "--episode", "round"]) == 0
    out = capsys.readouterr().out
    assert "player_2 (random)" in out and "=== round over ===" in out and "game over" in out
    assert "##" not in out  # watching: every hand is shown


# ---- --game persian_rummy: every subcommand, the refusals, records and replay -------------
def test_agents_lists_the_games_agents(capsys) -> None:
    assert main(["agents", "--game", "persian_rummy"]) == 0
    names = capsys.readouterr().out.split()
    assert {"random", "greedy", "rollout"} <= set(names) and "heuristic" not in names


def test_rummy_eval_saves_records_that_replay(tmp_path, capsys) -> None:
    out, folder = tmp_path / "r.json", tmp_path / "games"
    assert main(["eval", "--game", "persian_rummy", "greedy", "random", "--rounds", "4",
                 "--json", str(out), "--save-games", str(folder), "--no-progress",
                 "--rule", "deals=1"]) == 0
    data = json.loads(out.read_text())
    assert data["game"] == "persian_rummy" and data["rounds"] == 4 and data["players"] == 4
    assert data["rules"]["deals"] == 1 and data["groups"] == 2
    path = folder / "greedy_vs_random_seed0.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(records) == 4 and {r["game"] for r in records} == {"persian_rummy"}
    capsys.readouterr()
    assert main(["replay", str(path), "--index", "3", "--all"]) == 0
    text = capsys.readouterr().out
    assert "Persian Rummy" in text and "[0/" in text and "DISCARD" in text
    assert main(["replay", str(path), "--game", "persian_rummy", "--all"]) == 0
    capsys.readouterr()
    assert main(["replay", str(path), "--game", "pasur", "--all"]) == 2
    assert "is of 'persian_rummy', not 'pasur'" in capsys.readouterr().err


def test_rummy_tournament_and_demo(capsys) -> None:
    assert main(["tournament", "--game", "persian_rummy", "greedy", "random", "--rounds", "2",
                 "--bootstrap", "5", "--no-progress", "--json", "-"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["game"] == "persian_rummy"
    assert "Persian Rummy: 2 agents, 4 players" in captured.err
    assert main(["demo", "greedy", "--game", "persian_rummy", "--episode",
                 "round"]) == 0
    text = capsys.readouterr().out
    assert "Persian Rummy, seed 0" in text and "deal over: team points" in text


@pytest.mark.parametrize(("argv", "message"), [
    (["eval", "--game", "persian_rummy", "greedy", "random", "--players", "3"],
     "does not take --players 3"),
    (["eval", "--game", "persian_rummy", "greedy", "random", "--preset", "classic"],
     "does not take --preset"),
    (["tournament", "--game", "persian_rummy", "greedy", "random", "--players", "2"],
     "does not take --players 2"),
    (["demo", "--game", "persian_rummy", "--players", "3"], "does not take --players 3"),
    (["eval", "--game", "persian_rummy", "greedy", "random", "--rule", "target_score=3"],
     "target_score"),
    (["play", "--game", "persian_rummy", "--players", "2"], "does not take --players 2"),
    (["play", "--game", "persian_rummy", "--preset", "classic"], "does not take --preset"),
])
def test_options_a_game_does_not_take_are_refused_in_one_line(argv, message, capsys) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and err.startswith(f"pasur {argv[0]}: error")


@pytest.mark.parametrize("argv", [
    ["eval", "nosuch.npz", "greedy", "--rounds", "2"],
    ["eval", "nosuch.zip", "greedy", "--rounds", "2"],
    ["tournament", "greedy", "nosuch.npz", "--rounds", "2"],
    ["exploitability", "nosuch.npz", "--preset", "mini"],
    ["eval", "--game", "persian_rummy", "nosuch.npz", "greedy", "--rounds", "2"],
])
def test_a_missing_agent_file_is_one_line(argv, capsys) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "nosuch" in err and err.count("\n") == 1 and err.startswith(f"pasur {argv[0]}: error")


def test_an_old_pasur_record_still_replays(tmp_path, capsys) -> None:
    from pasur_env import Engine
    from pasur_env.pasur.record import GameRecord

    eng = Engine(1, seed=5, episode="round", auto_reset=False)
    rec = GameRecord.start(eng, players=["a", "b"])
    while not eng.done[0]:
        a = eng.legal_actions(0)[0]
        rec.actions.append(a)
        eng.step([a])
    old = rec.to_json()
    del old["game"]  # records written before records named their game
    assert old["format"] == "pasur-record/1"
    path = tmp_path / "old.json"
    path.write_text(json.dumps(old))
    assert main(["replay", str(path), "--all"]) == 0
    assert "Pasur, " in capsys.readouterr().out
    lines = tmp_path / "old.jsonl"
    lines.write_text(json.dumps(old) + "\n" + json.dumps(old) + "\n")
    assert main(["replay", str(lines), "--game", "1", "--all"]) == 0  # the former --game N


def test_address_without_ray_names_the_extra(capsys) -> None:
    """``--address`` needs the rllib extra: one line saying so (the Ray venv runs the
    distributed tests themselves, tests/test_ray_distributed.py)."""
    import importlib.util

    if importlib.util.find_spec("ray") is not None:
        pytest.skip("Ray is installed here: tests/test_ray_distributed.py covers --address")
    for argv in (["eval", "greedy", "random", "--rounds", "10", "--address", "local"],
                 ["tournament", "greedy", "random", "--rounds", "10", "--address", "auto"]):
        assert main(argv) == 2
        assert "pasur-env[rllib]" in capsys.readouterr().err
