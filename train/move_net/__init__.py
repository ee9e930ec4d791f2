"""The helpers of :mod:`train.net` (the move-scoring network): positions labelled by
search (:mod:`train.move_net.data`), in shards on Ray (:mod:`train.move_net.distributed`),
and the torch fit (:mod:`train.move_net.fit`)."""
