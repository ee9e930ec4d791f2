"""Names to agents, for every game: ``make_agent("heuristic")``,
``make_agent("greedy", game="persian_rummy")``, ``build_agent("ismcts:budget=400")``.

The one registry of the project, keyed by game (the ids of :data:`pasur_env.games.GAMES`;
``game`` defaults to ``"pasur"``). Names map to factories (:func:`register`); other
specs, such as file paths, go through *loaders* (:func:`register_loader`): a predicate
on the spec string and a factory that receives the spec. A game's built-in agents and
loaders are its row's (:class:`agents.games.AgentGame` ``agents`` and ``loaders``),
registered the first time the game is asked for:

* Pasur (:mod:`agents.pasur.game`): ``random``, ``greedy``, ``heuristic``, ``ismcts``,
  ``ppo`` (the shipped MaskablePPO model), ``net`` and ``net-ismcts`` (the shipped
  move-scoring network, alone or guiding search); loaders for saved SB3 models
  (``*.zip``), saved networks (``*.npz``), RLlib checkpoints (``rllib:PATH``, needs the
  Ray venv) and CFR policies of small variants (``cfr:PATH``, written by ``train.cfr``);
* Persian Rummy (:mod:`agents.rummy.game`): ``random``, ``greedy``, ``rollout``,
  ``ismcts``, ``net`` (the shipped move-scoring network); loaders for saved SB3 models
  (``*.zip``, written by ``train.ppo --game persian_rummy``) and saved networks
  (``*.npz``, written by ``train.move_net --config rummy``);
* both games: the loader of ``openspiel:mcts`` and ``openspiel:ismcts``, OpenSpiel's
  Python search bots (``agents.learned.openspiel_bot``, needs the ``openspiel`` extra).

A user's agent plays everywhere a built-in does: a spec ``path/to/file.py:Class`` or
``package.module:Class`` (a class or a factory function; :mod:`agents.specs`) is built
when no name or loader matches it, and an installed package registers named agents in
the entry-point group ``pasur_env.agents`` (``name = "package.module:Class"``; the
object's ``game_ids`` say for which games, none: every game), read with the games'
own entry points (:func:`pasur_env.core.plugins.loaded_entry_points`).
:func:`agent_origins` says where every name comes from.

::

    make_agent("runs/ppo/model.zip", seed=0)   # a PolicyAgent, playing deterministically

A spec may carry options, ``name:key=value,...`` (:func:`parse_agent_spec`), which
:func:`build_agent` passes to the factory.

Built-in agents are versioned: a game's row registers ``greedy@1`` (and keeps
``greedy@1`` next to ``greedy@2`` while its code or weights are kept), the bare name is
the latest version, ``greedy@1`` pins one (options follow: ``ismcts@1:budget=50``) and
an unknown version is refused with the agent's versions. Results record the pinned
spec (:func:`pinned_spec`, in :func:`agent_provenance`); a test fingerprints every
version's decisions (``tests/fingerprints.py``), so a change of behaviour must bump it.

:func:`as_agent` turns anything that can play (a name, a :class:`pasur_env.Policy`, an
SB3 model, a callable) into a policy.
"""

from __future__ import annotations

import inspect
import re
import warnings
from collections.abc import Callable
from fnmatch import fnmatchcase
from typing import Any

from agents.games import agent_game, resolve
from agents.specs import ENTRY_POINT_GROUP, agent_failure, build_object, is_code_spec, load_code
from agents.specs import provenance as _provenance
from pasur_env.core.args import did_you_mean
from pasur_env.core.plugins import loaded_entry_points
from pasur_env.core.policy import CallablePolicy, Policy, RandomPolicy
from pasur_env.games import DEFAULT_GAME, GAME_IDS, game_info

__all__ = [
    "make_agent",
    "agent_names",
    "build_agent",
    "as_agent",
    "register",
    "register_loader",
    "AGENT_NAMES",
    "known_agents",
    "parse_agent_spec",
    "parse_value",
    "agent_label",
    "agent_origins",
    "agent_versions",
    "pinned_spec",
    "agent_provenance",
    "offer_spec",
    "registered_name",
    "with_spec",
]

Factory = Callable[..., Policy]
#: ``name@N``: version N of the agent ``name``
_VERSIONED = re.compile(r"^(?P<name>[^@]+)@(?P<version>[^:=@]*)$")

#: a game's factories by name: the bare name (its latest version) and every ``name@N``
_FACTORIES: dict[str, dict[str, Factory]] = {}
_LOADERS: dict[str, list[tuple[Callable[[str], bool], Factory]]] = {}
#: registered agent names of each game (built-ins first)
_NAMES: dict[str, list[str]] = {}
#: where each name of each game comes from: built-in, entry point DIST VERSION, spec, ...
_ORIGINS: dict[str, dict[str, str]] = {}
#: the installed packages' agents (the entry-point group), read once: (name, object, origin)
_INSTALLED: list[tuple[str, Any, str]] | None = None


def _game(game: str) -> str:
    """The id of ``game`` (``ValueError`` naming the games), its built-in agents and
    loaders registered (its row's) the first time it is asked for."""
    gid = game_info(game).id
    if gid not in _NAMES:
        row = agent_game(gid)
        _FACTORIES[gid], _LOADERS[gid], _NAMES[gid], _ORIGINS[gid] = {}, [], [], {}
        for name, factory in (("random@1", RandomPolicy), *row.agents):
            register(name, _lazy(name, factory), game=gid, origin="built-in")
        for pattern, factory in row.loaders:
            register_loader(_matcher(pattern), _lazy(pattern, factory), game=gid)
        for name, obj, origin in _installed():
            if gid not in (getattr(obj, "game_ids", None) or (gid,)):
                continue
            if name in _FACTORIES[gid]:  # a built-in keeps its name
                warnings.warn(f"{ENTRY_POINT_GROUP} entry point {name!r} ({origin}) skipped: "
                              f"{gid} already has an agent {name!r}", stacklevel=2)
                continue
            register(name, _code_factory(name, obj, gid), game=gid, origin=origin)
    return gid


def _installed() -> list[tuple[str, Any, str]]:
    """The agents installed packages register (group ``pasur_env.agents``), read once."""
    global _INSTALLED
    if _INSTALLED is None:
        _INSTALLED = []
        for ep, obj in loaded_entry_points(ENTRY_POINT_GROUP):
            dist = getattr(ep, "dist", None)
            where = f"{dist.name} {dist.version}" if dist is not None else ep.value
            _INSTALLED.append((ep.name, obj, f"entry point {where}"))
    return _INSTALLED


def _code_factory(spec: str, obj: Any, game: str) -> Factory:
    """``factory(seed=..., **options)`` building the user's class or factory ``obj``
    with its options checked (:func:`agents.specs.build_object`)."""
    def build(seed: int | None = None, **options: Any) -> Policy:
        return build_object(spec, obj, seed=seed, game=game, options=options)

    return build


def _lazy(name: str, factory: Factory | str) -> Factory:
    """``factory`` (an object or ``"module:attribute"``), imported when first called."""
    if not isinstance(factory, str):
        return factory

    def build(*args: Any, **kwargs: Any) -> Policy:
        made = resolve(factory)  # a local, so an option error can name its options
        return made(*args, **kwargs)  # type: ignore[no-any-return]

    build.__name__ = f"make_{name}"
    return build


def _matcher(pattern: str) -> Callable[[str], bool]:
    """A loader's predicate: the spec, in lower case, matches the glob ``pattern``."""
    return lambda spec: fnmatchcase(spec.lower(), pattern)


def register(name: str, factory: Factory, *, game: str = "pasur",
             overwrite: bool = False, origin: str = "registered") -> None:
    """Make ``make_agent(name, game=game, seed=..., **kwargs)`` call
    ``factory(seed=..., **kwargs)``; ``origin`` is what ``pasur agents`` says it comes
    from. ``name@N`` registers version N (a positive int) of ``name``, which the bare
    name then means if N is its highest version."""
    game = _game(game)
    if not isinstance(name, str) or not name:
        raise ValueError(f"agent name must be a non-empty string, got {name!r}")
    if not callable(factory):
        raise TypeError(f"factory for {name!r} must be callable")
    if name in _FACTORIES[game] and not overwrite:
        raise ValueError(f"agent {name!r} is already registered (pass overwrite=True)")
    base, version = name, None
    if "@" in name:
        m = _VERSIONED.match(name)
        if m is None or not m.group("version").isdigit() or int(m.group("version")) < 1:
            raise ValueError(f"a versioned agent name is name@N with N a positive int, "
                             f"got {name!r}")
        base, version = m.group("name"), int(m.group("version"))
    _FACTORIES[game][name] = factory
    if version is not None and version == max(_versions(base, game)):
        _FACTORIES[game][base] = factory  # the bare name: the latest version
    _ORIGINS[game][base] = origin
    if base not in _NAMES[game]:
        _NAMES[game].append(base)


def _versions(name: str, game: str) -> list[int]:
    """The registered versions of ``name`` (ascending; empty: an unversioned agent)."""
    return sorted(int(k[len(name) + 1:]) for k in _FACTORIES[game]
                  if k.startswith(name + "@") and k[len(name) + 1:].isdigit())


def agent_versions(game: str = "pasur") -> dict[str, list[int]]:
    """Every registered name of ``game`` and its versions (ascending; the bare name is
    the last), ``[]`` for an unversioned agent (a user's, an entry point's)."""
    gid = _game(game)
    return {name: _versions(name, gid) for name in _NAMES[gid]}


def register_loader(predicate: Callable[[str], bool], factory: Factory, *,
                    game: str = "pasur") -> None:
    """Route specs for which ``predicate(spec)`` is true to ``factory(spec, seed=..., **kw)``.

    Loaders are tried after the registered names, the most recently registered first
    (so a user's loader overrides the built-in ``.zip`` one).
    """
    game = _game(game)
    if not callable(predicate) or not callable(factory):
        raise TypeError("register_loader needs a callable predicate and a callable factory")
    _LOADERS[game].insert(0, (predicate, factory))


def agent_names(game: str = "pasur") -> list[str]:
    """Registered agent names of ``game`` (built-ins first)."""
    return list(_NAMES[_game(game)])


def known_agents(game: str = "pasur") -> list[str]:
    """Registered agent names of ``game`` (the same as :func:`agent_names`)."""
    return agent_names(game)


def make_agent(spec: str | Policy, *, game: str = "pasur", seed: int | None = None,
               **kwargs: Any) -> Policy:
    """An agent of ``game`` from a registered name, a loadable path, a code spec
    (``path/to/file.py:Class``, ``package.module:Class``) or an existing policy.

    A :class:`pasur_env.Policy` instance is returned as is (reseeded with
    ``reset(seed)`` when a seed is given; keyword arguments are not allowed then).
    Unknown names raise ``ValueError`` listing the game's agents; an unknown game
    raises ``ValueError`` listing the games; bad keyword arguments raise ``TypeError``;
    a code spec that does not build raises one naming it (:mod:`agents.specs`).
    """
    game = _game(game)
    if isinstance(spec, Policy):
        if kwargs:
            raise TypeError(f"cannot apply options {sorted(kwargs)} to an existing agent")
        if seed is not None:
            spec.reset(seed)
        return spec
    if not isinstance(spec, str):
        raise TypeError(f"agent spec must be a name, a path or a Policy, got {type(spec).__name__}")
    key = spec.strip()
    name = registered_name(key, game)
    if name is not None:
        return _with_options(key, _FACTORIES[game][name], seed=seed, **kwargs)
    for predicate, factory in _LOADERS[game]:
        if predicate(key):
            return _with_options(key, factory, key, seed=seed, **kwargs)
    if is_code_spec(key):
        return build_object(key, load_code(key), seed=seed, game=game, options=kwargs)
    title = f"{game_info(game).title} " if agent_game(game).named else ""
    dotted = ("; a class in a module is named module:Class, one in a file path/to/file.py:Class"
              if "." in key and ":" not in key else "")
    raise ValueError(
        f"unknown {title}agent {spec!r}{did_you_mean(key.lower(), _NAMES[game])}; known "
        f"agents: {', '.join(_NAMES[game])}{dotted}"
    )


def registered_name(spec: str, game: str = "pasur") -> str | None:
    """The registered name of ``game`` that ``spec`` is (as typed, else in lower case;
    spaces around it ignored: ``greedy``, ``greedy@1``), or None: how every caller reads a
    name (the web table accepts only these, so a request never loads code);
    ``ValueError`` listing the versions for an agent's unknown version (``greedy@7``)."""
    game = _game(game)
    spec = spec.strip()
    for name in (spec, spec.lower()):
        if name in _FACTORIES[game]:
            return name
    m = _VERSIONED.match(spec.lower())
    if m is None or m.group("name") not in _FACTORIES[game]:
        return None
    name = m.group("name")
    versions = _versions(name, game)
    title = f"{game_info(game).title} " if agent_game(game).named else ""
    if not versions:
        raise ValueError(f"{title}agent {name!r} has no versions: name it {name!r}")
    raise ValueError(f"{title}agent {name!r} has no version {m.group('version')!r}; its versions: "
                     f"{', '.join(f'{name}@{v}' for v in versions)} (the bare name "
                     f"{name!r} is the latest, {name}@{versions[-1]})")


def pinned_spec(spec: str | Policy, game: str = "pasur") -> str | None:
    """``spec`` with its agent's version made explicit (``greedy`` -> ``greedy@1``,
    ``ismcts:budget=50`` -> ``ismcts@1:budget=50``), the spec that rebuilds the same
    agent after a later version ships; None for an agent without versions (a path, a
    user's code, an instance)."""
    if not isinstance(spec, str):
        return None
    gid = _game(game)
    name, _ = parse_agent_spec(spec)
    registered = registered_name(name, gid)
    if registered is None:
        return None
    if "@" in registered:
        return spec.strip()
    versions = _versions(registered, gid)
    return f"{registered}@{versions[-1]}{spec.strip()[len(name):]}" if versions else None


def agent_origins(game: str = "pasur") -> dict[str, str]:
    """Every registered name of ``game`` and where it comes from (``built-in``,
    ``entry point DIST VERSION``, ``spec SPEC`` for one offered with :func:`offer_spec`,
    ``registered`` for :func:`register`)."""
    gid = _game(game)
    return {name: _ORIGINS[gid][name] for name in _NAMES[gid]}


def agent_provenance(spec: str | Policy, agent: Any, game: str = "pasur",
                     players: int | None = None) -> dict[str, Any]:
    """Where the agent built from ``spec`` comes from, for a result's JSON: its spec and
    origin, its class and the SHA-256 of the class's source file (unless it is a
    built-in, the file too), the file of its weights (at a table of ``players``) with
    that file's SHA-256 (:func:`agents.specs.provenance`) and, for a versioned agent, the
    spec pinned to its version (``pinned``: :func:`pinned_spec`)."""
    gid = _game(game)
    if not isinstance(spec, str):
        return _provenance(agent_label(spec), agent, "instance", players)
    name, _ = parse_agent_spec(spec)
    registered = registered_name(name, gid)
    origin = (_ORIGINS[gid][registered.partition("@")[0]] if registered is not None
              else "spec" if is_code_spec(name) else "loader")
    origin = "spec" if origin.startswith("spec ") else origin
    out = _provenance(spec.strip(), agent, origin, players)
    pinned = pinned_spec(spec, gid)
    return out if pinned is None else {**out, "pinned": pinned}


def offer_spec(spec: str, games: Any = None) -> tuple[str, list[str]]:
    """Register the code spec ``spec`` (options included) for every game of ``games``
    (default all) it can play, so the tables offer it (``pasur serve --agent SPEC``),
    under a short name: its class or factory with the options (``MostCards:last=true``).
    Returns the name and those games; ``ValueError`` naming the spec when it builds for
    none of them (or at all), or when its name is another agent's."""
    code, options = parse_agent_spec(spec)
    if not is_code_spec(code):
        raise ValueError(agent_failure(spec, "--agent takes a spec of your own agent, "
                                       "path/to/file.py:Class or package.module:Class"))
    obj = load_code(code)
    name = code.rpartition(":")[2] + spec.strip()[len(code):]
    fits, why = [], ""
    for gid in games or GAME_IDS:
        if _ORIGINS[_game(gid)].get(name, "spec") != "spec":
            raise ValueError(agent_failure(spec, f"{name!r} is already the name of an agent "
                                           f"({_ORIGINS[gid][name]}); rename the class"))
        try:
            build_object(spec, obj, seed=0, game=gid, options=options)
        except ValueError as e:
            why = str(e)
            continue
        factory = _code_factory(spec, obj, gid)
        register(name, lambda seed=None, f=factory: f(seed=seed, **options),
                 game=gid, overwrite=True, origin=f"spec {spec.strip()}")
        fits.append(gid)
    if not fits:
        raise ValueError(why)
    return name, fits


#: Python's words for a keyword a callable does not take
_UNEXPECTED = re.compile(r"(\w+)(?:\.__init__)?\(\) got an unexpected keyword argument '(\w+)'")


def _with_options(name: str, factory: Factory, *args: Any, **kwargs: Any) -> Policy:
    """``factory(*args, **kwargs)``, where an option the agent does not take (``ismcts:
    budgt=200``) is a ``TypeError`` naming the agent, the closest option and its options
    instead of Python's ``ISMCTSAgent.__init__() got an unexpected keyword argument``."""
    try:
        return factory(*args, **kwargs)
    except TypeError as e:
        bad = _UNEXPECTED.search(str(e))
        if bad is None or bad.group(2) not in kwargs:
            raise
        options = _options_of(bad.group(1), e.__traceback__)
        known = ("" if options is None else f"; its options: {', '.join(options)}" if options
                 else "; it takes none")
        raise TypeError(f"agent {name!r} has no option {bad.group(2)!r}"
                        f"{did_you_mean(bad.group(2), options or ())}{known}") from None


def _options_of(callee: str, tb: Any) -> list[str] | None:
    """The keyword options of the callable named ``callee`` that a factory called (found
    in the frames of the traceback ``tb``), without ``seed``; None when not found."""
    while tb is not None:
        frame = tb.tb_frame
        for value in (*frame.f_locals.values(), *frame.f_globals.values()):
            if callable(value) and getattr(value, "__name__", None) == callee:
                try:
                    params = inspect.signature(value).parameters.values()
                except (TypeError, ValueError):
                    return None
                return [p.name for p in params if p.name not in ("self", "seed")
                        and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
        tb = tb.tb_next
    return None


# ---- specs with options -----------------------------------------------------------------
def parse_value(text: str) -> Any:
    """A command-line value: int, float, bool or None where it looks like one, else text."""
    t = text.strip()
    low = t.lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    if low in ("none", "null"):
        return None
    for conv in (int, float):
        try:
            return conv(t)
        except ValueError:
            pass
    return t


def parse_agent_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split ``"ismcts:budget=200,rollouts=4"`` into ``("ismcts", {"budget": 200, ...})``
    (and ``"openspiel:ismcts:max_time=0.5"`` into ``("openspiel:ismcts", {...})``).

    Values go through :func:`parse_value`. A spec without ``:key=value`` options (a
    name or a path) is returned unchanged.
    """
    head, eq, _ = spec.partition("=")
    if not eq or ":" not in head:
        return spec.strip(), {}
    # the options follow the last ":" before the first "=": names may hold ":" too
    name, rest = spec[: head.rindex(":")], spec[head.rindex(":") + 1:]
    kwargs: dict[str, Any] = {}
    for item in rest.split(","):
        if not item.strip():
            continue
        key, eq, value = item.partition("=")
        if not eq or not key.strip().isidentifier():
            raise ValueError(f"bad agent option {item!r} in {spec!r}: expected key=value")
        kwargs[key.strip()] = parse_value(value)
    return name.strip(), kwargs


def build_agent(spec: str | Policy, seed: int | None = None, game: str = "pasur") -> Policy:
    """:func:`make_agent` for a spec that may carry ``:key=value`` options."""
    if not isinstance(spec, str) or registered_name(spec, game) is not None:
        return make_agent(spec, game=game, seed=seed)  # a name may hold options (offer_spec)
    name, kwargs = parse_agent_spec(spec)
    return make_agent(name, game=game, seed=seed, **kwargs)


def agent_label(spec: str | Policy) -> str:
    """Display name: the spec string, or the agent's ``name``."""
    return spec.strip() if isinstance(spec, str) else str(getattr(spec, "name", spec))


def with_spec(role: str, spec: str | Policy) -> str:
    """How a check names a seat (``agent A``, ``the agent at seat 1``): with the spec of a
    user's agent (``agent A (./my_agent.py:MostCards)``), whose own name may say little."""
    code = isinstance(spec, str) and is_code_spec(parse_agent_spec(spec)[0])
    return f"{role} ({agent_label(spec)})" if code else role


def as_agent(spec: Any, *, seed: int | None = None, game: str = "pasur") -> Policy:
    """Anything that can play, as a policy: a name or path (:func:`build_agent`), a
    :class:`pasur_env.Policy`, an SB3 model or policy (a
    :class:`~agents.learned.sb3.PolicyAgent`), or a callable ``(obs, mask) -> action``."""
    if isinstance(spec, (str, Policy)):
        return build_agent(spec, seed=seed, game=game)
    from agents.learned.sb3 import PolicyAgent, is_sb3_policy

    if hasattr(spec, "predict") or is_sb3_policy(spec):
        return PolicyAgent(spec, seed=seed)
    if callable(spec):
        return CallablePolicy(spec)
    raise TypeError(
        "an agent must be a name or path, a pasur_env.Policy, an SB3 model/policy or a "
        f"callable (obs, mask) -> action; got {type(spec).__name__}"
    )


#: registered Pasur agent names (built-ins first); :func:`agent_names` for any game
AGENT_NAMES: list[str] = _NAMES[_game(DEFAULT_GAME)]
