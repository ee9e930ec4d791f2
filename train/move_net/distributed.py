"""Search labelling in shards, on Ray or here: the labelling of ``train.move_net --address``.

Labelling (the game's labeller, :mod:`train.move_net.games`, valuing every candidate
move of one-round games by search) is most of a ``train.move_net`` run's time, and its games are
independent. Here an iteration's labelling is cut into *shards*: shard ``k`` is one
batch of ``--batch`` games played by :func:`train.move_net.data.generate` with a
labeler, opponents and deals seeded by :func:`shard_seed` ``(iteration seed, k)``
alone. The driver keeps ``workers`` shards in flight (Ray tasks holding one CPU each:
:class:`agents.evaluation.distributed.RayTasks`), and the iteration's data is shards
``0, 1, ..., K-1`` in that order, ``K`` the fewest whose decisions reach the
iteration's share. Shards computed beyond ``K`` (the last ones in flight) are dropped.
So the labelled data, and the network fitted on it (the fit stays on the driver, as
before), are the same to the last bit with 1, 2 or 40 workers, on Ray or in this
process (:class:`LocalTasks`).

Against the single-machine run: shard 0 *is* the first batch of the local run's
iteration (same seeds); after it the local run's labeler, opponents and seat draws run
on from batch to batch, which a shard computed elsewhere cannot replay without playing
the batches before it. Shard ``k >= 1`` therefore starts fresh streams, so the
sharded run is a different sample of the same procedure (same settings, same number of
decisions up to the last shard). Tests check both statements.

Fault tolerance: a task whose worker dies is retried by Ray and, if Ray gives up,
resubmitted by the driver; since a shard is a function of its index only, the redone
shard is the one that was lost. The checkpoint after each iteration (``--resume``)
is the driver's: a resumed run labels the next iteration's shards with that
iteration's seeds, exactly as the run that was not interrupted.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from train.move_net.data import Dataset, generate

__all__ = ["LabelJob", "LocalTasks", "label_shard", "label_sharded", "packed_shard",
           "shard_seed"]


@dataclass(frozen=True)
class LabelJob:
    """What every shard of one iteration's labelling needs (shipped to the workers)."""

    seed: int
    """the iteration's seed (``train.move_net``: ``seed * 1000 + iteration``); the other
    fields carry the names of ``train.move_net``'s arguments, so the game plug-ins'
    labellers (:mod:`train.move_net.games`) read a job as they read the run's ``Args``"""
    players: int
    label_budget: int
    explore: float
    label_plies: int | None
    label_horizon: int
    batch: int
    opponents: dict[str, float]
    net: Any = None
    """the network being trained (the game's numpy network), the ``net`` opponent"""
    game: str = "pasur"
    """the game labelled (:func:`train.move_net.games.net_game`)"""
    label_search: str = "rollout"
    """Persian Rummy's labelling search (``rollout`` or ``ismcts``)"""
    preset: str | None = None
    """Pasur's rule preset (a small variant), None for the full game"""
    label_endgame: bool = True
    """Pasur: a 2-player last deal labelled by exact minimax"""
    label_exact_leaves: str = "auto"
    """Pasur: rollouts reaching a 2-player last deal take its exact minimax value
    (``on``, ``off``, ``auto``: :attr:`train.move_net.config.Args.label_exact_leaves`)"""
    label_infer_beta: float = 0.0
    """Pasur: trust in the heuristic as the opponent's model when its plays weight the
    determinizations (0: uniform)"""
    label_infer_floor: float = 0.2
    """Pasur: that model's share of uniformly random plays"""
    label_policy: str | None = None
    """Pasur, ``label_search="solved"``: the solved policy's file"""


def shard_seed(seed: int, shard: int) -> int:
    """The seed of shard ``shard`` of an iteration seeded ``seed``: ``seed`` itself for
    shard 0 (the local run's first batch), else one drawn from ``(seed, shard)`` above
    2**32, away from the small seeds of the local runs."""
    if shard == 0:
        return int(seed)
    return 2**32 + int(np.random.SeedSequence([int(seed), int(shard), 29]).generate_state(1)[0])


def label_shard(job: LabelJob, shard: int) -> Dataset:
    """Shard ``shard``: one batch of games and the labeler's decisions in them."""
    from train.move_net.games import net_game

    seed = shard_seed(job.seed, shard)
    game = net_game(job.game)
    labeler = game.labeler(job, seed)
    objects = {} if job.net is None else {"net": game.agent(job.net)}
    return generate(labeler, 1, num_players=job.players, seed=seed, opponents=job.opponents,
                    batch=job.batch, policies=objects, game=job.game,
                    preset=job.preset)


def packed_shard(job: LabelJob, shard: int) -> bytes:
    """:func:`label_shard` compressed (:meth:`train.move_net.data.Dataset.to_bytes`): what
    a shard's task hands back. The labels compress 30 to 40 times, so a shard costs Ray's
    object store, a node's network link and, under memory pressure, the spill files on
    disk that much less; compressing takes about a percent of the shard's search."""
    return label_shard(job, shard).to_bytes()


def _label_shard_task(job: LabelJob, shard: int) -> bytes:
    """:func:`packed_shard` in a Ray task holding one CPU."""
    from agents.evaluation.distributed import single_threaded

    single_threaded()
    return packed_shard(job, shard)


class LocalTasks:
    """:class:`agents.evaluation.distributed.RayTasks`'s interface, run in this process
    one task at a time (the reference the Ray runs are compared with; its shards come
    back packed as the Ray tasks' do, :func:`packed_shard`)."""

    def __init__(self) -> None:
        self.pending: list[tuple[Any, tuple[Any, ...]]] = []
        self.lost = 0

    def __len__(self) -> int:
        return len(self.pending)

    def submit(self, key: Any, *args: Any) -> None:
        self.pending.append((key, args))

    def next(self) -> tuple[Any, Any]:
        key, args = self.pending.pop(0)
        return key, packed_shard(*args)

    def cancel(self) -> None:
        self.pending.clear()


def ray_tasks() -> Any:
    """A :class:`agents.evaluation.distributed.RayTasks` of labelling shards."""
    from agents.evaluation.distributed import RayTasks

    return RayTasks(_label_shard_task)


def _wanted(done: dict[int, Dataset], in_flight: int, decisions: int) -> bool:
    """Whether one more shard may be needed: the decisions done plus those expected
    from the shards in flight (at the mean shard's size) fall short; before the first
    shard is back, every worker gets one."""
    if not done:
        return True
    have = sum(len(d) for d in done.values())
    mean = have / len(done)
    return have + in_flight * mean < decisions


def label_sharded(job: LabelJob, decisions: int, tasks: Any, workers: int, *,
                  deadline: float | None = None, progress: Any = None) -> Dataset:
    """Shards ``0 .. K-1`` of an iteration (module docstring), ``K`` the fewest that
    hold ``decisions`` decisions; ``workers`` shards in flight on ``tasks``
    (:func:`ray_tasks` or :class:`LocalTasks`). At ``deadline`` (a ``time.time()``
    value) no shard is started any more; the shards done in order so far are kept."""
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a positive int, got {workers!r}")
    job_ref: Any = job
    if not isinstance(tasks, LocalTasks):
        job_ref = tasks.ray.put(job)  # shipped once, not once per shard
    done: dict[int, Dataset] = {}
    submitted = prefix = have = shown = 0
    while True:
        while prefix in done and have < decisions:  # the shards done in order, up to K
            have += len(done[prefix])
            prefix += 1
        if progress is not None:
            progress.update(min(have, decisions) - shown)
            shown = min(have, decisions)
        if have >= decisions:
            break
        late = deadline is not None and time.time() >= deadline and submitted > 0
        while (not late and len(tasks) < workers
               and _wanted(done, len(tasks), decisions)):
            tasks.submit(submitted, job_ref, submitted)
            submitted += 1
        if not len(tasks):
            break  # late: the shards done in order are kept
        shard, packed = tasks.next()
        done[shard] = Dataset.from_bytes(packed)
    tasks.cancel()
    return Dataset.concat([done[k] for k in range(prefix)], release=True)
