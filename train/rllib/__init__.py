"""The helpers of :mod:`train.rllib_ppo` (Ray RLlib): the env adapters, env creators,
self-play mapping and Ray session (:mod:`train.rllib.env`). Imports Ray only when used."""
