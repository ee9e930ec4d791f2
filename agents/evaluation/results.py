"""The result of a match (:class:`EvalResult`): numbers, summary text, JSON and CSV.

Schema 2 of the JSON (``"schema": 2``) adds to the figures what another run needs to be
paired with this one and what a citation needs to be traced: one entry per duplicate
group (``per_deal``: the deal's index in the stream of ``seed``, A's point difference
summed over the group's rounds, its rounds, its round wins and the outcome), the
agents' seed, the library version and git commit, the agents' provenance and the
date. :meth:`EvalResult.from_json` reads schema 2 and the files written before it
(schema 1: the fields they lack are None).
"""

from __future__ import annotations

import csv
import datetime
import functools
import json
import math
import subprocess
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from agents.evaluation.sprt import describe
from agents.games import agent_game
from pasur_env.games import game_info
from pasur_env.version import __version__

__all__ = ["EvalResult", "json_number", "json_float", "write_json", "library_info",
           "git_commit", "SCHEMA", "same_value", "same_fields", "utc_now"]

#: the version of the results' JSON layout (files without ``"schema"`` are version 1)
SCHEMA = 2

#: a deal's outcome for A, by the sign of A's point difference over the group
OUTCOMES = ("loss", "tie", "win")


#: the folder above the packages: a git checkout's top when the code runs from one
_SOURCE_ROOT = Path(__file__).resolve().parents[2]


@functools.lru_cache(maxsize=4)
def git_commit(root: Path = _SOURCE_ROOT) -> str | None:
    """The commit of the checkout at ``root`` (default: the one the code runs from;
    ``+dirty`` when tracked files differ from it), or None when it is not a git
    checkout (an installed wheel) or git is missing."""
    if not (root / ".git").exists():
        return None
    try:
        run = functools.partial(subprocess.run, cwd=root, capture_output=True, text=True,
                                timeout=10, check=True)
        head = run(["git", "rev-parse", "HEAD"]).stdout.strip()
        dirty = run(["git", "status", "--porcelain", "--untracked-files=no"]).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return f"{head}+dirty" if head and dirty else head or None


def library_info() -> dict[str, str | None]:
    """``{"version": ..., "commit": ...}``: the library that made a result (the commit
    None outside a git checkout)."""
    return {"version": __version__, "commit": git_commit()}


def utc_now() -> str:
    """The time now, UTC, to the second (ISO 8601), for a result's ``date``."""
    return datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat()


def same_value(x: Any, y: Any) -> bool:
    """Equality of results' values: NaN equals NaN, arrays compare element-wise (and by
    shape), containers item by item."""
    if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
        if x is None or y is None:
            return x is y
        return bool(np.array_equal(np.asarray(x), np.asarray(y), equal_nan=True))
    if isinstance(x, (list, tuple)) and isinstance(y, (list, tuple)):
        return len(x) == len(y) and all(same_value(a, b) for a, b in zip(x, y, strict=True))
    if isinstance(x, dict) and isinstance(y, dict):
        return x.keys() == y.keys() and all(same_value(x[k], y[k]) for k in x)
    if isinstance(x, float) and isinstance(y, float) and math.isnan(x) and math.isnan(y):
        return True
    return bool(x == y)


def json_number(x: Any) -> Any:
    """JSON-safe number: NaN/inf become None, numpy scalars plain Python."""
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        x = float(x)
        return x if math.isfinite(x) else None
    return x


def same_fields(x: Any, y: Any) -> bool:
    """Whether two dataclass instances hold equal values, field by field (:func:`same_value`)."""
    return all(same_value(getattr(x, f.name), getattr(y, f.name)) for f in fields(x))


@dataclass(eq=False)
class EvalResult:
    """Outcome of :func:`evaluate` (A minus B; rates are A's).

    The per-group arrays (``group_*``: one entry per duplicate group, the groups of the
    run the round statistics come from) feed the tournament's bootstrap and a paired
    comparison (:mod:`agents.evaluation.compare`); :meth:`to_json` writes them as
    ``per_deal``. How the numbers read (points per seat or per team: Persian Rummy's
    ``mean_points_a`` is A's team per round) is the game's row's
    (:class:`agents.games.AgentGame`). Two results are equal when every field is, NaN
    equal to NaN and arrays element by element. A result read from a file written
    before schema 2 has None where that file has nothing (``group_*``, ``agent_seed``,
    ``library_version``, ``git_commit``, ``date``).
    """

    a: str
    b: str
    players: int
    seed: int
    mode: str
    rules: dict[str, Any]
    seatings: list[str]
    #: the game (an id of :data:`pasur_env.games.GAMES`)
    game: str = "pasur"
    rounds: int = 0
    deals: int = 0
    mean_point_diff: float = math.nan
    std_error: float = math.nan
    ci95: tuple[float, float] = (math.nan, math.nan)
    mean_points_a: float = math.nan
    mean_points_b: float = math.nan
    round_win_rate: float = math.nan
    round_win_rate_ci95: tuple[float, float] = (math.nan, math.nan)
    round_wins: int = 0
    round_ties: int = 0
    round_losses: int = 0
    games: int = 0
    game_win_rate: float | None = None
    game_win_rate_ci95: tuple[float, float] | None = None
    game_wins: int = 0
    game_ties: int = 0
    mean_rounds_per_game: float | None = None
    seconds: float = 0.0
    decisions: int = 0
    decisions_per_s: float = 0.0
    agent_decisions: dict[str, int] = field(default_factory=dict)
    seconds_per_decision: dict[str, float] = field(default_factory=dict)
    #: where A and B come from (``{"a": {...}, "b": {...}}``: spec, origin and, for a
    #: user's agent, its source file and SHA-256; :func:`agents.registry.agent_provenance`)
    provenance: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: a sequential match's test: hypotheses, error rates, bounds, LLR, decision, rounds
    #: used (:meth:`agents.evaluation.sprt.Sprt.report`); None for a fixed-size match
    sprt: dict[str, Any] | None = None
    group_diff_sum: np.ndarray | None = field(default_factory=lambda: np.zeros(0), repr=False)
    group_win_sum: np.ndarray | None = field(default_factory=lambda: np.zeros(0), repr=False)
    group_rounds: np.ndarray | None = field(default_factory=lambda: np.zeros(0), repr=False)
    #: the deal of each group: deal ``g`` is game ``g`` of the engine seeded ``seed``
    #: (:func:`agents.evaluation.match.duplicate_engine`), whoever plays it
    group_deal: np.ndarray | None = field(
        default_factory=lambda: np.zeros(0, dtype=np.int64), repr=False)
    #: the seed the agents' seeds come from (``seed`` unless given apart from the deals')
    agent_seed: int | None = None
    library_version: str | None = None
    #: the git commit of the code (``+dirty``: with uncommitted changes); None outside a
    #: checkout
    git_commit: str | None = None
    #: when the result was made (UTC, ISO 8601)
    date: str | None = None

    def __eq__(self, other: object) -> bool:
        return same_fields(self, other) if isinstance(other, EvalResult) else NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, compared by value

    @property
    def has_deals(self) -> bool:
        """Whether the per-deal data is there (results before schema 2 lack it)."""
        return self.group_diff_sum is not None and self.group_rounds is not None

    def deal_index(self) -> np.ndarray:
        """The deal of each group (``group_deal``; ``0 .. G-1`` when it was not kept)."""
        if self.group_deal is not None and self.group_deal.size == np.size(self.group_rounds):
            return np.asarray(self.group_deal, dtype=np.int64)
        return np.arange(np.size(self.group_rounds), dtype=np.int64)

    @property
    def win_rate(self) -> float:
        """``round_win_rate`` (a tie counts half), the name Persian Rummy's results used."""
        return self.round_win_rate

    @property
    def win_ci95(self) -> tuple[float, float]:
        """``round_win_rate_ci95`` under the name Persian Rummy's results used."""
        return self.round_win_rate_ci95

    @property
    def round_tie_rate(self) -> float:
        return self.round_ties / self.rounds if self.rounds else math.nan

    def to_json(self) -> dict[str, Any]:
        """The result as a JSON-ready dict (write it with ``json.dump``)."""
        out: dict[str, Any] = {
            "schema": SCHEMA,
            "game": self.game,
            "a": self.a,
            "b": self.b,
            "players": self.players,
            "seed": self.seed,
            "agent_seed": self.agent_seed,
            "mode": self.mode,
            "rules": dict(self.rules),
            "seatings": list(self.seatings),
            "rounds": self.rounds,
            "deals": self.deals,
            "mean_point_diff": json_number(self.mean_point_diff),
            "std_error": json_number(self.std_error),
            "ci95": [json_number(x) for x in self.ci95],
            "mean_points_a": json_number(self.mean_points_a),
            "mean_points_b": json_number(self.mean_points_b),
            "round_win_rate": json_number(self.round_win_rate),
            "round_win_rate_ci95": [json_number(x) for x in self.round_win_rate_ci95],
            "round_wins": self.round_wins,
            "round_ties": self.round_ties,
            "round_losses": self.round_losses,
            "round_tie_rate": json_number(self.round_tie_rate),
        }
        if self.games:
            out.update(
                games=self.games,
                game_win_rate=json_number(self.game_win_rate),
                game_win_rate_ci95=[json_number(x) for x in (self.game_win_rate_ci95 or ())],
                game_wins=self.game_wins,
                game_ties=self.game_ties,
                mean_rounds_per_game=json_number(self.mean_rounds_per_game),
            )
        out.update(
            seconds=json_number(self.seconds),
            decisions=self.decisions,
            decisions_per_s=json_number(self.decisions_per_s),
            agent_decisions=dict(self.agent_decisions),
            seconds_per_decision={k: json_number(v) for k, v in self.seconds_per_decision.items()},
        )
        if self.provenance:
            out["provenance"] = {k: dict(v) for k, v in self.provenance.items()}
        out.update(library={"version": self.library_version, "commit": self.git_commit},
                   date=self.date, per_deal=self._per_deal())
        if self.sprt is not None:
            out["sprt"] = {k: json_number(v) for k, v in self.sprt.items()}
        extra = agent_game(self.game).json_extra  # keys older results were written with
        if extra is not None:
            out.update({k: [json_number(x) for x in v] if isinstance(v, (list, tuple))
                        else json_number(v) for k, v in extra(self).items()})
        return out

    def _per_deal(self) -> dict[str, list[Any]] | None:
        """The groups as columns (JSON ``per_deal``), None when they are not kept."""
        if not self.has_deals:
            return None
        diff = np.asarray(self.group_diff_sum, dtype=np.float64)
        wins = self.group_win_sum
        return {
            "deal": self.deal_index().tolist(),
            "point_diff": diff.tolist(),
            "rounds": np.asarray(self.group_rounds, dtype=np.float64).tolist(),
            "round_wins": None if wins is None else np.asarray(wins, np.float64).tolist(),
            "outcome": [OUTCOMES[int(np.sign(x)) + 1] for x in diff.tolist()],
        }

    @classmethod
    def from_json(cls, data: Any) -> EvalResult:
        """The result of :meth:`to_json` (or of an older ``pasur eval --json`` file: the
        fields it lacks are None); ``ValueError`` for anything else."""
        return _from_json(cls, data)

    @classmethod
    def load(cls, path: str | Path) -> EvalResult:
        """:meth:`from_json` of a JSON file; ``ValueError`` naming the file when it is not
        an evaluation result."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except json.JSONDecodeError as e:
            raise ValueError(f"{path}: not JSON ({e.msg}, line {e.lineno})") from None
        try:
            return cls.from_json(data)
        except ValueError as e:
            raise ValueError(f"{path}: {e}") from None

    def to_csv(self, path: str | Path) -> None:
        """Write one row per deal (duplicate group): its index, rounds, A's point
        difference over them and per round, A's round wins and the outcome."""
        cols = self._per_deal()
        if cols is None:
            raise ValueError(f"{self.a} vs {self.b}: this result has no per-deal data (a "
                             "file written before schema 2)")
        with Path(path).open("w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(["game", "a", "b", "seed", "agent_seed", "deal", "rounds", "point_diff",
                        "point_diff_per_round", "round_wins", "outcome"])
            for k, deal in enumerate(cols["deal"]):
                n, d = cols["rounds"][k], cols["point_diff"][k]
                wins = None if cols["round_wins"] is None else cols["round_wins"][k]
                w.writerow([self.game, self.a, self.b, self.seed, self.agent_seed, deal, n, d,
                            d / n if n else "", wins, cols["outcome"][k]])

    def dumps(self, indent: int | None = 2) -> str:
        """:meth:`to_json` as a JSON string."""
        return json.dumps(self.to_json(), indent=indent)

    def _header(self) -> list[str]:
        """Who played, and how many rounds in which seatings: the game's own header
        (:attr:`agents.games.AgentGame.result_header`), else one line with its title."""
        own = agent_game(self.game).result_header
        if own is not None:
            return own(self)
        R, seats = len(self.seatings), ", ".join(self.seatings)
        title = game_info(self.game).title
        size = (f"{self.rounds:,} rounds ({self.deals:,} duplicate deals x {R} seatings: "
                f"{seats})" if self.mode == "round" else
                f"{self.rounds:,} rounds in {self.games:,} games ({self.deals:,} duplicate "
                f"deals x {R} seatings: {seats})")
        return [f"{title}: {self.a} vs {self.b}, {size}, seed {self.seed}"]

    def summary(self) -> str:
        """A few human-readable lines (the points' unit and the games' text are the
        game's, :class:`agents.games.AgentGame`)."""
        lo, hi = self.ci95
        row = agent_game(self.game)
        per = row.points_unit
        lines = self._header()
        lines += [
            f"  mean point diff (A - B) per round: {self.mean_point_diff:+.3f}  "
            f"95% CI [{lo:+.3f}, {hi:+.3f}]  (A {self.mean_points_a:.2f}, "
            f"B {self.mean_points_b:.2f} {per})",
            f"  round win rate (A): {100 * self.round_win_rate:.1f}%  95% CI "
            f"[{100 * self.round_win_rate_ci95[0]:.1f}%, {100 * self.round_win_rate_ci95[1]:.1f}%]"
            f"  (won {self.round_wins:,}, tied {self.round_ties:,}, lost {self.round_losses:,})",
        ]
        if self.games and self.game_win_rate is not None and self.game_win_rate_ci95:
            glo, ghi = self.game_win_rate_ci95
            games = row.games_text(self.rules)
            lines.append(
                f"  game win rate (A), {games}: "
                f"{100 * self.game_win_rate:.1f}%  95% CI [{100 * glo:.1f}%, {100 * ghi:.1f}%]"
                f"  ({self.games:,} games, {self.mean_rounds_per_game:.2f} rounds/game)"
            )
        if self.sprt is not None:
            lines.append(describe(self.sprt))
        spd = ", ".join(
            f"{k} {v * 1e6:.1f} us" if v < 1e-3 else f"{k} {v * 1e3:.2f} ms"
            for k, v in self.seconds_per_decision.items()
        )
        lines.append(
            f"  {self.seconds:.2f} s, {self.decisions:,} decisions, "
            f"{self.decisions_per_s:,.0f} decisions/s (time per decision: {spd})"
        )
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()


def json_float(x: Any) -> float:
    """A JSON number back as a float (None, written for NaN, back to NaN)."""
    return math.nan if x is None else float(x)


def _pair(x: Any) -> tuple[float, float]:
    lo, hi = x if isinstance(x, (list, tuple)) and len(x) == 2 else (None, None)
    return json_float(lo), json_float(hi)


def _array(cols: Any, key: str, dtype: Any = np.float64) -> np.ndarray | None:
    """Column ``key`` of ``per_deal`` as an array (None when the file has none)."""
    if not isinstance(cols, dict) or cols.get(key) is None:
        return None
    return np.asarray(cols[key], dtype=dtype)


#: the fields read back as they are written (ints, strings, containers)
_PLAIN = ("a", "b", "players", "seed", "mode", "game", "rounds", "deals", "round_wins",
          "round_ties", "round_losses", "decisions", "agent_seed", "date")
_FLOATS = ("mean_point_diff", "std_error", "mean_points_a", "mean_points_b", "round_win_rate",
           "seconds", "decisions_per_s")


def _from_json(cls: type[EvalResult], data: Any) -> EvalResult:
    """:meth:`EvalResult.from_json` (the module docstring says what each schema has)."""
    if not isinstance(data, dict) or not {"a", "b", "mean_point_diff"} <= data.keys():
        what = ("a tournament's result (pasur tournament --json); its matches are"
                if isinstance(data, dict) and "matches" in data else "not")
        raise ValueError(f"{what} evaluation results (pasur eval --json)")
    schema = data.get("schema", 1)
    if not isinstance(schema, int) or schema > SCHEMA:
        raise ValueError(f"a result of schema {schema!r}: this version of pasur_env reads "
                         f"schemas 1 to {SCHEMA} (upgrade pasur_env)")
    kw: dict[str, Any] = {k: data[k] for k in _PLAIN if k in data}
    kw.update({k: json_float(data.get(k)) for k in _FLOATS})
    kw.update(rules=dict(data.get("rules") or {}), seatings=list(data.get("seatings") or []),
              ci95=_pair(data.get("ci95")),
              round_win_rate_ci95=_pair(data.get("round_win_rate_ci95")),
              agent_decisions={k: int(v) for k, v in (data.get("agent_decisions") or {}).items()},
              seconds_per_decision={k: json_float(v) for k, v in
                                    (data.get("seconds_per_decision") or {}).items()},
              provenance={k: dict(v) for k, v in (data.get("provenance") or {}).items()},
              sprt=dict(data["sprt"]) if data.get("sprt") else None)
    if data.get("games"):
        kw.update(games=int(data["games"]), game_win_rate=json_float(data.get("game_win_rate")),
                  game_win_rate_ci95=_pair(data.get("game_win_rate_ci95")),
                  game_wins=int(data.get("game_wins", 0)), game_ties=int(data.get("game_ties", 0)),
                  mean_rounds_per_game=json_float(data.get("mean_rounds_per_game")))
    library = data.get("library") or {}
    cols = data.get("per_deal")
    kw.update(library_version=library.get("version"), git_commit=library.get("commit"),
              group_diff_sum=_array(cols, "point_diff"), group_win_sum=_array(cols, "round_wins"),
              group_rounds=_array(cols, "rounds"), group_deal=_array(cols, "deal", np.int64))
    try:
        return cls(**kw)
    except TypeError as e:  # a required field missing
        raise ValueError(f"an incomplete evaluation result ({e})") from None


def write_json(result: Any, path: str | None, out: TextIO) -> None:
    """Write ``result.to_json()`` to ``path`` (``"-"`` or None: to ``out``)."""
    text = json.dumps(result.to_json(), indent=2)
    if path in (None, "-"):
        out.write(text + "\n")
    else:
        Path(path).write_text(text + "\n", encoding="utf-8")
