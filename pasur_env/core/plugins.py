"""Tables of per-game rows, collected by game id: how a game plugs into each layer.

The layers forbid one table for everything (``pasur_env`` never imports ``agents``),
so each layer keeps its own row per game: :class:`pasur_env.games.GameInfo` (engine,
envs, records), :class:`agents.games.AgentGame` (matches, results, built-in agents,
terminal and web tables), :class:`train.move_net.games.NetGame` (the move-network
pipeline). A game declares its rows in its own files; shared code asks the row
(``game_info(game).vector_env_class()``) and never compares game ids.

A :class:`PluginTable` collects the rows of one layer from three sources, in this order:

1. the project's own games: modules named by the table, each holding its row under one
   attribute name (``pasur_env.pasur.game.GAME``);
2. the entry points of the table's group in the installed distributions, each naming a
   row, so a game installed from elsewhere registers without an edit here::

       [project.entry-points."pasur_env.games"]
       toy = "toy_game.game:GAME"

3. :meth:`PluginTable.register` at run time (the one-line registration:
   ``register_game(GAME)``).

The rows are read on first use, so a table costs nothing until a tool asks for it; an
entry point that fails to load is skipped with a warning naming it.
"""

from __future__ import annotations

import importlib
import re
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from importlib.metadata import EntryPoint, entry_points
from typing import Any, Generic, TypeVar, overload

from pasur_env.core.args import did_you_mean

__all__ = ["PluginTable", "load_object", "loaded_entry_points", "GAME_ID"]

T = TypeVar("T")

#: what a game id looks like (records name their game in ``<game>-record/<n>``)
GAME_ID = re.compile(r"^[a-z][a-z_]*$")


def load_object(path: str) -> Any:
    """The object named by ``"module:attribute"`` (or a module, given no attribute)."""
    module, _, name = path.partition(":")
    obj: Any = importlib.import_module(module)
    for part in name.split(".") if name else ():
        obj = getattr(obj, part)
    return obj


def loaded_entry_points(group: str) -> Iterator[tuple[EntryPoint, Any]]:
    """The entry points of ``group`` in the installed distributions, by name, each with
    the object it names; one that fails to load is skipped with a warning naming it (one
    broken plug-in must not stop the rest)."""
    for ep in sorted(entry_points(group=group), key=lambda e: e.name):
        try:
            obj = ep.load()
        except Exception as e:  # noqa: BLE001 - said, then skipped
            warnings.warn(f"{group} entry point {ep.name!r} ({ep.value}) did not load: "
                          f"{type(e).__name__}: {e}", stacklevel=3)
            continue
        yield ep, obj


class _Ids(Sequence[str]):
    """The ids of a table in order, read live: a game registered later is in it."""

    def __init__(self, table: PluginTable[Any]) -> None:
        self._table = table

    @overload
    def __getitem__(self, i: int) -> str: ...

    @overload
    def __getitem__(self, i: slice) -> tuple[str, ...]: ...

    def __getitem__(self, i: int | slice) -> str | tuple[str, ...]:
        return tuple(self._table)[i]

    def __len__(self) -> int:
        return len(self._table)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and tuple(self) == tuple(other)

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return repr(tuple(self))


class PluginTable(Mapping[str, T], Generic[T]):
    """One layer's rows by game id (module docstring), read-only but for :meth:`register`.

    Args:
        kind: what a row is, for messages (``"game"``, ``"agents row"``).
        builtin: modules holding the project's own rows, in the order of the ids.
        attribute: the name of the row in those modules.
        group: the entry-point group read after them.
        on_register: called with every row added (the game table registers its
            Gymnasium id).
        row_type: the class of a row: :meth:`register` refuses anything else
            (``TypeError``), so a game's ``register_game`` is one line.
    """

    def __init__(self, kind: str, builtin: Sequence[str], attribute: str, group: str,
                 on_register: Callable[[T], None] | None = None,
                 row_type: type | None = None) -> None:
        self.kind, self.builtin, self.attribute, self.group = kind, tuple(builtin), attribute, group
        self._on_register, self.row_type = on_register, row_type
        self._rows: dict[str, T] = {}
        self._loaded = False
        #: the ids, in order, read live
        self.ids: Sequence[str] = _Ids(self)

    # ---- collecting ----------------------------------------------------------------------
    def collect(self) -> dict[str, T]:
        """The rows, collecting the built-in ones and the entry points on first use."""
        if not self._loaded:
            self._loaded = True  # set first: a row's module may look the table up
            for module in self.builtin:
                self._add(getattr(importlib.import_module(module), self.attribute), False)
            for _, row in loaded_entry_points(self.group):
                self._add(row, False)
        return self._rows

    def _add(self, row: T, overwrite: bool) -> T:
        gid = getattr(row, "id", None)
        if not isinstance(gid, str) or not GAME_ID.match(gid):
            raise ValueError(f"a {self.kind} needs an id of lowercase letters and '_' "
                             f"(its records are '<id>-record/<n>'), got {gid!r}")
        if gid in self._rows and self._rows[gid] is not row and not overwrite:
            raise ValueError(f"{self.kind} {gid!r} is already registered (pass overwrite=True)")
        self._rows[gid] = row
        if self._on_register is not None:
            self._on_register(row)
        return row

    def register(self, row: T, *, overwrite: bool = False) -> T:
        """Add ``row`` under its ``id`` (a game id); returns it. An id already taken by
        another row raises ``ValueError`` unless ``overwrite``; a row that is not a
        ``row_type`` raises ``TypeError``."""
        if self.row_type is not None and not isinstance(row, self.row_type):
            raise TypeError(f"register_game() takes a {self.row_type.__name__}, "
                            f"got {type(row).__name__}")
        self.collect()
        return self._add(row, overwrite)

    def unregister(self, game: str) -> None:
        """Remove the row of ``game`` (tests that register a game for a while)."""
        self.collect().pop(game, None)

    # ---- reading -------------------------------------------------------------------------
    def row(self, game: Any) -> T:
        """The row of ``game`` (an id); anything else raises ``ValueError`` naming the ids."""
        rows = self.collect()
        if not isinstance(game, str) or game not in rows:
            raise ValueError(f"unknown game {game!r}{did_you_mean(str(game), rows)}: choose "
                             f"one of {', '.join(rows)}")
        return rows[game]

    def __getitem__(self, game: str) -> T:
        return self.collect()[game]

    def __iter__(self) -> Iterator[str]:
        return iter(list(self.collect()))

    def __len__(self) -> int:
        return len(self.collect())

    def __contains__(self, game: object) -> bool:
        return game in self.collect()

    def __repr__(self) -> str:
        return f"PluginTable({self.kind!r}, {list(self.collect())})"
