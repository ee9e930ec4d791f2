"""The sequential test of ``pasur eval --sprt``: its LLR against hand-computed values, its
bounds, and its decisions on pairs whose difference is known."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from agents.apps.cli import main
from agents.evaluation.match import evaluate
from agents.evaluation.sprt import (
    Sprt,
    constrained_mle,
    elo_to_score,
    fixed_groups,
    group_counts,
    llr,
    parse_bounds,
    score_to_elo,
)


def test_elo_and_score() -> None:
    assert elo_to_score(0) == 0.5
    assert elo_to_score(400) == pytest.approx(10 / 11)
    assert score_to_elo(elo_to_score(-35.0)) == pytest.approx(-35.0)


def test_the_llr_of_two_outcomes_is_the_binomial_one() -> None:
    """With outcomes 0 and 1 the distribution of a given mean is fixed: 40 losses and 60
    wins, p = 0.6 against 0.5: 40 ln(0.4/0.5) + 60 ln(0.6/0.5)."""
    want = 40 * math.log(0.8) + 60 * math.log(1.2)
    assert want == pytest.approx(2.0135513550688877)
    assert llr(np.array([0.0, 1.0]), np.array([40.0, 60.0]), 0.5, 0.6) == pytest.approx(want)


def test_the_llr_of_three_outcomes_solves_lagranges_conditions() -> None:
    """Scores 0, 1/2, 1 seen 25, 50, 25 times (mean 1/2): under H0 (1/2) the MLE is the
    observed distribution; under H1 (0.6) q_i = p_i / (1 + x (v_i - 0.6)), where x solves
    -0.15/(1-0.6x) - 0.05/(1-0.1x) + 0.1/(1+0.4x) = 0, i.e. 0.024x^2 - 0.105x - 0.1 = 0,
    whose root in (-2.5, 5/3) is x = (0.105 - sqrt(0.020625)) / 0.048."""
    v, n = np.array([0.0, 0.5, 1.0]), np.array([25.0, 50.0, 25.0])
    x = (0.105 - math.sqrt(0.020625)) / 0.048
    q1 = np.array([0.25 / (1 - 0.6 * x), 0.5 / (1 - 0.1 * x), 0.25 / (1 + 0.4 * x)])
    assert q1.sum() == pytest.approx(1.0) and q1 @ v == pytest.approx(0.6)
    assert constrained_mle(v, n / n.sum(), 0.6) == pytest.approx(q1, abs=1e-9)
    want = float(np.sum(n * np.log(q1 / np.array([0.25, 0.5, 0.25]))))
    assert want == pytest.approx(-4.00767358, abs=1e-7)
    assert llr(v, n, 0.5, 0.6) == pytest.approx(want, abs=1e-9)


def test_the_pentanomial_llr_is_near_its_normal_approximation() -> None:
    """For close hypotheses the GSPRT's LLR is about N (s1-s0)(2m - s0 - s1) / (2 var)."""
    v, n = np.arange(5) / 4, np.array([10.0, 20.0, 40.0, 20.0, 10.0])
    m, var = 0.5, float(np.sum(n / n.sum() * (v - 0.5) ** 2))
    approx = n.sum() * 0.05 * (2 * m - 1.05) / (2 * var)
    assert llr(v, n, 0.5, 0.55) == pytest.approx(approx, rel=0.02)


def test_bounds_and_decisions() -> None:
    test = Sprt(0, 10)
    assert test.bounds == pytest.approx((-math.log(19), math.log(19)))
    assert Sprt(0, 5, alpha=0.1, beta=0.2).bounds == pytest.approx(
        (math.log(0.2 / 0.9), math.log(0.8 / 0.1)))
    assert [test.decision(x) for x in (-3.0, 0.0, 3.0)] == ["H0", None, "H1"]


def test_groups_are_counted_by_score() -> None:
    """Two seatings: a group's round score sum is 0, 0.5, ..., 2 (ties count half)."""
    counts = group_counts(np.array([2.0, 1.0, 1.5, 1.0, 0.0]), np.array([2, 2, 2, 2, 0]), 2)
    assert counts.tolist() == [0, 0, 2, 1, 1]


def test_the_fixed_size_of_equal_power() -> None:
    gap = elo_to_score(10) - 0.5
    want = math.ceil((2 * 1.6448536269514722 * 0.25 / gap) ** 2)
    assert fixed_groups(0.25, 0, 10) == want == 3268


@pytest.mark.parametrize("bad, said", [
    ((10, 0), "elo0 < elo1"), ((0, 10, 0.6), "error rates"), ((0, math.nan), "finite"),
])
def test_bad_tests_are_refused(bad: tuple, said: str) -> None:
    with pytest.raises(ValueError, match=said):
        Sprt(*bad)


def test_a_match_stops_when_decided_and_is_the_fixed_match_so_far() -> None:
    """heuristic is about 80 Elo over greedy (61% of rounds): H1 well before the maximum,
    and the figures are those of the fixed-size match of the rounds used."""
    res = evaluate("heuristic", "greedy", rounds=6000, seed=3, sprt=(0, 10), progress=False)
    assert res.sprt["decision"] == "H1" and res.sprt["rounds"] == res.rounds < 6000
    assert res.sprt["llr"] >= res.sprt["upper"]
    fixed = evaluate("heuristic", "greedy", rounds=res.rounds, seed=3, progress=False)
    assert fixed.mean_point_diff == pytest.approx(res.mean_point_diff)
    assert fixed.round_wins == res.round_wins


def test_two_copies_of_an_agent_accept_h0() -> None:
    res = evaluate("greedy", "greedy", rounds=6000, seed=0, sprt=(0, 10), progress=False)
    assert res.sprt["decision"] == "H0" and res.rounds < 6000
    assert "H0 accepted (Elo <= 0 rather than >= 10)" in res.summary()


def test_an_undecided_match_says_so_at_the_maximum() -> None:
    res = evaluate("random", "random", rounds=40, seed=0, sprt=(0, 10), progress=False,
                   game="persian_rummy")
    assert res.sprt["decision"] == "undecided" and res.rounds == res.sprt["max_rounds"] == 40
    assert "undecided at the maximum" in res.summary()


def test_the_command_reports_the_test(capsys) -> None:
    assert main(["eval", "greedy", "greedy", "--sprt", "0,10", "--beta", "0.1",
                 "--rounds", "4000", "--json", "-"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["sprt"]["decision"] == "H0" and out["sprt"]["beta"] == 0.1
    assert out["sprt"]["max_rounds"] == 4000 and out["rounds"] == out["sprt"]["rounds"]


@pytest.mark.parametrize("argv, said", [
    (["--sprt", "10"], "--sprt expects ELO0,ELO1"),
    (["--sprt", "0,10", "--games", "10"], "one-round deals"),
    (["--sprt", "0,10", "--address", "local"], "not available with --address"),
])
def test_the_command_refuses_what_does_not_fit(argv: list[str], said: str, capsys) -> None:
    assert main(["eval", "greedy", "random", *argv]) == 2
    assert said in capsys.readouterr().err
    with pytest.raises(ValueError, match="ELO0,ELO1"):
        parse_bounds("a,b")
