"""The project's action-masking PPO network for Ray RLlib (new API stack), and its obs keys.

RLlib's example masking modules are not a stable API, so the project keeps its own
small :class:`MaskedPPOModule`: two MLPs (policy and value, as in SB3's default
``MlpPolicy``) over the observation vector, illegal logits set to ``FLOAT_MIN`` before
RLlib builds the categorical distribution, so sampling, argmax and the PPO loss only
ever see legal actions.

The module reads observations as a dict with the keys RLlib's masking convention uses
(:data:`OBS_KEY` ``"observations"`` and :data:`MASK_KEY` ``"action_mask"``); the envs'
adapters in ``train/rllib/env.py`` rename pasur_env's ``"observation"`` key to it.

This file imports Ray and torch at import time: only the RLlib paths import it
(``train/rllib_ppo.py``, :mod:`agents.learned.rllib_agent` when it loads a checkpoint), so the
rest of the project never needs Ray. It lives in ``agents`` rather than ``train``
because checkpoints name the module class, and agents must load them without ``train``.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.torch import TorchRLModule
from torch import nn

#: observation-dict keys of RLlib's masking convention
OBS_KEY = "observations"
MASK_KEY = "action_mask"
#: the logit given to illegal actions (RLlib's FLOAT_MIN: exp() underflows to 0)
ILLEGAL_LOGIT = -3.4e38

__all__ = ["MaskedPPOModule", "OBS_KEY", "MASK_KEY", "mlp"]


def mlp(n_in: int, hidden: list[int], n_out: int) -> nn.Sequential:
    """A tanh MLP ``n_in -> hidden... -> n_out`` (SB3's default activation for PPO)."""
    layers: list[nn.Module] = []
    for width in hidden:
        layers += [nn.Linear(n_in, width), nn.Tanh()]
        n_in = width
    layers.append(nn.Linear(n_in, n_out))
    return nn.Sequential(*layers)


class MaskedPPOModule(TorchRLModule, ValueFunctionAPI):
    """Policy and value MLPs over ``obs["observations"]``; ``obs["action_mask"]`` masks
    the policy's logits in every forward pass (exploration, inference and training).

    ``model_config``: ``{"hidden": [256, 256]}`` (widths of both MLPs).
    """

    def setup(self) -> None:
        space = self.observation_space
        if not isinstance(space, gym.spaces.Dict) or set(space.spaces) != {OBS_KEY, MASK_KEY}:
            raise ValueError(
                f"MaskedPPOModule needs a Dict observation space with keys "
                f"{OBS_KEY!r} and {MASK_KEY!r} (use train.rllib.env's adapters); got {space}"
            )
        config: dict[str, Any] = dict(self.model_config or {})
        hidden = [int(h) for h in config.get("hidden", [256, 256])]
        n_obs = int(space[OBS_KEY].shape[0])
        n_act = int(self.action_space.n)
        self.pi = mlp(n_obs, hidden, n_act)
        self.vf = mlp(n_obs, hidden, 1)

    def masked_logits(self, obs: dict[str, torch.Tensor]) -> torch.Tensor:
        """The policy's logits with every illegal action at ``ILLEGAL_LOGIT``."""
        logits = self.pi(obs[OBS_KEY].float())
        return logits.masked_fill(obs[MASK_KEY] < 0.5, ILLEGAL_LOGIT)

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return {Columns.ACTION_DIST_INPUTS: self.masked_logits(batch[Columns.OBS])}

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return self._forward(batch, **kwargs)

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        return self.vf(batch[Columns.OBS][OBS_KEY].float()).squeeze(-1)
