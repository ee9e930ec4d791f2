"""Results schema 2 (per-deal data, provenance, from_json, CSV) and paired comparisons."""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agents.apps.cli import main
from agents.evaluation.compare import compare
from agents.evaluation.distributed import evaluate_on_ray, play_chunks_here
from agents.evaluation.match import evaluate
from agents.evaluation.results import SCHEMA, EvalResult, git_commit
from agents.evaluation.stats import mean_ci, paired_diff_ci
from agents.evaluation.tournament import TournamentResult, tournament
from agents.pasur.game import NET_VERSIONS
from agents.registry import agent_provenance, make_agent

V1 = Path(__file__).parent / "data" / "results_v1"
ROOT = Path(__file__).resolve().parents[1]


def _round_trip(res: EvalResult) -> EvalResult:
    return EvalResult.from_json(json.loads(json.dumps(res.to_json())))


# ---- schema 2 and its round trip ---------------------------------------------------------
@pytest.mark.parametrize("game, a, b, kwargs", [
    ("pasur", "greedy", "random", {"rounds": 20}),
    ("pasur", "random", "random", {"mode": "game", "games": 4, "target_score": 20}),
    ("pasur", "random", "random", {"rounds": 12, "players": 3, "games": 6,
                                   "target_score": 20}),
    ("persian_rummy", "random", "random", {"rounds": 4, "deals": 1}),
])
def test_a_result_reads_back_equal_from_its_json(game: str, a: str, b: str,
                                                 kwargs: dict[str, Any]) -> None:
    res = evaluate(a, b, seed=5, progress=False, game=game, **kwargs)
    data = res.to_json()
    assert data["schema"] == SCHEMA == 2
    assert data["agent_seed"] == 5 and data["library"]["version"]
    cols = data["per_deal"]
    assert len(cols["deal"]) == res.deals and cols["deal"] == list(range(res.deals))
    assert sum(cols["rounds"]) == res.rounds
    assert sum(cols["point_diff"]) == pytest.approx(res.mean_point_diff * res.rounds)
    assert [o for o in cols["outcome"] if o not in ("win", "tie", "loss")] == []
    back = _round_trip(res)
    assert back == res
    assert back.to_json() == json.loads(json.dumps(data))


def test_results_differing_in_one_field_or_one_deal_are_not_equal() -> None:
    res = evaluate("greedy", "random", rounds=8, seed=1, progress=False)
    other = dataclasses.replace(res, group_diff_sum=res.group_diff_sum.copy())
    assert other == res
    other.group_diff_sum[0] += 1
    assert other != res
    assert dataclasses.replace(res, agent_seed=2) != res
    assert dataclasses.replace(res, mean_point_diff=float("nan")) != res


def test_a_result_before_schema_2_loads_with_the_missing_fields_none() -> None:
    for name, game in (("pasur_greedy_random.json", "pasur"),
                       ("rummy_greedy_random.json", "persian_rummy")):
        data = json.loads((V1 / name).read_text())
        assert "schema" not in data and "per_deal" not in data
        res = EvalResult.load(V1 / name)
        assert res.game == game and (res.a, res.b, res.seed) == ("greedy", "random", 3)
        assert res.mean_point_diff == data["mean_point_diff"]
        assert res.ci95 == tuple(data["ci95"]) and res.rounds == data["rounds"]
        assert res.provenance["a"]["origin"] == "built-in"
        assert not res.has_deals
        assert res.group_diff_sum is None and res.group_rounds is None
        assert (res.agent_seed, res.library_version, res.git_commit, res.date) == (None,) * 4
        assert "mean point diff (A - B) per round" in res.summary()
        assert res.to_json()["per_deal"] is None
    rummy = EvalResult.load(V1 / "rummy_greedy_random.json")
    assert rummy.games == 4 and rummy.game_win_rate == 0.75


def test_from_json_refuses_what_is_not_an_evaluation_result(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not evaluation results"):
        EvalResult.from_json([1, 2])
    with pytest.raises(ValueError, match="a tournament's result"):
        EvalResult.from_json({"agents": [], "ladder": [], "matches": []})
    data = json.loads((V1 / "pasur_greedy_random.json").read_text())
    with pytest.raises(ValueError, match="schema 3: this version of pasur_env reads schemas "
                                         "1 to 2"):
        EvalResult.from_json({**data, "schema": 3})
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    with pytest.raises(ValueError, match="bad.json: not JSON"):
        EvalResult.load(bad)


def test_to_csv_writes_one_row_per_deal(tmp_path: Path) -> None:
    res = evaluate("greedy", "random", rounds=10, seed=2, progress=False)
    res.to_csv(tmp_path / "r.csv")
    rows = list(csv.DictReader((tmp_path / "r.csv").open()))
    assert len(rows) == res.deals == 5
    assert [int(r["deal"]) for r in rows] == list(range(5))
    assert [float(r["point_diff"]) for r in rows] == res.group_diff_sum.tolist()
    assert {r["a"] for r in rows} == {"greedy"} and {r["seed"] for r in rows} == {"2"}
    with pytest.raises(ValueError, match="no per-deal data"):
        EvalResult.load(V1 / "pasur_greedy_random.json").to_csv(tmp_path / "old.csv")


# ---- the agents' seed apart from the deals' ---------------------------------------------
def test_agent_seed_changes_the_agents_draws_not_the_deals() -> None:
    one = evaluate("random", "greedy", rounds=40, seed=0, agent_seed=1, progress=False)
    two = evaluate("random", "greedy", rounds=40, seed=0, agent_seed=2, progress=False)
    assert (one.agent_seed, two.agent_seed) == (1, 2)
    assert not np.array_equal(one.group_diff_sum, two.group_diff_sum)
    # the deals are the same: greedy against itself on them gives equal figures
    default = evaluate("random", "greedy", rounds=40, seed=0, progress=False)
    same = evaluate("random", "greedy", rounds=40, seed=0, agent_seed=0, progress=False)
    assert np.array_equal(default.group_diff_sum, same.group_diff_sum)
    assert default.agent_seed == 0
    with pytest.raises(ValueError, match="agent_seed must be a non-negative int"):
        evaluate("random", "greedy", rounds=2, agent_seed=-1, progress=False)


def test_the_same_deals_give_the_same_points_to_deterministic_agents() -> None:
    """Deals do not depend on the agents' seed: greedy against greedy scores each deal
    the same whatever the agents' seed."""
    one = evaluate("greedy", "greedy", rounds=10, seed=4, agent_seed=1, progress=False)
    two = evaluate("greedy", "greedy", rounds=10, seed=4, agent_seed=9, progress=False)
    assert np.array_equal(one.group_diff_sum, two.group_diff_sum)


# ---- the Ray path assembles the same result ----------------------------------------------
def test_the_ray_path_assembles_the_same_schema_2_result() -> None:
    """``evaluate_on_ray`` with its chunks played here (the tasks' function, no Ray): the
    same per-deal data, seeds, provenance and library as the local run."""
    local = evaluate("greedy", "heuristic", rounds=24, seed=3, agent_seed=7, progress=False)
    ray = evaluate_on_ray("greedy", "heuristic", rounds=24, seed=3, agent_seed=7,
                          progress=False, shard_rounds=10, run_chunks=play_chunks_here)
    timing = {"seconds": 0.0, "decisions_per_s": 0.0, "seconds_per_decision": {}, "date": None}
    assert dataclasses.replace(ray, **timing) == dataclasses.replace(local, **timing)
    assert ray.to_json().keys() == local.to_json().keys()
    assert ray.agent_seed == 7 and ray.group_deal.tolist() == list(range(12))


# ---- provenance ----------------------------------------------------------------------------
def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_built_in_agents_carry_the_hash_of_their_source_and_weights() -> None:
    greedy = agent_provenance("greedy", make_agent("greedy"), "pasur", 2)
    assert greedy["sha256"] == _sha(ROOT / "agents" / "pasur" / "greedy.py")
    assert greedy["class"] == "agents.pasur.greedy.GreedyAgent" and "file" not in greedy
    net = agent_provenance("net@1", make_agent("net@1"), "pasur", 3)
    shipped = ROOT / "agents" / "pretrained" / "net_3p.npz"
    assert (net["weights"], net["weights_sha256"]) == ("net_3p.npz", _sha(shipped))
    net = agent_provenance("net", make_agent("net"), "pasur", 3)  # the latest version's
    assert net["pinned"] == f"net@{max(NET_VERSIONS['net'])}"
    assert net["weights_sha256"] == _sha(ROOT / "agents" / "pretrained" / net["weights"])
    rummy = agent_provenance("net", make_agent("net", game="persian_rummy"), "persian_rummy", 4)
    assert rummy["weights_sha256"] == _sha(ROOT / "agents" / "pretrained" / "rummy_net_4p.npz")


def test_the_git_commit_is_none_outside_a_checkout(tmp_path: Path) -> None:
    assert git_commit(tmp_path) is None
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        pytest.skip("not running from a git checkout")
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True,
                          text=True, check=True).stdout.strip()
    assert git_commit(ROOT) is not None and git_commit(ROOT).split("+")[0] == head


# ---- tournaments and exploitability --------------------------------------------------------
def test_a_tournament_reads_back_equal_from_its_json() -> None:
    res = tournament(["random", "greedy", "heuristic"], rounds=8, bootstrap=10, progress=False)
    data = json.loads(json.dumps(res.to_json()))
    assert data["schema"] == 2 and data["library"]["version"]
    assert all(m["per_deal"] is not None for m in data["matches"])
    assert TournamentResult.from_json(data) == res
    with pytest.raises(ValueError, match="not a tournament's result"):
        TournamentResult.from_json({"a": "x"})


def test_an_exploitability_says_its_schema_rules_and_library() -> None:
    from agents.evaluation.exploitability import _TINY, exploitability

    flags = {k: v for k, v in _TINY.items() if k != "preset"}
    data = exploitability("greedy", preset="mini", **flags).to_json()
    assert data["schema"] == 2 and data["game"] == "pasur" and data["library"]["version"]
    assert data["rules"]["hand_size"] == 1 and data["date"]
    json.dumps(data)


# ---- paired comparisons ---------------------------------------------------------------------
def _fake(diff: list[float], rounds: list[float] | None = None, **kw: Any) -> EvalResult:
    n = np.asarray(rounds if rounds is not None else [2.0] * len(diff))
    d = np.asarray(diff, dtype=np.float64)
    base: dict[str, Any] = dict(a="x", b="y", players=2, seed=0, mode="round",
                                rules={"target_score": 62}, seatings=["AB", "BA"],
                                rounds=int(n.sum()), deals=len(diff), group_diff_sum=d,
                                group_win_sum=np.zeros_like(d), group_rounds=n,
                                group_deal=np.arange(len(diff)), agent_seed=0)
    base.update(kw)
    return EvalResult(**base)


def test_paired_interval_is_the_paired_t_interval_with_equal_counts() -> None:
    rng = np.random.default_rng(0)
    sa, sb = rng.normal(1, 3, 50), rng.normal(0, 3, 50)
    n = np.full(50, 2.0)
    diff, se, ci = paired_diff_ci(sa, n, sb, n)
    m, s, c = mean_ci(sa / 2 - sb / 2)
    assert diff == pytest.approx(m) and se == pytest.approx(s)
    assert ci == pytest.approx(c)


def test_compare_pairs_the_common_deals() -> None:
    first = _fake([4.0, 2.0, 0.0, 6.0])
    second = _fake([2.0, 0.0, -2.0], a="z")
    cmp = compare(first, second)
    assert cmp.common_deals == 3 and cmp.deals_first == 4
    assert cmp.mean_first == pytest.approx(1.0) and cmp.mean_second == pytest.approx(0.0)
    assert cmp.difference == pytest.approx(1.0) and cmp.ci95 == pytest.approx((1.0, 1.0))
    assert cmp.decision == "first"
    same = compare(first, first.to_json())
    assert same.difference == 0 and same.decision == "undecided"
    assert json.loads(json.dumps(cmp.to_json()))["common_deals"] == 3


@pytest.mark.parametrize("change, message", [
    ({"game": "persian_rummy"}, "different games: pasur .* and persian_rummy"),
    ({"players": 3}, "different player counts: 2 .* and 3"),
    ({"mode": "game"}, "different modes: round .* and game"),
    ({"rules": {"target_score": 31}}, "different rules: target_score=62 vs 31"),
    ({"seed": 4}, "no common deals: the deals come from seed 0 in .* and seed 4 in"),
    ({"group_deal": np.arange(10, 14)}, "no common deals: x vs y played deals 0..3, x vs y "
                                        "deals 10..13"),
    ({"group_diff_sum": None}, "has no per-deal data \\(a result written before schema 2\\)"),
])
def test_compare_refuses_results_that_cannot_be_paired(change: dict[str, Any],
                                                       message: str) -> None:
    with pytest.raises(ValueError, match=message):
        compare(_fake([1.0, 2.0, 3.0, 4.0]), _fake([1.0, 2.0, 3.0, 4.0], **change))


def test_pasur_compare_prints_the_comparison_and_refuses_with_exit_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    one, two = tmp_path / "one.json", tmp_path / "two.json"
    one.write_text(json.dumps(_fake([4.0, 2.0, 0.0, 6.0]).to_json()))
    two.write_text(json.dumps(_fake([2.0, 0.0, -2.0, 4.0]).to_json()))
    assert main(["compare", str(one), str(two)]) == 0
    out = capsys.readouterr().out
    assert "paired comparison on 4 common deals" in out and "the first is higher" in out
    assert main(["compare", str(one), str(two), "--json", "-"]) == 0
    assert json.loads(capsys.readouterr().out)["decision"] == "first"
    assert main(["compare", str(one), str(V1 / "pasur_greedy_random.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("pasur compare: error: ") and "no per-deal data" in err
    assert main(["compare", str(one), str(tmp_path / "missing.json")]) == 2


def test_pasur_eval_records_the_agent_seed(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r.json"
    assert main(["eval", "random", "greedy", "--rounds", "4", "--seed", "1", "--agent-seed",
                 "9", "--no-progress", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert (data["seed"], data["agent_seed"], data["schema"]) == (1, 9, 2)
    assert len(data["per_deal"]["deal"]) == 2
