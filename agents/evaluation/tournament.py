"""Round-robin tournaments and an Elo-scaled ladder with 95% intervals.

Every pair of agents plays one :func:`agents.evaluation.match.evaluate` match on duplicate
deals (the same deals for every pair). The ladder is a Bradley-Terry model fitted
by maximum likelihood to the round results (A outscored B = a win, equal points =
half a win each), on the Elo scale (``400 / ln 10`` per logit: 200 Elo points
above an opponent = winning 76% of rounds). Intervals come from a bootstrap over
the duplicate groups of every match, which keeps the pairing of the deals. A
second, linear rating reads the same matches as points: ``points[i]`` is agent
i's mean point difference per round against the average agent of the field.

Example::

    from agents.evaluation.tournament import tournament
    res = tournament(["random", "greedy", "heuristic"], rounds=2000)
    print(res.table())
    res.write_markdown("ladder.md"); res.plot("ladder.png")
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from agents.evaluation.match import check_agents, evaluate, setup
from agents.evaluation.results import (
    SCHEMA,
    EvalResult,
    json_float,
    json_number,
    library_info,
    same_fields,
    utc_now,
)
from agents.games import agent_game
from agents.registry import agent_label
from pasur_env.core.extras import missing_extra
from pasur_env.core.policy import Policy
from pasur_env.games import game_info

__all__ = ["TournamentResult", "tournament", "fit_tournament", "bradley_terry", "ELO_PER_LOGIT"]

#: plays a tournament's pairs: (agents, pairs, evaluate's keyword arguments, progress)
#: -> the result of each pair
PairRunner = Callable[[Sequence[Any], list[tuple[int, int]], dict[str, Any], bool],
                      dict[tuple[int, int], EvalResult]]

#: Elo points per unit of the Bradley-Terry log-odds
ELO_PER_LOGIT = 400.0 / math.log(10.0)


def bradley_terry(wins: np.ndarray, prior: float = 0.5, tol: float = 1e-10) -> np.ndarray:
    """Maximum-likelihood Bradley-Terry strengths (log-odds scale, mean 0), fitted by
    ``choix`` (iterative Luce spectral ranking on the dense win matrix): one fit for the
    tournament and the persistent ladder (:mod:`agents.evaluation.ladder`).

    Args:
        wins: (k, k) array, ``wins[i, j]`` = (possibly fractional) wins of i over j.
        prior: virtual wins added each way to every pair that met (one virtual tie
            with ``prior=0.5``), which keeps the estimate finite when one agent
            won every round against another.
        tol: the fit stops when no strength moves more than this.

    ``P(i beats j) = 1 / (1 + exp(theta[j] - theta[i]))``.
    """
    import choix

    W = np.array(wins, dtype=np.float64)
    k = W.shape[0]
    if W.ndim != 2 or W.shape != (k, k):
        raise ValueError(f"wins must be a square matrix, got shape {W.shape}")
    np.fill_diagonal(W, 0.0)
    met = (W + W.T) > 0
    W = W + prior * met
    theta = choix.ilsr_pairwise_dense(W, tol=tol, max_iter=10_000)
    return theta - theta.mean()


def _points_rating(diff: np.ndarray) -> np.ndarray:
    """Least-squares ratings q with q[i] - q[j] ~ diff[i, j] over a full round robin."""
    k = diff.shape[0]
    return diff.sum(axis=1) / k


@dataclass(eq=False)
class TournamentResult:
    """A round robin: the matches and the ladder (rows in the order of ``agents``).

    Equal when every field is (NaN equal to NaN, arrays element by element);
    :meth:`from_json` reads :meth:`to_json` back."""

    agents: list[str]
    players: int
    rounds: int
    seed: int
    matches: dict[tuple[int, int], EvalResult]
    elo: np.ndarray
    elo_ci95: np.ndarray  # (k, 2)
    points: np.ndarray
    points_ci95: np.ndarray  # (k, 2)
    win_rate: np.ndarray
    wins: np.ndarray  # (k, k) round wins (ties half)
    diff: np.ndarray  # (k, k) mean point difference per round, row minus column
    anchor: str | None
    base: float
    bootstrap: int
    seconds: float
    #: each agent's mean thinking time per decision over its matches (seconds)
    seconds_per_decision: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(0))
    #: the game (an id of :data:`pasur_env.games.GAMES`)
    game: str = "pasur"
    library_version: str | None = None
    git_commit: str | None = None
    date: str | None = None

    def __eq__(self, other: object) -> bool:
        return (same_fields(self, other) if isinstance(other, TournamentResult)
                else NotImplemented)

    __hash__ = None  # type: ignore[assignment]  # mutable, compared by value

    def order(self) -> list[int]:
        """Agent indices from the best rating down."""
        return [int(i) for i in np.argsort(-self.elo, kind="stable")]

    def rows(self) -> list[dict[str, Any]]:
        out = []
        for rank, i in enumerate(self.order(), 1):
            out.append(
                {
                    "rank": rank,
                    "agent": self.agents[i],
                    "elo": json_number(self.elo[i]),
                    "elo_ci95": [json_number(x) for x in self.elo_ci95[i]],
                    "points": json_number(self.points[i]),
                    "points_ci95": [json_number(x) for x in self.points_ci95[i]],
                    "round_win_rate": json_number(self.win_rate[i]),
                    "seconds_per_decision": json_number(self._spd(i)),
                }
            )
        return out

    def _spd(self, i: int) -> float:
        return float(self.seconds_per_decision[i]) if self.seconds_per_decision.size else math.nan

    def _table_rows(self) -> tuple[list[str], list[list[str]]]:
        head = ["rank", "agent", "Elo", "95% CI", "pts/round vs field", "95% CI", "round wins",
                "time/decision"]
        body = []
        for r in self.rows():
            lo, hi = r["elo_ci95"]
            plo, phi = r["points_ci95"]
            body.append(
                [
                    str(r["rank"]),
                    r["agent"],
                    f"{r['elo']:.0f}",
                    f"[{lo:.0f}, {hi:.0f}]",
                    f"{r['points']:+.2f}",
                    f"[{plo:+.2f}, {phi:+.2f}]",
                    f"{100 * r['round_win_rate']:.1f}%",
                    _time(r["seconds_per_decision"]),
                ]
            )
        return head, body

    def _matrix_rows(self) -> tuple[list[str], list[list[str]]]:
        order = self.order()
        head = ["A \\ B"] + [self.agents[j] for j in order]
        body = []
        for i in order:
            row = [self.agents[i]]
            for j in order:
                if i == j:
                    row.append("-")
                    continue
                m = self.matches.get((i, j)) or self.matches.get((j, i))
                assert m is not None
                sign = 1.0 if (i, j) in self.matches else -1.0
                lo, hi = sorted((sign * m.ci95[0], sign * m.ci95[1]))
                row.append(f"{sign * m.mean_point_diff:+.2f} [{lo:+.2f}, {hi:+.2f}]")
            body.append(row)
        return head, body

    def _rounds(self) -> str:
        """Rounds per pair: one count, or the range where pairs played different counts
        (a ladder's member added with fewer rounds)."""
        counts = sorted({m.rounds for m in self.matches.values()} or {self.rounds})
        return f"{counts[0]:,}" + (f" to {counts[-1]:,}" if len(counts) > 1 else "")

    def _caption(self) -> str:
        anchor = (
            f"{self.anchor} fixed at {self.base:.0f}"
            if self.anchor
            else f"mean {self.base:.0f}"
        )
        title = f"{game_info(self.game).title}: " if agent_game(self.game).named else ""
        return (
            f"{title}{len(self.agents)} agents, {self.players} players, {self._rounds()} duplicate "
            f"rounds per pair, seed {self.seed}; Elo from a Bradley-Terry fit to round "
            f"results ({anchor}), 95% intervals from {self.bootstrap} bootstrap resamples "
            f"of the duplicate groups; {self.seconds:.1f} s"
        )

    def table(self) -> str:
        """The ladder and the pairwise matrix as plain text."""
        lines = [self._caption(), ""]
        for head, body in (self._table_rows(), self._matrix_rows()):
            widths = [max(len(x) for x in col) for col in zip(head, *body, strict=True)]

            def fmt(row: list[str], w: list[int] = widths) -> str:
                cells = zip(row, w, strict=True)  # names left-aligned, numbers right
                return "  ".join(
                    c.ljust(n) if k < 2 else c.rjust(n) for k, (c, n) in enumerate(cells)
                )

            lines.append(fmt(head))
            lines.extend(fmt(r) for r in body)
            lines.append("")
        lines[-1] = "(matrix: mean point difference per round, row agent minus column agent)"
        return "\n".join(lines)

    def markdown(self) -> str:
        """The ladder and the pairwise matrix as markdown tables."""
        out = [f"_{self._caption()}_", ""]
        for title, (head, body) in (
            ("Ladder", self._table_rows()),
            ("Mean point difference per round (row minus column, 95% CI)", self._matrix_rows()),
        ):
            out += [f"**{title}**", ""]
            out.append("| " + " | ".join(head) + " |")
            out.append("|" + "|".join("---" for _ in head) + "|")
            out += ["| " + " | ".join(row) + " |" for row in body]
            out.append("")
        return "\n".join(out)

    def write_markdown(self, path: str | Path) -> None:
        Path(path).write_text(self.markdown() + "\n", encoding="utf-8")

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict: the ladder, the settings and every match."""
        return {
            "schema": SCHEMA,
            "game": self.game,
            "agents": list(self.agents),
            "players": self.players,
            "rounds_per_pair": self.rounds,
            "seed": self.seed,
            "anchor": self.anchor,
            "base": self.base,
            "bootstrap": self.bootstrap,
            "seconds": json_number(self.seconds),
            "library": {"version": self.library_version, "commit": self.git_commit},
            "date": self.date,
            "ladder": self.rows(),
            "matches": [m.to_json() for _, m in sorted(self.matches.items())],
        }

    @classmethod
    def from_json(cls, data: Any) -> TournamentResult:
        """The result of :meth:`to_json` (schema 1 or 2; the matches'
        :meth:`EvalResult.from_json`); ``ValueError`` for anything else."""
        if not isinstance(data, dict) or not {"agents", "ladder", "matches"} <= data.keys():
            raise ValueError("not a tournament's result (pasur tournament --json)")
        names = list(data["agents"])
        k, at = len(names), {n: i for i, n in enumerate(names)}
        matches = {}
        for m in map(EvalResult.from_json, data["matches"]):
            if m.a not in at or m.b not in at:
                raise ValueError(f"a match of {m.a} vs {m.b}, not of the agents {names}")
            matches[(at[m.a], at[m.b])] = m
        cols: dict[str, np.ndarray] = {}
        for key, width in (("elo", 1), ("elo_ci95", 2), ("points", 1), ("points_ci95", 2),
                           ("round_win_rate", 1), ("seconds_per_decision", 1)):
            col = np.full((k, width), np.nan)
            for row in data["ladder"]:
                val = row.get(key)
                col[at[row["agent"]]] = [np.nan if x is None else x for x in
                                         (val if isinstance(val, list) else [val])]
            cols[key] = col if width == 2 else col[:, 0]
        wins, diff = np.zeros((k, k)), np.zeros((k, k))
        for (i, j), m in matches.items():
            wins[i, j] = m.round_wins + 0.5 * m.round_ties
            wins[j, i] = m.rounds - wins[i, j]
            diff[i, j], diff[j, i] = m.mean_point_diff, -m.mean_point_diff
        library = data.get("library") or {}
        return cls(
            agents=names, players=int(data["players"]), rounds=int(data["rounds_per_pair"]),
            seed=int(data["seed"]), matches=matches, elo=cols["elo"], elo_ci95=cols["elo_ci95"],
            points=cols["points"], points_ci95=cols["points_ci95"],
            win_rate=cols["round_win_rate"], wins=wins, diff=diff, anchor=data.get("anchor"),
            base=float(data["base"]), bootstrap=int(data["bootstrap"]),
            seconds=json_float(data.get("seconds")),
            seconds_per_decision=cols["seconds_per_decision"], game=data.get("game", "pasur"),
            library_version=library.get("version"), git_commit=library.get("commit"),
            date=data.get("date"),
        )  # fmt: skip

    def plot(self, path: str | Path) -> None:
        """Save the ratings with their 95% intervals as an image (matplotlib)."""
        try:
            from matplotlib.figure import Figure
        except ImportError as e:  # pragma: no cover - depends on the install
            raise missing_extra("plotting the ladder", "train", e) from None
        order = self.order()[::-1]  # best at the top
        y = np.arange(len(order))
        x = self.elo[order]
        lo = x - self.elo_ci95[order, 0]
        hi = self.elo_ci95[order, 1] - x
        fig = Figure(figsize=(7, 1.2 + 0.5 * len(order)))
        ax = fig.add_subplot()
        ax.errorbar(x, y, xerr=[lo, hi], fmt="o", capsize=4)
        ax.set_yticks(y, [self.agents[i] for i in order])
        ax.set_xlabel("Elo (Bradley-Terry on round results), 95% bootstrap interval")
        title = game_info(self.game).title
        ax.set_title(f"{title} ladder: {self.players} players, {self._rounds()} rounds per pair")
        ax.grid(axis="x", alpha=0.3)
        fig.tight_layout()
        fig.savefig(str(path), dpi=120)


@dataclass
class _Ladder:
    """Fits ratings to pairwise sums: Bradley-Terry Elo on wins, linear points on diffs."""

    k: int
    anchor_index: int | None
    base: float

    def fit(self, w_sum: dict, d_sum: dict, n_sum: dict) -> tuple[np.ndarray, ...]:
        """``(elo, points, wins matrix)`` from per-pair round wins, point sums and rounds."""
        k = self.k
        wins = np.zeros((k, k))
        diff = np.zeros((k, k))
        for (i, j), n in n_sum.items():
            wins[i, j], wins[j, i] = w_sum[(i, j)], n - w_sum[(i, j)]
            diff[i, j] = d_sum[(i, j)] / n
            diff[j, i] = -diff[i, j]
        elo = ELO_PER_LOGIT * bradley_terry(wins)
        pts = _points_rating(diff)
        if self.anchor_index is not None:
            a = self.anchor_index
            elo, pts = elo - elo[a], pts - pts[a]
        return elo + self.base, pts, wins

    def fit_matches(self, matches: dict[tuple[int, int], EvalResult],
                    idx: dict[tuple[int, int], np.ndarray] | None = None) -> tuple[np.ndarray, ...]:
        """:meth:`fit` on the matches' duplicate groups (all, or the resampled ``idx``)."""
        w_s, d_s, n_s = {}, {}, {}
        for key, m in matches.items():
            sel = slice(None) if idx is None else idx[key]
            w_s[key] = float(m.group_win_sum[sel].sum())
            d_s[key] = float(m.group_diff_sum[sel].sum())
            n_s[key] = float(m.group_rounds[sel].sum())
        return self.fit(w_s, d_s, n_s)

    def bootstrap(self, matches: dict[tuple[int, int], EvalResult], resamples: int,
                  seed: int) -> tuple[np.ndarray, np.ndarray]:
        """95% percentile intervals (k, 2) of Elo and points over resampled groups."""
        if not resamples:
            return np.full((self.k, 2), np.nan), np.full((self.k, 2), np.nan)
        rng = np.random.default_rng([seed, 7])
        boot_elo = np.empty((resamples, self.k))
        boot_pts = np.empty((resamples, self.k))
        for b in range(resamples):
            idx = {}
            for key, m in matches.items():
                G = m.group_rounds.size
                idx[key] = rng.integers(0, G, G)
            boot_elo[b], boot_pts[b], _ = self.fit_matches(matches, idx)
        return (np.percentile(boot_elo, [2.5, 97.5], axis=0).T,
                np.percentile(boot_pts, [2.5, 97.5], axis=0).T)


def _time(seconds: float | None) -> str:
    """A time per decision for a table: µs below a millisecond, else ms."""
    if seconds is None or not math.isfinite(seconds):
        return ""
    return f"{seconds * 1e6:.0f} µs" if seconds < 1e-3 else f"{seconds * 1e3:.1f} ms"


def _thinking_times(matches: dict[tuple[int, int], EvalResult], k: int) -> np.ndarray:
    """Each agent's thinking time per decision, pooled over its matches."""
    secs, n = np.zeros(k), np.zeros(k)
    for (i, j), m in matches.items():
        for who, side in ((i, "a"), (j, "b")):
            d = m.agent_decisions.get(side, 0)
            secs[who] += m.seconds_per_decision.get(side, 0.0) * d
            n[who] += d
    return np.where(n > 0, secs / np.maximum(n, 1), np.nan)


def _check_field(names: list[str], anchor: str | None, bootstrap: Any) -> None:
    k = len(names)
    if k < 2:
        raise ValueError("a tournament needs at least two agents")
    if len(set(names)) != k:
        raise ValueError(f"agent names must be distinct, got {names}")
    if anchor is not None and anchor not in names:
        raise ValueError(f"anchor {anchor!r} is not one of the agents {names}")
    if isinstance(bootstrap, bool) or not isinstance(bootstrap, int) or bootstrap < 0:
        raise ValueError(f"bootstrap must be a non-negative int, got {bootstrap!r}")


def tournament(
    agents: Sequence[str | Policy],
    rounds: int = 2000,
    players: int | None = None,
    seed: int | None = 0,
    batch: int = 4096,
    progress: bool = True,
    bootstrap: int = 500,
    anchor: str | None = None,
    base: float = 1500.0,
    preset: str | None = None,
    progress_file: TextIO | None = None,
    *,
    game: str = "pasur",
    run_pairs: PairRunner | None = None,
    **rule_flags: Any,
) -> TournamentResult:
    """Play every pair of ``agents`` with :func:`evaluate` and fit the ladder.

    Args:
        agents: at least two agent specs (as for :func:`evaluate`) or instances.
        rounds: duplicate rounds per pair.
        bootstrap: resamples for the rating intervals.
        anchor: agent whose rating is fixed at ``base`` (default: the mean is ``base``).
        game: ``"pasur"`` (default) or ``"persian_rummy"``.
        run_pairs: plays the pairs' matches elsewhere, given ``(agents, pairs,
            evaluate's keyword arguments, progress)`` (e.g.
            :func:`agents.evaluation.distributed.play_pairs_on_ray`); default: one after
            the other here. Each pair is the same ``evaluate`` call either way.
        Other arguments as for :func:`evaluate`.
    """
    names = [agent_label(a) for a in agents]
    _check_field(names, anchor, bootstrap)
    spec = setup(game, players, preset, dict(rule_flags))
    check_agents(agents, spec.game, spec.players, spec.engine_flags)  # before any match
    k = len(names)
    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(1, np.uint32)[0])
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
    kwargs = dict(rounds=rounds, players=players, seed=seed, batch=batch, preset=preset,
                  game=game, **rule_flags)
    if run_pairs is not None:
        matches = run_pairs(agents, pairs, kwargs, progress)
    else:
        matches = {(i, j): evaluate(agents[i], agents[j], progress=progress,
                                    progress_file=progress_file, **kwargs)
                   for i, j in pairs}
    return fit_tournament(names, matches, anchor=anchor, base=base, bootstrap=bootstrap,
                          seed=seed, game=game)


def fit_tournament(names: list[str], matches: dict[tuple[int, int], EvalResult], *,
                   anchor: str | None = None, base: float = 1500.0, bootstrap: int = 500,
                   seed: int = 0, game: str = "pasur") -> TournamentResult:
    """The ladder of played matches (``matches[(i, j)]``: ``names[i]`` as A against
    ``names[j]`` as B, every pair once, each with its per-group arrays): the Bradley-Terry
    Elo and the points ratings with bootstrap intervals. :func:`tournament` and the
    persistent ladder (:mod:`agents.evaluation.ladder`) both read their matches here."""
    _check_field(names, anchor, bootstrap)
    k = len(names)
    ladder = _Ladder(k, None if anchor is None else names.index(anchor), float(base))
    elo, pts, wins = ladder.fit_matches(matches)
    elo_ci, pts_ci = ladder.bootstrap(matches, bootstrap, seed)
    diff = np.zeros((k, k))
    for (i, j), m in matches.items():
        diff[i, j], diff[j, i] = m.mean_point_diff, -m.mean_point_diff
    played = wins + wins.T
    library = library_info()
    return TournamentResult(
        agents=list(names), players=next(iter(matches.values())).players,
        rounds=int(max(m.rounds for m in matches.values())),
        seed=int(seed), matches=matches, elo=elo, elo_ci95=elo_ci, points=pts,
        points_ci95=pts_ci, win_rate=wins.sum(axis=1) / np.maximum(played.sum(axis=1), 1e-12),
        seconds_per_decision=_thinking_times(matches, k),
        wins=wins, diff=diff, anchor=anchor, base=float(base), bootstrap=int(bootstrap),
        seconds=sum(m.seconds for m in matches.values()), game=game_info(game).id,
        library_version=library["version"], git_commit=library["commit"], date=utc_now(),
    )  # fmt: skip
