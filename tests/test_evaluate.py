"""Duplicate-deal evaluation and tournaments: statistics, duplication, results."""

from __future__ import annotations

import math

import numpy as np
import pytest

from agents.core.base import Agent
from agents.evaluation.match import duplicate_engine, evaluate, seatings
from agents.evaluation.stats import Z975, cluster_mean_ci, mean_ci, t_quantile
from agents.evaluation.tournament import ELO_PER_LOGIT, bradley_terry, tournament
from agents.registry import parse_agent_spec
from pasur_env import Engine, GameView
from pasur_env.pasur.observation import observation_size
from pasur_env.pasur.rules import make_rules

JSON_KEYS = {"a", "b", "rounds", "mean_point_diff", "ci95", "round_win_rate", "seconds"}


class FirstLegal(Agent):
    """Deterministic: the lowest legal action id."""

    name = "first"

    def act(self, obs, mask, view):
        return np.argmax(mask, axis=1).astype(np.int64)


class ObsChecker(FirstLegal):
    name = "obs"
    needs_observation = True

    def act(self, obs, mask, view):
        assert isinstance(view, GameView)
        assert obs is not None and obs.shape == (len(mask), observation_size(view.engine.rules))
        assert len(view.games) == len(mask) and (view.seats >= 0).all()
        return super().act(obs, mask, view)


class Illegal(Agent):
    name = "cheater"

    def act(self, obs, mask, view):
        return np.argmin(mask, axis=1).astype(np.int64)


# ---- statistics ------------------------------------------------------------------------
def test_t_quantile_known_values() -> None:
    assert t_quantile(1) == pytest.approx(12.7062047, abs=1e-6)
    assert t_quantile(4) == pytest.approx(2.7764451, abs=1e-6)
    assert t_quantile(30) == pytest.approx(2.0422725, abs=1e-6)
    assert t_quantile(60) == pytest.approx(2.0002978, abs=1e-6)
    assert t_quantile(120) == pytest.approx(1.9799304, abs=1e-6)
    assert t_quantile(math.inf) == pytest.approx(1.959964, abs=1e-6)
    qs = [t_quantile(df) for df in range(1, 400)]
    assert all(a > b for a, b in zip(qs, qs[1:], strict=False)) and qs[-1] > Z975
    with pytest.raises(ValueError):
        t_quantile(0)


def test_constant_difference_gives_zero_width_interval() -> None:
    mean, se, (lo, hi) = mean_ci([3.0] * 10)
    assert (mean, se, lo, hi) == (3.0, 0.0, 3.0, 3.0)


def test_textbook_t_interval() -> None:
    # 1..5: mean 3, s = sqrt(2.5), se = sqrt(0.5), t(0.975, 4) = 2.776445
    mean, se, (lo, hi) = mean_ci([1, 2, 3, 4, 5])
    assert mean == 3.0 and se == pytest.approx(math.sqrt(0.5))
    assert lo == pytest.approx(3 - 2.776445105 * math.sqrt(0.5), abs=1e-8)
    assert hi == pytest.approx(3 + 2.776445105 * math.sqrt(0.5), abs=1e-8)
    # large n: the interval is the normal one (t(0.975, 9999) = 1.960201)
    x = np.random.default_rng(0).normal(size=10_000)
    m, s, (lo, hi) = mean_ci(x)
    assert s == pytest.approx(x.std(ddof=1) / 100)
    assert (hi - lo) / 2 == pytest.approx(1.960201 * s, rel=1e-5)


def test_cluster_ratio_estimator() -> None:
    rng = np.random.default_rng(1)
    sums = rng.normal(size=50) * 2
    equal = cluster_mean_ci(sums, np.full(50, 2.0))
    means = mean_ci(sums / 2)
    assert np.allclose([equal[0], equal[1], *equal[2]], [means[0], means[1], *means[2]])
    # unequal clusters: the ratio of totals
    mean, se, _ = cluster_mean_ci([2.0, 9.0, 1.0], [1, 3, 2])
    assert mean == pytest.approx(12 / 6) and se > 0
    assert math.isnan(cluster_mean_ci([1.0], [2])[1])
    assert math.isnan(cluster_mean_ci([], [])[0])


# ---- duplicate deals --------------------------------------------------------------------
def test_seatings_balance_the_seats() -> None:
    for players in (2, 3, 4):
        seats = seatings(players)
        arr = np.array([[c == "A" for c in s] for s in seats])
        assert (arr.sum(axis=0) == len(seats) / 2).all()  # A holds every seat half the time
    assert seatings(3) == ["ABB", "BAB", "BBA", "AAB", "ABA", "BAA"]
    assert seatings(4) == ["ABAB", "BABA"]
    with pytest.raises(ValueError):
        seatings(5)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_duplicate_engine_repeats_each_deal(players: int) -> None:
    R = len(seatings(players))
    eng = duplicate_engine(6, R, seed=11, num_players=players)
    st = eng.state.reshape(6, R, -1)
    assert (st == st[:, :1]).all()  # every copy: same deal, same random stream
    assert len({bytes(st[g, 0]) for g in range(6)}) == 6  # different deals
    # deal g is game g of Engine(seed): independent of the batch split
    plain = Engine(10, seed=11, episode="round", auto_reset=False, num_players=players)
    part = duplicate_engine(4, 1, seed=11, offset=6, num_players=players)
    assert np.array_equal(st[:, 0], plain.state[:6])
    assert np.array_equal(part.state, plain.state[6:])


def test_copies_stay_identical_when_played_identically() -> None:
    # the random stream travels with each copy: reshuffles of later rounds agree too
    eng = duplicate_engine(3, 2, seed=5, episode="game", target_score=30)
    rng = np.random.default_rng(0)
    for _ in range(400):
        acts = eng.random_actions(rng)
        acts[1::2] = acts[0::2]
        eng.step(acts)
    assert (eng.state[0::2] == eng.state[1::2]).all()


@pytest.mark.parametrize("players", [2, 3, 4])
def test_identical_deterministic_agents_cancel_exactly(players: int) -> None:
    """Same agent in every seat: each group's seatings replay one game, so A - B is 0."""
    res = evaluate("greedy", "greedy", rounds=24, players=players, seed=2, progress=False)
    assert res.rounds == 24 and res.deals == 24 // len(seatings(players))
    assert abs(res.mean_point_diff) < 1e-12
    assert res.ci95[0] == pytest.approx(0, abs=1e-12) and res.ci95[1] == pytest.approx(0, abs=1e-12)
    assert res.round_win_rate == pytest.approx(0.5)
    assert res.round_wins == res.round_losses


def test_symmetric_agents_ci_contains_zero() -> None:
    for players in (2, 3):
        res = evaluate("random", "random", rounds=300, players=players, seed=4, progress=False)
        lo, hi = res.ci95
        assert lo < 0 < hi, res.summary()
        assert res.mean_points_a > 0 and res.mean_points_b > 0
        assert res.round_wins + res.round_ties + res.round_losses == res.rounds


def test_greedy_beats_random_and_result_json() -> None:
    res = evaluate("greedy", "random", rounds=400, seed=0, progress=False)
    assert res.ci95[0] > 0 and 0.5 < res.round_win_rate <= 1
    js = res.to_json()
    assert JSON_KEYS <= set(js) and js["rounds"] == 400 and len(js["ci95"]) == 2
    assert js["players"] == 2 and js["seed"] == 0 and js["rules"]["target_score"] == 62
    assert "game_win_rate" not in js
    assert js["agent_decisions"]["a"] > 0 and js["seconds_per_decision"]["b"] > 0
    assert "greedy (A) vs random (B)" in res.summary()
    import json

    assert json.loads(res.dumps())["a"] == "greedy"


def test_results_do_not_depend_on_the_batch_size() -> None:
    a = evaluate(FirstLegal(), "greedy", rounds=40, seed=9, batch=6, progress=False)
    b = evaluate(FirstLegal(), "greedy", rounds=40, seed=9, batch=64, progress=False)
    ja, jb = a.to_json(), b.to_json()
    for key in ("mean_point_diff", "ci95", "round_win_rate", "round_wins", "decisions"):
        assert ja[key] == jb[key]


def test_games_to_the_target() -> None:
    res = evaluate("greedy", "random", rounds=8, games=6, seed=1, progress=False,
                   target_score=25)
    js = res.to_json()
    assert js["games"] == 6 and 0 <= js["game_win_rate"] <= 1 and len(js["game_win_rate_ci95"]) == 2
    assert res.mean_rounds_per_game >= 1 and res.rounds == 8
    gm = evaluate("greedy", "greedy", mode="game", games=4, seed=1, progress=False,
                  target_score=25, players=4)
    assert gm.games == 4 and gm.game_win_rate == pytest.approx(0.5)  # teams swap: cancels
    assert gm.rounds >= 4 and abs(gm.mean_point_diff) < 1e-12


def test_agent_instances_observations_and_illegal_actions() -> None:
    same = FirstLegal()
    res = evaluate(same, same, rounds=4, progress=False)
    assert set(res.agent_decisions) == {"a"} and res.mean_point_diff == 0
    evaluate(ObsChecker(), "random", rounds=4, players=3, progress=False)
    with pytest.raises(ValueError, match="agent 'cheater' chose illegal action"):
        evaluate(Illegal(), "random", rounds=2, progress=False)


def test_bad_arguments() -> None:
    with pytest.raises(ValueError):
        evaluate("random", "random", rounds=0, progress=False)
    with pytest.raises(ValueError):
        evaluate("random", "random", rounds=2, players=5, progress=False)
    with pytest.raises(ValueError):
        evaluate("random", "random", rounds=2, mode="set", progress=False)
    with pytest.raises(TypeError):
        evaluate("random", "random", rounds=2, progress=False, no_such_flag=1)
    with pytest.raises(ValueError, match="unknown agent"):
        evaluate("nobody", "random", rounds=2, progress=False)


def test_parse_agent_spec() -> None:
    assert parse_agent_spec("ismcts:budget=200") == ("ismcts", {"budget": 200})
    assert parse_agent_spec("x:a=1.5,b=true,c=none,d=s") == (
        "x", {"a": 1.5, "b": True, "c": None, "d": "s"})
    assert parse_agent_spec("greedy") == ("greedy", {})
    assert parse_agent_spec("runs/ppo/best.zip") == ("runs/ppo/best.zip", {})
    assert parse_agent_spec(r"C:\models\best.zip") == (r"C:\models\best.zip", {})
    with pytest.raises(ValueError):
        parse_agent_spec("greedy:=3")


def test_progress_bar_writes_to_the_given_stream() -> None:
    import io

    buf = io.StringIO()
    evaluate("random", "random", rounds=4, progress=True, progress_file=buf)
    assert "random vs random" in buf.getvalue()


# ---- ratings and tournaments -------------------------------------------------------------
def test_bradley_terry_known_cases() -> None:
    theta = bradley_terry(np.array([[0, 75], [25, 0]]), prior=0)
    assert theta[0] - theta[1] == pytest.approx(math.log(3))
    # data drawn exactly from known strengths is fitted back
    true = np.array([1.0, 0.0, -0.5, -2.0])
    p = 1 / (1 + np.exp(true[None, :] - true[:, None]))
    wins = 1000 * p
    np.fill_diagonal(wins, 0)
    assert np.allclose(bradley_terry(wins, prior=0), true - true.mean(), atol=1e-8)
    # a clean sweep stays finite thanks to the virtual tie
    sweep = bradley_terry(np.array([[0, 50], [0, 0]]))
    assert np.isfinite(sweep).all() and sweep[0] - sweep[1] == pytest.approx(math.log(101))
    assert ELO_PER_LOGIT * math.log(10) == pytest.approx(400)


def test_tiny_tournament(tmp_path) -> None:
    res = tournament(["random", "greedy", FirstLegal()], rounds=20, seed=0, progress=False,
                     bootstrap=30)
    assert res.agents == ["random", "greedy", "first"] and len(res.matches) == 3
    assert np.all(res.elo_ci95[:, 0] <= res.elo_ci95[:, 1]) and np.isfinite(res.elo_ci95).all()
    assert res.elo.mean() == pytest.approx(1500)
    text = res.table()
    assert "Elo" in text and "greedy" in text and "random" in text
    md = res.markdown()
    assert md.count("| greedy |") >= 1 and "|---|" in md
    js = res.to_json()
    assert [r["rank"] for r in js["ladder"]] == [1, 2, 3] and len(js["matches"]) == 3
    anchored = tournament(["random", "greedy"], rounds=10, progress=False, bootstrap=5,
                          anchor="random", base=0)
    assert anchored.elo[0] == pytest.approx(0)
    pytest.importorskip("matplotlib")
    res.plot(tmp_path / "ladder.png")
    assert (tmp_path / "ladder.png").stat().st_size > 1000


def test_rules_helpers_consistent() -> None:
    # evaluation records every rule flag of the game it played
    res = evaluate("random", "random", rounds=2, progress=False, sur_points=3)
    assert res.rules == {**make_rules(num_players=2, sur_points=3).__dict__, "preset": "custom"}
    assert evaluate("random", "random", rounds=2, progress=False).rules["preset"] == "classic"
