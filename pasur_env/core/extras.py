"""The one message for a missing optional dependency: which extra to install.

The core install (numpy, numba, gymnasium, pettingzoo) runs the games, the envs and the
compiled agents; the rest comes with an extra: ``train`` (torch, SB3, the vector envs,
the training scripts, the ``ppo`` agent), ``web`` (``pasur serve``), ``rllib`` (Ray
RLlib agents and training, in a virtual environment of their own), ``openspiel`` (the
OpenSpiel games and the ``openspiel:BOT`` agents). Wherever such a
module is missing, the user reads one line naming the extra and the ``pip install``
command, not a traceback ending in ``No module named 'tyro'``:
:func:`missing_extra` makes that error, :func:`as_missing_extra` recognises a
``ModuleNotFoundError`` of an optional module, and :func:`exit_on_missing_extra`
prints it as one line at the top of a script.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import TracebackType

__all__ = [
    "EXTRA_OF_MODULE",
    "MissingExtraError",
    "as_missing_extra",
    "exit_on_missing_extra",
    "missing_extra",
]

#: top-level module -> the extra that installs it
EXTRA_OF_MODULE: dict[str, str] = {
    "torch": "train",
    "stable_baselines3": "train",
    "sb3_contrib": "train",
    "tensorboard": "train",
    "tqdm": "train",
    "rich": "train",
    "matplotlib": "train",
    "tyro": "train",
    "fastapi": "web",
    "uvicorn": "web",
    "ray": "rllib",
    "pyspiel": "openspiel",
    "open_spiel": "openspiel",
}

#: said after the install command of an extra
_NOTES = {"rllib": " in a virtual environment of its own (Ray RLlib pins gymnasium)"}


class MissingExtraError(ImportError):
    """An optional dependency is not installed; the message names the extra to install."""


def missing_extra(
    what: str, extra: str | None = None, error: ImportError | None = None
) -> MissingExtraError:
    """The error for ``what`` (e.g. ``"pasur serve"``) needing an extra that is missing.

    ``extra``: the extra's name (default: the one that installs the missing module of
    ``error``). The missing module, when known, ends the message.
    """
    module = getattr(error, "name", None)
    extra = extra or EXTRA_OF_MODULE.get((module or "").partition(".")[0], "train")
    message = (f"the {extra} extra is needed for {what}: pip install 'pasur-env[{extra}]'"
               f"{_NOTES.get(extra, '')}")
    if module:
        message += f" (missing module: {module})"
    return MissingExtraError(message, name=module)


def as_missing_extra(error: BaseException, what: str) -> MissingExtraError | None:
    """``error`` as a :class:`MissingExtraError` when it is one, or a
    ``ModuleNotFoundError`` of a module an extra installs; else None (a real bug)."""
    if isinstance(error, MissingExtraError):
        return error
    if isinstance(error, ModuleNotFoundError):
        root = (error.name or "").partition(".")[0]
        if root in EXTRA_OF_MODULE:
            return missing_extra(what, error=error)
    return None


def exit_on_missing_extra(what: str) -> None:
    """Print a missing extra as one line (exit code 1) when it ends the program.

    For entry points run as ``python -m``: installs a ``sys.excepthook`` that handles
    :func:`as_missing_extra`'s errors and passes everything else to the previous hook.
    """
    previous: Callable[..., object] = sys.excepthook

    def hook(kind: type[BaseException], error: BaseException, tb: TracebackType | None) -> None:
        missing = as_missing_extra(error, what)
        if missing is None:
            previous(kind, error, tb)
        else:
            print(f"error: {missing}", file=sys.stderr)

    sys.excepthook = hook
