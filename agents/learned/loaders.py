"""Loaders of saved models and outside bots, for the games' rows of the registry
(:class:`agents.games.AgentGame` ``loaders``): each takes the spec (a path or a
``prefix:...`` string), a seed and the spec's options, and returns the agent.

The heavy imports (stable-baselines3, Ray, OpenSpiel) happen inside each loader, when a
spec names such a model, so a row naming them costs nothing.
"""

from __future__ import annotations

from typing import Any

from pasur_env.core.policy import Policy

__all__ = ["load_sb3", "load_rllib", "load_openspiel"]


def load_sb3(spec: str, seed: int | None = None, **kwargs: Any) -> Policy:
    """A saved MaskablePPO model (``.zip``) as a batched agent (needs the train extra).

    It plays its most probable legal action (``deterministic=True``) unless told to
    sample (``model.zip:deterministic=False`` on the command line).
    """
    from agents.learned.sb3 import PolicyAgent

    kwargs.setdefault("deterministic", True)
    return PolicyAgent(spec, seed=seed, **kwargs)


def load_rllib(spec: str, seed: int | None = None, **kwargs: Any) -> Policy:
    """An RLlib checkpoint (``rllib:PATH``, written by ``train/rllib_ppo.py``) as an agent
    (needs the ``rllib`` extra, in a virtual environment of its own)."""
    from agents.learned.rllib_agent import PREFIX, RLlibAgent

    return RLlibAgent(spec[len(PREFIX):], seed=seed, **kwargs)


def load_openspiel(spec: str, seed: int | None = None, **kwargs: Any) -> Policy:
    """``openspiel:BOT``: OpenSpiel's Python search bot ``BOT`` (``mcts``, ``ismcts``;
    ``agents.learned.openspiel_bot``, needs the ``openspiel`` extra). A spec, not a name:
    like ``rllib:PATH`` it is not listed by ``agent_names``, so tools that offer every
    registered name (the web table) do not offer these slow Python searches."""
    from agents.learned.openspiel_bot import PREFIX, OpenSpielBotAgent

    return OpenSpielBotAgent(spec[len(PREFIX):].strip().lower(), seed=seed, **kwargs)
