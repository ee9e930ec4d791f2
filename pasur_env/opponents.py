"""Opponents for the single-agent and vector envs: adapters, policy agents and a self-play pool.

Everything an env accepts as ``opponent=`` is turned into an :class:`agents.base.Agent`
by :func:`as_agent`:

* an agent name or path for :func:`agents.registry.make_agent` (``"greedy"``,
  ``"heuristic"``, ``"runs/ppo/best.zip"``), or an ``Agent`` instance;
* a loaded Stable-Baselines3 model (``MaskablePPO``, ``PPO``, ...) or policy, or any
  object with ``.predict(obs, action_masks=...)``: a :class:`PolicyAgent`;
* a callable ``(obs, mask) -> action`` for one decision: a :class:`CallableAgent`;
* an :class:`OpponentPool` (self-play): each game draws its opponent from the pool
  when it starts.

:func:`policy_snapshot` freezes a copy of a learning model's policy as an agent
(batched inference with masks, greedy or sampled); :class:`OpponentPool` holds such
snapshots next to scripted agents and samples one per episode with a configurable
rule; :func:`snapshot_callback` adds a snapshot every N training steps. See
``docs/training_envs.md``.

Nothing here imports torch or Stable-Baselines3 until a policy is used.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agents.base import Agent, GameView, check_actions

__all__ = [
    "CallableAgent",
    "OpponentPool",
    "PolicyAgent",
    "PoolEntry",
    "as_agent",
    "load_policy_agent",
    "policy_snapshot",
    "snapshot_callback",
    "SAMPLING_RULES",
]

#: built-in sampling rules of :class:`OpponentPool`
SAMPLING_RULES = ("uniform", "latest", "weights", "prioritized")


# ---- adapters ------------------------------------------------------------------------
class CallableAgent(Agent):
    """An agent from a function ``fn(obs, mask) -> action`` deciding one decision at a time.

    ``obs`` is the mover's (N,) float32 observation, ``mask`` its (104,) bool legal
    actions. The function is called once per decision of a batch.
    """

    needs_observation = True

    def __init__(self, fn: Callable[[np.ndarray, np.ndarray], Any], name: str | None = None):
        if not callable(fn):
            raise TypeError(f"expected a callable (obs, mask) -> action, got {fn!r}")
        self.fn = fn
        self.name = name or getattr(fn, "__name__", "callable")

    def act(self, obs: np.ndarray | None, mask: np.ndarray, view: GameView) -> np.ndarray:
        assert obs is not None
        acts = np.array([int(self.fn(obs[i], mask[i])) for i in range(len(mask))], dtype=np.int64)
        return check_actions(acts, mask, self.name)


def _is_policy_module(obj: Any) -> bool:
    return hasattr(obj, "get_distribution") and hasattr(obj, "obs_to_tensor")


class PolicyAgent(Agent):
    """A Stable-Baselines3 policy (or any ``.predict`` model) as a batched, masked agent.

    Args:
        model: a path to an SB3 ``.zip`` checkpoint (loaded with sb3-contrib's
            ``MaskablePPO``, falling back to ``PPO``), an SB3 model (anything with a
            ``.policy`` that has ``get_distribution``), an SB3 policy, or any object
            with ``predict(obs, action_masks=..., deterministic=...)``.
        deterministic: play the most probable legal action; else sample from the
            policy's distribution restricted to the legal actions.
        seed: seed of the sampling generator.
        name: display name.
        device: torch device for loading checkpoints.

    With a policy the agent runs one forward pass for the whole batch of decisions
    (``policy.get_distribution``), sets illegal logits to ``-inf`` and takes the argmax
    or a Gumbel-max sample (numpy generator, reproducible with ``seed``). The policy is
    used as is: use :func:`policy_snapshot` for a frozen copy of a learning model.
    """

    needs_observation = True

    def __init__(
        self,
        model: Any,
        *,
        deterministic: bool = False,
        seed: int | None = None,
        name: str | None = None,
        device: str = "cpu",
    ) -> None:
        self.path: str | None = None
        if isinstance(model, str) or hasattr(model, "__fspath__"):
            self.path = str(model)
            model = _load_sb3_model(self.path, device=device)
        self.model = model
        if _is_policy_module(getattr(model, "policy", None)):
            self.policy = model.policy
        elif _is_policy_module(model):
            self.policy = model
        elif hasattr(model, "predict"):
            self.policy = None
        else:
            raise TypeError(
                f"PolicyAgent needs an SB3 model/policy, a .zip path or an object with "
                f".predict(obs, action_masks=...); got {type(model).__name__}"
            )
        self.deterministic = bool(deterministic)
        self.name = name or (self.path or type(model).__name__)
        #: the model's observation shape where it declares one (checked in ``act``)
        space = getattr(self.policy if self.policy is not None else model,
                        "observation_space", None)
        shape = getattr(space, "shape", None)
        self._obs_shape = tuple(shape) if shape else None
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """Unmasked action logits of the policy for a batch of observations: (n, 104)."""
        import torch

        policy = self.policy
        assert policy is not None, "logits() needs a torch policy"
        with torch.no_grad():
            obs_t, _ = policy.obs_to_tensor(np.asarray(obs, dtype=np.float32))
            dist = policy.get_distribution(obs_t)
            return dist.distribution.logits.cpu().numpy()

    def act(self, obs: np.ndarray | None, mask: np.ndarray, view: GameView) -> np.ndarray:
        if obs is None:
            raise ValueError(f"{self.name}: PolicyAgent needs observations")
        mask = np.asarray(mask, dtype=np.bool_)
        shape = self._obs_shape
        if shape and np.ndim(obs) == 2 and shape != (np.shape(obs)[1],):
            raise ValueError(
                f"{self.name}: the model expects observations of shape {shape} but "
                f"this env encodes {np.shape(obs)[1]} features per observation (a model "
                f"trained on another observation layout or player count)"
            )
        if self.policy is None:
            acts, _ = self.model.predict(
                obs, action_masks=mask, deterministic=self.deterministic
            )
            return check_actions(acts, mask, self.name)
        logits = self.logits(obs).astype(np.float64)
        if not self.deterministic:
            logits += self.rng.gumbel(size=logits.shape)
        logits[~mask] = -np.inf
        return check_actions(np.argmax(logits, axis=1), mask, self.name)

    def __repr__(self) -> str:
        return f"PolicyAgent(name={self.name!r}, deterministic={self.deterministic})"


def _load_sb3_model(path: str, device: str = "cpu") -> Any:
    import os

    if not os.path.isfile(path):
        raise FileNotFoundError(f"no such model file: {path!r}")
    try:
        from sb3_contrib import MaskablePPO
    except ImportError as e:  # pragma: no cover - needs the train extra
        raise ImportError("loading .zip policies needs the train extra (sb3-contrib)") from e
    try:
        return MaskablePPO.load(path, device=device)
    except (ValueError, KeyError, TypeError, AssertionError):
        from stable_baselines3 import PPO

        return PPO.load(path, device=device)


def load_policy_agent(spec: str, seed: int | None = None, **kwargs: Any) -> PolicyAgent:
    """Registry loader: ``make_agent("runs/ppo/best.zip", deterministic=True)``."""
    return PolicyAgent(spec, seed=seed, **kwargs)


def policy_snapshot(
    model: Any,
    *,
    deterministic: bool = False,
    seed: int | None = None,
    name: str | None = None,
) -> PolicyAgent:
    """A frozen copy of ``model``'s policy as a :class:`PolicyAgent`.

    The copy (rebuilt from the policy's constructor arguments and weights, in eval
    mode, gradients off) does not change when ``model`` keeps learning, so it can serve as a fixed
    self-play opponent.
    """
    policy = model.policy if _is_policy_module(getattr(model, "policy", None)) else model
    if not _is_policy_module(policy):
        raise TypeError(f"policy_snapshot needs an SB3 model or policy, got {type(model)}")
    if hasattr(policy, "_get_constructor_parameters"):
        # rebuild from the constructor arguments and weights, as SB3 does when saving
        # (a deepcopy would also copy the optimizer and the last forward pass's tensors)
        frozen = type(policy)(**policy._get_constructor_parameters())
        frozen.load_state_dict(policy.state_dict())
        frozen.to(policy.device)
    else:
        frozen = copy.deepcopy(policy)
    frozen.set_training_mode(False)
    for p in frozen.parameters():
        p.requires_grad_(False)
    return PolicyAgent(frozen, deterministic=deterministic, seed=seed, name=name or "snapshot")


def as_agent(spec: Any, *, seed: int | None = None) -> Agent:
    """Turn an ``opponent=`` spec (see the module docstring) into an :class:`Agent`."""
    if isinstance(spec, Agent):
        if seed is not None:
            spec.reset(seed)
        return spec
    if isinstance(spec, str):
        from agents.registry import make_agent

        return make_agent(spec, seed=seed)
    if hasattr(spec, "predict") or _is_policy_module(spec):
        return PolicyAgent(spec, seed=seed)
    if callable(spec):
        return CallableAgent(spec)
    raise TypeError(
        "opponent must be an agent name or path, an Agent, an SB3 model/policy, "
        f"a callable (obs, mask) -> action or an OpponentPool; got {type(spec).__name__}"
    )


# ---- the pool ------------------------------------------------------------------------
@dataclass
class PoolEntry:
    """One opponent of an :class:`OpponentPool` with the learner's record against it."""

    agent: Agent
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
        """Add an opponent (any :func:`as_agent` spec); returns its entry."""
        if weight < 0:
            raise ValueError(f"weight must be >= 0, got {weight}")
        k = next(self._ids)
        agent = as_agent(opponent, seed=None if self.seed is None else self.seed + k)
        entry = PoolEntry(
            agent=agent,
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
            e.agent.reset(None if seed is None else seed + k)

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


def snapshot_callback(
    pool: OpponentPool,
    every: int,
    *,
    deterministic: bool = False,
    verbose: int = 0,
) -> Any:
    """An SB3 callback adding a :func:`policy_snapshot` of the learner every ``every`` steps.

    ``model.learn(total_timesteps, callback=snapshot_callback(pool, 50_000))``; the
    snapshot is also added once when training starts if the pool is empty.
    """
    from stable_baselines3.common.callbacks import BaseCallback

    class SnapshotCallback(BaseCallback):
        def __init__(self) -> None:
            super().__init__(verbose)
            self.last = 0

        def _on_training_start(self) -> None:
            self.last = self.num_timesteps
            if len(pool) == 0:
                pool.add_snapshot(self.model, deterministic=deterministic)

        def _on_step(self) -> bool:
            if self.num_timesteps - self.last >= every:
                self.last = self.num_timesteps
                e = pool.add_snapshot(self.model, deterministic=deterministic)
                if self.verbose:
                    print(f"self-play: added {e.name}; pool = {pool.names}")
            return True

    return SnapshotCallback()
