"""Agents written by users: ``path/to/file.py:Class`` and ``package.module:Class`` specs,
their options, their checks and their provenance.

A *code spec* names a class (or a factory function) in a Python file or an importable
module; :mod:`agents.registry` builds it when no registered name or loader matches the
spec (so ``openspiel:mcts`` stays OpenSpiel's bot). Loading code is always explicit: a
spec a person typed, or a package they installed (the entry-point group
:data:`ENTRY_POINT_GROUP`, read by the registry); the web table never builds a spec
from a request.

Every failure is a ``ValueError`` or ``TypeError`` that names the agent's spec and says
what is wrong in the project's words: a file or module that does not import (and the
one-line reason), a missing attribute, an object that is not an agent (not callable,
no ``act``), an option the agent does not take (its options listed, from its
signature) or of the wrong type, an agent of another game.

Results record where each agent came from (:func:`provenance`): the spec, and for a
user's agent the source file and the SHA-256 of its text, so a figure can be traced to
the code that made it.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import re
import sys
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pasur_env.core.args import brief, did_you_mean
from pasur_env.core.policy import Policy, refuse_other_game

__all__ = ["ENTRY_POINT_GROUP", "is_code_spec", "load_code", "build_object", "source_file",
           "file_digest", "provenance", "agent_failure"]

#: the entry-point group an installed package registers named agents in
ENTRY_POINT_GROUP = "pasur_env.agents"

_FILE = re.compile(r"^(?P<path>.+\.py)(?::(?P<attr>[^:]*))?$", re.IGNORECASE)
_MODULE = re.compile(r"^(?P<module>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*):(?P<attr>[A-Za-z_][\w.]*)$")
#: the option types a spec's values are checked against (``:key=value`` gives these)
_SIMPLE = (bool, int, float, str)


def is_code_spec(spec: str) -> bool:
    """Whether ``spec`` (without options) names code: ``file.py[:Attr]`` or ``module:Attr``."""
    return bool(_FILE.match(spec) or _MODULE.match(spec))


def agent_failure(spec: str, what: str) -> str:
    """The one form of a message about an agent: ``agent 'SPEC': WHAT``."""
    return f"agent {spec!r}: {what}"


def _reason(e: BaseException) -> str:
    """The one-line reason of an error in the user's code (its type and first line)."""
    if isinstance(e, SyntaxError):
        where = f" (line {e.lineno})" if e.lineno else ""
        return f"SyntaxError: {e.msg}{where}"
    first = str(e).strip().splitlines()[0] if str(e).strip() else ""
    return f"{type(e).__name__}: {first}" if first else type(e).__name__


def _import_file(spec: str, path_text: str) -> tuple[Any, Path]:
    """The module of a Python file (relative paths from the working directory)."""
    path = Path(path_text).expanduser()
    full = path.resolve()
    if not full.is_file():
        raise ValueError(agent_failure(spec, f"no file {path_text} (looked for {full})"))
    name = "pasur_user_" + hashlib.sha256(str(full).encode()).hexdigest()[:16]
    if name in sys.modules:  # one module per file: a spec built twice shares its classes
        return sys.modules[name], full
    loader = importlib.util.spec_from_file_location(name, full)
    if loader is None or loader.loader is None:
        raise ValueError(agent_failure(spec, f"{path_text} is not a Python file"))
    module = importlib.util.module_from_spec(loader)
    sys.modules[name] = module  # before running it: dataclasses and pickle look it up
    sys.path.insert(0, str(full.parent))  # so it can import the files next to it
    try:
        loader.loader.exec_module(module)
    except Exception as e:  # noqa: BLE001 - the user's code: its own one-line reason
        del sys.modules[name]
        raise ValueError(agent_failure(spec, f"{path_text} did not import: {_reason(e)}")) from None
    finally:
        sys.path.remove(str(full.parent))
    return module, full


def _import_module(spec: str, name: str) -> Any:
    """An importable module; ``ValueError`` saying whether it is missing or broken."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name is not None and (name == e.name or name.startswith(e.name + ".")):
            raise ValueError(agent_failure(
                spec, f"no module named {e.name!r} on the Python path (set PYTHONPATH to "
                "its folder, install its package, or give the file: path/to/file.py:Class)"
            )) from None
        failed: Exception = e
    except Exception as e:  # noqa: BLE001 - the user's code: its own one-line reason
        failed = e
    raise ValueError(agent_failure(spec, f"module {name} did not import: {_reason(failed)}"))


def _candidates(module: Any) -> list[str]:
    """What a module defines that could be an agent: its own classes and functions."""
    return [k for k, v in vars(module).items() if not k.startswith("_")
            and (inspect.isclass(v) or inspect.isfunction(v))
            and getattr(v, "__module__", None) == module.__name__]


def load_code(spec: str) -> Any:
    """The class or factory a code spec (:func:`is_code_spec`, options removed) names."""
    m = _FILE.match(spec)
    if m is not None:
        module, _ = _import_file(spec, m.group("path"))
        where, attr = m.group("path"), m.group("attr")
    else:
        m = _MODULE.match(spec)
        if m is None:
            raise ValueError(agent_failure(spec, "not a spec of the form path/to/file.py:Class "
                                           "or package.module:Class"))
        module = _import_module(spec, m.group("module"))
        where, attr = f"module {m.group('module')}", m.group("attr")
    defined = _candidates(module)
    if not attr:
        raise ValueError(agent_failure(spec, f"name the class or factory that plays, "
                                       f"{spec.rstrip(':')}:NAME ({where} defines "
                                       f"{', '.join(defined) or 'none'})"))
    obj = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise ValueError(agent_failure(
                spec, f"{where} has no {attr!r}{did_you_mean(part, defined)}; it defines "
                f"{', '.join(defined) or 'no classes or functions'}"))
        obj = getattr(obj, part)
    return obj


# ---- building, with its options checked -----------------------------------------------
def _parameters(obj: Any) -> tuple[dict[str, inspect.Parameter], bool] | None:
    """The keyword parameters of a class's constructor or a factory, and whether it
    takes ``**kwargs``; None when Python cannot tell (a builtin)."""
    try:
        params = inspect.signature(obj).parameters
    except (TypeError, ValueError):
        return None
    named = {k: p for k, p in params.items()
             if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    return named, any(p.kind == p.VAR_KEYWORD for p in params.values())


def _expected_type(obj: Any, param: inspect.Parameter) -> type | None:
    """The simple type an option must have: its annotation, else its default's type."""
    target = obj.__init__ if inspect.isclass(obj) else obj
    try:
        hint = typing.get_type_hints(target).get(param.name)
    except Exception:  # noqa: BLE001 - an annotation that does not evaluate: no check
        hint = None
    if hint is None and param.default is not param.empty and param.default is not None:
        hint = type(param.default)
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    if len(args) == 1 and hint not in _SIMPLE:  # ``int | None``
        hint = args[0]
    return hint if hint in _SIMPLE else None


def _fits(value: Any, kind: type) -> bool:
    if kind is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, kind)


def _check_options(spec: str, obj: Any, options: Mapping[str, Any]) -> bool:
    """Refuse options ``obj`` does not take, or of the wrong type; returns whether it
    takes ``seed`` (else the agent is seeded through ``reset``)."""
    found = _parameters(obj)
    if found is None:
        return True
    named, var_kw = found
    accepted = [k for k in named if k not in ("self", "seed")]
    for key, value in options.items():
        if key not in named and not var_kw:
            known = f"its options: {', '.join(accepted)}" if accepted else "it takes none"
            raise TypeError(agent_failure(spec, f"no option {key!r}"
                                          f"{did_you_mean(key, accepted)}; {known}"))
        kind = _expected_type(obj, named[key]) if key in named else None
        if kind is not None and value is not None and not _fits(value, kind):
            raise TypeError(agent_failure(spec, f"option {key!r} must be {kind.__name__}, "
                                          f"got {value!r}"))
    return "seed" in named or var_kw


def build_object(spec: str, obj: Any, *, seed: int | None, game: str,
                 options: Mapping[str, Any]) -> Policy:
    """The agent ``obj`` (a class or factory) makes with ``options``, checked: an
    object that is not an agent, an option it does not take, an agent of another game
    raise ``TypeError``/``ValueError`` naming ``spec``."""
    what = getattr(obj, "__name__", type(obj).__name__)
    if not callable(obj):
        raise TypeError(agent_failure(spec, f"it names {type(obj).__name__} {brief(obj)}, not "
                                      "an agent class or a function that makes one"))
    if inspect.isclass(obj) and inspect.isabstract(obj):
        missing = ", ".join(sorted(getattr(obj, "__abstractmethods__", ())))
        raise TypeError(agent_failure(spec, f"{what} does not define {missing} (the agent "
                                      "protocol: docs/agents.md)"))
    takes_seed = _check_options(spec, obj, options)
    try:
        agent = obj(**options, seed=seed) if takes_seed else obj(**options)
    except Exception as e:  # noqa: BLE001 - the user's code: its own one-line reason
        raise ValueError(agent_failure(spec, f"{what}(...) failed: {_reason(e)}")) from None
    if not isinstance(agent, Policy):
        lacks = [a for a in ("act", "reset", "name", "needs_observation")
                 if not hasattr(agent, a)] or ["a callable act"]
        raise TypeError(agent_failure(
            spec, f"{what}(...) made a {type(agent).__name__}, which is not an agent: it lacks "
            f"{', '.join(lacks)} (subclass agents.Agent; the protocol: docs/agents.md)"))
    if not takes_seed and seed is not None:
        agent.reset(seed)
    refuse_other_game(agent, game, f"agent {spec!r}")
    return agent


# ---- provenance ----------------------------------------------------------------------
def source_file(obj: Any) -> Path | None:
    """The file that defines ``obj`` (a class, a function, or an instance's class)."""
    target = obj if inspect.isclass(obj) or callable(obj) and not hasattr(obj, "act") \
        else type(obj)
    try:
        found = inspect.getsourcefile(target)
    except (TypeError, OSError):
        return None
    return Path(found).resolve() if found else None


def file_digest(path: Path) -> str:
    """SHA-256 of a file's bytes (hex): the same code gives the same digest."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def weights_file(agent: Any, players: int | None = None) -> Path | None:
    """The file of weights ``agent`` plays with at a table of ``players``: what its
    ``weights_file(players)`` says (the move networks, whose shipped file depends on
    the table), else its ``path`` (saved models, CFR policies); None when it has none."""
    find = getattr(agent, "weights_file", None)
    try:
        found = find(players) if callable(find) else getattr(agent, "path", None)
    except (TypeError, ValueError):
        return None
    if isinstance(found, (str, Path)) and Path(found).is_file():
        return Path(found).resolve()
    return None


def provenance(label: str, agent: Any, origin: str,
               players: int | None = None) -> dict[str, Any]:
    """Where an agent came from, for a result's JSON: its spec (``label``), ``origin``
    (``built-in``, ``entry point DIST VERSION``, ``spec``, ``registered``, ``instance``),
    its class and the SHA-256 of the class's file (and, but for a built-in, that file),
    and the file of its weights with its SHA-256 when it plays with one
    (:func:`weights_file`): a figure names the code and the network that made it."""
    out: dict[str, Any] = {"spec": label, "origin": origin}
    path = source_file(agent)
    if path is not None and path.is_file():
        if origin != "built-in":
            out["file"] = str(path)
        out["sha256"] = file_digest(path)
    module = type(agent).__module__
    out["class"] = type(agent).__qualname__ if module.startswith("pasur_user_") \
        else f"{module}.{type(agent).__qualname__}"
    weights = weights_file(agent, players)
    if weights is not None:
        out.update(weights=weights.name if origin == "built-in" else str(weights),
                   weights_sha256=file_digest(weights))
    return out
