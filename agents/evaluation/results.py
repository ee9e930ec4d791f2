"""The result of a match (:class:`EvalResult`): numbers, summary text and JSON."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from agents.evaluation.sprt import describe
from agents.games import agent_game
from pasur_env.games import game_info

__all__ = ["EvalResult", "json_number", "write_json"]


def json_number(x: Any) -> Any:
    """JSON-safe number: NaN/inf become None, numpy scalars plain Python."""
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        x = float(x)
        return x if math.isfinite(x) else None
    return x


@dataclass
class EvalResult:
    """Outcome of :func:`evaluate` (A minus B; rates are A's).

    The per-group arrays (``group_*``: one entry per duplicate group) feed the
    tournament's bootstrap; they are left out of :meth:`to_json`. How the numbers read
    (points per seat or per team: Persian Rummy's ``mean_points_a`` is A's team per
    round) is the game's row's (:class:`agents.games.AgentGame`).
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
    group_diff_sum: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)
    group_win_sum: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)
    group_rounds: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)

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
            "game": self.game,
            "a": self.a,
            "b": self.b,
            "players": self.players,
            "seed": self.seed,
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
        if self.sprt is not None:
            out["sprt"] = {k: json_number(v) for k, v in self.sprt.items()}
        extra = agent_game(self.game).json_extra  # keys older results were written with
        if extra is not None:
            out.update({k: [json_number(x) for x in v] if isinstance(v, (list, tuple))
                        else json_number(v) for k, v in extra(self).items()})
        return out

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


def write_json(result: Any, path: str | None, out: TextIO) -> None:
    """Write ``result.to_json()`` to ``path`` (``"-"`` or None: to ``out``)."""
    text = json.dumps(result.to_json(), indent=2)
    if path in (None, "-"):
        out.write(text + "\n")
    else:
        Path(path).write_text(text + "\n", encoding="utf-8")
