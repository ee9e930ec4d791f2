"""A Stable-Baselines3 policy as a batched agent, and frozen snapshots of a learning one.

:class:`PolicyAgent` plays a saved ``.zip`` model, a live SB3 model or policy, or any
object with ``predict(obs, action_masks=...)``: one forward pass for the whole batch
of decisions, illegal logits masked, argmax or a Gumbel-max sample.
:func:`policy_snapshot` freezes a copy of a learning model's policy (self-play
opponents, evaluation during training). Nothing here imports torch or SB3 until a
policy is used.

A saved model given by path is loaded once per process and shared by every agent that
plays it (:func:`shared_sb3_model`, keyed by the file's resolved path and modification
time): a server with many games holds one copy. Each agent keeps its own random
generator; the forward pass is serialised (SB3's distribution object is shared state).
"""

from __future__ import annotations

import copy
import functools
import os
import threading
from typing import Any

import numpy as np

from agents.core.base import Agent
from pasur_env.core.extras import missing_extra
from pasur_env.core.policy import GameView, check_actions

__all__ = ["PolicyAgent", "policy_snapshot", "load_sb3_model", "shared_sb3_model",
           "is_sb3_policy"]

#: one forward pass at a time: SB3's ``get_distribution`` stores its result on the
#: policy's distribution object, which agents sharing a model (in threads) share
_FORWARD = threading.Lock()


def is_sb3_policy(obj: Any) -> bool:
    """Whether ``obj`` is a Stable-Baselines3 policy module (distribution + tensors)."""
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
        game_ids: the games the model was trained for (the registry's loaders say;
            None: unknown, its observation width is checked instead).

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
        game_ids: tuple[str, ...] | None = None,
    ) -> None:
        self.game_ids = None if game_ids is None else tuple(game_ids)
        self.path: str | None = None
        if isinstance(model, str) or hasattr(model, "__fspath__"):
            self.path = str(model)
            model = shared_sb3_model(self.path, device=device)
        self.model = model
        if is_sb3_policy(getattr(model, "policy", None)):
            self.policy = model.policy
        elif is_sb3_policy(model):
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
        #: the observation width it reads, checked before it is seated
        self.observation_size = (int(self._obs_shape[0]) if self._obs_shape
                                 and len(self._obs_shape) == 1 else None)
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """Unmasked action logits of the policy for a batch of observations: (n, 104)."""
        import torch

        policy = self.policy
        assert policy is not None, "logits() needs a torch policy"
        with _FORWARD, torch.no_grad():
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


def load_sb3_model(path: str, device: str = "cpu") -> Any:
    """Load a saved model: sb3-contrib's ``MaskablePPO``, falling back to SB3's ``PPO``."""
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no such model file: {path!r}")
    try:
        from sb3_contrib import MaskablePPO
    except ImportError as e:  # needs the train extra
        raise missing_extra(f"the saved policy {os.path.basename(path)!r}", "train", e) from None
    try:
        return MaskablePPO.load(path, device=device)
    except (ValueError, KeyError, TypeError, AssertionError):
        from stable_baselines3 import PPO

        return PPO.load(path, device=device)


def shared_sb3_model(path: str, device: str = "cpu") -> Any:
    """The model saved at ``path``, loaded once per process per file version (resolved
    path, modification time and size) and shared: agents only read it."""
    real = os.path.realpath(path)
    if not os.path.isfile(real):
        raise FileNotFoundError(f"no such model file: {path!r}")
    st = os.stat(real)
    return _load_shared(real, st.st_mtime_ns, st.st_size, device)


@functools.lru_cache(maxsize=16)
def _load_shared(path: str, mtime_ns: int, size: int, device: str) -> Any:
    return load_sb3_model(path, device=device)


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
    policy = model.policy if is_sb3_policy(getattr(model, "policy", None)) else model
    if not is_sb3_policy(policy):
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
