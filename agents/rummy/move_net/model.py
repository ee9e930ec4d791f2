"""Persian Rummy's move-scoring network: the shared numpy network (:mod:`agents.core.move_net`)
over the Rummy candidate rows (:mod:`agents.rummy.move_net.features`).

``Q(s, a)`` is the expected team round-point difference (own team minus the other)
after candidate action ``a`` in the decision whose observation is ``s``.
"""

from __future__ import annotations

from typing import ClassVar

from agents.core.move_net import MoveNetBase
from agents.rummy.move_net.features import MOVE_WIDTH

__all__ = ["RummyMoveNet"]


class RummyMoveNet(MoveNetBase):
    """A Persian Rummy move-scoring network (:class:`agents.core.move_net.MoveNetBase`)."""

    GAME: ClassVar[str] = "persian_rummy"
    MOVE_WIDTH: ClassVar[int] = MOVE_WIDTH

    @property
    def num_players(self) -> int:
        return int(self.meta.get("num_players", 4))
