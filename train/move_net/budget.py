"""A wall-time budget for ``train.move_net``: measure the machine early, then size the run.

Without a budget the pipeline does a fixed amount of work (``--total-decisions``,
``--iterations``, ``--epochs``), so how long it takes depends on the machine. With
``--time-budget-min B`` the first iteration's labelling measures how fast this machine
labels (on the second batch of games: the first also pays numba's compilation); the
run then times a few minibatches of a throwaway fit, a share of every evaluation
it will play (:func:`time_fit`, :func:`time_evaluations`) and one batch of games
labelled with the throwaway network among the opponents (the network joins them from
the second iteration, and its cost is not in the first one's rate), and
:func:`plan_budget` sizes the run from those rates so that labelling, fitting, saving
each iteration's data, the evaluation after each iteration and the final evaluation
end within B minutes.

The plan is made once, before anything it decides has happened, and kept: the
checkpoint holds it, so ``--resume`` continues it. Its one correction is the last
iteration's labelling, which ends on the clock (:class:`Closing`): a plan made from a
few seconds of probes errs by a fifth on a phase (a fit timed on ten minibatches at 38
µs per decision ran at 46 in the run; a labelling planned at 596 s took 704), which
overran a 20-minute run by a minute or left a tenth of another unused. By the last
iteration the run has measured its own fits, savings and evaluations, so it labels
until what remains (the last fit on all the data, its saving, the evaluations) just
fits in the budget, and records how many decisions that was (``--last-decisions``).
A budgeted run therefore does exactly what the fixed-work run with the planned
``--total-decisions``, ``--iterations``, ``--epochs`` and that ``--last-decisions``
does (the probes touch no random stream of the run), and its report prints that
command. :class:`Budget` is the piece that watches the
first batches and makes the plan; the clock is a parameter, so tests inject one.
"""

from __future__ import annotations

import dataclasses
import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pasur_env.core.batch_engine import PARALLEL_MIN_BATCH
from train.move_net.data import Dataset, Labeler

__all__ = ["Measured", "Plan", "Budget", "Closing", "closing", "plan_budget", "phase_seconds",
           "time_fit", "time_evaluations", "end_by", "SAFETY", "FIT_SHARE", "EVAL_SHARE",
           "UNTIMED_FIT"]

#: share of the budget left unplanned: timing noise, checkpoints, plots, the report
SAFETY = 0.05
#: the default of the largest share of the labelling-and-fitting time the fits may take
#: (``--fit-share``); beyond it the plan fits fewer epochs (a machine whose torch is slow
#: for its engine)
FIT_SHARE = 0.5
#: a fit the run has not timed yet (a one-iteration run's only fit) is expected to take
#: this times the probe's figure: in three 20-minute Persian Rummy runs and four
#: 18-minute Pasur runs the fit took 0.86 to 1.30 times what its probe said (a fit in
#: the run, on its gigabytes of data, may run slower than the same fit alone); a
#: larger margin would leave most runs' minutes unused, and the budget's
#: :data:`SAFETY` share takes the rest
UNTIMED_FIT = 1.15
#: share of an opponent's rounds played to time it (10%: at 5% the fixed costs of a
#: match weigh so much that the estimates came out several times too long)
EVAL_SHARE = 0.1


@dataclass(frozen=True)
class Measured:
    """What the run measured before planning (seconds on the run's clock)."""

    elapsed: float
    """seconds since the run started, when the plan was made"""
    label_rate: float
    """labelled decisions per second (the second batch of games)"""
    batch_decisions: float
    """labelled decisions one batch of games yields"""
    first_batch: int
    """decisions labelled by the first batch (an iteration asks for more, see :class:`Budget`)"""
    labelled: int
    """decisions labelled when the plan was made"""
    fit_seconds: float
    """fitting seconds per decision and epoch"""
    eval_seconds: float
    """the evaluation after an iteration"""
    final_eval_seconds: float
    """the final evaluation"""
    net_rate: float = 0.0
    """labelled decisions per second with the opponents of the second iteration on (the
    mix, the network being trained among them; timed on one batch of games with a
    throwaway network of the run's width); 0: as ``label_rate`` (no network in the mix)"""
    save_seconds: float = 0.0
    """seconds to write one labelled decision to the run's data file (compressed: a
    Persian Rummy iteration took 18 s to write, a minute of a 20-minute run)"""

    @property
    def later_rate(self) -> float:
        """Labelled decisions per second from the second iteration on: the first
        iteration's rate measures none of the network's cost, and each policy of a
        batch costs a call at every step (measured: Persian Rummy's 1,600 decisions/s
        fell to 650 once the network joined the mix)."""
        return self.net_rate or self.label_rate


@dataclass(frozen=True)
class Plan:
    """What a budget decided: the run's size, and the figures it was decided from."""

    budget_min: float
    iterations: int
    decisions_per_iteration: int
    epochs: int
    planned_min: float
    """the minutes the plan expects the whole run to take"""
    measured: Measured

    @property
    def total_decisions(self) -> int:
        return self.iterations * self.decisions_per_iteration

    def apply(self, args: Any) -> Any:
        """``args`` with the planned ``total_decisions``, ``iterations`` and ``epochs``."""
        return dataclasses.replace(args, total_decisions=self.total_decisions,
                                   iterations=self.iterations, epochs=self.epochs)

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def phases(self) -> dict[str, float]:
        """The planned seconds of each phase after the plan (:func:`phase_seconds`)."""
        return phase_seconds(self.iterations, self.decisions_per_iteration, self.epochs,
                             self.measured)

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Plan:
        return cls(**{**d, "measured": Measured(**d["measured"])})

    def summary(self) -> str:
        m = self.measured
        later = (f" ({m.later_rate:,.0f} once the network plays)"
                 if m.later_rate != m.label_rate else "")
        return (f"budget {self.budget_min:g} min: labelling {m.label_rate:,.0f} decisions/s"
                f"{later}, "
                f"fitting {m.fit_seconds * 1e6:,.0f} µs per decision and epoch, saving "
                f"{m.save_seconds * 1e6:,.0f} µs per decision, evaluations "
                f"{m.eval_seconds:.0f} s after each iteration and {m.final_eval_seconds:.0f} s "
                f"at the end -> {self.iterations} iterations of {self.decisions_per_iteration:,} "
                f"decisions, {self.epochs} epochs per fit (planned {self.planned_min:.1f} min)")


def end_by(started: float, budget_min: float, spent: float = 0.0) -> float:
    """The time on the run's clock its work should end by: the budget less its
    :data:`SAFETY` share, less ``spent`` seconds of an earlier session of a resumed run."""
    return started + 60 * budget_min * (1 - SAFETY) - spent


def _epochs(k: int, m: Measured, epochs: int, fit_share: float) -> int:
    """Epochs per fit: ``epochs`` unless the fits would take more than ``fit_share`` of
    the labelling-and-fitting time, then as many as fit in that share (at least 1)."""
    fit = m.fit_seconds * k * (k + 1) / 2  # seconds per epoch and decision per iteration
    label = 1 / m.label_rate + (k - 1) / m.later_rate
    most = fit_share / (1 - fit_share) * label / fit if fit > 0 else math.inf
    return max(1, min(epochs, math.floor(most)))


def phase_seconds(k: int, per: int, epochs: int, m: Measured) -> dict[str, float]:
    """Seconds from the plan to the end for ``k`` iterations of ``per`` decisions, by
    phase (the names of the run's own timings, :func:`train.move_net.pipeline.run`)."""
    half = m.batch_decisions / 2  # an iteration ends inside a batch: half a batch more
    first = max(float(m.labelled), per + half)  # the first iteration has labelled some
    later = per + half
    fitted = sum(first + j * later for j in range(k))  # each fit sees all data so far
    return {"labelling": (first - m.labelled) / m.label_rate + (k - 1) * later / m.later_rate,
            "fitting": epochs * m.fit_seconds * fitted,
            "saving": m.save_seconds * (first + (k - 1) * later),  # each iteration its own
            "evaluations": k * m.eval_seconds,
            "final evaluation": m.final_eval_seconds}


def _cost(k: int, per: int, epochs: int, m: Measured) -> float:
    """Seconds from the plan to the end for ``k`` iterations of ``per`` decisions."""
    return sum(phase_seconds(k, per, epochs, m).values())


def plan_budget(budget_min: float, m: Measured, iterations: int, epochs: int,
                fit_share: float = FIT_SHARE) -> Plan:
    """The largest run that ends within ``budget_min`` minutes by the rates ``m``.

    At most ``iterations`` iterations (fewer only when even the smallest iterations do
    not fit) and ``epochs`` epochs per fit (:data:`FIT_SHARE`); the decisions per
    iteration fill the rest, in hundreds, at least one more than the first batch gave
    (so that the first iteration is the one the fixed-work run labels). Pure
    arithmetic: no clock, no randomness.
    """
    if budget_min <= 0 or m.label_rate <= 0:
        raise ValueError(f"a budget plan needs a positive budget and labelling rate, got "
                         f"{budget_min} min and {m.label_rate} decisions/s")
    spare = budget_min * 60 * (1 - SAFETY) - m.elapsed
    least = m.first_batch + 1
    for k in range(iterations, 0, -1):
        e = _epochs(k, m, epochs, fit_share)
        if _cost(k, least, e, m) <= spare:
            break
    # the largest multiple of 100 that fits (the cost grows with the decisions)
    low, high = 0, 1
    while _cost(k, max(least, 100 * high), e, m) <= spare:
        low, high = high, 2 * high
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (mid, high) if _cost(k, max(least, 100 * mid), e, m) <= spare else (low, mid)
    per = max(least, 100 * low)
    planned = (m.elapsed + _cost(k, per, e, m)) / 60
    return Plan(budget_min, k, per, e, round(planned, 2), m)


def time_fit(fit_once: Callable[[Dataset, Callable[[int], None]], None], data: Dataset,
             batch_size: int, clock: Callable[[], float], batches: int = 10) -> float:
    """Seconds per decision and epoch of fitting: ``fit_once(sample, tick)`` fits a
    throwaway network for one epoch on ``sample`` (the first ``batches`` + 2 minibatches
    of ``data``) calling ``tick`` after each minibatch; the first two are not timed
    (set-up, first allocations)."""
    sample = data.head(min(len(data), (batches + 2) * batch_size))
    times: list[float] = []
    fit_once(sample, lambda _n: times.append(clock()))
    timed = times[2:] if len(times) > 3 else times
    if len(timed) < 2:
        raise ValueError(f"timing a fit needs at least 2 minibatches; {len(data)} decisions "
                         f"make {len(times)} of {batch_size}")
    return (timed[-1] - timed[0]) / ((len(timed) - 1) * batch_size)


class Watch:
    """What watches an iteration's labelling batch by batch (``generate``'s ``resize``):
    the decisions labelled and the clock at the start and after each batch."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.marks: list[tuple[int, float]] = []

    def start(self) -> None:
        """Mark the start of the iteration's labelling."""
        self.marks = [(0, self.clock())]


class Closing(Watch):
    """Ends the last iteration's labelling when what remains just fits the budget.

    After each batch of games, with ``d`` decisions labelled and a next batch expected
    to cost what the last one did, it asks for one more batch only if that batch and
    then the rest (the fit on ``fitted_before + d`` decisions for ``epochs`` epochs at
    ``fit_seconds``, the saving of ``d`` at ``save_seconds``, ``after`` seconds of
    evaluations) end by ``end`` on ``clock``; else it stops at ``d``. The rates are the
    run's own, measured on its earlier iterations (:func:`closing`).
    """

    def __init__(self, end: float, clock: Callable[[], float], fit_seconds: float,
                 epochs: int, fitted_before: int, save_seconds: float, after: float) -> None:
        super().__init__(clock)
        self.end = end
        self.fit_seconds, self.epochs, self.fitted_before = fit_seconds, epochs, fitted_before
        self.save_seconds, self.after = save_seconds, after
        self.left: float | None = None
        self.fitted_epochs: int | None = None

    def rest(self, d: int) -> float:
        """Seconds after the labelling when it stops at ``d`` decisions."""
        return (self.fit_seconds * self.epochs * (self.fitted_before + d)
                + self.save_seconds * d + self.after)

    def resize(self, labeler: Labeler) -> int:
        """The decisions the labelling should reach: one batch more, or those it has."""
        d, now = labeler.decisions, self.clock()
        d0, t0 = self.marks[-1] if self.marks else (0, now)
        self.marks.append((d, now))
        batch, seconds = d - d0, now - t0
        if batch > 0 and now + seconds + self.rest(d + batch) <= self.end:
            return d + batch
        self.left = self.end - now
        return d

    def fit_epochs(self, epoch: float, most: int, done: int = 1) -> int:
        """The epochs the last fit should have in all, ``done`` having ended and the last
        of them having taken ``epoch`` seconds: as many as end before the saving of the
        labelled data and the evaluations must start (at least ``done``, at most
        ``most``). The labelling stopped on the fit's rate as probed before the run had
        fitted anything, and in eight runs the fit took 0.85 to 1.30 times what that
        probe said; the fit's own epochs measure it, so the last fit ends on the clock
        (:func:`train.move_net.fit.fit`) instead of overrunning the budget or leaving
        minutes unused."""
        saving = self.save_seconds * (self.marks[-1][0] if self.marks else 0)
        left = self.end - self.after - saving - self.clock()
        self.fitted_epochs = max(done, min(most, done + math.floor(left / max(epoch, 1e-9))))
        return self.fitted_epochs

    def to_json(self) -> dict[str, float | None]:
        """What it decided from, and the seconds left when it stopped (None: the labelling
        ended otherwise, at ``--time-limit-min``) for the run's history."""
        return {"fit_seconds": self.fit_seconds, "save_seconds": self.save_seconds,
                "after": round(self.after, 2),
                "seconds_left": None if self.left is None else round(self.left, 2),
                "fit_epochs": self.fitted_epochs}


def closing(plan: Plan, history: Sequence[dict[str, Any]], end: float,
            clock: Callable[[], float]) -> Closing:
    """The :class:`Closing` of a run's last iteration, from the phases its history
    timed (``phase_seconds``, ``decisions`` labelled so far, row by row): the fit's
    seconds per decision and epoch over every fit so far, the saving's per decision,
    the last evaluation's seconds, and the final evaluation's planned seconds scaled as
    the evaluations ran against their plan (within half and twice). A phase not timed
    yet keeps the plan's figure, the fit's with the margin :data:`UNTIMED_FIT`."""
    m, e = plan.measured, plan.epochs
    rows = [h for h in history if "phase_seconds" in h]
    fitted = sum(h["decisions"] for h in rows)
    labelled = rows[-1]["decisions"] if rows else 0

    def taken(phase: str) -> float:
        return sum(h["phase_seconds"].get(phase, 0.0) for h in rows)

    fit_s = (taken("fitting") / (e * fitted) if fitted and taken("fitting")
             else UNTIMED_FIT * m.fit_seconds)
    save_s = taken("saving") / labelled if labelled and taken("saving") else m.save_seconds
    each = rows[-1]["phase_seconds"].get("evaluations", m.eval_seconds) if rows else \
        m.eval_seconds
    ratio = min(2.0, max(0.5, each / m.eval_seconds)) if m.eval_seconds > 0 else 1.0
    return Closing(end, clock, fit_s, e, labelled, save_s, each + ratio * m.final_eval_seconds)


def time_evaluations(play: Callable[[str, int], Any],
                     evaluations: Sequence[Sequence[tuple[str, int]]],
                     clock: Callable[[], float], share: float = EVAL_SHARE,
                     parallel: int = PARALLEL_MIN_BATCH) -> list[float]:
    """Estimated seconds of each evaluation of ``evaluations`` (lists of ``(opponent,
    rounds)``); ``play(name, rounds)`` plays one match.

    Each opponent is timed once, on ``share`` of the most rounds it plays: first an
    untimed match of the smaller timed size loads it and compiles every kernel a match
    of that size runs (the engine's parallel ones from ``parallel`` rounds on, and the
    opponent's own: warmed on 2 rounds only, the heuristic's parallel kernel compiled
    inside its timed match, and with a fresh numba cache the final evaluation was
    estimated at 120 s for 69), then two timed ones, of that share and of half of it
    (at least ``parallel`` rounds when the share has that many, else 2). A match costs
    a fixed part (setting up, the steps' own work whatever the batch) plus a part per
    round: from the two times, each evaluation is the fixed part once per match plus
    its rounds at the per-round cost. Scaling one match's time by the rounds instead
    counted the fixed part ten times over: the estimates came out about twice the
    matches (a match of 10,000 rounds against ``heuristic`` costs 2.2 s plus 1.25 ms a
    round). When the two sizes are too close to tell the parts apart (``share`` of a
    few rounds, or of barely ``parallel``), the time is scaled by the rounds, which
    errs long.
    """
    most: dict[str, int] = {}
    for evaluation in evaluations:
        for name, rounds in evaluation:
            most[name] = max(most.get(name, 0), rounds)

    def timed(name: str, rounds: int) -> float:
        t0 = clock()
        play(name, rounds)
        return clock() - t0

    parts: dict[str, tuple[float, float]] = {}  # name -> (seconds per match, per round)
    for name, rounds in most.items():
        part = max(2, math.ceil(rounds * share))
        if rounds >= parallel:
            part = max(part, parallel)
        half = max(part // 2, parallel if part >= parallel else 2)
        play(name, half)  # untimed: loading, compiling
        whole = timed(name, part)
        per_round = whole / part
        fixed = 0.0
        if 4 * (part - half) >= part:  # far enough apart to tell the parts apart
            slope = (whole - timed(name, half)) / (part - half)
            if 0 < slope < per_round:  # else the per-round cost alone, which errs long
                per_round, fixed = slope, whole - slope * part
        parts[name] = (fixed, per_round)
    return [sum(parts[name][0] + parts[name][1] * rounds for name, rounds in evaluation)
            for evaluation in evaluations]


class Budget(Watch):
    """Watches the first iteration's labelling and makes the :class:`Plan`.

    :meth:`resize` is :func:`train.move_net.data.generate`'s ``resize`` callback: after
    the first batch it asks for more (the first batch pays the compilation), after the
    second it measures the labelling rate, runs ``probe(data so far)`` -> ``(fit
    seconds per decision and epoch, seconds of one evaluation after an iteration,
    seconds of the final evaluation, labelling rate with the network among the
    opponents, seconds to save a decision)``, plans, and from then on asks for the planned
    decisions per iteration. When the plan has one iteration, that iteration is also the
    last: from the plan on, a :class:`Closing` made from the plan's figures
    (:func:`closing`) ends it on the clock (:attr:`closing`), as it ends the last of
    several.
    """

    def __init__(self, budget_min: float, started: float, clock: Callable[[], float],
                 probe: Callable[[Dataset], tuple[float, ...]], iterations: int,
                 epochs: int, fit_share: float = FIT_SHARE) -> None:
        super().__init__(clock)
        self.budget_min, self.started, self.probe = budget_min, started, probe
        self.iterations, self.epochs, self.fit_share = iterations, epochs, fit_share
        self.plan: Plan | None = None
        self.closing: Closing | None = None

    def resize(self, labeler: Labeler) -> int:
        """The decisions the labelling should reach, given what it has now."""
        if self.closing is not None:
            return self.closing.resize(labeler)
        if self.plan is not None:
            return self.plan.decisions_per_iteration
        self.marks.append((labeler.decisions, self.clock()))
        if len(self.marks) < 3:
            return sys.maxsize
        (_, _), (d1, t1), (d2, t2) = self.marks[:3]
        rate = (d2 - d1) / max(t2 - t1, 1e-9)
        fit_s, eval_s, final_s, net_rate, save_s = self.probe(Dataset.concat(labeler.parts))
        m = Measured(elapsed=self.clock() - self.started, label_rate=rate,
                     batch_decisions=float(d2 - d1), first_batch=d1, labelled=d2,
                     fit_seconds=fit_s, eval_seconds=eval_s, final_eval_seconds=final_s,
                     net_rate=net_rate, save_seconds=save_s)
        self.plan = plan_budget(self.budget_min, m, self.iterations, self.epochs,
                                self.fit_share)
        print(self.plan.summary())
        if self.plan.iterations > 1:
            return self.plan.decisions_per_iteration
        self.closing = closing(self.plan, [], end_by(self.started, self.budget_min),
                               self.clock)
        now = self.clock()
        self.closing.marks = [(d1, now - (t2 - t1))]  # the last batch, without the probes
        return self.closing.resize(labeler)
