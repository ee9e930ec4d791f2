"""Pasur's move-scoring network: the shared numpy network (:mod:`agents.core.move_net`) over
Pasur's move rows (:mod:`agents.pasur.move_net.features`).

``Q(s, m)`` is the expected round-point difference (own side minus the others' mean)
after playing move ``m`` in the decision whose observation is ``s``; :mod:`train.move_net`
fits it and saves it as an ``.npz`` file that :meth:`MoveNet.load` reads back and
:meth:`MoveNet.check` compares with the game it is asked to play.
"""

from __future__ import annotations

from typing import ClassVar

from agents.core.move_net import PARAM_NAMES, MoveNetBase
from agents.pasur.move_net.features import MOVE_WIDTH

__all__ = ["MoveNet", "PARAM_NAMES"]


class MoveNet(MoveNetBase):
    """A Pasur move-scoring network (:class:`agents.core.move_net.MoveNetBase`)."""

    GAME: ClassVar[str] = "pasur"
    MOVE_WIDTH: ClassVar[int] = MOVE_WIDTH
