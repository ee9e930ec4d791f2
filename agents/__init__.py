"""The players of pasur_env's two games and what runs them.

``agents.pasur`` and ``agents.rummy`` hold each game's players, ``agents.learned`` the
loaders of trained models (SB3 zips, RLlib modules), ``agents.evaluation`` the
duplicate-deal matches, statistics and tournaments, ``agents.apps`` the ``pasur``
command, terminal play and the web table. Players import neither evaluation nor apps.

Every agent follows the :class:`pasur_env.Policy` protocol and acts on a batch of
decisions; build them by name with :func:`make_agent` (``random``, ``greedy``,
``heuristic``, ``ismcts``, ``ppo``, or a saved ``model.zip``). See docs/agents.md.
"""

from agents.core.base import Agent
from agents.learned.sb3 import PolicyAgent, policy_snapshot
from agents.pasur.greedy import GreedyAgent
from agents.pasur.heuristic import HeuristicAgent
from agents.pasur.ismcts import ISMCTSAgent
from agents.registry import (
    AGENT_NAMES,
    agent_names,
    as_agent,
    build_agent,
    make_agent,
    register,
    register_loader,
)

__all__ = [
    "Agent",
    "GreedyAgent",
    "HeuristicAgent",
    "ISMCTSAgent",
    "PolicyAgent",
    "policy_snapshot",
    "make_agent",
    "build_agent",
    "as_agent",
    "register",
    "register_loader",
    "AGENT_NAMES",
    "agent_names",
]
