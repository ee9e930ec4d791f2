"""Tracking a training run, with any learner: seeds, a wall-time budget, and duplicate-deal
evaluations every N steps logged to CSV and TensorBoard.

These are the pieces the project's own pipelines use, for a user's own loop (plain
torch, CleanRL style, or any library); the SB3 callbacks of :mod:`train.sb3.callbacks`
(``PeriodicEvaluation``, ``TimeLimit``) are these same pieces hooked into
Stable-Baselines3. ``docs/training.md`` shows them in a loop.

* :func:`seed_everything`: one call seeding Python's ``random``, numpy's global
  generator and torch, returning seeds for the envs;
* :class:`WallClock`: "stop after M minutes" for a loop;
* :class:`DuplicateEvaluation`: every ``every`` steps, the policy against baselines on
  duplicate deals (the evaluation API, :func:`train.common.evaluation.evaluate_game`),
  each result a row of ``evals.csv`` and TensorBoard scalars; the CSV is what
  :func:`train.common.plots.plot_learning_curve` draws;
* :class:`BatchPolicy`: a function ``(obs, masks) -> actions`` over a batch (a torch
  policy's forward pass) as a :class:`pasur_env.Policy` the evaluation can play.
"""

from __future__ import annotations

import csv
import random
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from pasur_env.core.args import action_array
from pasur_env.core.policy import check_actions
from train.common.evaluation import evaluate_game, parse_opponents

if TYPE_CHECKING:
    from agents.evaluation.results import EvalResult

__all__ = ["seed_everything", "WallClock", "DuplicateEvaluation", "BatchPolicy", "EVALS_HEADER"]

#: the columns of an evaluations CSV (one row per evaluation and opponent)
EVALS_HEADER = ["timesteps", "opponent", "mean_point_diff", "ci_low", "ci_high",
                "round_win_rate"]


def seed_everything(seed: int, num_envs: int = 1) -> list[int]:
    """Seed Python's ``random``, numpy's global generator and torch (CPU and CUDA, when
    torch is installed) with ``seed``, and return ``num_envs`` seeds for the envs.

    The env seeds are drawn from ``numpy.random.SeedSequence(seed)``: distinct, and
    independent of the streams seeded here. Pass them to each env's
    ``reset(seed=...)``; a Gymnasium vector env takes the first one (it seeds game
    ``i`` with ``seed + i``).
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be an int >= 0, got {seed!r}")
    if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) \
            or num_envs < 1:
        raise ValueError(f"num_envs must be an int >= 1, got {num_envs!r}")
    random.seed(int(seed))
    np.random.seed(int(seed) % 2**32)
    try:
        import torch
    except ImportError:
        pass
    else:
        torch.manual_seed(int(seed))  # also seeds every CUDA device
    states = np.random.SeedSequence(int(seed)).generate_state(int(num_envs), dtype=np.uint32)
    return [int(s) for s in states]


class WallClock:
    """A wall-time budget: :meth:`over` once ``minutes`` have passed since ``start``
    (default: now). ``minutes=0`` means no limit. The clock is a parameter so that a
    test can drive it."""

    def __init__(self, minutes: float, start: float | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        if isinstance(minutes, bool) or not isinstance(minutes, (int, float)) or minutes < 0:
            raise ValueError(f"minutes must be a number >= 0, got {minutes!r}")
        self.minutes, self.clock = float(minutes), clock
        self.start = clock() if start is None else float(start)

    def elapsed(self) -> float:
        """Seconds since the start."""
        return self.clock() - self.start

    def over(self) -> bool:
        """True once the budget is spent (never with ``minutes=0``)."""
        return bool(self.minutes) and self.elapsed() >= 60 * self.minutes


class BatchPolicy:
    """A :class:`pasur_env.Policy` from ``fn(obs, masks) -> actions`` over a batch:
    ``obs`` (n, N) float32 observations of the movers, ``masks`` (n, A) bool, the
    answer n action ids (a list, numpy or torch array). Every answer is checked as
    the envs check a learner's (an illegal one raises ``ValueError`` naming it)."""

    needs_observation = True
    #: what it plays is unknown: any game
    game_ids: tuple[str, ...] | None = None

    def __init__(self, fn: Callable[[np.ndarray, np.ndarray], Any], name: str = "learner"):
        if not callable(fn):
            raise TypeError(f"expected a callable (obs, masks) -> actions, got {fn!r}")
        self.fn, self.name = fn, name

    def reset(self, seed: int | None = None) -> None:
        pass

    def act(self, obs: np.ndarray | None, mask: np.ndarray, view: Any) -> np.ndarray:
        answer = self.fn(obs, mask)
        if hasattr(answer, "detach"):  # a torch tensor
            answer = answer.detach().cpu().numpy()
        acts = action_array(answer, len(mask), mask.shape[1], who=f"agent {self.name!r}",
                            low=0)
        return check_actions(acts, mask, f"agent {self.name!r}")


class DuplicateEvaluation:
    """Duplicate-deal matches of a policy against baselines every ``every`` steps.

    Call it from the loop with the step count and the current policy; it evaluates
    when ``every`` steps have passed since the last evaluation (and at the first
    call), and returns the results (else None)::

        evaluation = DuplicateEvaluation(["random", "greedy"], every=20_000,
                                         log_dir="runs/mine")
        for step in ...:
            ...
            evaluation(step, BatchPolicy(act))   # or an agent / agent name

    Args:
        opponents: agent names (``"random,greedy"`` or a list; ``name:R`` plays R
            rounds against that one) or agents.
        game: the game's id.
        rounds: rounds per opponent (whole duplicate groups).
        seed: the deals' seed: every evaluation plays the same deals.
        every: steps between evaluations (0: only when :meth:`evaluate` is called).
        log_dir: writes ``log_dir/evals.csv`` and TensorBoard scalars in ``log_dir/tb``
            (``eval/mean_point_diff_vs_<opponent>``, ``eval/round_win_rate_vs_<opponent>``).
        csv_path: the CSV elsewhere (default ``log_dir/evals.csv``); ``append`` keeps
            its rows (a resumed run).
        tensorboard: write the TensorBoard scalars (needs the ``tensorboard`` package).
        **eval_kwargs: to the evaluation API (``players``, rule flags...).
    """

    def __init__(self, opponents: str | Sequence[Any], *, game: str = "pasur",
                 rounds: int = 200, seed: int = 0, every: int = 10_000,
                 log_dir: str | Path | None = None, csv_path: str | Path | None = None,
                 append: bool = False, tensorboard: bool = True, **eval_kwargs: Any) -> None:
        items = opponents.split(",") if isinstance(opponents, str) else list(opponents)
        #: (opponent, rounds) pairs: names parsed (``name:R``), agents as they are
        self.opponents: list[tuple[Any, int]] = [
            pair for o in items
            for pair in (parse_opponents([o], int(rounds)) if isinstance(o, str)
                         else [(o, int(rounds))])]
        if not self.opponents:
            raise ValueError("DuplicateEvaluation needs at least one opponent")
        self.game, self.seed, self.every = game, int(seed), int(every)
        self.eval_kwargs = eval_kwargs
        self.last: int | None = None
        self.log_dir = Path(log_dir) if log_dir is not None else None
        if csv_path is None and self.log_dir is not None:
            csv_path = self.log_dir / "evals.csv"
        self.csv_path = Path(csv_path) if csv_path is not None else None
        if self.csv_path is not None and not (append and self.csv_path.exists()):
            self.csv_path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.csv_path, "w", newline="") as fh:
                csv.writer(fh).writerow(EVALS_HEADER)
        self.writer = None
        if tensorboard and self.log_dir is not None:
            from torch.utils.tensorboard import SummaryWriter

            self.writer = SummaryWriter(str(self.log_dir / "tb"))

    def due(self, step: int) -> bool:
        """True at the first call and once ``every`` steps passed since the last evaluation."""
        return self.last is None or (self.every > 0 and step - self.last >= self.every)

    def __call__(self, step: int, policy: Any) -> list[EvalResult] | None:
        """:meth:`evaluate` if :meth:`due`, else None."""
        return self.evaluate(step, policy) if self.due(step) else None

    def evaluate(self, step: int, policy: Any) -> list[EvalResult]:
        """``policy`` (an agent, an agent name, or a :class:`BatchPolicy`) against every
        opponent now, each result logged at ``step``."""
        self.last = int(step)
        results = [evaluate_game(policy, opp, game=self.game, rounds=r, seed=self.seed,
                                 progress=False, **self.eval_kwargs)
                   for opp, r in self.opponents]
        for res in results:
            self._log(step, res)
        if self.writer is not None:
            self.writer.flush()
        return results

    @staticmethod
    def scalars(result: EvalResult) -> dict[str, float]:
        """The TensorBoard scalars of one result (the SB3 callback logs the same)."""
        opp = result.b
        return {f"eval/mean_point_diff_vs_{opp}": float(result.mean_point_diff),
                f"eval/round_win_rate_vs_{opp}": float(result.round_win_rate)}

    def _log(self, step: int, res: EvalResult) -> None:
        if self.csv_path is not None:
            with open(self.csv_path, "a", newline="") as fh:
                csv.writer(fh).writerow([int(step), res.b, res.mean_point_diff, res.ci95[0],
                                         res.ci95[1], res.round_win_rate])
        if self.writer is not None:
            for tag, value in self.scalars(res).items():
                self.writer.add_scalar(tag, value, int(step))

    def close(self) -> None:
        """Close the TensorBoard writer."""
        if self.writer is not None:
            self.writer.close()
