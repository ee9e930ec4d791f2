"""pasur_env for Ray RLlib: observation adapters, env creators, self-play mapping, Ray setup.

RLlib's masking convention wants observations as ``{"observations": x, "action_mask":
m}``; pasur_env's envs give ``{"observation": x, "action_mask": m}`` (AEC) or a vector
with ``action_masks()`` (single-agent). The adapters here only rename and reshape: the
rules stay in the engine.

* :func:`make_multi_agent_env`: ``pasur_v0`` (AEC) through RLlib's own
  ``PettingZooEnv`` wrapper, for self-play (every seat learns with a shared policy or
  plays a frozen snapshot, chosen by :func:`selfplay_mapping`).
* :func:`make_single_agent_env`: the Gymnasium env with the project's scripted
  opponents (an :class:`agents.OpponentPool` drawn per episode).
* :func:`ray_session`: ``ray.init`` without the dashboard or an auth token, session
  files in a temporary folder that is removed afterwards (with :func:`ray_tmpdir` and
  :func:`quiet_ray_environment`, from :mod:`agents.evaluation.distributed`, which the
  distributed evaluation shares).
"""

from __future__ import annotations

import zlib
from typing import Any

import gymnasium as gym
import numpy as np
from pettingzoo.utils.wrappers import BaseWrapper

from agents.evaluation.distributed import quiet_ray_environment, ray_session, ray_tmpdir
from agents.learned.rllib_module import MASK_KEY, OBS_KEY
from pasur_env import pasur_v0
from pasur_env.pasur.single_agent import PasurSingleAgentEnv
from train.common.pool import OpponentPool

#: names the envs are registered under with ``ray.tune.registry.register_env``
MULTI_AGENT_ENV = "pasur_multi_agent"
SINGLE_AGENT_ENV = "pasur_single_agent"
#: the learning module and the frozen snapshot slots of self-play
MAIN = "main"

__all__ = ["MAIN", "MULTI_AGENT_ENV", "SINGLE_AGENT_ENV", "make_multi_agent_env",
           "make_single_agent_env", "masked_space", "parse_mix", "quiet_ray_environment",
           "ray_session", "ray_tmpdir", "selfplay_mapping", "snapshot_ids"]


def snapshot_ids(count: int) -> list[str]:
    """Module ids of the frozen snapshot slots: ``snap_1 ... snap_count``."""
    return [f"snap_{k}" for k in range(1, count + 1)]


def masked_space(obs_space: gym.Space, n_actions: int) -> gym.spaces.Dict:
    """The observation space in RLlib's masking convention."""
    return gym.spaces.Dict({
        OBS_KEY: obs_space,
        MASK_KEY: gym.spaces.Box(0.0, 1.0, (n_actions,), np.float32),
    })


class RLlibObservations(BaseWrapper):
    """An AEC env whose ``observe`` uses RLlib's keys (``observations``, float mask)."""

    def observation_space(self, agent: str) -> gym.spaces.Dict:
        inner = self.env.observation_space(agent)
        return masked_space(inner["observation"], inner["action_mask"].shape[0])

    def observe(self, agent: str) -> dict[str, np.ndarray] | None:
        obs = self.env.observe(agent)
        if obs is None:
            return None
        return {OBS_KEY: obs["observation"],
                MASK_KEY: np.asarray(obs["action_mask"], dtype=np.float32)}


class MaskedObservation(gym.ObservationWrapper):
    """The single-agent env's vector observation plus its legal-action mask, as a dict."""

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        self.observation_space = masked_space(env.observation_space, int(env.action_space.n))

    def observation(self, observation: np.ndarray) -> dict[str, np.ndarray]:
        mask = self.env.unwrapped.action_masks()
        return {OBS_KEY: observation, MASK_KEY: np.asarray(mask, dtype=np.float32)}


def make_multi_agent_env(config: dict[str, Any]) -> Any:
    """``pasur_v0`` through RLlib's ``PettingZooEnv`` (config: ``env_kwargs``)."""
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    return PettingZooEnv(RLlibObservations(pasur_v0.env(**dict(config.get("env_kwargs", {})))))


def make_single_agent_env(config: dict[str, Any]) -> gym.Env:
    """The Gymnasium env against an opponent pool (config: ``opponents`` as
    ``"name:weight,..."``, ``env_kwargs``, ``seed``); each env runner and sub-env gets its
    own pool seed (RLlib's ``worker_index`` / ``vector_index``)."""
    weights = parse_mix(config.get("opponents", "heuristic:1"))
    index = int(getattr(config, "worker_index", 0)) * 1000 + int(getattr(config, "vector_index", 0))
    seed = int(config.get("seed", 0)) * 1_000_003 + index
    pool = OpponentPool([(name, name, w) for name, w in weights.items()],
                        sampling="weights", seed=seed)
    env = PasurSingleAgentEnv(opponent=pool, **dict(config.get("env_kwargs", {})))
    return MaskedObservation(env)


def parse_mix(text: str) -> dict[str, float]:
    """``"random:0.25,greedy:1"`` -> ``{"random": 0.25, "greedy": 1.0}`` (weight 1 if none)."""
    mix: dict[str, float] = {}
    for item in text.split(","):
        if not item.strip():
            continue
        name, _, weight = item.partition(":")
        try:
            mix[name.strip()] = float(weight) if weight.strip() else 1.0
        except ValueError:
            raise ValueError(f"bad opponent weight in {item!r}: expected name:number") from None
    if not mix or min(mix.values()) < 0 or sum(mix.values()) <= 0:
        raise ValueError(f"opponent mix {text!r} needs names with weights >= 0, not all 0")
    return mix


def selfplay_mapping(agent_id: str, episode: Any, *, players: int, snapshots: int,
                     **kwargs: Any) -> str:
    """Which module plays ``agent_id`` in ``episode``: ``main`` learns at one seat (and
    its partner's in the team game); each other seat is ``main`` (shared self-play) or a
    frozen snapshot, drawn from a hash of the episode id, so every call for the same
    episode and seat agrees."""
    key = str(getattr(episode, "id_", episode)).encode()
    main_seat = zlib.crc32(key) % players
    seat = int(agent_id.rsplit("_", 1)[1])
    if seat == main_seat or (players == 4 and seat == (main_seat + 2) % 4):
        return MAIN
    pick = zlib.crc32(key + agent_id.encode()) % (snapshots + 1)
    return MAIN if pick == 0 else f"snap_{pick}"
