"""Solve a small two-player Pasur variant with CFR+ and save its average policy as an agent.

Read top to bottom (CleanRL style):

1. ``Args``: every setting, with its meaning.
2. The variant's round is enumerated once into flat arrays
   (:mod:`agents.pasur.solver`): histories, information sets, chance probabilities.
3. CFR+ (regret matching+, alternating updates, linear averaging), compiled over the
   arrays, runs ``iterations`` iterations; every ``eval_every`` the exact NashConv of
   the average policy (the sum of both players' best-response gains, points of the
   round's point difference) goes to TensorBoard (``nash_conv``), ``curve.csv`` and a
   PNG of NashConv against iterations and wall time (``curve.png``).
4. The average policy is saved as ``runs/<name>/cfr_policy.npz`` (with the regrets, so
   ``--resume`` continues the run); ``cfr:runs/<name>/cfr_policy.npz`` plays it.

    python -m train.cfr --preset mini --iterations 200
    python -m train.cfr --preset small --iterations 400 --name cfr_small
    python -m train.cfr --preset small --iterations 800 --name cfr_small --resume
"""

from __future__ import annotations

import csv
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from train.common.config import parse_config_args


@dataclass
class Args:
    name: str = "cfr"
    """run name: everything is written to ``<out>/<name>/``"""
    out: str = "runs"
    """folder holding the runs (``--out DIR``: the run is ``DIR/NAME/``)"""
    config: str = "default"
    """named configuration (``default`` or ``tiny``); flags on the command line win"""
    game: str = "pasur"
    """the game: CFR+ solves Pasur's small variants (``pasur``)"""
    preset: str = "mini"
    """the variant: a Pasur preset with two players and one-round episodes (``mini``,
    ``small``)"""
    iterations: int = 200
    """CFR+ iterations to reach in all (a resumed run continues up to this number)"""
    eval_every: int = 10
    """iterations between two exact NashConv computations of the average policy"""
    resume: bool = False
    """continue the run saved in the run folder (its regrets and average sums)"""
    progress: bool = True
    """progress bars on stderr (``--no-progress``: none; default: on when stderr is a
    terminal)"""
    tensorboard: bool = True
    """log NashConv to TensorBoard under ``<run>/tb`` (needs torch's tensorboard)"""


CONFIGS: dict[str, dict[str, Any]] = {
    "default": {},
    "tiny": {"iterations": 20, "eval_every": 5, "tensorboard": False, "progress": False},
}


def _writer(args: Args, run_dir: Path) -> Any:
    if not args.tensorboard:
        return None
    from torch.utils.tensorboard import SummaryWriter

    return SummaryWriter(str(run_dir / "tb"))


def _plot(rows: list[dict[str, float]], out: Path) -> None:
    """NashConv against iterations and against wall time (log scales)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter

    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, key, label in ((axes[0], "iteration", "CFR+ iterations"),
                           (axes[1], "seconds", "wall time (s)")):
        ax.loglog([r[key] for r in rows], [r["nash_conv"] for r in rows], marker=".")
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xlabel(label)
        ax.set_ylabel("NashConv (points per round)")
        ax.grid(True, which="both", alpha=0.3)
    fig.suptitle("CFR+ average policy: exact NashConv")
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    plt.close(fig)


def _resume(solver: Any, path: Path, signature: np.ndarray) -> float:
    """Load the regrets, sums and iteration of a saved run; return its seconds so far."""
    with np.load(path) as f:
        same = np.array_equal(f["signature"], signature)
        if not same or f["regret"].shape != solver.regret.shape:
            raise SystemExit(f"{path} was solved for another variant: cannot resume it")
        solver.regret[:] = f["regret"]
        solver.avg[:] = f["avg"]
        solver.iteration = int(f["iteration"])
        return float(f["seconds"])


def main(argv: list[str] | None = None) -> Path:
    args = parse_config_args(Args, CONFIGS, argv, "python -m train.cfr", __doc__,
                             games=("pasur",))
    from agents.evaluation.exploitability import variant_tree
    from agents.evaluation.progress import Progress
    from agents.pasur.solver import CFRPlus, save_policy, variant_signature
    from train.common.run_dir import start_run_dir

    run_dir = start_run_dir(args, fresh=True)
    policy_path, csv_path = run_dir / "cfr_policy.npz", run_dir / "curve.csv"
    t0 = time.perf_counter()
    _, tree = variant_tree(args.preset)
    print(f"{args.preset}: {tree.sizes()} (enumerated in {time.perf_counter() - t0:.1f} s)")
    solver = CFRPlus(tree)
    rows: list[dict[str, float]] = []
    spent = 0.0
    if args.resume and policy_path.exists():
        spent = _resume(solver, policy_path, variant_signature(tree.params))
        with open(csv_path, newline="") as f:
            rows = [{k: int(v) if k == "iteration" else float(v) for k, v in r.items()}
                    for r in csv.DictReader(f)]
    writer = _writer(args, run_dir)
    bar = Progress(args.iterations, "CFR+", "it", enabled=args.progress)
    bar.update(solver.iteration)
    while solver.iteration < args.iterations:
        step = min(args.eval_every, args.iterations - solver.iteration)
        start = time.perf_counter()
        solver.run(step)
        spent += time.perf_counter() - start
        bar.update(step)
        nc = solver.nash_conv()
        rows.append({"iteration": solver.iteration, "seconds": spent, **nc})
        if not args.progress:
            print(f"iteration {solver.iteration}: NashConv {nc['nash_conv']:.5f}")
        if writer is not None:
            writer.add_scalar("nash_conv", nc["nash_conv"], solver.iteration)
            writer.add_scalar("nash_conv_vs_seconds", nc["nash_conv"], int(spent * 1000))
    bar.close()
    if writer is not None:
        writer.close()
    save_policy(policy_path, tree, solver.average_policy(), args.preset, regret=solver.regret,
                avg=solver.avg, iteration=np.array(solver.iteration), seconds=np.array(spent))
    with open(csv_path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]) if rows else ["iteration"])
        w.writeheader()
        w.writerows(rows)
    if rows:
        _plot(rows, run_dir / "curve.png")
        print(f"iteration {solver.iteration}: NashConv {rows[-1]['nash_conv']:.5f} "
              f"({spent:.1f} s of CFR+)")
    print(f"saved {policy_path} (play it as cfr:{policy_path})")
    return policy_path


if __name__ == "__main__":  # pragma: no cover
    main()
