"""What every game at the web table shares: the table interface and a bounded, expiring store.

A table (:class:`TableGame`) is one game with one person and an agent for every other
seat; each game (Pasur: :mod:`agents.apps.web.pasur_table`) implements it. The app
(:mod:`agents.apps.web.app`) only talks to this interface: :meth:`TableGame.view` is
everything the person's seat may know, :meth:`TableGame.play` the person's move (a
dict the table checks), :meth:`TableGame.resume` closes a round's summary,
:meth:`TableGame.hint` what the strongest agent would play, ``record`` the game's
record once it is over.

:class:`GameStore` holds at most ``max_games`` games under unguessable ids and forgets
games idle for ``idle_seconds``, so memory stays bounded. Every game has a lock: its
methods run in worker threads (agents' searches release the GIL), one at a time per
game.
"""

from __future__ import annotations

import secrets
import threading
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from agents.registry import agent_names

__all__ = ["TableGame", "GameStore", "Event", "AgentError", "check_agent_name"]


def check_agent_name(name: str, game: str = "pasur") -> str:
    """A registered agent name of ``game``; anything else (a path, an unknown name) raises."""
    names = agent_names(game)
    if not isinstance(name, str) or name.strip().lower() not in names:
        raise ValueError(f"unknown agent {name!r}: choose one of {', '.join(names)}")
    return name.strip().lower()


@dataclass
class Event:
    """One full move, or a round's end, as the page's move log shows it."""

    kind: str  # "move" or "round"
    data: dict[str, Any]


class AgentError(RuntimeError):
    """An agent failed to move: says which seat and agent, and why.

    A table raises it from its agents' turns; the move that led there is undone, so
    the game stays playable (the person may try again or start a new game).
    """

    def __init__(self, seat: int, name: str, error: BaseException) -> None:
        super().__init__(f"the agent {name!r} at seat {seat} failed: "
                         f"{type(error).__name__}: {error}")
        self.seat, self.name, self.error = seat, name, error


class TableGame(ABC):
    """One person against agents at one game's table (module docstring).

    Subclasses set ``game`` (a game id), ``lock`` (a ``threading.Lock``), ``last_used``
    (``time.monotonic()`` of the last request) and ``record`` (the game's record).
    """

    #: the game id (:data:`pasur_env.games.GAMES`)
    game: str = ""
    lock: threading.Lock
    last_used: float
    record: Any

    @property
    @abstractmethod
    def over(self) -> bool:
        """Whether the game has ended."""

    @abstractmethod
    def view(self) -> dict[str, Any]:
        """Everything the person's seat may know (JSON-ready)."""

    @abstractmethod
    def play(self, *args: Any, **kwargs: Any) -> None:
        """The person's move; the agents answer until it is the person's turn again."""

    @abstractmethod
    def resume(self) -> None:
        """Close a round's summary: the next round goes on."""

    @abstractmethod
    def hint(self) -> dict[str, Any]:
        """What the strongest available agent would play in the person's place."""


@dataclass
class GameStore:
    """Live games under unguessable ids, bounded in number, forgotten when idle."""

    max_games: int = 200
    idle_seconds: float = 1800.0
    games: dict[str, TableGame] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def purge(self) -> int:
        """Forget the games idle for longer than ``idle_seconds``; returns how many."""
        now = time.monotonic()
        with self.lock:
            old = [k for k, g in self.games.items() if now - g.last_used > self.idle_seconds]
            for k in old:
                del self.games[k]
        return len(old)

    def add(self, game: TableGame) -> str:
        self.purge()
        with self.lock:
            if len(self.games) >= self.max_games:
                raise OverflowError(f"the server holds {self.max_games} live games, its limit; "
                                    "try again later")
            gid = secrets.token_urlsafe(18)
            self.games[gid] = game
        return gid

    def get(self, gid: str) -> TableGame:
        self.purge()
        with self.lock:
            game = self.games.get(gid)
        if game is None:
            raise KeyError("no such game (it may have expired)")
        game.last_used = time.monotonic()
        return game

    def remove(self, gid: str) -> None:
        with self.lock:
            self.games.pop(gid, None)
