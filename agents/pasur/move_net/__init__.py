"""The move-scoring network agents: ``net`` (the network alone) and ``net-ismcts``
(determinized search guided by it); their move features and numpy model."""

from agents.pasur.move_net.agent import NetAgent, pretrained_net_path
from agents.pasur.move_net.model import MoveNet

__all__ = ["NetAgent", "MoveNet", "pretrained_net_path"]
