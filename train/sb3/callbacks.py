"""Stable-Baselines3 callbacks of the training runs: opponent schedule and self-play
snapshots, periodic duplicate-deal evaluation, checkpoints, a time limit.

Each is a small class with one job; :func:`train.ppo.main` assembles them (with a
game's own, :mod:`train.ppo.games`). They hook
``_on_rollout_end`` (between PPO updates) so that nothing runs inside a rollout.

:class:`PeriodicEvaluation` and :class:`TimeLimit` are public (``docs/training.md``):
any SB3 run can use them. They are :class:`train.common.tracking.DuplicateEvaluation`
and :class:`~train.common.tracking.WallClock` hooked into SB3, the pieces a plain loop
uses.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from stable_baselines3.common.callbacks import BaseCallback

from agents import policy_snapshot
from train.common.pool import OpponentPool
from train.common.tracking import EVALS_HEADER, DuplicateEvaluation, WallClock

__all__ = [
    "OpponentSchedule",
    "PeriodicEvaluation",
    "Checkpoints",
    "TimeLimit",
    "SnapshotEvery",
    "parse_schedule",
    "save_checkpoint",
    "latest_checkpoint",
]

#: the prefix of the learner's own snapshots in the opponent pool
SELF = "self@"


def parse_schedule(text: str) -> dict[str, tuple[float, float]]:
    """``"random:1>0.1,self:0>1"`` -> ``{"random": (1.0, 0.1), "self": (0.0, 1.0)}``."""
    out = {}
    for item in text.split(","):
        name, _, span = item.partition(":")
        start, _, end = span.partition(">")
        out[name.strip()] = (float(start), float(end or start))
    return out


class _EveryN(BaseCallback):
    """Runs :meth:`fire` at the first rollout end and then every ``every`` steps."""

    def __init__(self, every: int, fire_at_start: bool = True) -> None:
        super().__init__()
        self.every = int(every)
        self.fire_at_start = fire_at_start
        self.last = -1

    def _on_training_start(self) -> None:
        if not self.fire_at_start:
            self.last = self.num_timesteps

    def _on_rollout_end(self) -> None:
        if self.last >= 0 and self.num_timesteps - self.last < self.every:
            return
        self.last = self.num_timesteps
        self.fire()

    def fire(self) -> None:
        raise NotImplementedError

    def _on_step(self) -> bool:
        return True


class OpponentSchedule(BaseCallback):
    """Moves the pool's weights along ``schedule`` (linear in training progress) and adds
    a frozen snapshot of the learner every ``snapshot_every`` steps; ``self`` weighs
    the snapshots together."""

    def __init__(self, pool: OpponentPool, schedule: dict[str, tuple[float, float]],
                 total_timesteps: int, snapshot_every: int, seed: int) -> None:
        super().__init__()
        self.pool, self.schedule = pool, schedule
        self.total, self.snapshot_every, self.seed = total_timesteps, snapshot_every, seed
        self.last_snapshot = -1

    def _apply(self) -> None:
        p = min(1.0, self.num_timesteps / max(1, self.total))
        snaps = [e for e in self.pool if e.name.startswith(SELF)]
        for e in self.pool:
            key = "self" if e.name.startswith(SELF) else e.name
            lo, hi = self.schedule.get(key, (0.0, 0.0))
            w = lo + (hi - lo) * p
            e.weight = w / max(1, len(snaps)) if key == "self" else w
        for name in ("random", "greedy", "heuristic"):
            weight = next((e.weight for e in self.pool if e.name == name), 0.0)
            self.logger.record(f"pool/weight_{name}", weight)

    def _on_training_start(self) -> None:
        self.last_snapshot = self.num_timesteps
        self._apply()

    def _on_rollout_end(self) -> None:
        if self.num_timesteps - self.last_snapshot >= self.snapshot_every:
            self.last_snapshot = self.num_timesteps
            self.pool.add(policy_snapshot(self.model, seed=self.seed),
                          name=f"{SELF}{self.num_timesteps}")
        self._apply()

    def _on_step(self) -> bool:
        return True


class PeriodicEvaluation(_EveryN):
    """Duplicate-deal matches of the current policy against ``opponents`` every ``every``
    steps (and at the first rollout end), logged to TensorBoard (``eval/...``, through
    SB3's logger) and appended to ``evals_csv``.

    ``model.learn(n, callback=PeriodicEvaluation(20_000, ["random", "greedy"], 400, 0,
    Path("evals.csv"), append=False))``. The matches are those of
    :class:`train.common.tracking.DuplicateEvaluation` (the same deals every time, for
    ``seed``); the policy plays deterministically (its most likely action).
    """

    HEADER = EVALS_HEADER

    def __init__(self, every: int, opponents: list[str], rounds: int, seed: int,
                 evals_csv: Path, append: bool, game: str = "pasur") -> None:
        super().__init__(every)
        self.evaluation = DuplicateEvaluation(opponents, game=game, rounds=rounds, seed=seed,
                                              every=0, csv_path=evals_csv, append=append,
                                              tensorboard=False)

    def fire(self) -> None:
        agent = policy_snapshot(self.model, deterministic=True, name="learner")
        for res in self.evaluation.evaluate(self.num_timesteps, agent):
            for tag, value in DuplicateEvaluation.scalars(res).items():
                self.logger.record(tag, value)


class Checkpoints(_EveryN):
    """Saves the model (and so the self-play history) every ``every`` steps."""

    def __init__(self, every: int, run_dir: Path) -> None:
        super().__init__(every, fire_at_start=False)
        self.run_dir = run_dir

    def fire(self) -> None:
        save_checkpoint(self.model, self.run_dir)


class TimeLimit(BaseCallback):
    """Ends learning once ``minutes`` have passed since ``start`` (default: now; 0: no
    limit): ``model.learn(10**9, callback=TimeLimit(20))`` learns for 20 minutes. The
    budget is :class:`train.common.tracking.WallClock`'s."""

    def __init__(self, minutes: float, start: float | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        super().__init__()
        self.budget = WallClock(minutes, start, clock)

    def _on_step(self) -> bool:
        return not self.budget.over()


class SnapshotEvery(BaseCallback):
    """Adds a :func:`~agents.policy_snapshot` of the learner to ``pool`` every ``every``
    steps (and once at the start if the pool is empty): self-play for any SB3 run.

    ``model.learn(total_timesteps, callback=SnapshotEvery(pool, 50_000))``.
    """

    def __init__(self, pool: OpponentPool, every: int, *, deterministic: bool = False,
                 verbose: int = 0) -> None:
        super().__init__(verbose)
        self.pool, self.every, self.deterministic = pool, int(every), deterministic
        self.last = 0

    def _on_training_start(self) -> None:
        self.last = self.num_timesteps
        if len(self.pool) == 0:
            self.pool.add_snapshot(self.model, deterministic=self.deterministic)

    def _on_step(self) -> bool:
        if self.num_timesteps - self.last >= self.every:
            self.last = self.num_timesteps
            e = self.pool.add_snapshot(self.model, deterministic=self.deterministic)
            if self.verbose:
                print(f"self-play: added {e.name}; pool = {self.pool.names}")
        return True


def save_checkpoint(model: Any, run_dir: Path) -> Path:
    """``run_dir/checkpoints/model_<steps>.zip``."""
    ckpt_dir = run_dir / "checkpoints"
    ckpt_dir.mkdir(parents=True, exist_ok=True)
    path = ckpt_dir / f"model_{model.num_timesteps:09d}.zip"
    model.save(path)
    return path


def latest_checkpoint(run_dir: Path) -> Path | None:
    """The newest checkpoint of a run, or None."""
    found = sorted((run_dir / "checkpoints").glob("model_*.zip"))
    return found[-1] if found else None
