"""The move-scoring network's pipeline, ``python -m train.move_net`` (the shipped ``net``
agent): :mod:`train.move_net.pipeline` reads top to bottom, :mod:`train.move_net.config`
holds its settings and presets. Its helpers: positions labelled by search
(:mod:`train.move_net.data`), in shards on Ray (:mod:`train.move_net.distributed`), the
torch fit (:mod:`train.move_net.fit`), the wall-time budget
(:mod:`train.move_net.budget`) and the games' plug-ins (:mod:`train.move_net.games`)."""
