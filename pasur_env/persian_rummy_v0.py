"""Versioned entry point, PettingZoo style: ``from pasur_env import persian_rummy_v0``.

The environment and its documentation page are :mod:`pasur_env.rummy.aec_env`.
"""

from pasur_env.rummy.aec_env import env, raw_env

__all__ = ["env", "raw_env"]
