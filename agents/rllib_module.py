"""The old name of :mod:`agents.learned.rllib_module`, kept for saved RLlib modules.

An RLlib module saved by version 0.2.0 pickles its class as
``agents.rllib_module.MaskedPPOModule`` (``class_and_ctor_args.pkl``), and RLlib reads
that file back by the name it holds; this module gives the name the same class. It is
imported only by such a file (it needs Ray, the ``rllib`` extra). Every other module that
moved has no old name any more (CHANGELOG.md).
"""

from agents.learned.rllib_module import MaskedPPOModule

__all__ = ["MaskedPPOModule"]
