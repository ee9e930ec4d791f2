"""The command line's one vocabulary: the flags every ``pasur`` command and every
``python -m train.*`` entry point share, their old spellings, and how errors are said.

Written once, here; ``docs/cli.md`` is its table. The ``pasur`` command
(:mod:`agents.apps.cli`) adds its flags with the ``add_*`` functions; the training entry
points declare the same names as dataclass fields and parse them through
:func:`train.common.config.parse_config_args`, which calls :func:`upgrade_argv` and
:func:`progress_on` from here.

* ``--game ID``: one of :data:`pasur_env.games.GAME_IDS`, default ``pasur``;
* ``--seed N``: default 0 in every command (:data:`SEED_DEFAULT`), so the same command
  gives the same result;
* ``--progress/--no-progress``: progress on stderr, on when stderr is a terminal;
* ``--rounds N``: duplicate-deal rounds, a multiple of the seatings of a deal
  (:func:`whole_deals`);
* ``--json [PATH]``: the result as JSON (no PATH or ``-``: stdout);
* ``--out DIR`` and ``--name NAME``: a run's files go to ``DIR/NAME/``;
* the agents a command is about are its positional arguments.

Old spellings (:data:`DEPRECATED`) still work for one release: :func:`upgrade_argv`
rewrites them and says so in one line on stderr. :class:`Parser` says a parse error in
one line under the command's name (no usage dump), with "did you mean" for a misspelled
flag, command or choice.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from typing import Any, NoReturn, TextIO

from pasur_env.core.args import did_you_mean
from pasur_env.games import GAME_IDS

__all__ = [
    "SEED_DEFAULT", "DEPRECATED", "POSITIONAL", "Parser", "add_game", "add_seed",
    "add_progress", "add_rounds", "add_json", "add_agents", "add_episode",
    "progress_on", "upgrade_argv", "whole_deals",
]

#: the one default of ``--seed``
SEED_DEFAULT = 0
#: the words every ``--seed`` help ends with
SEED_RULE = "default 0, as in every command: the same command gives the same result"
#: the words every ``--progress`` help says
PROGRESS_HELP = "progress on stderr (default: on when stderr is a terminal)"

#: an old spelling whose value is now a positional argument (the agents)
POSITIONAL = "AGENT"
_TRAIN_OLD = {"--runs-dir": "--out", "--progress-bar": "--progress",
              "--no-progress-bar": "--no-progress", "--final-eval-rounds": "--rounds"}
#: old spelling -> new one (or :data:`POSITIONAL`), per program; kept for one release
DEPRECATED: dict[str, dict[str, str]] = {
    "pasur eval": {"--mode": "--episode"},
    "pasur play": {"--opponent": POSITIONAL},
    "pasur demo": {"--agent": POSITIONAL},
    "pasur warmup": {"--agent": POSITIONAL},
    "python -m train.move_net": {**_TRAIN_OLD, "--games-per-batch": "--batch"},
    "python -m train.ppo": {**_TRAIN_OLD, "--final-eval-games": "--games",
                            "--opponent-schedule": "--opponent"},
    "python -m train.rllib_ppo": dict(_TRAIN_OLD),
    "python -m train.cfr": {"--runs-dir": "--out"},
    "python -m train.opponent_fit": {"--agent": POSITIONAL},
}


def progress_on(value: bool | None = None, stream: TextIO | None = None) -> bool:
    """``--progress`` (True), ``--no-progress`` (False), or neither (None): on when
    ``stream`` (stderr) is a terminal, so a log file or a pipe gets no bars."""
    if value is not None:
        return bool(value)
    stream = stream if stream is not None else sys.stderr
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def upgrade_argv(argv: Sequence[str], program: str, start: int = 0,
                 err: TextIO | None = None) -> list[str]:
    """``argv`` with the old spellings of ``program`` (:data:`DEPRECATED`) replaced by
    the new ones, each said once in one line on ``err`` (stderr). A deprecated option
    whose value is now positional (``--agent greedy``) moves the value to ``start`` (the
    index after the subcommand), where the positional agents begin."""
    table = DEPRECATED.get(program, {})
    out: list[str] = []
    moved: list[str] = []
    said: set[str] = set()
    err = err if err is not None else sys.stderr
    k = 0
    while k < len(argv):
        tok = argv[k]
        flag, eq, value = tok.partition("=")
        new = table.get(flag) if tok.startswith("--") and k >= start else None
        if tok == "--" or new is None:
            out.extend(argv[k:] if tok == "--" else [tok])
            k += len(argv) if tok == "--" else 1
            continue
        if flag not in said:
            said.add(flag)
            agent = value if eq else argv[k + 1] if k + 1 < len(argv) else "AGENT"
            use = (f"name the agents without it: {program} {agent}" if new == POSITIONAL
                   else f"use {new}")
            print(f"{program}: {flag} is deprecated, {use}", file=err)
        if new != POSITIONAL:
            out.append(new + eq + value)
            k += 1
        elif eq or k + 1 < len(argv):
            moved.append(value if eq else argv[k + 1])
            k += 1 if eq else 2
        else:  # no value: the parser says so
            out.append(tok)
            k += 1
    return out[:start] + moved + out[start:]


def whole_deals(flag: str, value: int | None, default: int, seatings: int) -> int:
    """A count of rounds (or games) played as whole duplicate deals of ``seatings``:
    ``value`` when it is a multiple, else ``ValueError`` saying the multiple (never
    rounded); None: ``default`` rounded up to the next multiple (the help says so)."""
    if value is None:
        return -(-int(default) // seatings) * seatings
    if value < 1:  # not a count at all: the match says so
        return int(value)
    if value % seatings:
        lower = value // seatings * seatings
        choices = " or ".join(str(n) for n in (lower, lower + seatings) if n > 0)
        raise ValueError(f"{flag} {value} is not a whole number of deals: every deal is "
                         f"played in its {seatings} seatings, so give a multiple of "
                         f"{seatings} ({choices})")
    return int(value)


# ---- the shared flags, for argparse ------------------------------------------------------
def add_game(p: argparse.ArgumentParser, repeat: bool = False, help: str | None = None) -> None:
    """``--game ID`` (default pasur); ``repeat``: several, default every game."""
    if repeat:
        p.add_argument("--game", choices=GAME_IDS, action="append", default=None, metavar="ID",
                       help=help or "only this game (repeatable; default: every game)")
        return
    p.add_argument("--game", choices=GAME_IDS, default="pasur", metavar="ID",
                   help=help or f"the game: {', '.join(GAME_IDS)} (default pasur)")


def add_seed(p: argparse.ArgumentParser, what: str = "the deals and agents") -> None:
    """``--seed N`` with the one default (:data:`SEED_DEFAULT`)."""
    p.add_argument("--seed", type=int, default=SEED_DEFAULT, metavar="N",
                   help=f"seed of {what} ({SEED_RULE})")


def add_progress(p: argparse.ArgumentParser) -> None:
    """``--progress/--no-progress`` (``args.progress``: True, False or None = auto)."""
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help=PROGRESS_HELP)


def add_rounds(p: argparse.ArgumentParser, default: int, what: str) -> None:
    """``--rounds N`` (None when not given: :func:`whole_deals` applies the default)."""
    p.add_argument("--rounds", type=int, default=None, metavar="N",
                   help=f"duplicate-deal rounds {what}: a multiple of the seatings of a "
                   f"deal (2 for 2 or 4 players, 6 for 3); default {default:,} (rounded up "
                   "to whole deals)")


def add_json(p: argparse.ArgumentParser, what: str = "the result") -> None:
    """``--json [PATH]``: no PATH or ``-`` is stdout."""
    p.add_argument("--json", nargs="?", const="-", default=None, metavar="PATH",
                   help=f"write {what} as JSON to PATH (no PATH or '-': stdout)")


def add_agents(p: argparse.ArgumentParser, nargs: str, help: str, dest: str = "agents") -> None:
    """The agents a command is about, as positional arguments."""
    p.add_argument(dest, nargs=nargs, metavar="AGENT", help=help)


def add_episode(p: argparse.ArgumentParser, default: str, help: str) -> None:
    """``--episode game|round``: games to the target score, or single rounds."""
    p.add_argument("--episode", choices=("game", "round"), default=default, help=help)


# ---- errors in one line -----------------------------------------------------------------
_CHOICE = re.compile(r"invalid choice: '?([^' ]+)'? \(choose from (.*)\)")


class Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line under the command's name
    (``pasur eval: error: ...``) without the usage, with "did you mean" for a misspelled
    flag, command or choice; an unknown flag is said under its subcommand's name."""

    def parse_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                   namespace: Any = None) -> argparse.Namespace:
        ns, extras = self.parse_known_args(args, namespace)
        if extras:
            self._chosen(ns).error(f"unrecognized arguments: {' '.join(extras)}")
        return ns

    def _chosen(self, ns: argparse.Namespace) -> Parser:
        """The subcommand's parser that read ``ns`` (self when there is none)."""
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                chosen = action.choices.get(getattr(ns, action.dest, None) or "")
                if isinstance(chosen, Parser):
                    return chosen._chosen(ns)
        return self

    def _flags(self) -> list[str]:
        return [s for s in self._option_string_actions if s.startswith("--")]

    def error(self, message: str) -> NoReturn:
        """Exit 2 after one line: the message, a "did you mean", where to read more."""
        m = _CHOICE.search(message)
        if m is not None:
            choices = [c.strip(" '") for c in m.group(2).split(",")]
            message = message[:m.start()] + f"invalid choice {m.group(1)!r}" + did_you_mean(
                m.group(1), choices) + f"; choose from {', '.join(choices)}"
        elif message.startswith("unrecognized arguments: "):
            unknown = [w.partition("=")[0] for w in message.split()[2:] if w.startswith("-")]
            message += did_you_mean(unknown, self._flags()) if unknown else ""
        if "required" in message or "unrecognized" in message or "expected" in message:
            message += f" (see `{self.prog} --help`)"
        self.exit(2, f"{self.prog}: error: {message}\n")

