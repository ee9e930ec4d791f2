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
from pasur_env.core.aliases import install_aliases

#: modules that moved when agents/ was split by role: their old names still import
#: (RLlib checkpoints pickle ``agents.rllib_module``)
MOVED_MODULES = {
    "agents._moves": "agents.pasur.moves",
    "agents.cli": "agents.apps.cli",
    "agents.endgame": "agents.pasur.endgame",
    "agents.greedy": "agents.pasur.greedy",
    "agents.heuristic": "agents.pasur.heuristic",
    "agents.inference": "agents.pasur.inference",
    "agents.ismcts": "agents.pasur.ismcts",
    "agents.match": "agents.evaluation.match",
    "agents.net": "agents.pasur.move_net",
    "agents.play": "agents.apps.terminal",
    "agents.progress": "agents.evaluation.progress",
    "agents.results": "agents.evaluation.results",
    "agents.rllib_agent": "agents.learned.rllib_agent",
    "agents.rllib_module": "agents.learned.rllib_module",
    "agents.sb3_policy": "agents.learned.sb3",
    "agents.stats": "agents.evaluation.stats",
    "agents.tournament": "agents.evaluation.tournament",
    "agents.web": "agents.apps.web",
}
install_aliases(MOVED_MODULES)

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
