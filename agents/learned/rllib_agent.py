"""An RLlib checkpoint as a batched agent: ``pasur eval rllib:PATH greedy``.

:class:`RLlibAgent` plays a :class:`~agents.learned.rllib_module.MaskedPPOModule` trained by
``train/rllib_ppo.py``: one forward pass of the policy MLP for the whole batch of
decisions, illegal actions masked, argmax (or a Gumbel-max sample). ``PATH`` may be
the exported module folder (``runs/<name>/module``), an RLModule checkpoint, or a whole
Algorithm checkpoint (the module ``main`` or ``default_policy`` is taken from it).

Loading a checkpoint unpickles code (the module's class and constructor arguments), so
load only checkpoints you made or trust; the web table never loads paths. Ray is
imported only when an agent is built (the ``rllib`` extra, in a venv of its own).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from agents.core.base import Agent
from pasur_env.core.extras import missing_extra
from pasur_env.core.policy import GameView, check_actions

__all__ = ["RLlibAgent", "find_module_dir", "PREFIX"]

#: the registry prefix of RLlib checkpoints (``rllib:runs/rllib/module``)
PREFIX = "rllib:"
#: module ids looked for inside an Algorithm checkpoint, in order
MODULE_IDS = ("main", "default_policy")


def find_module_dir(path: str | Path) -> Path:
    """The RLModule checkpoint folder in ``path`` (itself, or inside an Algorithm's)."""
    root = Path(path)
    if not root.exists():
        raise FileNotFoundError(f"no such RLlib checkpoint: {str(root)!r}")
    if (root / "class_and_ctor_args.pkl").exists() and not (root / "learner_group").exists():
        return root
    for base in (root / "learner_group" / "learner" / "rl_module", root / "rl_module", root):
        for module_id in MODULE_IDS:
            if (base / module_id / "class_and_ctor_args.pkl").exists():
                return base / module_id
    raise FileNotFoundError(
        f"{str(root)!r} holds no RLModule checkpoint (looked for the modules "
        f"{MODULE_IDS} of an Algorithm checkpoint, or an RLModule folder)"
    )


class RLlibAgent(Agent):
    """An RLlib RLModule (``MaskedPPOModule``) as a batched, masked agent.

    Args:
        model: a checkpoint path (see :func:`find_module_dir`) or a live RLModule (the
            training script evaluates the learner's module this way).
        deterministic: play the most probable legal action (default); else sample.
        seed: seed of the sampling generator.
        name: display name.
    """

    needs_observation = True
    #: train/rllib_ppo.py trains Pasur modules
    game_ids = ("pasur",)

    def __init__(
        self,
        model: Any,
        *,
        deterministic: bool = True,
        seed: int | None = None,
        name: str | None = None,
    ) -> None:
        try:
            import torch  # noqa: F401
            from ray.rllib.core.rl_module.rl_module import RLModule
        except ImportError as e:  # pragma: no cover - needs the rllib venv
            raise missing_extra("RLlib agents", "rllib", e) from None
        self.path: str | None = None
        if isinstance(model, (str, Path)):
            self.path = str(model)
            model = RLModule.from_checkpoint(str(find_module_dir(model).resolve()))
        if not hasattr(model, "masked_logits"):
            raise TypeError(
                f"RLlibAgent needs a MaskedPPOModule (train/rllib_ppo.py), got "
                f"{type(model).__name__}"
            )
        self.module = model
        self.deterministic = bool(deterministic)
        self.name = name or (f"{PREFIX}{self.path}" if self.path else "rllib")
        from agents.learned.rllib_module import OBS_KEY

        self.obs_size = int(model.observation_space[OBS_KEY].shape[0])
        self.observation_size = self.obs_size  # checked before it is seated
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, obs: np.ndarray | None, mask: np.ndarray, view: GameView) -> np.ndarray:
        import torch

        from agents.learned.rllib_module import MASK_KEY, OBS_KEY

        if obs is None:
            raise ValueError(f"{self.name}: an RLlib agent needs observations")
        if np.shape(obs)[1] != self.obs_size:
            raise ValueError(
                f"{self.name}: the module expects {self.obs_size} observation features but "
                f"this env encodes {np.shape(obs)[1]} (a module trained for another "
                f"player count or observation layout)"
            )
        mask = np.asarray(mask, dtype=np.bool_)
        batch = {OBS_KEY: torch.from_numpy(np.asarray(obs, dtype=np.float32)),
                 MASK_KEY: torch.from_numpy(mask.astype(np.float32))}
        with torch.no_grad():
            logits = self.module.masked_logits(batch).double().numpy()
        if not self.deterministic:
            logits = logits + self.rng.gumbel(size=logits.shape)
        logits[~mask] = -np.inf
        return check_actions(np.argmax(logits, axis=1), mask, self.name)

    def __repr__(self) -> str:
        return f"RLlibAgent(name={self.name!r}, deterministic={self.deterministic})"
