"""Gymnasium spaces shared by both games' single-agent envs."""

from __future__ import annotations

import copy
import weakref
from typing import Any

import numpy as np
from gymnasium import spaces

__all__ = ["LegalActionSpace"]


class LegalActionSpace(spaces.Discrete):
    """``Discrete(n)`` whose ``sample()`` draws among the env's currently legal actions.

    ``env`` is any env with ``_started`` and ``action_masks()`` (both games' single-agent
    envs: ``n`` is 104 for Pasur, 245 for Persian Rummy).

    With an explicit ``mask`` or ``probability`` it behaves like ``Discrete``. Pickles
    as a plain ``Discrete(n)`` (saved models do not reference the env).
    """

    def __init__(self, env: Any, n: int, seed: int | None = None) -> None:
        super().__init__(n, seed=seed)
        self._env_ref = weakref.ref(env)

    def sample(self, mask: Any = None, probability: Any = None) -> np.int64:
        env = self._env_ref() if mask is None and probability is None else None
        if env is not None and env._started:
            legal = env.action_masks()
            if legal.any():
                mask = legal.astype(np.int8)
        if probability is None:  # gymnasium < 1.1 has no ``probability`` argument
            return super().sample(mask=mask)
        return super().sample(mask=mask, probability=probability)

    def __reduce__(self) -> tuple[Any, ...]:
        return (spaces.Discrete, (int(self.n),))

    def __deepcopy__(self, memo: dict[int, Any]) -> LegalActionSpace:
        new = object.__new__(LegalActionSpace)
        for k, v in self.__dict__.items():
            new.__dict__[k] = v if k == "_env_ref" else copy.deepcopy(v, memo)
        return new
