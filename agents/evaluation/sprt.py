"""Sequential probability ratio test (SPRT) of a match: stop as soon as the duplicate
groups played decide between two Elo hypotheses (``pasur eval A B --sprt 0,10``).

The question is the one chess engines' testing frameworks (fishtest) ask of a patch:
is A's Elo over B at most ``elo0`` (H0) or at least ``elo1`` (H1)? Elo is the logistic
one of the round score (a round won 1, tied 1/2, lost 0; the tournament's scale):
``score = 1 / (1 + 10 ** (-elo / 400))``. Wald's test keeps the log-likelihood ratio
(LLR) of the results under H1 and H0 and accepts H1 when it reaches
``log((1 - beta) / alpha)``, H0 when it falls to ``log(beta / (1 - alpha))``, with
error rates at most ``alpha`` (H1 accepted when H0 holds) and ``beta`` (H0 accepted
when H1 holds), up to the overshoot of checking after chunks of games.

The observations are the duplicate groups (:mod:`agents.evaluation.match`), whose
rounds are dependent (the same deal in every seating): a group of ``R`` seatings
scores ``k / (2R)`` for an integer ``k`` in ``0 .. 2R``, so its outcome is one of
``2R + 1`` categories (with 2 seatings the pentanomial model of fishtest's game
pairs). Their distribution is unknown, so the test is the *generalized* SPRT: under
each hypothesis the distribution is the maximum-likelihood one over the categories
whose mean score is that hypothesis's score (:func:`constrained_mle`), and the LLR is
the log ratio of the observed counts' likelihoods under the two. A category never
seen counts ``1e-3`` (fishtest's regularization), which keeps the test defined when
every group scores alike (two copies of a deterministic agent score exactly 1/2 in
every group: H0 follows, the H1 distribution needing mass where none was seen).

:func:`fixed_groups` gives the fixed-size match of the same error rates (a one-sided
z-test of the mean group score), the yardstick of the test's savings.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np

__all__ = ["Sprt", "elo_to_score", "score_to_elo", "constrained_mle", "llr",
           "group_counts", "fixed_groups", "parse_bounds", "describe", "REGULARIZE"]

#: the count a category never observed is given (as fishtest regularizes)
REGULARIZE = 1e-3


def elo_to_score(elo: float) -> float:
    """The expected score of a logistic Elo difference."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def score_to_elo(score: float) -> float:
    """The logistic Elo difference of an expected score in (0, 1)."""
    return -400.0 * math.log10(1.0 / score - 1.0)


def constrained_mle(values: np.ndarray, probs: np.ndarray, mean: float) -> np.ndarray:
    """The distribution ``q`` over ``values`` of mean ``mean`` that maximizes
    ``sum(probs * log(q))`` (the likelihood of observed frequencies ``probs``).

    Lagrange's conditions give ``q_i = probs_i / (1 + x (values_i - mean))`` with ``x``
    the root of ``sum(probs_i (values_i - mean) / (1 + x (values_i - mean))) = 0``, a
    decreasing function of ``x`` on the interval where every ``q_i`` is positive; the
    root is found by bisection. ``mean`` must lie strictly between the smallest and
    largest value of positive probability.
    """
    v, p = np.asarray(values, dtype=np.float64), np.asarray(probs, dtype=np.float64)
    d = v - mean
    seen = p > 0
    if not (d[seen].min() < 0 < d[seen].max()):
        raise ValueError(f"mean {mean} is not inside the observed values' range")
    lo, hi = -1.0 / d[seen].max(), -1.0 / d[seen].min()
    for _ in range(200):
        x = 0.5 * (lo + hi)
        if float(np.sum(p * d / (1.0 + x * d))) > 0:
            lo = x
        else:
            hi = x
    q = p / (1.0 + 0.5 * (lo + hi) * d)
    return q / q.sum()  # type: ignore[no-any-return]


def llr(values: np.ndarray, counts: np.ndarray, score0: float, score1: float) -> float:
    """The generalized log-likelihood ratio of ``counts`` observations of ``values``
    between the mean scores ``score1`` (H1) and ``score0`` (H0)."""
    n = np.asarray(counts, dtype=np.float64)
    total = float(n.sum())
    p = n / total
    q0 = constrained_mle(values, p, score0)
    q1 = constrained_mle(values, p, score1)
    seen = n > 0
    return float(np.sum(n[seen] * (np.log(q1[seen]) - np.log(q0[seen]))))


def group_counts(win_sums: np.ndarray, rounds: np.ndarray, seatings: int) -> np.ndarray:
    """How many groups scored ``k / (2 seatings)``, ``k = 0 .. 2 seatings``, from each
    group's round score sum (a tie counts 1/2) over its ``seatings`` rounds."""
    played = np.asarray(rounds) > 0
    k = np.rint(2 * np.asarray(win_sums, dtype=np.float64)[played]).astype(np.int64)
    return np.bincount(k, minlength=2 * seatings + 1).astype(np.float64)


def fixed_groups(sd: float, elo0: float, elo1: float, alpha: float = 0.05,
                 beta: float = 0.05) -> int:
    """Groups of the fixed-size match with the SPRT's error rates: a one-sided z-test
    of H0 (score of ``elo0``) at level ``alpha`` with power ``1 - beta`` at ``elo1``,
    for groups whose score has standard deviation ``sd``:
    ``((z(1 - alpha) + z(1 - beta)) sd / (score1 - score0)) ** 2``."""
    z = NormalDist().inv_cdf
    gap = elo_to_score(elo1) - elo_to_score(elo0)
    return max(1, math.ceil(((z(1 - alpha) + z(1 - beta)) * sd / gap) ** 2))


def parse_bounds(text: str) -> tuple[float, float]:
    """``"ELO0,ELO1"`` (``--sprt 0,10``) as two numbers; ``ValueError`` saying the form."""
    parts = str(text).split(",")
    try:
        elo0, elo1 = (float(x) for x in parts)
    except ValueError:
        raise ValueError(f"--sprt expects ELO0,ELO1, two Elo differences (e.g. 0,10), "
                         f"got {text!r}") from None
    return elo0, elo1


@dataclass(frozen=True)
class Sprt:
    """The test of H0: Elo <= ``elo0`` against H1: Elo >= ``elo1`` (A over B), with
    error rates ``alpha`` and ``beta`` (module docstring)."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        for name in ("elo0", "elo1", "alpha", "beta"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) \
                    or not math.isfinite(value):
                raise ValueError(f"SPRT {name} must be a finite number, got {value!r}")
        if not self.elo0 < self.elo1:
            raise ValueError(f"SPRT bounds need elo0 < elo1, got {self.elo0}, {self.elo1}")
        if not (0 < self.alpha < 0.5 and 0 < self.beta < 0.5):
            raise ValueError(f"SPRT error rates must be in (0, 0.5), got alpha={self.alpha}, "
                             f"beta={self.beta}")

    @property
    def bounds(self) -> tuple[float, float]:
        """The LLR at or below which H0 is accepted, and at or above which H1 is."""
        return (math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha))

    def llr(self, counts: np.ndarray) -> float:
        """The LLR of group counts by category (:func:`group_counts`), unseen
        categories regularized (:data:`REGULARIZE`)."""
        n = np.where(np.asarray(counts, dtype=np.float64) > 0, counts, REGULARIZE)
        values = np.arange(n.size) / (n.size - 1)
        return llr(values, n, elo_to_score(self.elo0), elo_to_score(self.elo1))

    def decision(self, value: float) -> str | None:
        """``"H1"``, ``"H0"`` or None (play on) for an LLR ``value``."""
        lower, upper = self.bounds
        return "H1" if value >= upper else "H0" if value <= lower else None

    def report(self, value: float, rounds: int, max_rounds: int) -> dict[str, Any]:
        """What a result records: the hypotheses, error rates, bounds, the final LLR,
        the decision (``undecided`` at the maximum) and the rounds used."""
        lower, upper = self.bounds
        return {"elo0": self.elo0, "elo1": self.elo1, "alpha": self.alpha,
                "beta": self.beta, "llr": value, "lower": lower, "upper": upper,
                "decision": self.decision(value) or "undecided", "rounds": rounds,
                "max_rounds": max_rounds}


def describe(report: dict[str, Any]) -> str:
    """One line of a result's summary about its SPRT."""
    said = {"H1": f"H1 accepted (Elo >= {report['elo1']:g} rather than <= {report['elo0']:g})",
            "H0": f"H0 accepted (Elo <= {report['elo0']:g} rather than >= {report['elo1']:g})"}
    what = said.get(report["decision"], "undecided at the maximum")
    return (f"  SPRT [{report['elo0']:g}, {report['elo1']:g}] Elo, alpha {report['alpha']:g}, "
            f"beta {report['beta']:g}: {what} after {report['rounds']:,} of at most "
            f"{report['max_rounds']:,} rounds (LLR {report['llr']:+.2f}, bounds "
            f"[{report['lower']:+.2f}, {report['upper']:+.2f}])")
