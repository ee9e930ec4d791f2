"""The one command-line parser of the training scripts: ``--config NAME`` presets plus
field overrides, over a dataclass of arguments (tyro).

Every pipeline declares its settings as a dataclass with a docstring per field (the
``--help`` text) and a table of named presets (``CONFIGS``: ``default`` is the
dataclass's own defaults). The command line picks a preset with ``--config``, then any
flag overrides a field. :func:`config_cli` goes the other way: the flags that rebuild a
run from its preset, and :func:`command_line` the whole command, for the reports'
"command to reproduce".

The fields the entry points share are the command line's one vocabulary
(:mod:`agents.apps.flags`, ``docs/cli.md``): ``--game``, ``--seed`` (default 0),
``--progress/--no-progress`` (default: on when stderr is a terminal), ``--rounds`` (of
the final evaluation), ``--out DIR`` and ``--name``; the old spellings of
:data:`agents.apps.flags.DEPRECATED` are rewritten, each with a one-line warning.
"""

from __future__ import annotations

import dataclasses
import shlex
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import tyro

from agents.apps.flags import Parser, progress_on, upgrade_argv
from pasur_env.core.args import did_you_mean
from pasur_env.games import game_info

__all__ = ["parse_config_args", "config_cli", "command_line", "check_configs"]

T = TypeVar("T")

#: fields never written into a reproducing command line
_NOT_REPRODUCED = ("config", "resume", "progress")


def check_configs(cls: type, configs: Mapping[str, Mapping[str, Any]]) -> None:
    """Raise ``ValueError`` when a preset sets a field that ``cls`` does not have (a
    typo in a preset would otherwise be a ``TypeError`` deep inside the dataclass)."""
    names = {f.name for f in dataclasses.fields(cls)}
    if "default" not in configs:
        raise ValueError(f"the presets of {cls.__qualname__} need a 'default' entry; "
                         f"got {sorted(configs)}")
    for preset, values in configs.items():
        unknown = sorted(set(values) - names)
        if unknown:
            raise ValueError(f"preset {preset!r} of {cls.__qualname__} sets unknown "
                             f"field(s) {unknown}; the fields are {sorted(names)}")


def parse_config_args(cls: type[T], configs: Mapping[str, Mapping[str, Any]],
                      argv: list[str] | None, prog: str, description: str | None,
                      check: Callable[[T], str | None] | None = None,
                      games: Sequence[str] | None = None) -> T:
    """Command line -> a ``cls`` instance: ``--config`` picks the preset of ``configs``
    whose values replace the dataclass defaults, flags given on the command line win.

    Old spellings are rewritten first (:func:`agents.apps.flags.upgrade_argv`); a
    ``progress`` field the preset leaves alone is on when stderr is a terminal; a
    ``game`` field must name a game, one of ``games`` when given (the games the
    pipeline trains). ``check(args)`` returns an error message for settings that do not
    go together (or None); like an unknown ``--config``, it exits with status 2 after
    one line under the program's name.
    """
    check_configs(cls, configs)
    argv = upgrade_argv(sys.argv[1:] if argv is None else list(argv), prog)
    pre = Parser(prog=prog, add_help=False)
    pre.add_argument("--config", default="default")
    known, _ = pre.parse_known_args(argv)
    if known.config not in configs:
        pre.error(f"unknown --config {known.config!r}{did_you_mean(known.config, configs)}; "
                  f"known: {sorted(configs)}")
    values = {**configs[known.config], "config": known.config}
    if "progress" in {f.name for f in dataclasses.fields(cls)}:
        values.setdefault("progress", progress_on())
    args = tyro.cli(cls, default=cls(**values), args=argv, description=description, prog=prog)
    problem = _game_problem(args, games) or (check(args) if check is not None else None)
    if problem:
        pre.error(problem)
    return args


def _game_problem(args: Any, games: Sequence[str] | None) -> str | None:
    """What is wrong with ``args.game`` (an unknown game, or one the pipeline does not
    train), or None."""
    game = getattr(args, "game", None)
    if game is None:
        return None
    try:
        game_info(game)
    except ValueError as e:
        return str(e)
    if games is not None and game not in games:
        return f"--game {game}: this pipeline trains {', '.join(games)} only"
    return None


def config_cli(args: Any, configs: Mapping[str, Mapping[str, Any]],
               always: Sequence[str] = ()) -> list[str]:
    """The flags of ``args`` that differ from the preset ``args.config`` (to reproduce
    a run): ``["--config long", "--total-timesteps 10"]``; the fields named in
    ``always`` are written even at their preset's value. Values are quoted for a shell
    where they need it."""
    cls = type(args)
    base = cls(**configs[args.config])
    out = [f"--config {args.config}"] if args.config != "default" else []
    for f in dataclasses.fields(cls):
        v = getattr(args, f.name)
        if f.name not in _NOT_REPRODUCED and (f.name in always or v != getattr(base, f.name)):
            flag = "--" + f.name.replace("_", "-")
            out.append(flag if v is True else f"--no-{flag[2:]}" if v is False
                       else f"{flag} {shlex.quote(str(v))}")
    return out


def command_line(module: str, args: Any, configs: Mapping[str, Mapping[str, Any]]) -> str:
    """The whole command that reproduces a run: ``python -m MODULE``, its ``--config``,
    its ``--name`` (always: a report names the run it made) and every other flag that
    differs from the preset; ``shlex.split`` of it parses back to the same settings."""
    return " ".join([f"python -m {module}", *config_cli(args, configs, always=("name",))])
