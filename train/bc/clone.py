"""Behaviour cloning: warm-start a MaskablePPO policy from a scripted teacher's play.

A game's recorder (:func:`train.bc.pasur.collect`, :func:`train.bc.rummy.collect_rummy`)
plays a teacher on the batched engine and keeps every decision as (the mover's
observation, its legal mask, the teacher's action, the mover's final round result).
:func:`pretrain` fits the policy head to the teacher's actions by masked cross-entropy
and the value head to the round results, so PPO starts from a competent player instead
of from random play (which at these games costs millions of decisions to outgrow).
:func:`clone_teacher` is the step both PPO pipelines run: record, fit, write ``bc.json``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["Demonstrations", "pretrain", "clone_teacher", "read_bc_stats"]


@dataclass
class Demonstrations:
    """Recorded decisions: observations (n, N) stored as float16, masks (n, 104), actions
    (n,), returns (n,)."""

    obs: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    returns: np.ndarray

    @classmethod
    def concat(cls, parts: list[Demonstrations]) -> Demonstrations:
        """The recorded decisions of several batches, in order."""
        return cls(*(np.concatenate([getattr(d, f.name) for d in parts]) for f in fields(cls)))


def pretrain(model, demos: Demonstrations, *, epochs: int, batch_size: int = 1024,  # noqa: ANN001
             lr: float = 2e-3, lr_decay: float = 0.5, value_target=None, seed: int = 0,  # noqa: ANN001
             log=print) -> dict[str, float]:  # noqa: ANN001
    """Fit ``model.policy`` (a MaskablePPO policy) to the demonstrations.

    ``value_target(obs, returns)`` maps recorded returns to the value head's target
    (e.g. scaled, minus a shaping potential); by default the returns themselves. The
    step size is multiplied by ``lr_decay`` after each epoch.
    Returns the last epoch's mean losses and the accuracy of the greedy action.
    """
    import torch

    policy = model.policy
    policy.set_training_mode(True)
    opt = torch.optim.Adam(policy.parameters(), lr=lr)
    target = demos.returns if value_target is None else value_target(demos.obs, demos.returns)
    n = len(demos.actions)
    rng = np.random.default_rng(seed)
    stats: dict[str, float] = {}
    for epoch in range(epochs):
        for group in opt.param_groups:
            group["lr"] = lr * lr_decay**epoch
        order = rng.permutation(n)
        tot_pi = tot_v = tot_acc = 0.0
        batches = 0
        for start in range(0, n, batch_size):
            b = order[start:start + batch_size]
            obs = torch.as_tensor(demos.obs[b].astype(np.float32), device=policy.device)
            act = torch.as_tensor(demos.actions[b], device=policy.device)
            ret = torch.as_tensor(target[b], dtype=torch.float32, device=policy.device)
            dist = policy.get_distribution(obs, action_masks=demos.masks[b])
            values = policy.predict_values(obs)
            loss_pi = -dist.log_prob(act).mean()
            loss_v = torch.nn.functional.mse_loss(values.flatten(), ret)
            loss = loss_pi + 0.5 * loss_v
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            opt.step()
            with torch.no_grad():
                acc = (dist.distribution.probs.argmax(dim=1) == act).float().mean()
            tot_pi += loss_pi.item()
            tot_v += loss_v.item()
            tot_acc += float(acc)
            batches += 1
        stats = {"bc_policy_loss": tot_pi / batches, "bc_value_loss": tot_v / batches,
                 "bc_accuracy": tot_acc / batches}
        log(f"behaviour cloning epoch {epoch + 1}/{epochs}: " +
            ", ".join(f"{k} {v:.3f}" for k, v in stats.items()))
    policy.set_training_mode(False)
    return stats


def clone_teacher(model: Any, record: Callable[[], Demonstrations], run_dir: Path, *,
                  teacher: str, epochs: int, lr: float, batch_size: int, seed: int,
                  value_target: Callable[[np.ndarray, np.ndarray], np.ndarray],
                  bc_threads: int, threads: int, lr_decay: float = 0.5) -> dict[str, float]:
    """Behaviour cloning of a teacher into ``model``; writes ``run_dir/bc.json``.

    ``record()`` plays the teacher and returns its decisions; ``value_target`` maps
    their round results to the value head's target (the pipeline's reward scale and
    shaping). Torch runs on ``bc_threads`` threads while cloning (big matrix products,
    nothing else running), then goes back to ``threads`` for PPO.
    """
    import torch

    t0 = time.time()
    demos = record()
    collect_s = time.time() - t0
    print(f"recorded {len(demos.actions):,} decisions of {teacher} in {collect_s:.0f} s")
    torch.set_num_threads(bc_threads)
    stats = pretrain(model, demos, epochs=epochs, lr=lr, lr_decay=lr_decay,
                     batch_size=batch_size, value_target=value_target, seed=seed)
    torch.set_num_threads(threads)
    stats.update(decisions=len(demos.actions), collect_seconds=collect_s,
                 seconds=time.time() - t0)
    (run_dir / "bc.json").write_text(json.dumps(stats, indent=2))
    return stats


def read_bc_stats(run_dir: Path) -> dict[str, Any] | None:
    """The cloning figures a run wrote (``bc.json``), or None when it did not clone."""
    path = run_dir / "bc.json"
    return json.loads(path.read_text()) if path.exists() else None
