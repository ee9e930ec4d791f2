"""Paired comparison of two evaluation results on the deals they share.

Two runs of ``evaluate`` on the same deals (the same game, rules, table, mode and deal
seed) share their luck of the cards deal by deal: comparing them deal by deal cancels
it, as the duplicate seatings do inside one run. :func:`compare` takes two results of
schema 2 (:mod:`agents.evaluation.results`: they keep one entry per deal), keeps the
deals both played and reports the difference of their mean A-minus-B point
differences per round with a 95% interval from the paired per-deal differences
(:func:`agents.evaluation.stats.paired_diff_ci`). Typical uses::

    # the same pair, other draws of the agents' randomness: the interval should cover 0
    a = evaluate("ismcts:budget=50", "greedy", rounds=2000, seed=0, agent_seed=1)
    b = evaluate("ismcts:budget=50", "greedy", rounds=2000, seed=0, agent_seed=2)
    # two agents against the same opponent on the same deals: which is stronger
    a = evaluate("heuristic", "random", rounds=2000, seed=0)
    b = evaluate("greedy", "random", rounds=2000, seed=0)
    print(compare(a, b).summary())

Results that cannot be paired are refused with ``ValueError`` saying why: other games,
rules, table sizes or modes, deals of another seed (no common deals), or a result
written before schema 2 (no per-deal data). ``pasur compare A.json B.json`` is the
command line.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.evaluation.results import SCHEMA, EvalResult, json_number
from agents.evaluation.stats import paired_diff_ci
from agents.games import agent_game

__all__ = ["Comparison", "compare"]


@dataclass
class Comparison:
    """The paired comparison of two results (``first`` minus ``second``).

    ``mean_first``/``mean_second`` are each result's mean A-minus-B point difference
    per round on the common deals only (equal to its own figure when every deal is
    shared); ``difference`` is their difference, with ``std_error`` and ``ci95`` from
    the paired deals.
    """

    first: str
    second: str
    game: str
    players: int
    mode: str
    seed: int
    rules: dict[str, Any]
    common_deals: int
    deals_first: int
    deals_second: int
    rounds_first: int
    rounds_second: int
    mean_first: float
    mean_second: float
    difference: float
    std_error: float
    ci95: tuple[float, float]

    @property
    def decision(self) -> str:
        """``"first"`` or ``"second"`` when the interval excludes 0 on that side, else
        ``"undecided"``."""
        lo, hi = self.ci95
        if lo > 0:
            return "first"
        if hi < 0:
            return "second"
        return "undecided"

    def to_json(self) -> dict[str, Any]:
        """The comparison as a JSON-ready dict (``pasur compare --json``)."""
        return {
            "schema": SCHEMA, "game": self.game, "players": self.players, "mode": self.mode,
            "seed": self.seed, "rules": dict(self.rules),
            "first": {"result": self.first, "deals": self.deals_first,
                      "rounds_on_common_deals": self.rounds_first,
                      "mean_point_diff": json_number(self.mean_first)},
            "second": {"result": self.second, "deals": self.deals_second,
                       "rounds_on_common_deals": self.rounds_second,
                       "mean_point_diff": json_number(self.mean_second)},
            "common_deals": self.common_deals,
            "difference": json_number(self.difference),
            "std_error": json_number(self.std_error),
            "ci95": [json_number(x) for x in self.ci95],
            "decision": self.decision,
        }  # fmt: skip

    def summary(self) -> str:
        """A few human-readable lines."""
        unit = agent_game(self.game).points_unit
        lo, hi = self.ci95
        verdict = {"first": "the first is higher", "second": "the second is higher",
                   "undecided": "not decided (the interval covers 0)"}[self.decision]
        width = max(len(self.first), len(self.second))
        return "\n".join([
            f"paired comparison on {self.common_deals:,} common deals ({self.game}, "
            f"{self.players} players, {self.mode} mode, deals of seed {self.seed})",
            f"  first:  {self.first:<{width}}  A - B {self.mean_first:+.3f} per round "
            f"({self.rounds_first:,} rounds on these deals)",
            f"  second: {self.second:<{width}}  A - B {self.mean_second:+.3f} per round "
            f"({self.rounds_second:,} rounds on these deals)",
            f"  first - second: {self.difference:+.3f}  95% CI [{lo:+.3f}, {hi:+.3f}] "
            f"({unit}): {verdict}",
        ])

    def __str__(self) -> str:
        return self.summary()


def _as_result(x: Any, which: str) -> tuple[EvalResult, str]:
    """A result and its name in the text: an :class:`EvalResult`, its JSON dict, or a
    path to its JSON file."""
    if isinstance(x, EvalResult):
        res, where = x, ""
    elif isinstance(x, dict):
        res, where = EvalResult.from_json(x), ""
    elif isinstance(x, (str, Path)):
        res, where = EvalResult.load(x), f"{x}: "
    else:
        raise TypeError(f"the {which} result must be an EvalResult, its JSON dict or a path, "
                        f"got {type(x).__name__}")
    seed = "" if res.agent_seed in (None, res.seed) else f", agent seed {res.agent_seed}"
    return res, f"{where}{res.a} vs {res.b}{seed}"


def _check_pairable(a: EvalResult, b: EvalResult, name_a: str, name_b: str) -> None:
    """``ValueError`` saying why two results cannot be paired deal by deal."""
    for res, name in ((a, name_a), (b, name_b)):
        if not res.has_deals:
            raise ValueError(f"{name} has no per-deal data (a result written before schema "
                             f"{SCHEMA}): run it again with this version to compare it")
    for what, get in (("games", lambda r: r.game), ("player counts", lambda r: r.players),
                      ("modes", lambda r: r.mode)):
        if get(a) != get(b):
            raise ValueError(f"cannot compare results of different {what}: {get(a)} "
                             f"({name_a}) and {get(b)} ({name_b})")
    if a.rules != b.rules:
        keys = sorted(k for k in a.rules.keys() | b.rules.keys()
                      if a.rules.get(k) != b.rules.get(k))
        shown = ", ".join(f"{k}={a.rules.get(k)!r} vs {b.rules.get(k)!r}" for k in keys)
        raise ValueError(f"cannot compare results played under different rules: {shown}")
    if a.seed != b.seed:
        raise ValueError(f"no common deals: the deals come from seed {a.seed} in {name_a} and "
                         f"seed {b.seed} in {name_b} (play both with the same --seed; "
                         "--agent-seed varies the agents' randomness on the same deals)")


def compare(first: Any, second: Any) -> Comparison:
    """Pair two results on their common deals (module docstring): ``first`` minus
    ``second``. Each is an :class:`EvalResult`, its JSON dict or a path to its file."""
    a, name_a = _as_result(first, "first")
    b, name_b = _as_result(second, "second")
    _check_pairable(a, b, name_a, name_b)
    deals_a, deals_b = a.deal_index(), b.deal_index()
    common, ia, ib = np.intersect1d(deals_a, deals_b, assume_unique=True, return_indices=True)
    keep_a = np.asarray(a.group_rounds)[ia] > 0
    keep_b = np.asarray(b.group_rounds)[ib] > 0
    ia, ib = ia[keep_a & keep_b], ib[keep_a & keep_b]
    if not ia.size:
        raise ValueError(f"no common deals: {name_a} played deals "
                         f"{_span(deals_a)}, {name_b} deals {_span(deals_b)}")
    sa, na = np.asarray(a.group_diff_sum)[ia], np.asarray(a.group_rounds)[ia]
    sb, nb = np.asarray(b.group_diff_sum)[ib], np.asarray(b.group_rounds)[ib]
    diff, se, ci = paired_diff_ci(sa, na, sb, nb)
    return Comparison(
        first=name_a, second=name_b, game=a.game, players=a.players, mode=a.mode, seed=a.seed,
        rules=dict(a.rules), common_deals=int(ia.size), deals_first=int(deals_a.size),
        deals_second=int(deals_b.size), rounds_first=int(na.sum()),
        rounds_second=int(nb.sum()), mean_first=float(sa.sum() / na.sum()),
        mean_second=float(sb.sum() / nb.sum()), difference=diff, std_error=se, ci95=ci,
    )  # fmt: skip


def _span(deals: np.ndarray) -> str:
    """Deal indices in a few words (``0..999``, or ``none``)."""
    if not deals.size:
        return "none"
    lo, hi = int(deals.min()), int(deals.max())
    return f"{lo}..{hi}" if deals.size == hi - lo + 1 else f"{deals.size} deals in {lo}..{hi}"

