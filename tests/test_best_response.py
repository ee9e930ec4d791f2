"""``pasur best-response``: a learned exploiter of any agent, saved as ``br:PATH``, and
its gain on fresh duplicate deals (``train.best_response``, ``agents.learned.exploiter``).
Tiny budgets: the command end to end for both games from a folder of the user's own,
the saved exploiter through ``pasur eval``, bad input in one line, and the learner
finding a positive gain against an agent with an obvious flaw."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from agents import Agent  # noqa: E402
from agents.apps.cli import main  # noqa: E402
from agents.learned.exploiter import read_exploiter  # noqa: E402
from agents.registry import build_agent  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
#: the smallest training run: a few updates of a few games
TINY = ["--decisions", "64", "--envs", "4", "--hidden", "8", "--no-progress"]


def _user_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The working folder is a user's, holding copies of the example agents."""
    for name in ("my_agent.py", "rummy_agent.py"):
        shutil.copy(ROOT / "examples" / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)


@pytest.mark.parametrize(("game", "agent", "rounds"), [
    ("pasur", "./my_agent.py:MostCards", "8"),
    ("persian_rummy", "./rummy_agent.py:MeldFirst", "4"),
])
def test_the_command_trains_saves_and_measures_an_exploiter(
        game: str, agent: str, rounds: str, tmp_path: Path, monkeypatch, capsys) -> None:
    _user_folder(tmp_path, monkeypatch)
    rules = ["--rule", "deals=1"] if game == "persian_rummy" else []
    code = main(["best-response", agent, "--game", game, *TINY, "--rounds", rounds,
                 "--save", "br.npz", "--json", "out.json", *rules])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert "learned best response to " + agent in out.out
    res = json.loads((tmp_path / "out.json").read_text())
    assert res["game"] == game and res["agent"] == agent and res["rounds"] == int(rounds)
    assert res["used"]["decisions"] >= 64 and res["budget"] == {"minutes": None,
                                                                "decisions": 64}
    assert res["evaluation"]["a"] == f"br:{tmp_path / 'br.npz'}"
    assert res["evaluation"]["mean_point_diff"] == res["gain"]
    assert res["teacher"] is None and "from scratch" in out.out
    assert "teacher" not in read_exploiter(tmp_path / "br.npz")[1]  # learned from scratch
    lo, hi = res["ci95"]
    assert lo <= res["gain"] <= hi
    # the exploiter plays as an agent of every command: pasur eval, by loader and by spec
    assert main(["eval", "br:br.npz", agent, "--game", game, "--rounds", "2",
                 "--no-progress", *rules]) == 0, capsys.readouterr().err
    made = build_agent("agents.learned.exploiter:ExploiterAgent:weights=br.npz,sample=true",
                       seed=1, game=game)
    assert made.game_ids == (game,) and made.sample


def test_the_exploiter_is_the_network_it_saved(tmp_path: Path) -> None:
    """The numpy agent computes the torch network's logits (the file keeps every layer)."""
    torch = pytest.importorskip("torch")
    from agents.learned.exploiter import ExploiterAgent, save_exploiter
    from train.best_response import _Net

    net = _Net(6, 5, 4)
    path = save_exploiter(tmp_path / "x.npz", net.layers(), {
        "game": "pasur", "players": 2, "observation_size": 6, "num_actions": 5})
    obs = np.random.default_rng(0).standard_normal((3, 6)).astype(np.float32)
    with torch.no_grad():
        want = net.actor(net.body(torch.as_tensor(obs))).numpy()
    agent = ExploiterAgent(str(path))
    np.testing.assert_allclose(agent.logits(obs), want, rtol=1e-5, atol=1e-6)
    mask = np.array([[0, 1, 0, 1, 0]] * 3, dtype=bool)
    assert set(agent.act(obs, mask, None).tolist()) <= {1, 3}  # type: ignore[arg-type]
    agent.sample = True
    for _ in range(5):
        assert set(agent.act(obs, mask, None).tolist()) <= {1, 3}  # type: ignore[arg-type]


@pytest.mark.parametrize(("argv", "message"), [
    (["nosuchagent"], "unknown agent 'nosuchagent'"),
    (["greedy", "--minutes", "1", "--decisions", "10"], "not allowed with argument"),
    (["greedy", "--minutes", "-1"], "--minutes must be a positive number, got -1.0"),
    (["greedy", "--minutes", "nan"], "--minutes must be a positive number"),
    (["greedy", "--decisions", "0"], "--decisions must be a positive integer, got 0"),
    (["./rummy_agent.py:MeldFirst"], "plays persian_rummy, not pasur"),
    (["./my_agent.py:MostCards", "--game", "persian_rummy"], "plays pasur, not persian_rummy"),
    (["heuristic", "--game", "persian_rummy"], "'heuristic'"),
    (["greedy", "--game", "persian_rummy", "--preset", "mini"], "--preset"),
    (["greedy", "--envs", "0"], "--envs must be a positive integer"),
    (["greedy", "--seat", "2", "--decisions", "8", "--envs", "2"], "--seat must be a seat"),
    (["greedy", "--teacher", "nosuchagent"], "unknown agent 'nosuchagent'"),
    (["greedy", "--teacher", "./rummy_agent.py:MeldFirst"], "plays persian_rummy, not pasur"),
    (["greedy", "--game", "persian_rummy", "--history"], "engine keeps no play history"),
])
def test_bad_input_is_one_clear_line(argv: list[str], message: str, tmp_path: Path,
                                     monkeypatch, capsys) -> None:
    _user_folder(tmp_path, monkeypatch)
    try:
        code = main(["best-response", *argv])
    except SystemExit as e:  # the parser's own refusals exit
        code = e.code
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("pasur best-response: error:") and message in err, err
    assert len(err.splitlines()) == 1
    assert not (tmp_path / "runs").exists()  # nothing trained, nothing saved


def test_a_teacher_is_kept_in_the_file_and_plays_with_it(tmp_path: Path, monkeypatch,
                                                         capsys) -> None:
    """``--teacher``: the header and the result name it, and ``br:PATH`` plays with it."""
    _user_folder(tmp_path, monkeypatch)
    code = main(["best-response", "./my_agent.py:MostCards", "--teacher", "heuristic", *TINY,
                 "--rounds", "4", "--save", "br.npz", "--json", "out.json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert "from heuristic's moves (bonus 3.0)" in out.out
    header = read_exploiter(tmp_path / "br.npz")[1]
    assert header["teacher"] == "heuristic" and header["teacher_bonus"] == 3.0
    assert json.loads((tmp_path / "out.json").read_text())["teacher"] == "heuristic"
    assert main(["eval", "br:br.npz", "greedy", "--rounds", "2", "--no-progress"]) == 0, \
        capsys.readouterr().err


def test_a_history_exploiter_reads_every_seat_s_plays(tmp_path: Path, monkeypatch,
                                                     capsys) -> None:
    """``--history``: the network reads the observation and the cards every seat played
    this round (its first layer is 104 inputs wider on 2 players), the header says so,
    and ``br:PATH`` feeds it the same inputs when it plays."""
    from agents.learned.exploiter import ExploiterAgent
    from pasur_env import AllSeatsEnv
    from pasur_env.core.policy import GameView

    _user_folder(tmp_path, monkeypatch)
    code = main(["best-response", "greedy", "--preset", "mini", "--history", *TINY,
                 "--rounds", "4", "--save", "br.npz"])
    assert code == 0, capsys.readouterr().err
    layers, header = read_exploiter(tmp_path / "br.npz")
    env = AllSeatsEnv(num_envs=3, preset="mini", episode="round", reward="diff")
    assert header["history"] is True and header["observation_size"] == env.obs_size
    assert layers[0][0].shape[0] == env.obs_size + 104
    _, mask, _, _ = env.reset(seed=0)
    env.step(np.argmax(mask, axis=1))  # a card played in each game: the history is not empty
    obs, mask = env.engine.observe(), env.engine.legal_mask()
    agent = ExploiterAgent(str(tmp_path / "br.npz"))
    view = GameView.all(env.engine)
    inputs = np.concatenate([obs, env.engine.play_history()], axis=1)
    assert env.engine.play_history().sum() == 3
    want = np.argmax(np.where(mask, agent.logits(inputs), -np.inf), axis=1)
    np.testing.assert_array_equal(agent.act(obs, mask, view), want)


def test_an_exploiter_starts_as_its_teacher(tmp_path: Path) -> None:
    """A short run with ``teacher="greedy"`` leaves the network's logits small next to the
    bonus: the exploiter plays exactly greedy's moves, so against ``random`` it scores
    what greedy scores on the same deals (without the teacher in the file it would play
    the network's own near-uniform argmax)."""
    from agents.evaluation.match import evaluate
    from train.best_response import Ppo, best_response

    res = best_response("random", teacher="greedy", decisions=300, preset="mini", rounds=8,
                        seed=5, ppo=Ppo(envs=8, hidden=16), save=tmp_path / "br.npz")
    assert res.used["decisions"] >= 300 and res.teacher == "greedy"
    assert read_exploiter(tmp_path / "br.npz")[1]["teacher"] == "greedy"
    kwargs = dict(rounds=200, seed=11, preset="mini", progress=False)
    mine = evaluate(f"br:{tmp_path / 'br.npz'}", "random", **kwargs)
    greedy = evaluate("greedy", "random", **kwargs)
    assert mine.rounds == greedy.rounds == 200
    for name in ("mean_point_diff", "mean_points_a", "round_wins", "round_ties"):
        assert getattr(mine, name) == getattr(greedy, name), name
    np.testing.assert_array_equal(mine.group_diff_sum, greedy.group_diff_sum)


def test_training_that_loses_to_its_teacher_is_not_kept(tmp_path: Path) -> None:
    """The validation deals choose: a network that plays worse than its teacher (here one
    trained 300 decisions from scratch, its file then naming ``greedy`` as its teacher
    with no bonus) is replaced by the teacher's moves alone, on deals of a seed the
    evaluation does not use, and the choice is recorded in the file and the result."""
    from agents.evaluation.match import evaluate
    from train.best_response import Ppo, best_response, keep_the_better, validation_seed

    path = tmp_path / "br.npz"
    best_response("random", decisions=300, preset="mini", rounds=8, seed=5,
                  ppo=Ppo(envs=8, hidden=16), save=path)
    layers, header = read_exploiter(path)
    header.update(teacher="greedy", teacher_bonus=3.0)
    spec = f"br:{path}"
    choice = keep_the_better(spec, "greedy", "random", path, layers, header, rounds=400,
                             seed=5, batch=4096, game="pasur", players=2, seat=None,
                             sides=np.array([0, 1]), preset="mini")
    assert choice["seed"] == validation_seed(5) != 5 and choice["rounds"] == 400
    assert choice["kept"] == "teacher" and choice["teacher"] > choice["trained"], choice
    layers, header = read_exploiter(path)
    assert not layers[-1][0].any() and header["selection"] == choice
    kwargs = dict(rounds=200, seed=11, preset="mini", progress=False)
    mine, greedy = evaluate(spec, "random", **kwargs), evaluate("greedy", "random", **kwargs)
    np.testing.assert_array_equal(mine.group_diff_sum, greedy.group_diff_sum)
    res = best_response("random", teacher="greedy", decisions=300, preset="mini", rounds=8,
                        seed=5, ppo=Ppo(envs=8, hidden=16), save=tmp_path / "b2.npz")
    assert res.selection is not None and res.selection["kept"] in ("trained", "teacher")
    assert "validation rounds" in res.summary()
    assert res.to_json()["selection"] == res.selection


def test_address_without_ray_is_one_line_before_training(tmp_path: Path, monkeypatch,
                                                          capsys) -> None:
    if importlib.util.find_spec("ray") is not None:
        pytest.skip("Ray is installed: the Ray venv's tests run --address")
    _user_folder(tmp_path, monkeypatch)
    assert main(["best-response", "greedy", "--address", "local"]) == 2
    err = capsys.readouterr().err
    assert "rllib extra is needed for pasur best-response --address" in err, err
    assert len(err.strip().splitlines()) == 1 and not (tmp_path / "runs").exists()


def test_a_file_that_is_no_exploiter_is_refused_in_one_line(tmp_path: Path, monkeypatch,
                                                            capsys) -> None:
    _user_folder(tmp_path, monkeypatch)
    np.savez(tmp_path / "other.npz", w=np.zeros(3))
    for spec, message in (("br:missing.npz", "no exploiter file missing.npz"),
                          ("br:other.npz", "is not an exploiter saved by pasur best-response")):
        assert main(["eval", spec, "greedy", "--rounds", "2", "--no-progress"]) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1, err


class LowestCard(Agent):
    """Always the lowest legal action id: it lays its lowest card and takes nothing it
    is not forced to, an agent any learner should beat by a clear margin."""

    name, game_ids = "lowest", ("pasur",)

    def act(self, obs, mask, view):
        return np.argmax(mask, axis=1).astype(np.int64)


def test_the_learner_finds_a_gain_against_an_exploitable_agent(tmp_path: Path) -> None:
    """On ``mini``, a short run against LowestCard gains clearly more than the untrained
    network does (its first update only), each measured on the same fresh deals."""
    from train.best_response import Ppo, best_response

    ppo = Ppo(envs=64, steps=16, hidden=64, lr=1e-3)
    kwargs = dict(preset="mini", rounds=1000, seed=3, ppo=ppo)
    untrained = best_response(LowestCard(), decisions=1, save=tmp_path / "u.npz", **kwargs)
    trained = best_response(LowestCard(), decisions=30_000, save=tmp_path / "t.npz", **kwargs)
    assert trained.ci95[0] > untrained.ci95[1], (trained.summary(), untrained.summary())
    assert trained.gain > 0


def test_training_runs_numba_torch_and_blas_on_one_thread(tmp_path: Path, monkeypatch) -> None:
    """The frozen agent and the learner are asked for small batches: numba's kernels,
    torch and numpy's BLAS (a numpy network's products) each run on one thread while
    the exploiter trains, and get their pools back after."""
    import numba
    import torch
    from threadpoolctl import threadpool_info, threadpool_limits

    import train.best_response as br

    def blas() -> list[int]:
        return [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"]

    seen: list[tuple[list[int], int, int]] = []
    real = br._collect

    def spy(*args, **kwargs) -> None:
        seen.append((blas(), numba.get_num_threads(), torch.get_num_threads()))
        real(*args, **kwargs)

    monkeypatch.setattr(br, "_collect", spy)
    with threadpool_limits(limits=2, user_api="blas"):
        br.best_response("greedy", preset="mini", decisions=64, rounds=4,
                         save=tmp_path / "x.npz", ppo=br.Ppo(envs=4, hidden=8))
        assert seen and all(b == [1] * len(b) and n == 1 and t == 1 for b, n, t in seen)
        assert all(n == 2 for n in blas())
