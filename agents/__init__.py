"""The players of pasur_env: baseline agents, trained-model agents, self-play pools, and
the tools that run them (duplicate-deal evaluation, tournaments, the ``pasur`` CLI).

Every agent follows the :class:`pasur_env.Policy` protocol and acts on a batch of
decisions; build them by name with :func:`make_agent` (``random``, ``greedy``,
``heuristic``, ``ismcts``, ``ppo``, or a saved ``model.zip``). See docs/agents.md.
"""

from .base import Agent
from .greedy import GreedyAgent
from .heuristic import HeuristicAgent
from .ismcts import ISMCTSAgent
from .pool import OpponentPool, PoolEntry
from .registry import (
    AGENT_NAMES,
    as_agent,
    build_agent,
    make_agent,
    register,
    register_loader,
)
from .sb3_policy import PolicyAgent, policy_snapshot

__all__ = [
    "Agent",
    "GreedyAgent",
    "HeuristicAgent",
    "ISMCTSAgent",
    "PolicyAgent",
    "policy_snapshot",
    "OpponentPool",
    "PoolEntry",
    "make_agent",
    "build_agent",
    "as_agent",
    "register",
    "register_loader",
    "AGENT_NAMES",
]
