"""Baseline agents for pasur_env: random, greedy, heuristic and ISMCTS (see docs/agents.md).

Every agent acts on a batch of decisions through :meth:`Agent.act`; build them by
name with :func:`make_agent`.
"""

from .base import Agent, GameView
from .greedy import GreedyAgent
from .heuristic import HeuristicAgent
from .ismcts import ISMCTSAgent
from .random_agent import RandomAgent
from .registry import AGENT_NAMES, make_agent, register, register_loader

__all__ = [
    "Agent",
    "GameView",
    "RandomAgent",
    "GreedyAgent",
    "HeuristicAgent",
    "ISMCTSAgent",
    "make_agent",
    "register",
    "register_loader",
    "AGENT_NAMES",
]
