"""The persistent ladder: members added one at a time, only their own pairs played."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

import agents.evaluation.ladder as ladder_mod
from agents.apps.cli import main
from agents.evaluation.ladder import SCHEMA, VERSION, Ladder, render_doc

ROOT = Path(__file__).resolve().parent.parent
ROUNDS = 20


def _spy(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Record every match the ladder plays (its ``evaluate`` calls)."""
    calls: list[tuple[str, str]] = []
    real = ladder_mod.evaluate

    def spy(a, b, **kwargs):
        calls.append((a, b))
        return real(a, b, **kwargs)

    monkeypatch.setattr(ladder_mod, "evaluate", spy)
    return calls


@pytest.fixture()
def user_agent(tmp_path: Path) -> str:
    """A spec of an agent of the user's own (a file, so its provenance has a SHA-256)."""
    shutil.copy(ROOT / "examples" / "my_agent.py", tmp_path / "my_agent.py")
    return f"{tmp_path / 'my_agent.py'}:MostCards"


@pytest.fixture()
def two(tmp_path: Path) -> Ladder:
    lad = Ladder.open(tmp_path / "ladder.json", rounds=ROUNDS)
    lad.add("random", progress=False)
    lad.add("greedy", progress=False)
    lad.save()
    return lad


def test_third_member_plays_only_its_pairs(two: Ladder, user_agent: str, monkeypatch) -> None:
    before = json.loads(two.path.read_text())
    calls = _spy(monkeypatch)
    lad = Ladder.open(two.path)
    played = lad.add(user_agent, progress=False)
    lad.save()
    assert played == [("random", user_agent), ("greedy", user_agent)]
    assert calls == played  # two matches, the old pair is not replayed
    after = json.loads(two.path.read_text())
    assert len(after["pairs"]) == 3 and after["pairs"][0] == before["pairs"][0]
    assert after["members"][:2] == before["members"]
    new = after["members"][2]
    assert new["spec"] == user_agent and len(new["provenance"]["sha256"]) == 64
    # every pair on the same deals: the ladder's seed, its rounds in whole duplicate groups
    for p in after["pairs"]:
        assert p["seed"] == before["seed"] and sum(p["groups"]["rounds"]) == ROUNDS
        assert len(p["groups"]["diff_sum"]) == ROUNDS // 2


def test_fewer_rounds_play_a_prefix_of_the_same_deals(two: Ladder) -> None:
    played = two.add("heuristic", rounds=ROUNDS // 2, progress=False)
    short = two.pairs[played[0]]
    assert short.rounds == ROUNDS // 2 and two.members[-1].rounds == ROUNDS // 2
    assert "10 to 20 duplicate rounds per pair" in two.ratings(bootstrap=5).table()


def test_show_on_a_tiny_ladder(two: Ladder, tmp_path: Path, capsys) -> None:
    res = two.ratings(bootstrap=20)
    assert res.agents == ["random", "greedy"] and res.elo[0] == 0 and res.anchor == "random"
    assert res.elo[1] > 0 and np.all(res.elo_ci95[:, 0] <= res.elo_ci95[:, 1])
    assert two.ratings(anchor=None, bootstrap=0).elo.mean() == pytest.approx(0, abs=1e-9)
    md, js = tmp_path / "l.md", tmp_path / "l.json"
    assert main(["ladder", "show", "--ladder", str(two.path), "--bootstrap", "20",
                 "--markdown", str(md), "--json", str(js)]) == 0
    text = md.read_text()
    assert "| 1 | greedy |" in text and "| random | `random` | built-in |" in text
    assert "random fixed at 0" in text
    assert [r["agent"] for r in json.loads(js.read_text())["ladder"]] == ["greedy", "random"]
    assert "time/decision" in capsys.readouterr().out


def test_json_round_trip(two: Ladder) -> None:
    data = two.to_json()
    assert data["schema"] == SCHEMA and data["version"] == VERSION
    again = Ladder.from_json(json.loads(json.dumps(data)))
    assert again.to_json() == data
    old, new = two.pairs[("random", "greedy")], again.pairs[("random", "greedy")]
    for name in ("group_diff_sum", "group_win_sum", "group_rounds"):
        assert np.array_equal(getattr(old, name), getattr(new, name))
    assert new.mean_point_diff == old.mean_point_diff and new.ci95 == old.ci95
    assert again.ratings(bootstrap=10).elo.tolist() == two.ratings(bootstrap=10).elo.tolist()


def test_refusals(two: Ladder, tmp_path: Path, capsys) -> None:
    with pytest.raises(ValueError, match="'greedy' is already a member of the ladder"):
        two.add("greedy", progress=False)
    with pytest.raises(ValueError, match="has game 'pasur', not 'persian_rummy'"):
        Ladder.open(two.path, game="persian_rummy")
    with pytest.raises(ValueError, match="has seed 0, not 5"):
        Ladder.open(two.path, seed=5)
    with pytest.raises(ValueError, match="rounds must be a positive multiple of 2"):
        two.add("heuristic", rounds=7, progress=False)
    assert two.labels() == ["random", "greedy"]  # nothing was added by a refusal
    # the same through the command line: one line, exit code 2
    assert main(["ladder", "add", "greedy", "--ladder", str(two.path)]) == 2
    assert "pasur ladder: error: 'greedy' is already a member" in capsys.readouterr().err
    assert main(["ladder", "add", "net", "--game", "persian_rummy",
                 "--ladder", str(two.path)]) == 2
    assert "has game 'pasur', not 'persian_rummy'" in capsys.readouterr().err


@pytest.mark.parametrize("text, why", [
    ("{not json", "is not a ladder file (not JSON"),
    ('{"schema": "other"}', "its schema is not 'pasur-ladder'"),
    ('{"schema": "pasur-ladder", "version": 99}', "its version 99 is not one"),
    ('{"schema": "pasur-ladder", "version": 1}', "is not a valid ladder file: 'game'"),
])
def test_corrupt_files_are_refused(tmp_path: Path, capsys, text: str, why: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(ValueError, match=why.replace("(", r"\(")):
        Ladder.load(path)
    assert main(["ladder", "show", "--ladder", str(path)]) == 2
    assert f"pasur ladder: error: {path}" in capsys.readouterr().err


def test_pairs_must_name_members(two: Ladder) -> None:
    data = two.to_json()
    data["pairs"][0]["b"] = "ghost"
    with pytest.raises(ValueError, match="names an agent that is not a member"):
        Ladder.from_json(data)
    data = two.to_json()
    data["pairs"][0]["groups"]["rounds"].pop()
    with pytest.raises(ValueError, match="differ in length"):
        Ladder.from_json(data)


def test_a_changed_member_is_refused(tmp_path: Path, user_agent: str) -> None:
    lad = Ladder.open(tmp_path / "l.json", rounds=ROUNDS)
    lad.add(user_agent, progress=False)
    source = Path(user_agent.rpartition(":")[0])
    source.write_text(source.read_text() + "\n# changed\n")
    with pytest.raises(ValueError, match="changed since it joined the ladder"):
        lad.add("random", progress=False)


def test_shipped_ladders_and_leaderboard_agree(tmp_path: Path) -> None:
    """docs/leaderboard.md's tables are those of the shipped ladder files
    (``make ladder`` rebuilds both)."""
    docs = tmp_path / "docs"
    shutil.copytree(ROOT / "docs" / "ladders", docs / "ladders")
    shutil.copy(ROOT / "docs" / "leaderboard.md", docs / "leaderboard.md")
    assert not render_doc(docs / "leaderboard.md")
    for name in ("pasur", "persian_rummy"):
        lad = Ladder.load(ROOT / "docs" / "ladders" / f"{name}.json")
        k = len(lad.members)
        assert k >= 4 and len(lad.pairs) == k * (k - 1) // 2


def test_address_plays_the_new_pairs_through_the_ray_runner(two: Ladder, monkeypatch,
                                                             capsys) -> None:
    """``pasur ladder add --address`` hands the new pairs (and only them) to the runner of
    ``pasur tournament --address`` inside its Ray session (here stand-ins that play here;
    tests/test_ray_distributed.py plays them on a cluster)."""
    import contextlib

    import agents.evaluation.distributed as dist
    from agents.evaluation.match import evaluate

    seen: dict[str, object] = {}

    def runner(specs, pairs, kwargs, progress):
        seen.update(specs=list(specs), pairs=list(pairs))
        return {(i, j): evaluate(specs[i], specs[j], progress=False, **kwargs) for i, j in pairs}

    monkeypatch.setattr(dist, "play_pairs_on_ray", runner)
    monkeypatch.setattr(dist, "ray_session", lambda *a: contextlib.nullcontext())
    assert main(["ladder", "add", "heuristic", "--ladder", str(two.path), "--address",
                 "local"]) == 0
    assert seen == {"specs": ["random", "greedy", "heuristic"], "pairs": [(0, 2), (1, 2)]}
    assert "played 2 pair(s)" in capsys.readouterr().out
    assert len(Ladder.load(two.path).pairs) == 3


# ---- exploitability: ladders of a small variant ---------------------------------------
#: a six-card ``mini`` variant (one deal of two cards each, two on the table): its exact
#: exploitability takes a fraction of a second once the kernels are compiled
TINY = {"cards": ("AC", "2C", "9D", "10D", "QH", "JS"), "hand_size": 2, "table_size": 2}


def test_a_mini_ladder_has_the_exploitability_column(tmp_path: Path, capsys) -> None:
    """A member of a ladder of a small variant gets its exact exploitability when it joins
    (``exploitability()``'s values, stored in the file); one added without it gets it from
    ``pasur ladder exploitability``; ``show`` has a NashConv column in text, markdown, JSON."""
    from agents.evaluation.exploitability import exploitability

    path = tmp_path / "mini.json"
    lad = Ladder.open(path, preset="mini", rounds=ROUNDS, **TINY)
    lad.add("random", progress=False, exploitability=False)
    lad.add("greedy", progress=False)
    lad.save()
    assert lad.members[0].exploitability is None
    want = {a: exploitability(a, preset="mini", seed=0, **TINY) for a in ("random", "greedy")}
    got = json.loads(path.read_text())["members"][1]["exploitability"]
    assert got["nash_conv"] == want["greedy"].nash_conv > 0
    assert got["gains"] == {str(k): v for k, v in want["greedy"].gains.items()}
    assert (got["preset"], got["rules"]["hand_size"], got["samples"], got["seed"]) == \
        ("mini", 2, 1, 0)
    res = Ladder.load(path).ratings(bootstrap=5)
    assert "NashConv" in res.table() and "| – |" in res.markdown()  # random: not computed
    assert main(["ladder", "exploitability", "--ladder", str(path)]) == 0
    assert "of 1 member(s)" in capsys.readouterr().out and "random" in path.read_text()
    md, js = tmp_path / "l.md", tmp_path / "l.json"
    assert main(["ladder", "show", "--ladder", str(path), "--bootstrap", "5",
                 "--markdown", str(md), "--json", str(js)]) == 0
    rows = {r["agent"]: r for r in json.loads(js.read_text())["ladder"]}
    for agent, res in want.items():
        assert rows[agent]["nash_conv"] == res.nash_conv
        assert rows[agent]["best_response_gains"] == {str(k): v for k, v in res.gains.items()}
        assert f"| {res.nash_conv:.3f} |" in md.read_text()
    assert f"{want['random'].nash_conv:.3f}" in capsys.readouterr().out  # the text table
    again = Ladder.load(path)  # stored, not recomputed
    assert again.fill_exploitability() == [] and again.to_json() == Ladder.load(path).to_json()


def test_a_full_game_ladder_refuses_exploitability(two: Ladder, capsys) -> None:
    """The full games have no exact exploitability: the command says why in one line,
    ``add --exploitability`` refuses before playing, and ``show`` has no such column."""
    before = two.path.read_text()
    assert main(["ladder", "exploitability", "--ladder", str(two.path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith(f"pasur ladder: error: the ladder {two.path} has no exploitability")
    assert "pasur ladder best-response records a learned best response's gain" in err
    assert main(["ladder", "add", "heuristic", "--exploitability", "--ladder",
                 str(two.path)]) == 2
    assert "has no exploitability" in capsys.readouterr().err
    assert two.path.read_text() == before
    two.add("heuristic", rounds=2, progress=False)  # by default: joins without it
    assert two.members[-1].exploitability is None
    assert "NashConv" not in two.markdown(bootstrap=5)
    assert "exploitability" not in json.dumps(two.to_json())


def test_old_files_load(two: Ladder, tmp_path: Path) -> None:
    """A file without the field (older, or a full game's) loads; a malformed one is refused."""
    data = two.to_json()
    assert all("exploitability" not in m for m in data["members"])
    assert Ladder.from_json(data).labels() == ["random", "greedy"]
    old = Ladder.load(ROOT / "docs" / "ladders" / "pasur.json")  # the shipped file
    assert all(m.exploitability is None for m in old.members)
    data["members"][0]["exploitability"] = [1.0]
    with pytest.raises(ValueError, match="the exploitability of member 'random' is not"):
        Ladder.from_json(data)


# ---- learned best responses: any ladder ------------------------------------------------
#: the smallest training run of ``pasur best-response`` (a few updates of a few games)
TINY_PPO = {"envs": 4, "hidden": 8}


@pytest.fixture(scope="module")
def greedy_br(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A result of ``pasur best-response greedy --json`` on Pasur's default rules (a tiny
    run), as a ladder of the full game records it."""
    pytest.importorskip("torch")
    from train.best_response import Ppo, best_response

    folder = tmp_path_factory.mktemp("br")
    res = best_response("greedy", decisions=64, rounds=ROUNDS, save=folder / "greedy.npz",
                        ppo=Ppo(**TINY_PPO))
    return json.loads(json.dumps(res.to_json()))


def test_a_search_best_response_is_recorded_with_its_positions(two: Ladder, tmp_path: Path,
                                                                capsys) -> None:
    """A ``--method search`` result trained nothing: its cell says so, with its budget."""
    pytest.importorskip("torch")
    from train.best_response import search_best_response

    res = search_best_response("greedy", particles=1, rounds=2, save=tmp_path / "s.json")
    saved = _saved(tmp_path, json.loads(json.dumps(res.to_json())))
    assert main(["ladder", "best-response", "--ladder", str(two.path), "--from",
                 str(saved)]) == 0
    assert main(["ladder", "show", "--ladder", str(two.path), "--bootstrap", "5"]) == 0
    lo, hi = res.ci95
    assert f"{res.gain:+.2f} [{lo:+.2f}, {hi:+.2f}] (search, 1 positions)" in \
        capsys.readouterr().out


def _saved(tmp_path: Path, data: dict, name: str = "br.json", **changes: object) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps({**data, **changes}))
    return path


def test_a_recorded_best_response_shows_the_column(two: Ladder, greedy_br: dict,
                                                   tmp_path: Path, capsys) -> None:
    """``ladder best-response --from`` records a saved result in its member's entry (gain,
    interval, rounds, budget, seed, exploiter, date, library); ``show`` then has a learned
    BR column in text, markdown and JSON ("–" for the member without one)."""
    saved = _saved(tmp_path, greedy_br)
    assert main(["ladder", "best-response", "--ladder", str(two.path), "--from",
                 str(saved)]) == 0
    assert "recorded the learned best response of 1 member(s)" in capsys.readouterr().out
    entry = json.loads(two.path.read_text())["members"][1]["learned_best_response"]
    assert entry == {k: greedy_br[k] for k in ("gain", "ci95", "rounds", "budget", "used",
                                               "seed", "exploiter", "date", "library",
                                               "teacher", "selection", "method")}
    assert entry["teacher"] is None  # learned from scratch
    assert entry["budget"] == {"minutes": None, "decisions": 64}
    md, js = tmp_path / "l.md", tmp_path / "l.json"
    assert main(["ladder", "show", "--ladder", str(two.path), "--bootstrap", "5",
                 "--markdown", str(md), "--json", str(js)]) == 0
    lo, hi = greedy_br["ci95"]
    cell = (f"{greedy_br['gain']:+.2f} [{lo:+.2f}, {hi:+.2f}] "
            f"({greedy_br['used']['decisions']:,} dec.)")
    text = capsys.readouterr().out
    assert "learned BR gain [95% CI]" in text and cell in text and "NashConv" not in text
    rows = {r["agent"]: r for r in json.loads(js.read_text())["ladder"]}
    assert rows["greedy"]["learned_best_response"] == entry
    assert rows["random"]["learned_best_response"] is None
    table = md.read_text()
    assert f"| {cell} |" in table and "| learned BR (rounds; training; seed, date) |" in table
    random_row = next(line for line in table.splitlines() if line.startswith("| ")
                      and line.split(" | ")[1] == "random")  # the ratings' row of random
    assert random_row.endswith("| – |")
    data = Ladder.load(two.path).to_json()
    assert Ladder.from_json(json.loads(json.dumps(data))).to_json() == data  # reads back


@pytest.mark.parametrize(("changes", "why"), [
    ({"game": "persian_rummy"}, "its game is 'persian_rummy', the ladder's 'pasur'"),
    ({"players": 3}, "its players is 3, the ladder's 2"),
    ({"agent": "heuristic"}, "its agent 'heuristic' is not a member (the members: random, "
                             "greedy)"),
    ({"rules": {"target_score": 31}}, "its rules is {'target_score': 31}, the ladder's {}"),
    ({"preset": "mini"}, "its preset is 'mini', the ladder's None"),
    ({"seat": 0}, "its agent played only seat 0's side (--seat)"),
    ({"gain": "much"}, "its gain, ci95 or used decisions are not numbers"),
])
def test_a_result_that_does_not_fit_is_refused(two: Ladder, greedy_br: dict, tmp_path: Path,
                                               capsys, changes: dict, why: str) -> None:
    """A result of another game, table size, agent, rules or a --seat run is refused,
    naming the file and what differs, and the ladder file is left as it was (a good
    result given with it is not recorded either)."""
    good, bad = _saved(tmp_path, greedy_br), _saved(tmp_path, greedy_br, "bad.json", **changes)
    before = two.path.read_text()
    with pytest.raises(ValueError, match=f"bad.json does not fit the ladder {two.path}: "):
        Ladder.load(two.path).record_best_response_files([good, bad])
    assert main(["ladder", "best-response", "--ladder", str(two.path), "--from", str(good),
                 str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("pasur ladder: error: ") and why in err and len(err.splitlines()) == 1
    assert two.path.read_text() == before


def test_other_refusals_of_recorded_results(two: Ladder, greedy_br: dict, tmp_path: Path,
                                            user_agent: str, capsys) -> None:
    before = two.path.read_text()
    notjson = tmp_path / "x.json"
    notjson.write_text("{oops")
    for argv, why in (([str(notjson)], "x.json is not a result of pasur best-response --json"),
                      ([str(_saved(tmp_path, greedy_br)), "--decisions", "10"],
                       "--from records saved results: --decisions do not apply")):
        assert main(["ladder", "best-response", "--ladder", str(two.path), "--from",
                     *argv]) == 2
        assert why in capsys.readouterr().err
    assert two.path.read_text() == before
    # a member whose source changed since it joined: the result is not of the agent there
    lad = Ladder.open(tmp_path / "mine.json", rounds=ROUNDS)
    lad.add(user_agent, progress=False)
    lad.save()
    source = Path(user_agent.rpartition(":")[0])
    source.write_text(source.read_text() + "\n# changed\n")
    saved = _saved(tmp_path, greedy_br, "mine_br.json", agent=user_agent)
    with pytest.raises(ValueError, match="changed since it joined the ladder"):
        lad.record_best_response_files([saved])
    assert lad.members[0].learned_best_response is None


def test_ladder_best_response_trains_and_records(two: Ladder, tmp_path: Path, capsys) -> None:
    """End to end: ``--member`` trains only that member; without it, every member that has
    none; each entry is the gain of the exploiter saved next to the ladder, measured on
    the ladder's seed, on ``--rounds`` rounds, with the budget asked and used."""
    pytest.importorskip("torch")
    flags = ["--decisions", "2000", "--rounds", "20", "--no-progress"]
    assert main(["ladder", "best-response", "--ladder", str(two.path), "--member", "greedy",
                 *flags]) == 0
    out = capsys.readouterr().out
    assert "trained a learned best response of 1 member(s)" in out and "greedy" in out
    assert "learned BR gain [95% CI]" in out
    lad = Ladder.load(two.path)
    assert lad.members[0].learned_best_response is None
    entry = lad.members[1].learned_best_response
    assert entry["rounds"] == 20 and entry["seed"] == lad.seed
    assert entry["budget"] == {"minutes": None, "decisions": 2000}
    assert entry["used"]["decisions"] >= 2000 and entry["used"]["seconds"] > 0
    assert Path(entry["exploiter"]) == tmp_path / "ladder.best_response" / "greedy.npz"
    assert Path(entry["exploiter"]).exists() and entry["library"]["version"]
    lo, hi = entry["ci95"]
    assert lo <= entry["gain"] <= hi
    assert main(["ladder", "best-response", "--ladder", str(two.path), "--teacher", "greedy",
                 *flags]) == 0
    out = capsys.readouterr().out
    assert "of 1 member(s)" in out and "from greedy)" in out
    lad = Ladder.load(two.path)
    assert lad.members[1].learned_best_response == entry  # kept, not trained again
    assert entry["teacher"] is None
    assert lad.members[0].learned_best_response["rounds"] == 20
    assert lad.members[0].learned_best_response["teacher"] == "greedy"
    assert main(["ladder", "best-response", "--ladder", str(two.path), "--member", "ghost",
                 *flags]) == 2
    assert "'ghost' is not a member of the ladder" in capsys.readouterr().err


def test_old_files_and_malformed_best_responses(two: Ladder, greedy_br: dict) -> None:
    """A member without the entry writes none (older readers see no change); one that is
    not a result is refused when the file is read."""
    assert "learned_best_response" not in json.dumps(two.to_json())
    assert not two.ratings(bootstrap=5).has_best_response()
    data = two.to_json()
    data["members"][0]["learned_best_response"] = {"gain": 1.0}
    with pytest.raises(ValueError, match="the learned best response of member 'random' is"):
        Ladder.from_json(data)
