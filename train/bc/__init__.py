"""Behaviour cloning of the MaskablePPO pipeline (:mod:`train.ppo`), both games.

* :mod:`train.bc.clone`: :class:`Demonstrations` (recorded decisions),
  :func:`pretrain` (fit a MaskablePPO policy to them) and :func:`clone_teacher` (the
  pipelines' step: record, fit, write ``bc.json``);
* :mod:`train.bc.pasur`: :func:`collect`, a Pasur teacher's decisions;
* :mod:`train.bc.rummy`: :func:`collect_rummy`, a Persian Rummy teacher's decisions.
"""

from train.bc.clone import Demonstrations, clone_teacher, pretrain, read_bc_stats
from train.bc.pasur import collect
from train.bc.rummy import collect_rummy

__all__ = ["Demonstrations", "pretrain", "clone_teacher", "read_bc_stats", "collect",
           "collect_rummy"]
