"""Versioned entry point, PettingZoo style: ``from pasur_env import pasur_v0; pasur_v0.env()``.

The environment and its documentation page are :mod:`pasur_env.pasur.aec_env`.
"""

from pasur_env.pasur.aec_env import env, raw_env

__all__ = ["env", "raw_env"]
