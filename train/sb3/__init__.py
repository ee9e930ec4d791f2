"""Stable-Baselines3 plumbing of the MaskablePPO pipeline (:mod:`train.ppo`, both
games): the model (:mod:`train.sb3.model`), the callbacks and
checkpoints (:mod:`train.sb3.callbacks`), the reward wrappers (:mod:`train.sb3.wrappers`)."""
