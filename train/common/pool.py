"""Opponents for self-play: an :class:`OpponentPool` of scripted agents and frozen
snapshots of the learner, drawn per episode by a configurable rule.

The pool is a :class:`pasur_env.OpponentSource`: the training envs draw one entry per
game and episode and report the learner's result against it, which the
``"prioritized"`` rule (prioritized fictitious self-play) feeds on. See
``docs/training_envs.md``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agents.learned.sb3 import policy_snapshot
from agents.registry import as_agent
from pasur_env.core.policy import Policy, check_policy_fits

__all__ = ["OpponentPool", "PoolEntry", "SAMPLING_RULES"]

#: built-in sampling rules of :class:`OpponentPool`
SAMPLING_RULES = ("uniform", "latest", "weights", "prioritized")


@dataclass
class PoolEntry:
    """One opponent of an :class:`OpponentPool` with the learner's record against it."""

    policy: Policy
    name: str
    weight: float = 1.0
    pinned: bool = False
    id: int = 0
    #: finished episodes against this opponent, and the learner's score in them
    #: (1 per win, 0.5 per tie)
    games: int = 0
    score: float = 0.0
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def win_rate(self) -> float:
        """The learner's win rate against this opponent, smoothed to 0.5 with no games."""
        return (self.score + 1.0) / (self.games + 2.0)


class OpponentPool:
    """Opponents for self-play: frozen policy snapshots and scripted agents.

    Each game of an env draws its opponent from the pool when it starts an episode
    (every non-learner seat of that game is played by the drawn agent), so a pool
    can change while training runs: new snapshots are used by games as they reset.

    Args:
        opponents: initial entries: specs for :func:`as_agent` (names, agents, models,
            callables) or ``(name, spec)`` / ``(name, spec, weight)`` tuples.
            Initial entries are pinned (never evicted).
        sampling: ``"uniform"``; ``"latest"`` (the most recently added entry);
            ``"weights"`` (proportional to each entry's ``weight``); ``"prioritized"``
            (prioritized fictitious self-play: proportional to
            ``(1 - win_rate) ** power``, so opponents the learner beats less often
            are drawn more); or a callable ``(pool) -> probabilities`` (one per entry).
        max_size: evict the oldest unpinned entry beyond this many entries.
        power: exponent of ``"prioritized"``.
        latest_prob: with ``"uniform"``, ``"weights"`` or ``"prioritized"``, draw the
            newest entry with this probability first (e.g. 0.5: half of the games
            against the current snapshot).
        seed: seeds the agents (entry ``k`` gets ``seed + k``).
        game: the game whose registry builds entries given by name (``"pasur"`` or
            ``"persian_rummy"``): one pool for both games' training envs.
    """

    def __init__(
        self,
        opponents: Iterable[Any] = (),
        *,
        sampling: str | Callable[[OpponentPool], Sequence[float]] = "uniform",
        max_size: int | None = None,
        power: float = 1.0,
        latest_prob: float = 0.0,
        seed: int | None = None,
        game: str = "pasur",
    ) -> None:
        if not callable(sampling) and sampling not in SAMPLING_RULES:
            raise ValueError(f"sampling must be one of {SAMPLING_RULES} or a callable")
        if max_size is not None and max_size < 1:
            raise ValueError(f"max_size must be >= 1, got {max_size}")
        if not 0.0 <= latest_prob <= 1.0:
            raise ValueError(f"latest_prob must be in [0, 1], got {latest_prob}")
        self.sampling = sampling
        self.max_size = max_size
        self.power = float(power)
        self.latest_prob = float(latest_prob)
        self.seed = seed
        self.game = game
        self.entries: list[PoolEntry] = []
        self._ids = itertools.count()
        self._by_id: dict[int, PoolEntry] = {}
        for item in opponents:
            if isinstance(item, tuple):
                self.add(item[1], name=item[0], weight=item[2] if len(item) > 2 else 1.0)
            else:
                self.add(item)

    # ---- contents ---------------------------------------------------------------------
    def add(
        self,
        opponent: Any,
        *,
        name: str | None = None,
        weight: float = 1.0,
        pinned: bool = True,
        **meta: Any,
    ) -> PoolEntry:
        """Add an opponent (any :func:`agents.registry.as_agent` spec); returns its entry."""
        if weight < 0:
            raise ValueError(f"weight must be >= 0, got {weight}")
        k = next(self._ids)
        agent = as_agent(opponent, seed=None if self.seed is None else self.seed + k,
                         game=self.game)
        # an agent of another game is refused here; the envs check the rest when seating it
        check_policy_fits(agent, self.game, role="pool opponent")
        entry = PoolEntry(
            policy=agent,
            name=name or getattr(agent, "name", f"opponent_{k}"),
            weight=float(weight),
            pinned=pinned,
            id=k,
            meta=dict(meta),
        )
        self.entries.append(entry)
        self._by_id[k] = entry
        self._evict()
        return entry

    def add_snapshot(
        self,
        model: Any,
        *,
        name: str | None = None,
        deterministic: bool = False,
        weight: float = 1.0,
        pinned: bool = False,
        **meta: Any,
    ) -> PoolEntry:
        """Freeze ``model``'s current policy (:func:`policy_snapshot`) and add it."""
        k = len(self._by_id)
        agent = policy_snapshot(
            model,
            deterministic=deterministic,
            seed=None if self.seed is None else self.seed + 1000 + k,
            name=name,
        )
        if name is None:
            steps = getattr(model, "num_timesteps", None)
            agent.name = f"snapshot@{steps}" if steps is not None else f"snapshot_{k}"
        return self.add(agent, name=agent.name, weight=weight, pinned=pinned, **meta)

    def remove(self, entry: PoolEntry | str) -> None:
        """Remove an entry (or the entry with this name)."""
        if isinstance(entry, str):
            matches = [e for e in self.entries if e.name == entry]
            if not matches:
                raise KeyError(f"no pool entry named {entry!r}")
            entry = matches[0]
        self.entries.remove(entry)
        self._by_id.pop(entry.id, None)

    def _evict(self) -> None:
        if self.max_size is None:
            return
        while len(self.entries) > self.max_size:
            unpinned = [e for e in self.entries if not e.pinned]
            if not unpinned:
                return
            self.remove(unpinned[0])

    def __len__(self) -> int:
        return len(self.entries)

    def __iter__(self):  # noqa: ANN204
        return iter(self.entries)

    @property
    def names(self) -> list[str]:
        return [e.name for e in self.entries]

    def get(self, entry_id: int) -> PoolEntry | None:
        """The entry with this id, or None once it was removed."""
        return self._by_id.get(entry_id)

    # ---- sampling -----------------------------------------------------------------------
    def probabilities(self) -> np.ndarray:
        """Probability of drawing each entry (in ``entries`` order)."""
        n = len(self.entries)
        if n == 0:
            raise ValueError("the opponent pool is empty")
        if callable(self.sampling):
            p = np.asarray(self.sampling(self), dtype=np.float64)
            if p.shape != (n,):
                raise ValueError(f"sampling callable returned shape {p.shape}, expected ({n},)")
        elif self.sampling == "latest":
            p = np.zeros(n)
            p[-1] = 1.0
            return p
        elif self.sampling == "uniform":
            p = np.ones(n)
        elif self.sampling == "weights":
            p = np.array([e.weight for e in self.entries], dtype=np.float64)
        else:  # prioritized
            w = np.array([e.win_rate for e in self.entries])
            p = (1.0 - w) ** self.power * np.array([e.weight for e in self.entries]) + 1e-6
        if (p < 0).any() or not np.isfinite(p).all() or p.sum() <= 0:
            raise ValueError(f"bad sampling weights {p.tolist()}")
        p = p / p.sum()
        if self.latest_prob > 0:
            p = (1.0 - self.latest_prob) * p
            p[-1] += self.latest_prob
        return p

    def sample(self, rng: np.random.Generator) -> PoolEntry:
        """Draw one entry with ``rng``."""
        if len(self.entries) == 1:
            return self.entries[0]
        p = self.probabilities()
        return self.entries[int(np.searchsorted(np.cumsum(p), rng.random() * p.sum()))]

    # ---- bookkeeping -------------------------------------------------------------------
    def record(self, entry_id: int, result: float) -> None:
        """Record a finished episode: the learner's ``result`` (1 win, 0.5 tie, 0 loss)."""
        e = self._by_id.get(entry_id)
        if e is not None:
            e.games += 1
            e.score += float(result)

    def reset(self, seed: int | None = None) -> None:
        """Reseed every agent (entry ``k`` in order gets ``seed + k``)."""
        for k, e in enumerate(self.entries):
            e.policy.reset(None if seed is None else seed + k)

    def stats(self) -> list[dict[str, Any]]:
        """Per entry: name, games, learner win rate, current draw probability."""
        p = self.probabilities() if self.entries else []
        return [
            {
                "name": e.name,
                "games": e.games,
                "win_rate": e.score / e.games if e.games else float("nan"),
                "prob": float(pk),
            }
            for e, pk in zip(self.entries, p, strict=True)
        ]

    def __repr__(self) -> str:
        return f"OpponentPool({self.names}, sampling={self.sampling!r})"
