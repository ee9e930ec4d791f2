"""Statistics of matches: Student-t quantiles and 95% intervals over independent clusters.

A duplicate-deal evaluation (:mod:`agents.evaluation.match`) produces one cluster per duplicate
group (a deal in all its seatings); :func:`cluster_mean_ci` turns the clusters' sums
into a mean per round with a cluster-robust interval. scipy-free on purpose: the
core install has no scipy.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

__all__ = ["t_quantile", "cluster_mean_ci", "mean_ci", "clip_rate", "Z975", "paired_diff_ci"]

Z975 = 1.959963984540054

# two-sided 95% Student-t quantiles t_{0.975, df} for df = 1..30
_T975 = (
    12.706204736174705, 4.302652729749464, 3.182446305284263, 2.776445105197793,
    2.570581835636314, 2.446911851144969, 2.364624251592785, 2.306004135204166,
    2.262157162798205, 2.228138851986274, 2.200985160082949, 2.178812829667228,
    2.160368656462793, 2.144786687917804, 2.131449545559774, 2.119905299221255,
    2.109815577833317, 2.100922040241038, 2.093024054408309, 2.085963447265865,
    2.079613844727680, 2.073873067904019, 2.068657610419049, 2.063898561628021,
    2.059538552753294, 2.055529438642872, 2.051830516480284, 2.048407141795244,
    2.045229642132704, 2.042272456301238,
)


def t_quantile(df: float) -> float:
    """The 0.975 quantile of Student's t with ``df`` degrees of freedom (scipy-free).

    Exact table values for df <= 30, then the Cornish-Fisher expansion around the
    normal quantile (error below 1e-6 there); ``df = inf`` gives 1.959964.
    """
    if not df > 0:
        raise ValueError(f"degrees of freedom must be positive, got {df}")
    if math.isinf(df):
        return Z975
    if float(df).is_integer() and df <= 30:
        return _T975[int(df) - 1]
    z, v = Z975, float(df)
    z3, z5, z7, z9 = z**3, z**5, z**7, z**9
    return (
        z
        + (z3 + z) / (4 * v)
        + (5 * z5 + 16 * z3 + 3 * z) / (96 * v**2)
        + (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * v**3)
        + (79 * z9 + 776 * z7 + 1482 * z5 - 1920 * z3 - 945 * z) / (92160 * v**4)
    )


def cluster_mean_ci(
    sums: Sequence[float] | np.ndarray, counts: Sequence[float] | np.ndarray
) -> tuple[float, float, tuple[float, float]]:
    """Mean per item over independent clusters, its standard error and 95% interval.

    Cluster ``g`` holds ``counts[g]`` items whose values add up to ``sums[g]``. The
    estimate is the ratio ``sum(sums) / sum(counts)``; its standard error is the
    usual cluster-robust (delta-method) one over the G clusters, and the interval
    uses Student's t with G - 1 degrees of freedom. With equal counts this is the
    textbook t-interval over the cluster means. Returns ``(mean, se, (low, high))``;
    the interval is ``(nan, nan)`` with fewer than two clusters.
    """
    s = np.asarray(sums, dtype=np.float64).reshape(-1)
    n = np.asarray(counts, dtype=np.float64).reshape(-1)
    keep = n > 0
    s, n = s[keep], n[keep]
    G = s.size
    if G == 0:
        return math.nan, math.nan, (math.nan, math.nan)
    mean = float(s.sum() / n.sum())
    if G < 2:
        return mean, math.nan, (math.nan, math.nan)
    resid = (s - mean * n) / n.mean()
    se = float(math.sqrt(float((resid**2).sum()) / (G * (G - 1))))
    h = t_quantile(G - 1) * se
    return mean, se, (mean - h, mean + h)


def paired_diff_ci(
    sums_a: np.ndarray, counts_a: np.ndarray, sums_b: np.ndarray, counts_b: np.ndarray
) -> tuple[float, float, tuple[float, float]]:
    """Difference of two per-item means measured on the same clusters (deals), its
    standard error and 95% interval from the paired clusters.

    Cluster ``g`` holds ``counts_a[g]`` items summing to ``sums_a[g]`` in run A and
    ``counts_b[g]`` summing to ``sums_b[g]`` in run B. The estimate is the difference
    of the two ratio means; its standard error is the delta-method one of
    :func:`cluster_mean_ci` applied to each cluster's difference of the two
    linearised residuals, so what the clusters share (the luck of the deal) cancels.
    With equal counts this is the paired t-interval over the clusters' differences of
    means. Student's t with G - 1 degrees of freedom; ``(nan, nan)`` below two clusters.
    """
    sa, na, sb, nb = (np.asarray(x, dtype=np.float64).reshape(-1)
                      for x in (sums_a, counts_a, sums_b, counts_b))
    G = sa.size
    if G == 0 or na.sum() <= 0 or nb.sum() <= 0:
        return math.nan, math.nan, (math.nan, math.nan)
    ma, mb = float(sa.sum() / na.sum()), float(sb.sum() / nb.sum())
    diff = ma - mb
    if G < 2:
        return diff, math.nan, (math.nan, math.nan)
    z = (sa - ma * na) / na.mean() - (sb - mb * nb) / nb.mean()
    se = float(math.sqrt(float((z**2).sum()) / (G * (G - 1))))
    h = t_quantile(G - 1) * se
    return diff, se, (diff - h, diff + h)


def mean_ci(values: Sequence[float] | np.ndarray) -> tuple[float, float, tuple[float, float]]:
    """Mean, standard error and 95% Student-t interval of independent values."""
    v = np.asarray(values, dtype=np.float64).reshape(-1)
    return cluster_mean_ci(v, np.ones_like(v))




def clip_rate(ci: tuple[float, float]) -> tuple[float, float]:
    """A rate's interval, clipped to [0, 1] (NaN stays NaN)."""
    return (float(np.clip(ci[0], 0.0, 1.0)), float(np.clip(ci[1], 0.0, 1.0)))
