"""The helpers of :mod:`train.net` (the move-scoring network): positions labelled by
search (:mod:`train.move_net.data`) and the torch fit (:mod:`train.move_net.fit`)."""
