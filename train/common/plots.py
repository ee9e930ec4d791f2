"""Plots of a training run: the learning curve and the evaluation curves (PNG files).

:func:`plot_learning_curve` is public (``docs/training.md``): it draws any run's CSV,
an evaluations CSV (:class:`train.common.tracking.DuplicateEvaluation`,
:class:`train.sb3.callbacks.PeriodicEvaluation`: the duplicate-deal result against
each baseline over training) or SB3's ``monitor.csv`` (the episode rewards).
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_learning_curve(csv_path: str | Path, out: str | Path | None = None,
                        window: int = 2000, xlabel: str = "learner decisions") -> Path | None:
    """The learning curve of a run as a PNG (default: ``csv_path`` with ``.png``); None
    when the CSV is missing or has too few rows to draw.

    An evaluations CSV (its header has ``opponent``) gives the duplicate-deal result
    against each baseline with its 95% interval (:func:`plot_evaluations`); SB3's
    ``monitor.csv`` the episode rewards' rolling mean over ``window`` episodes.
    """
    csv_path = Path(csv_path)
    out = csv_path.with_suffix(".png") if out is None else Path(out)
    if not csv_path.exists():
        return None
    with open(csv_path) as fh:
        first = fh.readline()
    if not first.startswith("#") and "opponent" in first.split(","):
        return plot_evaluations(csv_path, out, xlabel=xlabel)
    return _plot_monitor(csv_path, out, window)


def _plot_monitor(monitor_csv: Path, out: Path, window: int) -> Path | None:
    """Mean learner round-point difference per episode (rolling mean) against training steps.

    Reads SB3's ``VecMonitor`` file (``r`` = episode reward = the round's point
    difference, ``l`` = episode length in learner decisions).
    """
    rows = []
    with open(monitor_csv) as fh:
        fh.readline()  # the monitor's JSON header
        for row in csv.DictReader(fh):
            rows.append((float(row["r"]), float(row["l"])))
    if len(rows) < 2:
        return None
    r = np.array([x[0] for x in rows])
    steps = np.cumsum([x[1] for x in rows])
    w = max(1, min(window, len(r) // 5))
    smooth = np.convolve(r, np.ones(w) / w, mode="valid")
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(steps[w - 1:], smooth)
    ax.axhline(0, color="grey", lw=0.5)
    ax.set_xlabel("learner decisions")
    ax.set_ylabel(f"round points, learner − opponents (mean of {w})")
    ax.set_title("Learning curve (against the training opponent pool)")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return Path(out)


def plot_evaluations(evals_csv: Path, out: Path, xlabel: str = "learner decisions") -> Path | None:
    """Duplicate-deal evaluation (mean points/round with 95% CI) per opponent over training."""
    if not Path(evals_csv).exists():
        return None
    data: dict[str, list[tuple[float, float, float, float]]] = {}
    with open(evals_csv) as fh:
        for row in csv.DictReader(fh):
            data.setdefault(row["opponent"], []).append(
                (float(row["timesteps"]), float(row["mean_point_diff"]),
                 float(row["ci_low"]), float(row["ci_high"])))
    if not data:
        return None
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4))
    for opp, pts in data.items():
        a = np.array(sorted(pts))
        ax.plot(a[:, 0], a[:, 1], marker="o", label=f"vs {opp}")
        ax.fill_between(a[:, 0], a[:, 2], a[:, 3], alpha=0.2)
    ax.axhline(0, color="grey", lw=0.5)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("mean points/round (learner − opponent)")
    ax.set_title("Duplicate-deal evaluation during training (95% CI)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return Path(out)


def report_plot_sections(run_dir: Path) -> list[str]:
    """Draw a PPO run's learning and evaluation curves (from ``monitor.csv`` and
    ``evals.csv``) and return the markdown sections of ``report.md`` that show them."""
    learning_png = plot_learning_curve(run_dir / "monitor.csv", run_dir / "learning_curve.png")
    eval_png = plot_evaluations(run_dir / "evals.csv", run_dir / "eval_curves.png")
    lines: list[str] = []
    if learning_png:
        lines += ["## Learning curve", "", f"![learning curve]({learning_png.name})", ""]
    if eval_png:
        lines += ["## Evaluation during training", "", f"![evaluations]({eval_png.name})", ""]
    return lines
