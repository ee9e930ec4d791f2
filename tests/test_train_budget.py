"""The wall-time budget of ``train.move_net`` (``--time-budget-min``) and its reproduce command.

No test measures time: the plan's arithmetic is fed rates, and the runs get a fake
clock that advances a fixed step at every reading, so every plan is deterministic.
"""

from __future__ import annotations

import dataclasses
import json
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("torch")

from train.move_net import pipeline as train_net  # noqa: E402
from train.move_net.budget import (  # noqa: E402
    SAFETY,
    UNTIMED_FIT,
    Budget,
    Closing,
    Measured,
    Plan,
    closing,
    plan_budget,
)
from train.move_net.games import net_game  # noqa: E402

#: rates of about the speed the default configuration runs at on 2 cores
BASE = Measured(elapsed=120.0, label_rate=160.0, batch_decisions=7_000.0, first_batch=7_000,
                labelled=14_000, fit_seconds=60e-6, eval_seconds=15.0, final_eval_seconds=120.0)


class FakeClock:
    """A clock that moves ``step`` seconds at every reading."""

    def __init__(self, step: float) -> None:
        self.now, self.step = 0.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def test_the_plan_shrinks_when_the_machine_is_slow_and_grows_when_it_is_fast() -> None:
    plan = plan_budget(18, BASE, iterations=2, epochs=16)
    slow = plan_budget(18, dataclasses.replace(BASE, label_rate=80.0, fit_seconds=120e-6),
                       iterations=2, epochs=16)
    fast = plan_budget(18, dataclasses.replace(BASE, label_rate=320.0, fit_seconds=30e-6),
                       iterations=2, epochs=16)
    assert slow.total_decisions < plan.total_decisions < fast.total_decisions
    assert slow.iterations == plan.iterations == fast.iterations == 2
    for p in (slow, plan, fast):
        assert p.epochs == 16 and p.decisions_per_iteration % 100 == 0
        assert p.planned_min <= 18 * (1 - SAFETY)
    longer = plan_budget(36, BASE, iterations=2, epochs=16)
    assert longer.total_decisions > 2 * plan.total_decisions  # the fixed costs are paid once


def test_the_plan_cuts_epochs_then_iterations_when_time_is_short() -> None:
    slow_fit = plan_budget(18, dataclasses.replace(BASE, fit_seconds=2e-3), 2, 16)
    assert 1 <= slow_fit.epochs < 16  # the fits keep at most half of the time
    # a larger share for the fits buys epochs with decisions (--fit-share)
    fitter = plan_budget(18, dataclasses.replace(BASE, fit_seconds=2e-3), 2, 16, fit_share=0.7)
    assert slow_fit.epochs < fitter.epochs <= 16
    assert fitter.total_decisions < slow_fit.total_decisions
    share = {p.epochs: p.phases()["fitting"] / p.phases()["labelling"] for p in (slow_fit, fitter)}
    assert share[fitter.epochs] > 1.5 * share[slow_fit.epochs]
    crawl = dataclasses.replace(BASE, label_rate=10.0)
    few = plan_budget(18, crawl, iterations=3, epochs=16)
    assert few.iterations < 3
    # nothing fits: one iteration of the batches labelled when the plan was made
    least = plan_budget(3, crawl, iterations=3, epochs=16)
    assert least.iterations == 1
    assert BASE.first_batch < least.decisions_per_iteration <= BASE.labelled
    assert least.planned_min > 3
    assert Plan.from_json(json.loads(json.dumps(least.to_json()))) == least
    with pytest.raises(ValueError, match="positive budget"):
        plan_budget(0, BASE, 2, 16)


@pytest.mark.parametrize("budget", [18.0, 20.0, 30.0])
@pytest.mark.parametrize("rates", [
    dict(label_rate=287.0, net_rate=201.0),  # Pasur's make train before the BLAS fix
    dict(label_rate=98.6, net_rate=111.1, fit_seconds=120e-6),  # a slower machine
    dict(label_rate=577.0, net_rate=520.0, batch_decisions=2_500.0, first_batch=2_500,
         labelled=5_000, eval_seconds=40.0, final_eval_seconds=200.0)])  # Rummy's shape
def test_the_plan_fills_at_least_nine_tenths_of_the_budget(budget, rates) -> None:
    """On the rates a run measured, the plan uses at least 90% of the budget, final
    evaluation included, and no more than the budget less its safety share."""
    m = dataclasses.replace(BASE, **rates)
    plan = plan_budget(budget, m, iterations=3, epochs=16)
    assert 0.9 * budget <= plan.planned_min <= budget * (1 - SAFETY) + 1e-9


def test_the_evaluations_are_timed_as_a_cost_per_match_and_per_round() -> None:
    """A match costs a fixed part plus a part per round; timed on a tenth of the rounds,
    the estimate is the whole match's cost, not the tenth's time ten times over (which
    counted the fixed part ten times: about twice the real evaluations)."""
    from train.move_net.budget import time_evaluations

    clock = FakeClock(0.0)
    cost = {"heuristic": (2.0, 1.25e-3), "ismcts": (1.0, 0.2), "rollout": (1.0, 0.03)}
    played: list[tuple[str, int]] = []

    def play(name: str, rounds: int) -> None:
        played.append((name, rounds))
        clock.now += cost[name][0] + cost[name][1] * rounds

    each, final = time_evaluations(play, [[("heuristic", 2_000)],
                                          [("heuristic", 10_000), ("ismcts", 400),
                                           ("rollout", 10_000)]], clock)
    assert each == pytest.approx(2.0 + 2.5)
    assert final == pytest.approx(2.0 + 12.5 + 1.0 + 80.0 + 1.0 + 300.0)
    # each opponent's kernels compile in an untimed match of its smaller timed size
    # (the heuristic's parallel one, warmed on 2 rounds, once compiled inside the timed
    # match: with a fresh numba cache the final evaluation was estimated at 120 s for 69)
    assert played == [("heuristic", 512), ("heuristic", 1_000), ("heuristic", 512),
                      ("ismcts", 20), ("ismcts", 40), ("ismcts", 20),
                      ("rollout", 512), ("rollout", 1_000), ("rollout", 512)]
    # sizes too close to part the costs (a tenth of barely the parallel batch): scaled
    # by the rounds, which errs long
    (alone,) = time_evaluations(play, [[("heuristic", 5_120)]], clock)
    assert alone == pytest.approx((2.0 + 0.64) * 10)


def test_a_network_slow_among_the_opponents_shrinks_the_plan() -> None:
    """The first iteration labels without the network; from the second the plan counts
    the rate measured with it among the opponents."""
    slow = dataclasses.replace(BASE, net_rate=60.0)
    assert slow.later_rate == 60.0 and BASE.later_rate == BASE.label_rate
    plan, less = plan_budget(18, BASE, 3, 16), plan_budget(18, slow, 3, 16)
    assert less.total_decisions < plan.total_decisions
    assert less.planned_min <= 18 * (1 - SAFETY)
    assert "(60 once the network plays)" in less.summary()
    old = less.to_json()  # a plan saved before the field existed
    old["measured"] = {k: v for k, v in old["measured"].items() if k != "net_rate"}
    assert Plan.from_json(old).measured.later_rate == BASE.label_rate


def test_the_time_to_save_the_data_is_planned() -> None:
    """Writing each iteration's compressed data takes time (18 s an iteration for Persian
    Rummy, which ran a 20-minute budget a minute over when the plan left it out): the
    plan counts it, and a plan saved before the field existed reads as free saving."""
    slow = dataclasses.replace(BASE, save_seconds=500e-6)
    plan, less = plan_budget(20, BASE, 3, 16), plan_budget(20, slow, 3, 16)
    assert less.total_decisions < plan.total_decisions
    assert 0.9 * 20 <= less.planned_min <= 20 * (1 - SAFETY) + 1e-9
    assert "saving 500 µs per decision" in less.summary()
    old = less.to_json()
    old["measured"] = {k: v for k, v in old["measured"].items() if k != "save_seconds"}
    assert Plan.from_json(old).measured.save_seconds == 0.0


def test_the_budget_measures_the_second_batch_and_plans_once() -> None:
    class Labeler:  # what Budget reads of a SearchLabeler
        decisions, parts = 0, []

    def plan_with(step: float) -> Plan:
        clock = FakeClock(step)
        budget = Budget(18, clock(), clock, lambda data: (60e-6, 15.0, 120.0, 0.0, 0.0),
                        2, 16)
        budget.start()
        lab = Labeler()
        lab.parts = [_dataset(10)]
        answers = []
        for decisions in (7_000, 14_000, 21_000):
            lab.decisions = decisions
            answers.append(budget.resize(lab))
        assert answers[0] > 10**9 and answers[1] == answers[2]  # asks on, then the plan
        assert budget.plan is not None and budget.plan.measured.first_batch == 7_000
        return budget.plan

    fast, slow = plan_with(20.0), plan_with(80.0)
    assert fast.measured.label_rate == 7_000 / 20.0
    assert slow.total_decisions < fast.total_decisions


def test_a_one_iteration_plan_closes_its_only_iteration_on_the_clock() -> None:
    """When the plan has one iteration it is also the last: from the plan on, the budget
    hands the labelling to a Closing made from the plan's rates (the fit's with the
    margin of a fit not timed yet), which asks one batch at a time."""
    class Labeler:
        decisions, parts = 0, []

    clock = FakeClock(10.0)  # every reading 10 s later: each batch of 7,000 takes 20 s
    budget = Budget(18, clock(), clock, lambda data: (60e-6, 15.0, 120.0, 0.0, 0.0), 1, 16)
    budget.start()
    lab = Labeler()
    lab.parts = [_dataset(10)]
    answers = []
    while not answers or answers[-1] > lab.decisions:
        lab.decisions += 7_000
        answers.append(budget.resize(lab))
    assert budget.plan is not None and budget.plan.iterations == 1
    c = budget.closing
    assert c is not None and c.fit_seconds == pytest.approx(UNTIMED_FIT * 60e-6)
    # one batch at a time after the plan; it stopped with the rest still in time, where
    # one more batch and the rest would not have been
    assert answers[2:-1] == [d + 7_000 for d in range(21_000, lab.decisions, 7_000)]
    seconds = c.marks[-1][1] - c.marks[-2][1]
    assert c.left is not None and c.rest(lab.decisions) <= c.left
    assert c.left < seconds + c.rest(lab.decisions + 7_000)


def test_the_last_iteration_ends_when_what_remains_just_fits() -> None:
    """A plan errs by a fifth on a phase; the last iteration corrects it by labelling
    until the rest (the fit on all the data, the saving, the evaluations, at the run's
    own rates) just fits: one batch more whenever that batch and the rest end in time."""

    class Labeler:
        decisions = 0

    clock = FakeClock(0.0)  # moved by hand: each batch of 1,000 decisions takes 10 s
    c = Closing(end=1_000.0, clock=clock, fit_seconds=1e-3, epochs=2, fitted_before=100_000,
                save_seconds=1e-3, after=50.0)
    c.start()
    assert c.rest(0) == 2 * 100.0 + 50.0  # the fit of the data before, and evaluations
    lab, answers = Labeler(), []
    while True:
        clock.now += 10.0
        lab.decisions += 1_000
        answers.append(c.resize(lab))
        if answers[-1] == lab.decisions:
            break
    d = lab.decisions
    assert all(a == k * 1_000 + 1_000 for k, a in enumerate(answers[:-1], 1))
    # it stopped at the last batch after which one more would not have fitted
    assert clock.now + c.rest(d) <= c.end < clock.now + 10.0 + c.rest(d + 1_000)
    assert c.to_json()["seconds_left"] == c.end - clock.now
    # a slower fit leaves less time to label
    slow = Closing(1_000.0, FakeClock(0.0), 2e-3, 2, 100_000, 1e-3, 50.0)
    slow.start()
    lab.decisions = 0
    while slow.resize(lab) != lab.decisions or lab.decisions == 0:
        slow.clock.now += 10.0
        lab.decisions += 1_000
    assert lab.decisions < d


def test_the_last_fit_keeps_the_epochs_its_first_one_leaves_room_for() -> None:
    """After an epoch the last fit keeps as many epochs as end before the saving
    and the evaluations: a fit slower than its probe drops some, a faster one adds
    some (up to ``most``), and at least the one it has done."""
    clock = FakeClock(0.0)
    c = Closing(end=1_000.0, clock=clock, fit_seconds=1e-3, epochs=2, fitted_before=0,
                save_seconds=1e-3, after=50.0)
    c.marks = [(100_000, 0.0)]  # it stopped at 100,000 decisions: 100 s of saving
    clock.now = 500.0  # 1,000 - 50 - 100 - 500 = 350 s left for the fit
    assert c.fit_epochs(100.0, most=8) == 4  # the first, and three more of 100 s
    assert c.fit_epochs(100.0, most=3) == 3
    assert c.fit_epochs(400.0, most=8) == 1
    assert c.to_json()["fit_epochs"] == 1
    clock.now = 2_000.0
    assert c.fit_epochs(1.0, most=8) == 1  # past the end: the epoch done
    clock.now = 500.0
    assert c.fit_epochs(100.0, most=8, done=2) == 5  # two done, three more of 100 s
    clock.now = 2_000.0
    assert c.fit_epochs(1.0, most=8, done=2) == 2


def test_a_replanned_fit_is_repeated_by_its_last_epochs() -> None:
    """A fit whose end changed after its second epoch (``replan``, told the epochs done
    and the last one's seconds) is the fit given that number as ``last_epochs``, to the
    last digit; it keeps at least the epochs done."""
    import torch

    from train.move_net.fit import FitSettings, TorchMoveNet, fit

    rng = np.random.default_rng(0)
    data = _dataset(300)
    data.obs[:] = rng.random(data.obs.shape)
    data.feats[:] = rng.random(data.feats.shape)
    data.values[:] = rng.normal(size=data.values.shape)
    settings = FitSettings(epochs=3, batch_size=64, seed=3)
    told: list[tuple[int, float]] = []

    def replan(epochs: int) -> Any:
        return lambda done, seconds: told.append((done, seconds)) or epochs

    nets = []
    for kwargs, s, epochs in (({"replan": replan(5)}, settings, 5),
                              ({}, dataclasses.replace(settings, last_epochs=5), 5),
                              ({"replan": replan(1)}, settings, 2)):
        torch.manual_seed(0)
        model = TorchMoveNet(data.obs.shape[1], 16, 8, data.feats.shape[1])
        assert fit(model, data, s, **kwargs)["epochs"] == epochs
        nets.append(model.state_dict())
    for name, x in nets[0].items():
        torch.testing.assert_close(x, nets[1][name], rtol=0, atol=0)
    assert any(not torch.equal(x, nets[2][name]) for name, x in nets[0].items())
    assert [d for d, _ in told] == [2, 2] and all(s > 0 for _, s in told)


def test_the_closing_reads_the_run_s_own_rates() -> None:
    """The last iteration's closing reads the fits, savings and evaluations the run timed
    (not the probes': those missed by a fifth), and the plan's where none is timed."""
    plan = plan_budget(20, BASE, 3, 4)
    history = [{"decisions": 10_000, "phase_seconds": {"fitting": 4.0, "saving": 1.0,
                                                       "evaluations": 30.0}},
               {"decisions": 20_000, "phase_seconds": {"fitting": 8.0, "saving": 1.0,
                                                       "evaluations": 30.0}}]
    c = closing(plan, history, 900.0, FakeClock(1.0))
    assert c.fit_seconds == pytest.approx(12.0 / (4 * 30_000))
    assert c.save_seconds == pytest.approx(2.0 / 20_000)
    assert c.fitted_before == 20_000 and c.epochs == 4
    # the evaluations ran twice their plan (15 s): the final one is expected twice too
    assert c.after == pytest.approx(30.0 + 2 * BASE.final_eval_seconds)
    fresh = closing(plan, [], 900.0, FakeClock(1.0))
    assert (fresh.fit_seconds, fresh.after) == (UNTIMED_FIT * BASE.fit_seconds,
                                                BASE.eval_seconds + BASE.final_eval_seconds)


def test_no_budget_leaves_the_run_as_it_was() -> None:
    args = train_net.parse_args(["--config", "tiny"])
    assert args.time_budget_min == 0
    budget, same = train_net.start_budget(args, net_game(args.game), train_net.State(), 0.0,
                                          FakeClock(1.0))
    assert budget is None and same is args
    for bad in (["--time-budget-min", "-1"], ["--time-budget-min", "5", "--time-limit-min", "5"]):
        with pytest.raises(SystemExit):
            train_net.parse_args(bad)


def test_the_reproduce_command_is_whole_and_parses_back() -> None:
    for argv in ([], ["--config", "long"],
                 ["--config", "tiny", "--name", "my run", "--players", "3", "--no-augment",
                  "--learning-rate", "0.0003", "--label-plies", "6", "--time-budget-min", "18",
                  "--opponent-mix", "self:1,greedy:0.5"]):
        args = train_net.parse_args(argv)
        command = train_net.command_of(args)
        assert command.startswith("python -m train.move_net ")
        assert f"--name {shlex.quote(args.name)}" in command
        assert train_net.parse_args(shlex.split(command)[3:]) == args


def test_the_game_picks_its_own_configuration_and_budget() -> None:
    """``--game`` without ``--config`` is the game's own run (its plug-in's ``config``),
    ``--game-budget`` adds its plug-in's budget, a ``--time-budget-min`` given wins, and
    the reproduce command holds the budget itself."""
    from train.move_net.config import CONFIGS
    from train.move_net.games import NET_GAMES

    for row in NET_GAMES.values():  # each game's configuration plays that game
        assert train_net.parse_args(["--config", row.config]).game == row.id
    rummy = NET_GAMES["persian_rummy"]
    assert rummy.budget_min == 20 and net_game("pasur").budget_min == 18
    args = train_net.parse_args(["--game", "persian_rummy"])
    assert (args.config, args.players, args.name) == ("rummy", 4, "rummy")
    assert args == train_net.parse_args(["--config", "rummy"]) and args.time_budget_min == 0
    budgeted = train_net.parse_args(["--game", "persian_rummy", "--game-budget"])
    assert budgeted == dataclasses.replace(args, time_budget_min=rummy.budget_min)
    assert train_net.parse_args(["--game-budget"]).time_budget_min == 18
    for given in ("0", "7.5"):
        assert train_net.parse_args(["--game-budget", "--game", "persian_rummy",
                                     "--time-budget-min", given]).time_budget_min == float(given)
    command = train_net.command_of(budgeted)
    assert "--time-budget-min 20.0" in command and "--game-budget" not in command
    assert train_net.parse_args(shlex.split(command)[3:]) == budgeted
    tiny = train_net.parse_args(["--game", "persian_rummy", "--config", "rummy-tiny"])
    assert tiny.config == "rummy-tiny" and tiny.total_decisions == CONFIGS["rummy-tiny"][
        "total_decisions"]
    with pytest.raises(SystemExit):  # the game's budget meets the checks of any budget
        train_net.parse_args(["--game-budget", "--time-limit-min", "5"])


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
@pytest.mark.parametrize(("variables", "config", "budget", "name"), [
    ([], "default", 18.0, "net"), (["GAME=persian_rummy"], "rummy", 20.0, "rummy"),
    (["GAME=persian_rummy", "TRAIN_BUDGET=0"], "rummy", 0.0, "rummy"),
    (["GAME=persian_rummy", "TRAIN_BUDGET=12", "RUN=r2"], "rummy", 12.0, "r2")])
def test_make_train_runs_the_games_own_configuration(variables, config, budget, name) -> None:
    """``make train GAME=<id>`` is the game's own run with its plug-in's budget (no
    per-game settings in the Makefile); ``TRAIN_BUDGET`` and ``RUN`` still win."""
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run(["make", "-n", "-s", "-C", str(root), "train", *variables],
                         capture_output=True, text=True, check=True).stdout
    line = out.replace("\\\n", " ").strip().splitlines()[-1]
    words = shlex.split(line)
    assert words[1:3] == ["-m", "train.move_net"]
    args = train_net.parse_args(words[3:])
    assert (args.config, args.time_budget_min, args.name) == (config, budget, name)


def test_a_budgeted_run_is_the_fixed_run_it_reports_and_resumes_its_plan(tmp_path,
                                                                          monkeypatch) -> None:
    from agents.pasur.move_net import MoveNet

    args = ["--config", "tiny", "--out", str(tmp_path), "--time-budget-min", "2.5"]
    real_save = train_net.save_checkpoint

    def crash_after_first(run_dir, state):  # the run stops after its first iteration
        real_save(run_dir, state)
        raise KeyboardInterrupt

    monkeypatch.setattr(train_net, "save_checkpoint", crash_after_first)
    with pytest.raises(KeyboardInterrupt):
        train_net.main(args + ["--name", "b"], clock=FakeClock(1.0))
    monkeypatch.setattr(train_net, "save_checkpoint", real_save)
    plan = Plan.from_json(json.loads((tmp_path / "b" / "checkpoint.json").read_text())["plan"])
    assert plan.iterations == 2 and plan.decisions_per_iteration > plan.measured.first_batch
    # resumed with another clock: the plan of the checkpoint goes on, nothing is re-measured
    run = train_net.main(args + ["--name", "b", "--resume"], clock=FakeClock(50.0))
    config = json.loads((run / "config.json").read_text())
    assert config["budget_plan"] == plan.to_json()
    assert config["total_decisions"] == plan.total_decisions
    report = (run / "report.md").read_text()
    assert "Wall-time budget" in report
    assert "Seconds planned / taken, by phase: labelling " in report
    assert "saving" in report and "final evaluation" in report and "/ ?" not in report
    history = json.loads((run / "checkpoint.json").read_text())["history"]
    assert [sorted(h["phase_seconds"]) for h in history] == 2 * [
        ["evaluations", "fitting", "labelling", "saving"]]
    assert "python -m train.move_net --config tiny --name b " in report
    fixed = report.split("(the same network to the last digit): `")[1].split("`")[0]
    assert "--time-budget-min" not in fixed
    # its last iteration was closed on the clock, and the fixed command repeats its size
    last = history[1]["decisions"] - history[0]["decisions"]
    assert "closed_on_the_clock" in history[1] and "ended on the clock at" in report
    assert f"--last-decisions {last}" in fixed
    again = train_net.main(shlex.split(fixed)[3:] + ["--name", "fixed"])
    a, b = MoveNet.load(run / "net.npz"), MoveNet.load(again / "net.npz")
    for name in a.params:
        np.testing.assert_array_equal(a.params[name], b.params[name])
    assert (run / "evals.csv").read_text() == (again / "evals.csv").read_text()


def test_a_one_iteration_budgeted_run_is_closed_and_repeated_by_its_command(tmp_path) -> None:
    from agents.pasur.move_net import MoveNet

    run = train_net.main(["--config", "tiny", "--out", str(tmp_path), "--time-budget-min",
                          "2.5", "--iterations", "1", "--name", "one"], clock=FakeClock(1.0))
    history = json.loads((run / "checkpoint.json").read_text())["history"]
    report = (run / "report.md").read_text()
    assert len(history) == 1 and "closed_on_the_clock" in history[0]
    assert "ended on the clock at" in report and "the plan's rates" in report
    fixed = report.split("(the same network to the last digit): `")[1].split("`")[0]
    assert f"--last-decisions {history[0]['decisions']}" in fixed
    # its fit ended on the clock too (the fake clock leaves it room for twice the epochs)
    epochs = history[0]["closed_on_the_clock"]["fit_epochs"]
    assert history[0]["epochs"] == epochs and "Its fit then had" in report
    assert (f"--last-epochs {epochs}" in fixed) == (epochs != config_epochs(run))
    again = train_net.main(shlex.split(fixed)[3:] + ["--name", "fixed"])
    a, b = MoveNet.load(run / "net.npz"), MoveNet.load(again / "net.npz")
    for name in a.params:
        np.testing.assert_array_equal(a.params[name], b.params[name])


def config_epochs(run: Path) -> int:
    """The epochs per fit a run's settings give."""
    return int(json.loads((run / "config.json").read_text())["epochs"])


def test_the_run_holds_blas_to_one_thread_for_what_the_budget_times(monkeypatch) -> None:
    """The whole run (labelling, evaluations, and the budget's timings of both) plays the
    networks on one BLAS thread: timed on one thread and run on a pool, or the other way,
    the plan would be wrong; the caller's pool is back afterwards."""
    from threadpoolctl import threadpool_info, threadpool_limits

    def blas_threads() -> list[int]:
        return [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"]

    seen: list[list[int]] = []

    def run(args, clock):  # noqa: ANN001, ANN202
        seen.append(blas_threads())
        return args.name

    monkeypatch.setattr(train_net, "run", run)
    with threadpool_limits(limits=2, user_api="blas"):
        assert train_net.main(["--config", "tiny", "--name", "blas"]) == "blas"
        assert all(n == 2 for n in blas_threads())
    assert seen and seen[0] and all(n == 1 for n in seen[0])


def _dataset(n: int):
    from train.move_net.data import Dataset

    offsets = np.arange(n + 1) * 2
    return Dataset(np.zeros((n, 4), np.float16), offsets, np.zeros((2 * n, 3), np.float16),
                   np.zeros(2 * n, np.float32), np.zeros((n, 5), np.int64))
