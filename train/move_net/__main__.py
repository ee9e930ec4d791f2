"""``python -m train.move_net``: the move-network pipeline (:mod:`train.move_net.pipeline`)."""

from train.move_net.pipeline import main

main()
