"""Evaluations and tournaments on a Ray cluster, and the Ray plumbing ``train`` shares.

The costly part of an evaluation is embarrassingly parallel: duplicate groups are
independent, and so are the pairs of a tournament. This module farms them out as Ray
tasks and merges what comes back into the figures the local run gives:

* :func:`evaluate_on_ray` splits a match's duplicate groups into *chunks* of a fixed
  number of rounds (``shard_rounds``), plays each chunk in a task and concatenates the
  per-group tallies in chunk order. Deal ``g`` is game ``g`` of the seeded engine
  whatever the batch (:func:`agents.evaluation.match.duplicate_engine`), so the deals are
  the local run's. Agents that draw no random numbers (greedy, heuristic, the networks)
  then play exactly as locally: the figures are equal to the last digit. A stochastic
  agent (random, ismcts) gets its local seed in chunk 0 and a seed derived from
  ``(seed, chunk)`` in the others, because its stream runs on from one batch to the next
  locally and a chunk cannot know where the previous one left it; its figures are then
  a different sample of the same match, equal for any number of workers.
* :func:`play_pairs_on_ray` plays each pair of a tournament in a task with the local
  :func:`agents.evaluation.match.evaluate` call: every figure is the local one (only the
  timings differ), for every agent.
* :class:`RayTasks` keeps tasks in flight and hands back results as they finish. A
  task whose worker dies is retried by Ray (``max_retries``) and, if Ray gives up,
  resubmitted by the driver: a lost worker costs its unfinished task, nothing else.
* :func:`ray_session` starts or joins Ray without the dashboard or an auth-token file,
  local session files in a temporary folder removed on exit; :func:`parse_address`
  reads ``--address`` (``local``, ``local:N``, ``auto``, ``HOST:PORT``).

Ray is imported only inside these functions: without it they raise the missing-extra
error (``pip install 'pasur-env[rllib]'``, in a venv of its own).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from agents.evaluation.match import (
    Match,
    Tally,
    _agent_seed,
    _agents,
    _check_counts,
    _resolve_seed,
    _result,
    seatings,
    setup,
)
from agents.evaluation.progress import Progress
from agents.evaluation.results import EvalResult
from agents.registry import agent_label, agent_provenance
from pasur_env.core.extras import missing_extra
from pasur_env.core.loop import DecisionClock

__all__ = [
    "RayTasks", "evaluate_on_ray", "import_ray", "parse_address", "play_pairs_on_ray",
    "quiet_ray_environment", "ray_session", "ray_tmpdir", "chunk_seed", "SHARD_ROUNDS",
    "play_chunks_here",
]

#: plays a distributed evaluation's chunks: (job, plan, progress) -> {chunk: its answer}
ChunkRunner = Callable[[dict[str, Any], list[tuple[str, int, int]], bool], dict[int, Any]]

#: rounds per chunk of a distributed evaluation (a fixed size, so the figures of
#: stochastic agents do not depend on the number of workers)
SHARD_ROUNDS = 200


def import_ray(what: str) -> Any:
    """The ``ray`` module, or the missing-extra error naming ``what`` needs it."""
    try:
        import ray
    except ImportError as e:
        raise missing_extra(what, "rllib", e) from None
    return ray


def parse_address(text: str) -> tuple[str | None, int | None]:
    """``--address`` -> (address for ``ray.init``, CPUs of a local instance).

    ``local``: a local Ray instance with every CPU; ``local:N``: with N CPUs (N workers);
    ``auto``: the cluster this machine belongs to (``ray start``); ``HOST:PORT`` or
    ``ray://HOST:PORT``: that cluster.
    """
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"--address must be local, local:N, auto or HOST:PORT, got {text!r}")
    text = text.strip()
    if text == "local":
        return None, None
    if text.startswith("local:"):
        n = text.partition(":")[2]
        if not n.isdigit() or int(n) < 1:
            raise ValueError(f"--address local:N needs a positive number of CPUs, got {text!r}")
        return None, int(n)
    return text, None


def quiet_ray_environment() -> None:
    """No auth-token file, no usage-stats report (set unless the user chose otherwise)."""
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")


@contextlib.contextmanager
def ray_tmpdir() -> Iterator[str]:
    """Point Ray's temporary files (sessions, logs, sockets, the address file) at a fresh
    folder instead of ``/tmp/ray``; remove it and restore ``RAY_TMPDIR`` on exit."""
    temp = tempfile.mkdtemp(prefix="pasur-ray-", dir="/tmp")
    before = os.environ.get("RAY_TMPDIR")
    os.environ["RAY_TMPDIR"] = temp
    try:
        yield temp
    finally:
        if before is None:
            os.environ.pop("RAY_TMPDIR", None)
        else:
            os.environ["RAY_TMPDIR"] = before
        shutil.rmtree(temp, ignore_errors=True)


@contextlib.contextmanager
def ray_session(address: str | None = None, num_cpus: int | None = None) -> Iterator[None]:
    """``ray.init`` with no dashboard and no auth-token file; a local instance keeps its
    session folders in a temporary folder removed on exit (``address``: join a cluster).
    Inside an already initialised Ray (a test's cluster), it uses that one."""
    ray = import_ray("running on Ray")
    if ray.is_initialized():
        yield
        return
    quiet_ray_environment()
    with contextlib.ExitStack() as stack:
        kwargs: dict[str, Any] = {"log_to_driver": False}
        if address is None:  # a running cluster keeps its own settings
            stack.enter_context(ray_tmpdir())
            kwargs.update(num_cpus=num_cpus, include_dashboard=False)
        ray.init(address=address, **kwargs)
        try:
            yield
        finally:
            ray.shutdown()


def cluster_cpus() -> int:
    """The CPUs of the Ray cluster the driver is connected to (at least 1)."""
    ray = import_ray("running on Ray")
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def single_threaded() -> None:
    """A task holds one CPU: numba's parallel kernels use one thread in it (the results
    do not depend on the number of threads; the other CPUs belong to other tasks)."""
    import numba

    numba.set_num_threads(1)


class RayTasks:
    """Tasks of one function in flight on Ray, results handed back as they finish.

    ``submit(key, *args)`` starts ``fn(*args)`` in a task holding one CPU. A task whose
    worker or node dies is retried by Ray (``retries`` times); if Ray gives up, the
    driver submits it again (``resubmits`` times) before the error is raised. Results
    are matched to their key, so the caller can order them however the tasks finish.
    """

    def __init__(self, fn: Callable[..., Any], *, retries: int = 3, resubmits: int = 2) -> None:
        self.ray = import_ray("running on Ray")
        self.remote = self.ray.remote(num_cpus=1, max_retries=retries)(fn)
        self.resubmits = resubmits
        self.pending: dict[Any, tuple[Any, tuple[Any, ...], int]] = {}
        self.lost = 0  # tasks the driver had to submit again

    def __len__(self) -> int:
        return len(self.pending)

    def submit(self, key: Any, *args: Any, attempt: int = 0) -> None:
        self.pending[self.remote.remote(*args)] = (key, args, attempt)

    def next(self) -> tuple[Any, Any]:
        """(key, result) of the next task to finish (resubmitting lost ones)."""
        ray = self.ray
        lost = (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError,
                ray.exceptions.ObjectLostError, ray.exceptions.LocalRayletDiedError)
        while True:
            if not self.pending:
                raise RuntimeError("no task in flight")
            (ref,), _ = ray.wait(list(self.pending), num_returns=1)
            key, args, attempt = self.pending.pop(ref)
            try:
                return key, ray.get(ref)
            except lost:
                if attempt >= self.resubmits:
                    raise
                self.lost += 1
                self.submit(key, *args, attempt=attempt + 1)

    def drain(self, progress: Progress | None = None) -> dict[Any, Any]:
        """Every result still in flight, by key (``progress`` counts the tasks)."""
        out = {}
        try:
            while self.pending:
                key, value = self.next()
                out[key] = value
                if progress is not None:
                    progress.update(1)
        finally:
            if progress is not None:
                progress.close()
        return out

    def cancel(self) -> None:
        """Forget the tasks in flight (those not started yet are cancelled)."""
        for ref in self.pending:
            self.ray.cancel(ref)
        self.pending.clear()


# ---- evaluation ------------------------------------------------------------------------------
def chunk_seed(seed: int, chunk: int) -> int:
    """The agents' seed of a chunk: the match seed in chunk 0 (so a one-chunk match is
    the local run), a seed derived from ``(seed, chunk)`` in the others."""
    if chunk == 0:
        return int(seed)
    return int(np.random.SeedSequence([int(seed), int(chunk), 29]).generate_state(1)[0])


def chunk_plan(groups: int, per_chunk: int, offset: int = 0) -> list[tuple[int, int]]:
    """``(first group, groups)`` of each chunk of ``groups`` groups from ``offset``."""
    return [(offset + s, min(per_chunk, groups - s)) for s in range(0, groups, per_chunk)]


def _play_chunk(job: dict[str, Any], episode: str, offset: int, groups: int,
                chunk: int) -> tuple[Tally, list[float], list[int]]:
    """One chunk of a match, in a task: its tally and the agents' thinking times."""
    single_threaded()
    agents = _agents(job["game"], job["a"], job["b"], chunk_seed(job["agent_seed"], chunk))
    match = Match(agents, job["players"], job["seed"], job["batch"], job["engine_flags"],
                  game=job["game"])
    tally = match.run(groups, episode, Progress(groups, "", "", False), offset=offset)
    return tally, list(match.clock.seconds), list(match.clock.decisions)


def merge_tallies(parts: Sequence[Tally]) -> Tally:
    """One tally of the chunks' groups, in chunk order."""
    out = Tally(sum(p.groups for p in parts))
    for name in ("diff", "wins", "rounds", "game_wins", "games"):
        setattr(out, name, np.concatenate([getattr(p, name) for p in parts]))
    for name in ("pts_a", "pts_b", "n_win", "n_tie", "n_loss", "n_game_win", "n_game_tie"):
        setattr(out, name, sum(getattr(p, name) for p in parts))
    return out


def evaluate_on_ray(
    a: str, b: str, rounds: int = 10_000, players: int | None = None, seed: int | None = 0,
    mode: str = "round", games: int | None = None, batch: int = 4096, progress: bool = True,
    preset: str | None = None, *, game: str = "pasur", shard_rounds: int = SHARD_ROUNDS,
    agent_seed: int | None = None, run_chunks: ChunkRunner | None = None, **rule_flags: Any,
) -> EvalResult:
    """:func:`agents.evaluation.match.evaluate` with the duplicate groups played in Ray
    tasks (call it inside :func:`ray_session`); the arguments are ``evaluate``'s, the
    agents given by spec. ``shard_rounds``: rounds per task (module docstring).
    ``run_chunks``: plays the chunks elsewhere, ``(job, plan, progress) -> {chunk:
    _play_chunk's answer}`` (default: Ray tasks; :func:`play_chunks_here` plays them in
    this process, the same figures without Ray)."""
    for spec in (a, b):
        if not isinstance(spec, str):
            raise TypeError(f"a distributed evaluation takes agent specs (names), got {spec!r}")
    if isinstance(shard_rounds, bool) or not isinstance(shard_rounds, int) or shard_rounds < 1:
        raise ValueError(f"shard_rounds must be a positive int, got {shard_rounds!r}")
    games = _check_counts(rounds, batch, games, mode)
    seed = _resolve_seed(seed)
    agent_seed = _agent_seed(agent_seed, seed)
    spec = setup(game, players, preset, rule_flags)
    built = _agents(spec.game, a, b, agent_seed)  # on the driver first: a bad spec fails at once,
    # and the result names where its agents come from
    R = len(seatings(spec.players))
    per_chunk = max(1, shard_rounds // R)
    round_groups = -(-int(rounds) // R) if mode == "round" else 0
    game_groups = -(-int(games) // R) if games else 0
    plan = ([("round", o, g) for o, g in chunk_plan(round_groups, per_chunk)]
            + [("game", o, g) for o, g in chunk_plan(game_groups, per_chunk, round_groups)])
    job = {"a": a, "b": b, "seed": seed, "agent_seed": agent_seed, "players": spec.players,
           "batch": batch, "engine_flags": spec.engine_flags, "game": spec.game}
    t0 = time.perf_counter()
    done = (run_chunks or _chunks_on_ray)(job, plan, progress)
    seconds = time.perf_counter() - t0
    labels = (agent_label(a), agent_label(b))
    match = Match((_Unused(), _Unused()), spec.players, seed, batch, spec.engine_flags,
                  labels=labels, game=spec.game)
    match.clock = DecisionClock([sum(done[k][1][i] for k in done) for i in range(2)],
                                [sum(done[k][2][i] for k in done) for i in range(2)])
    by_kind = {kind: merge_tallies([done[k][0] for k, p in enumerate(plan) if p[0] == kind])
               for kind in ("round", "game") if any(p[0] == kind for p in plan)}
    gtally = by_kind.get("game")
    res = _result(match, by_kind.get("round") or gtally, gtally, labels, seed, mode,
                  spec.rules, seconds, agent_seed)
    res.provenance = {k: agent_provenance(s, agent, spec.game, spec.players)
                      for k, s, agent in zip("ab", (a, b), built, strict=True)}
    return res


def _chunks_on_ray(job: dict[str, Any], plan: list[tuple[str, int, int]],
                   progress: bool) -> dict[int, Any]:
    """Every chunk of ``plan`` in a Ray task: ``{chunk: (tally, seconds, decisions)}``."""
    tasks = RayTasks(_play_chunk)
    for k, (episode, offset, groups) in enumerate(plan):
        tasks.submit(k, job, episode, offset, groups, k)
    return tasks.drain(Progress(len(plan), f"{job['a']} vs {job['b']} on Ray", "chunks",
                                progress))


def play_chunks_here(job: dict[str, Any], plan: list[tuple[str, int, int]],
                     progress: bool = False) -> dict[int, Any]:
    """Every chunk of ``plan`` played one after the other in this process, as the Ray
    tasks play them (a ``run_chunks`` of :func:`evaluate_on_ray` without Ray; numba's
    threads are set back afterwards)."""
    import numba

    threads = numba.get_num_threads()
    try:
        return {k: _play_chunk(job, episode, offset, groups, k)
                for k, (episode, offset, groups) in enumerate(plan)}
    finally:
        numba.set_num_threads(threads)


class _Unused:
    """A stand-in agent of the driver's match object, which only merges figures (a
    :class:`pasur_env.Policy` of any game that never plays)."""

    name = "unused"
    needs_observation = False

    def reset(self, seed: int | None = None) -> None:
        pass

    def act(self, obs: Any, mask: Any, view: Any) -> Any:
        raise RuntimeError("the driver's stand-in agent does not play")


# ---- tournaments ------------------------------------------------------------------------------
def _play_pair(a: str, b: str, kwargs: dict[str, Any]) -> EvalResult:
    """One pair of a tournament, in a task: the local ``evaluate`` call."""
    from agents.evaluation.match import evaluate

    single_threaded()
    return evaluate(a, b, progress=False, **kwargs)


def play_pairs_on_ray(agents: Sequence[Any], pairs: Sequence[tuple[int, int]],
                      kwargs: dict[str, Any], progress: bool = True
                      ) -> dict[tuple[int, int], EvalResult]:
    """Every pair's match, each in a Ray task (the runner of
    :func:`agents.evaluation.tournament.tournament` with ``address``)."""
    for spec in agents:
        if not isinstance(spec, str):
            raise TypeError(f"a distributed tournament takes agent specs (names), got {spec!r}")
    tasks = RayTasks(_play_pair)
    kwargs = {k: v for k, v in kwargs.items() if k not in ("progress", "progress_file")}
    for i, j in pairs:
        tasks.submit((i, j), agents[i], agents[j], kwargs)
    out = tasks.drain(Progress(len(pairs), "pairs on Ray", "matches", progress))
    return {p: out[p] for p in pairs}
