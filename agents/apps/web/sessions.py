"""What every game at the web table shares: the table interface and a bounded, expiring store.

A table (:class:`TableGame`) is one game with one person and an agent for every other
seat; each game (Pasur: :mod:`agents.apps.web.pasur_table`) implements it. The app
(:mod:`agents.apps.web.app`) only talks to this interface: :meth:`TableGame.from_form`
builds a table from the start form (the game's ``FORM``, a
:class:`~agents.apps.web.forms.StartForm`), :meth:`TableGame.offered_agents` says which
agents can play it, :meth:`TableGame.view` is everything the person's seat may know,
:meth:`TableGame.play` the person's move (a dict the table checks),
:meth:`TableGame.resume` closes a round's summary, :meth:`TableGame.hint` what the
strongest agent would play, ``record`` the game's record once it is over.

A state change goes through :meth:`TableGame.apply`: it checks the version the person
saw (a stale or repeated move is refused with :class:`StaleMove` and changes nothing),
snapshots the table, runs the change and restores the snapshot if anything fails, so a
person's move and the agents' replies either all happen or none does. An agent that
fails raises :class:`AgentError` naming it; the game stays playable.

:class:`GameStore` holds games under unguessable ids, bounded both in number
(``max_games``) and in estimated memory (``max_bytes``, from each table's
:meth:`TableGame.footprint`); it forgets games idle for ``idle_seconds`` and, when
full, evicts the games idle longest (at least ``evict_after`` seconds) before
refusing a new one with :class:`ServerFull`. Every game has a lock: its methods run
in worker threads (agents' searches release the GIL), one at a time per game.
"""

from __future__ import annotations

import secrets
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

from agents.apps.web.forms import FieldError, MoveForm, StartForm, check_fields
from agents.registry import agent_names, registered_name
from pasur_env.core.args import SEED_MAX, check_seed

__all__ = ["TableGame", "GameStore", "Event", "AgentError", "StaleMove", "ServerFull",
           "check_agent_name", "new_seed", "table_seed"]

_T = TypeVar("_T")


def check_agent_name(name: str, game: str = "pasur") -> str:
    """A registered agent name of ``game`` (as registered, else in lower case); anything
    else (a path, a code spec, an unknown name) raises: a request never loads code."""
    known = registered_name(name, game) if isinstance(name, str) else None
    if known is None:
        raise ValueError(f"unknown agent {name!r}: choose one of {', '.join(agent_names(game))}")
    return known


def new_seed() -> int:
    """The seed of a game started without one: 64 bits from :mod:`secrets`, so a deal
    cannot be guessed from the seeds of other games."""
    return secrets.randbits(64)


def table_seed(seed: Any) -> int:
    """The seed of a new table: ``seed`` after the engines' one seed rule (an integer in
    ``0..2**64 - 1``), or 64 fresh bits (:func:`new_seed`) when it is None."""
    checked = check_seed(seed)
    return new_seed() if checked is None else checked


@dataclass
class Event:
    """One full move, or a round's end, as the page's move log shows it."""

    kind: str  # "move" or "round"
    data: dict[str, Any]


class AgentError(RuntimeError):
    """An agent failed to move: says which seat and agent, and why.

    A table raises it from its agents' turns; the move that led there is undone, so
    the game stays playable (the person may try again or start a new game). From a
    hint (``hint=True``: the agent advising the person's seat) nothing had changed.
    """

    def __init__(self, seat: int, name: str, error: BaseException, *,
                 hint: bool = False) -> None:
        who = "the hint's agent" if hint else "the agent"
        super().__init__(f"{who} {name!r} at seat {seat} failed: "
                         f"{type(error).__name__}: {error}")
        self.seat, self.name, self.error, self.hint = seat, name, error, hint


class StaleMove(ValueError):
    """A move made against a version of the game that is not the current one (a
    repeated click, a second tab): refused, nothing changes (the app answers 409)."""


class ServerFull(RuntimeError):
    """The store holds as many games (or as much memory) as it may (the app answers 503)."""


class TableGame(ABC):
    """One person against agents at one game's table (module docstring).

    Subclasses set ``game`` (a game id), ``lock`` (a ``threading.Lock``), ``last_used``
    (``time.monotonic()`` of the last request) and ``record`` (the game's record), and
    implement the abstract methods. ``version`` counts the state changes made through
    :meth:`apply`.
    """

    #: the game id (:data:`pasur_env.games.GAMES`)
    game: str = ""
    #: the game's start form (its fields; ``game`` fixed to the game id)
    FORM: ClassVar[type[StartForm]] = StartForm
    #: the game's move request
    MOVE: ClassVar[type[MoveForm]] = MoveForm
    lock: threading.Lock
    last_used: float
    record: Any
    #: the seed of the deals and the agents
    seed: int
    #: the person's seat
    human: int
    #: the round's summary while it waits to be closed (None otherwise)
    sheet: Any = None
    version: int = 1
    #: the pictures drawn at one state: (that state, {key: SVG}) (:meth:`drawn`)
    _drawings: tuple[tuple[Any, ...], dict[tuple[Any, ...], str]] | None = None

    @classmethod
    def from_form(cls, form: dict[str, Any] | StartForm, seed: int | None = None) -> TableGame:
        """A table from the start form: a checked ``FORM``, or its JSON (``game`` may be
        left out), which is checked here (:class:`FieldError` names a malformed field).
        ``seed`` (else the form's; else 64 fresh bits) seeds the deals and the agents."""
        if not isinstance(form, cls.FORM):
            if not isinstance(form, dict):
                raise FieldError("body", "the start form must be a JSON object")
            form = check_fields(cls.FORM, {"game": cls.game, **form})
        return cls._from_checked(form, table_seed(form.seed if seed is None else seed))

    @classmethod
    @abstractmethod
    def _from_checked(cls, form: Any, seed: int) -> TableGame:
        """A table from a checked start form (a ``FORM``) and its seed; raises
        ``ValueError`` naming what the game refuses."""

    def checked_move(self, body: dict[str, Any] | MoveForm) -> Any:
        """The person's move as a checked ``MOVE`` (:class:`FieldError` names a malformed
        field). A move given as a dict without ``version`` (the terminal, tests) is made
        on the current version."""
        if isinstance(body, self.MOVE):
            return body
        if not isinstance(body, dict):
            raise FieldError("body", "a move must be a JSON object")
        return check_fields(self.MOVE, {"version": self.version, **body})

    def hint_seed(self) -> int:
        """The seed of the agent asked for a hint now: a new one after every action (in
        the seeds' range, whatever the table's seed)."""
        return (self.seed + len(self.record.actions)) % (SEED_MAX + 1)

    @classmethod
    @abstractmethod
    def offered_agents(cls, players: int) -> list[str]:
        """The registered agents that can play a seat at a table of ``players``."""

    @property
    @abstractmethod
    def over(self) -> bool:
        """Whether the game has ended."""

    @abstractmethod
    def view(self, layout: str = "narrow") -> dict[str, Any]:
        """Everything the person's seat may know (JSON-ready), the table drawn in
        ``layout`` (:data:`pasur_env.core.drawing.LAYOUTS`: ``narrow`` for a phone,
        ``wide`` for a desktop screen)."""

    @abstractmethod
    def play(self, body: dict[str, Any] | MoveForm) -> None:
        """The person's move (a ``MOVE``, or its fields: :meth:`checked_move`); the agents
        answer until it is the person's turn again."""

    @abstractmethod
    def _mover(self) -> int:
        """The seat to move."""

    @abstractmethod
    def _agent_turn(self, seat: int) -> None:
        """Let the agent at ``seat`` play its whole turn (raises :class:`AgentError`)."""

    @property
    def paused(self) -> bool:
        """Whether a round's summary waits to be closed (:meth:`resume`)."""
        return self.sheet is not None and not self.over

    def check_my_turn(self) -> None:
        """Raise ``ValueError`` saying why the person cannot move now (if so)."""
        if self.over:
            raise ValueError("the game is over")
        if self.paused:
            raise ValueError("the round is over: continue to the next round first")
        if self._mover() != self.human:
            raise ValueError(f"it is player_{self._mover()}'s turn, not yours")

    def advance(self) -> None:
        """Let the agents move until it is the person's turn, a round ends, or the game does."""
        while not self.over and not self.paused and self._mover() != self.human:
            self._agent_turn(self._mover())

    def resume(self) -> None:
        """Leave a round's summary: the next round goes on."""
        if self.over:
            raise ValueError("the game is over")
        if self.sheet is None:
            raise ValueError("no round is waiting to be closed")
        self.sheet = None
        self.advance()

    @abstractmethod
    def hint(self) -> dict[str, Any]:
        """What the strongest available agent would play in the person's place."""

    def ask_hint(self, name: str, moves: Callable[[], _T]) -> _T:
        """``moves()``: the hint agent ``name``'s play in the person's place (on a copy
        of the game). Whatever makes it fail is raised as an :class:`AgentError` naming
        the agent (the app answers 424), so a hint never ends in a server error."""
        try:
            return moves()
        except Exception as e:  # noqa: BLE001 - the hint's agent failed: name it
            raise AgentError(self.human, name, e, hint=True) from e

    @abstractmethod
    def snapshot(self) -> Any:
        """Every mutable part of the table but the agents (see :meth:`restore`)."""

    @abstractmethod
    def restore(self, snap: Any) -> None:
        """Put the table back as :meth:`snapshot` found it."""

    def footprint(self) -> int:
        """Estimated bytes this game holds (shared models not counted); the store's
        memory bound adds these up."""
        return 64 * 1024

    def drawn(self, key: tuple[Any, ...], draw: Callable[[], str]) -> str:
        """``draw()``, a picture of the table (SVG), drawn once per state of the game:
        asked again for the same ``key`` (what is drawn, the layout) before anything
        changes (a reload, a second tab), it is not drawn again.

        The pictures kept are those of one state, the one named by :meth:`_drawn_state`
        (the version, the actions played, whether a round's summary waits): any
        change, through :meth:`apply` or not, leaves them behind, so a picture is
        never older than the table."""
        state = self._drawn_state()
        cache = self._drawings
        if cache is None or cache[0] != state:
            cache = self._drawings = (state, {})
        if key not in cache[1]:
            cache[1][key] = draw()
        return cache[1][key]

    def _drawn_state(self) -> tuple[Any, ...]:
        """What names the table's state for :meth:`drawn`."""
        return (self.version, len(self.record.actions), self.sheet is None, self.over)

    def apply(self, change: Callable[[], Any], version: int | None = None) -> Any:
        """Run ``change`` (a move, closing a summary) all or nothing.

        ``version`` (when given) must be the current one, else :class:`StaleMove`.
        On any exception the table is restored and the exception goes on; on success
        the version goes up by one.
        """
        if version is not None and version != self.version:
            raise StaleMove(f"this move was made against version {version} of the game, "
                            f"which is now at version {self.version}: reload the game")
        snap = self.snapshot()
        try:
            out = change()
        except BaseException:
            self.restore(snap)
            raise
        self.version += 1
        return out


@dataclass
class GameStore:
    """Live games under unguessable ids, bounded in number and memory (module docstring)."""

    max_games: int = 200
    idle_seconds: float = 1800.0
    max_bytes: int = 512 * 1024 * 1024
    evict_after: float = 300.0
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

    def used_bytes(self) -> int:
        """The estimated memory of the live games (their :meth:`TableGame.footprint`)."""
        with self.lock:
            games = list(self.games.values())
        return sum(g.footprint() for g in games)

    def _make_room(self, need: int) -> None:
        """Evict the games idle longest (at least ``evict_after``) until one more game
        of ``need`` bytes fits; :class:`ServerFull` when it cannot (call with the lock)."""
        now = time.monotonic()
        used = sum(g.footprint() for g in self.games.values())
        idle = sorted((g.last_used, k) for k, g in self.games.items()
                      if now - g.last_used >= self.evict_after)
        while len(self.games) >= self.max_games or used + need > self.max_bytes:
            if not idle:
                raise ServerFull(
                    f"the server holds {len(self.games)} live games "
                    f"(about {used // 2**20} MB), its limit is {self.max_games} games and "
                    f"{self.max_bytes // 2**20} MB; try again later")
            _, k = idle.pop(0)
            used -= self.games.pop(k).footprint()

    def add(self, game: TableGame) -> str:
        self.purge()
        need = game.footprint()
        with self.lock:
            self._make_room(need)
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
