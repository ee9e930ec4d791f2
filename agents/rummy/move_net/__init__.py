"""Persian Rummy's move-scoring network agent ``net``: its candidate features, its numpy
model (the shared :mod:`agents.core.move_net`) and the agent."""

from agents.rummy.move_net.agent import PRETRAINED_RUMMY_NET, RummyNetAgent
from agents.rummy.move_net.model import RummyMoveNet

__all__ = ["RummyNetAgent", "RummyMoveNet", "PRETRAINED_RUMMY_NET"]
