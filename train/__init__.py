"""Training scripts for pasur_env agents: MaskablePPO with behaviour cloning and self-play
(:mod:`train.ppo`), their callbacks, reward wrappers, plots and model export.

This package imports ``agents`` and ``pasur_env``; neither imports it.
"""
