"""Build agents from names: ``make_agent("heuristic")``, ``make_agent("ismcts", budget=400)``.

Names map to factories (``register``); other specs (file paths) go through *loaders*
(``register_loader``): a predicate on the spec string and a factory that receives
the spec. The hook for trained models: a loader for paths ending in ``.zip`` (SB3
checkpoints) is registered by the training package, e.g.::

    register_loader(lambda spec: spec.endswith(".zip"), load_sb3_agent)

and ``make_agent("runs/ppo/best.zip", seed=0)`` then calls
``load_sb3_agent("runs/ppo/best.zip", seed=0)``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from .base import Agent

__all__ = ["make_agent", "register", "register_loader", "AGENT_NAMES", "known_agents"]

Factory = Callable[..., Agent]

_FACTORIES: dict[str, Factory] = {}
_LOADERS: list[tuple[Callable[[str], bool], Factory]] = []


def register(name: str, factory: Factory, *, overwrite: bool = False) -> None:
    """Make ``make_agent(name, seed=..., **kwargs)`` call ``factory(seed=..., **kwargs)``."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"agent name must be a non-empty string, got {name!r}")
    if not callable(factory):
        raise TypeError(f"factory for {name!r} must be callable")
    if name in _FACTORIES and not overwrite:
        raise ValueError(f"agent {name!r} is already registered (pass overwrite=True)")
    _FACTORIES[name] = factory
    if name not in AGENT_NAMES:
        AGENT_NAMES.append(name)


def register_loader(predicate: Callable[[str], bool], factory: Factory) -> None:
    """Route specs for which ``predicate(spec)`` is true to ``factory(spec, seed=..., **kw)``.

    Loaders are tried after the registered names, the most recently registered first
    (so a user's loader overrides the built-in ``.zip`` one).
    """
    if not callable(predicate) or not callable(factory):
        raise TypeError("register_loader needs a callable predicate and a callable factory")
    _LOADERS.insert(0, (predicate, factory))


def known_agents() -> list[str]:
    """Registered agent names."""
    return list(AGENT_NAMES)


def make_agent(spec: str | Agent, *, seed: int | None = None, **kwargs: Any) -> Agent:
    """An agent from a registered name, a loadable path, or an existing :class:`Agent`.

    An ``Agent`` instance is returned as is (reseeded with ``reset(seed)`` when a seed
    is given; keyword arguments are not allowed then). Unknown names raise
    ``ValueError`` listing the known agents; bad keyword arguments raise ``TypeError``.
    """
    if isinstance(spec, Agent):
        if kwargs:
            raise TypeError(f"cannot apply options {sorted(kwargs)} to an existing agent")
        if seed is not None:
            spec.reset(seed)
        return spec
    if not isinstance(spec, str):
        raise TypeError(f"agent spec must be a name, a path or an Agent, got {type(spec).__name__}")
    key = spec.strip()
    if key.lower() in _FACTORIES:
        return _FACTORIES[key.lower()](seed=seed, **kwargs)
    for predicate, factory in _LOADERS:
        if predicate(key):
            return factory(key, seed=seed, **kwargs)
    raise ValueError(f"unknown agent {spec!r}; known agents: {', '.join(AGENT_NAMES)}")


def _builtin(name: str) -> Factory:
    def factory(seed: int | None = None, **kwargs: Any) -> Agent:
        if name == "random":
            from .random_agent import RandomAgent as cls
        elif name == "greedy":
            from .greedy import GreedyAgent as cls
        elif name == "heuristic":
            from .heuristic import HeuristicAgent as cls
        else:
            from .ismcts import ISMCTSAgent as cls
        return cls(seed=seed, **kwargs)

    factory.__name__ = f"make_{name}"
    return factory


#: registered agent names (built-ins first)
AGENT_NAMES: list[str] = []
for _name in ("random", "greedy", "heuristic", "ismcts"):
    register(_name, _builtin(_name))


#: the shipped 2-player PPO agent (see README: how it was trained)
PRETRAINED_PPO = Path(__file__).resolve().parent / "pretrained" / "ppo_2p.zip"


def _load_sb3(spec: str, seed: int | None = None, **kwargs: Any) -> Agent:
    """A saved MaskablePPO model (``.zip``) as a batched agent (needs the train extra).

    It plays its most probable legal action (``deterministic=True``) unless told to
    sample (``model.zip:deterministic=False`` on the command line).
    """
    from pasur_env.opponents import load_policy_agent

    kwargs.setdefault("deterministic", True)
    return load_policy_agent(spec, seed=seed, **kwargs)


def _make_ppo(seed: int | None = None, **kwargs: Any) -> Agent:
    if not PRETRAINED_PPO.exists():
        raise FileNotFoundError(f"the pretrained model is missing: {PRETRAINED_PPO}")
    agent = _load_sb3(str(PRETRAINED_PPO), seed=seed, **kwargs)
    agent.name = "ppo"
    return agent


register_loader(lambda spec: spec.lower().endswith(".zip"), _load_sb3)
register("ppo", _make_ppo)
