"""Persian Rummy players (``docs/persian_rummy.md``).

``greedy`` (:mod:`agents.rummy.greedy`), ``rollout`` (greedy with its draws and
discards chosen by determinized rollouts, :mod:`agents.rummy.rollout`) and ``ismcts``
(information-set search at every decision, :mod:`agents.rummy.ismcts`); with
``random`` (:class:`pasur_env.RandomPolicy`, which works for any action count) and
saved MaskablePPO models (``*.zip``) they are built by the one registry:
``make_agent("rollout", game="persian_rummy")``. All act on a batch of games:
``act(obs, mask, view)`` as every :class:`pasur_env.Policy`.
"""

from agents.rummy.greedy import RummyGreedyAgent
from agents.rummy.ismcts import RummyISMCTSAgent
from agents.rummy.rollout import RummyRolloutAgent

__all__ = ["RummyGreedyAgent", "RummyISMCTSAgent", "RummyRolloutAgent"]
