"""Stable-Baselines3 plumbing of the two MaskablePPO pipelines (:mod:`train.ppo`,
:mod:`train.rummy_ppo`): the model (:mod:`train.sb3.model`), the callbacks and
checkpoints (:mod:`train.sb3.callbacks`), the reward wrappers (:mod:`train.sb3.wrappers`)."""
