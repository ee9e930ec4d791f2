"""Head-to-head evaluation of two agents with duplicate deals (see docs/evaluation.md).

:func:`evaluate` plays agent A against agent B on the batched engine. Every deal
(deck plus its random stream, so a buried jack or a redeal happens identically) is
played once per *seating*, with the agents' seats swapped or rotated, so the luck of
the cards cancels out of the comparison:

=========  =====================================================================
players    seatings (seat 0 first; ``A`` = agent A, ``B`` = agent B)
=========  =====================================================================
2          ``AB``, ``BA``
3          the rotations of ``ABB`` (``ABB``, ``BAB``, ``BBA``) and of ``AAB``
           (``AAB``, ``ABA``, ``BAA``): each agent holds every seat equally often
4          teams: ``ABAB`` (A = seats 0+2) and ``BABA`` (A = seats 1+3)
=========  =====================================================================

A *duplicate group* (one deal in all its seatings) is the independent unit of the
statistics: the mean A-minus-B point difference per round gets a 95% Student-t
interval over the groups (a cluster/ratio estimator when groups hold unequal
numbers of rounds, as in games to the target). Example::

    from agents.evaluate import evaluate
    res = evaluate("greedy", "random", rounds=10_000, seed=0)
    print(res.summary())
    res.to_json()  # {"a": "greedy", "b": "random", "mean_point_diff": 7.1, ...}
"""

from __future__ import annotations

import dataclasses
import json
import math
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

import numpy as np

from pasur_env import Engine
from pasur_env import _kernels as K
from pasur_env.encoding import encode
from pasur_env.rules import make_rules

from .base import Agent, GameView, check_actions
from .registry import make_agent

__all__ = [
    "EvalResult",
    "evaluate",
    "seatings",
    "duplicate_engine",
    "parse_agent_spec",
    "build_agent",
    "agent_label",
    "t_quantile",
    "mean_ci",
    "cluster_mean_ci",
    "Progress",
]

#: the engine's DONE phase (a finished game waiting for a reset)
DONE = 2
Z975 = 1.959963984540054

# two-sided 95% Student-t quantiles t_{0.975, df} for df = 1..30
_T975 = (
    12.706204736174705, 4.302652729749464, 3.182446305284263, 2.776445105197793,
    2.570581835636314, 2.446911851144969, 2.364624251592785, 2.306004135204166,
    2.262157162798205, 2.228138851986274, 2.200985160082949, 2.178812829667228,
    2.160368656462793, 2.144786687917804, 2.131449545559774, 2.119905299221255,
    2.109815577833317, 2.100922040241038, 2.093024054408309, 2.085963447265865,
    2.079613844727680, 2.073873067904019, 2.068657610419049, 2.063898561628021,
    2.059538552753294, 2.055529438642872, 2.051830516480284, 2.048407141795244,
    2.045229642132704, 2.042272456301238,
)


# ---- statistics -------------------------------------------------------------------------
def t_quantile(df: float) -> float:
    """The 0.975 quantile of Student's t with ``df`` degrees of freedom (scipy-free).

    Exact table values for df <= 30, then the Cornish-Fisher expansion around the
    normal quantile (error below 1e-6 there); ``df = inf`` gives 1.959964.
    """
    if not df > 0:
        raise ValueError(f"degrees of freedom must be positive, got {df}")
    if math.isinf(df):
        return Z975
    if float(df).is_integer() and df <= 30:
        return _T975[int(df) - 1]
    z, v = Z975, float(df)
    z3, z5, z7, z9 = z**3, z**5, z**7, z**9
    return (
        z
        + (z3 + z) / (4 * v)
        + (5 * z5 + 16 * z3 + 3 * z) / (96 * v**2)
        + (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * v**3)
        + (79 * z9 + 776 * z7 + 1482 * z5 - 1920 * z3 - 945 * z) / (92160 * v**4)
    )


def cluster_mean_ci(
    sums: Sequence[float] | np.ndarray, counts: Sequence[float] | np.ndarray
) -> tuple[float, float, tuple[float, float]]:
    """Mean per item over independent clusters, its standard error and 95% interval.

    Cluster ``g`` holds ``counts[g]`` items whose values add up to ``sums[g]``. The
    estimate is the ratio ``sum(sums) / sum(counts)``; its standard error is the
    usual cluster-robust (delta-method) one over the G clusters, and the interval
    uses Student's t with G - 1 degrees of freedom. With equal counts this is the
    textbook t-interval over the cluster means. Returns ``(mean, se, (low, high))``;
    the interval is ``(nan, nan)`` with fewer than two clusters.
    """
    s = np.asarray(sums, dtype=np.float64).reshape(-1)
    n = np.asarray(counts, dtype=np.float64).reshape(-1)
    keep = n > 0
    s, n = s[keep], n[keep]
    G = s.size
    if G == 0:
        return math.nan, math.nan, (math.nan, math.nan)
    mean = float(s.sum() / n.sum())
    if G < 2:
        return mean, math.nan, (math.nan, math.nan)
    resid = (s - mean * n) / n.mean()
    se = float(math.sqrt(float((resid**2).sum()) / (G * (G - 1))))
    h = t_quantile(G - 1) * se
    return mean, se, (mean - h, mean + h)


def mean_ci(values: Sequence[float] | np.ndarray) -> tuple[float, float, tuple[float, float]]:
    """Mean, standard error and 95% Student-t interval of independent values."""
    v = np.asarray(values, dtype=np.float64).reshape(-1)
    return cluster_mean_ci(v, np.ones_like(v))


# ---- seatings and duplicate engines ------------------------------------------------------
def seatings(players: int) -> list[str]:
    """The seatings of a duplicate group, seat 0 first (``"A"`` = agent A's seat)."""
    if players == 2:
        return ["AB", "BA"]
    if players == 3:
        return ["ABB", "BAB", "BBA", "AAB", "ABA", "BAA"]
    if players == 4:
        return ["ABAB", "BABA"]
    raise ValueError(f"players must be 2, 3 or 4, got {players!r}")


def _stream_base(seed: int) -> np.uint64:
    """The engine's per-game stream base for ``seed`` (as in :meth:`Engine.reset`)."""
    return np.random.SeedSequence(int(seed)).generate_state(1, np.uint64)[0]


def duplicate_engine(
    groups: int,
    copies: int,
    *,
    seed: int,
    offset: int = 0,
    episode: str = "round",
    **rule_flags: Any,
) -> Engine:
    """An engine of ``groups * copies`` games: each deal repeated ``copies`` times in a row.

    Deal ``g`` is the game ``offset + g`` of ``Engine(..., seed=seed)``: its stream does
    not depend on the batch size, so splitting an evaluation into batches changes
    nothing. Game ``g * copies + r`` is copy ``r`` of deal ``g``; copies share the deck
    and the random stream (later shuffles, buried jacks, redeals), and the games wait
    in the DONE phase when they end (``auto_reset=False``).
    """
    base = Engine(
        int(groups), seed=0, episode=episode, auto_reset=False, parallel=False, **rule_flags
    )
    K.seed_streams(base.state, _stream_base(seed), int(offset))
    base.reset()  # the streams are set: deal from them
    eng = base.take(np.repeat(np.arange(int(groups), dtype=np.int64), int(copies)))
    eng.parallel = None  # choose serial/parallel kernels by batch size again
    return eng


# ---- agents -----------------------------------------------------------------------------
def _parse_value(text: str) -> Any:
    t = text.strip()
    low = t.lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    if low in ("none", "null"):
        return None
    for conv in (int, float):
        try:
            return conv(t)
        except ValueError:
            pass
    return t


def parse_agent_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split ``"ismcts:budget=200,rollouts=4"`` into ``("ismcts", {"budget": 200, ...})``.

    Values become int, float, bool or None where they look like one. A spec without
    ``:key=value`` options (a name or a path) is returned unchanged.
    """
    name, sep, rest = spec.partition(":")
    if not sep or "=" not in rest:
        return spec.strip(), {}
    kwargs: dict[str, Any] = {}
    for item in rest.split(","):
        if not item.strip():
            continue
        key, eq, value = item.partition("=")
        if not eq or not key.strip().isidentifier():
            raise ValueError(f"bad agent option {item!r} in {spec!r}: expected key=value")
        kwargs[key.strip()] = _parse_value(value)
    return name.strip(), kwargs


def build_agent(spec: str | Agent, seed: int | None = None) -> Agent:
    """:func:`make_agent` for a spec that may carry ``:key=value`` options."""
    if isinstance(spec, Agent):
        return make_agent(spec, seed=seed)
    name, kwargs = parse_agent_spec(spec)
    return make_agent(name, seed=seed, **kwargs)


def agent_label(spec: str | Agent) -> str:
    """Display name: the spec string, or the agent's ``name``."""
    return spec.strip() if isinstance(spec, str) else str(getattr(spec, "name", spec))


# ---- progress -----------------------------------------------------------------------------
class Progress:
    """A progress bar: tqdm when installed, else a plain one-line counter on stderr."""

    def __init__(self, total: int, desc: str, unit: str, enabled: bool = True,
                 file: TextIO | None = None) -> None:
        self.total, self.desc, self.unit, self.n = int(total), desc, unit, 0
        self.enabled = enabled
        self._file = file if file is not None else sys.stderr
        self._bar = None
        self._t0 = self._last = time.perf_counter()
        if not enabled:
            return
        try:
            from tqdm.auto import tqdm
        except ImportError:
            tqdm = None
        if tqdm is not None:
            self._bar = tqdm(total=self.total, desc=desc, unit=unit, file=self._file,
                             dynamic_ncols=True, smoothing=0.1)

    def update(self, n: int) -> None:
        if n <= 0 or not self.enabled:
            return
        self.n += n
        if self._bar is not None:
            self._bar.update(n)
            return
        now = time.perf_counter()
        if now - self._last >= 0.5 or self.n >= self.total:
            self._last = now
            pct = 100.0 * self.n / max(1, self.total)
            self._file.write(
                f"\r{self.desc}: {self.n}/{self.total} {self.unit} ({pct:3.0f}%) "
                f"{now - self._t0:.1f}s"
            )
            self._file.flush()

    def close(self) -> None:
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.close()
        else:
            self._file.write("\n")
            self._file.flush()


# ---- result ---------------------------------------------------------------------------------
def _num(x: Any) -> Any:
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
    tournament's bootstrap; they are left out of :meth:`to_json`.
    """

    a: str
    b: str
    players: int
    seed: int
    mode: str
    rules: dict[str, Any]
    seatings: list[str]
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
    group_diff_sum: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)
    group_win_sum: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)
    group_rounds: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)

    @property
    def round_tie_rate(self) -> float:
        return self.round_ties / self.rounds if self.rounds else math.nan

    def to_json(self) -> dict[str, Any]:
        """The result as a JSON-ready dict (write it with ``json.dump``)."""
        out: dict[str, Any] = {
            "a": self.a,
            "b": self.b,
            "players": self.players,
            "seed": self.seed,
            "mode": self.mode,
            "rules": dict(self.rules),
            "seatings": list(self.seatings),
            "rounds": self.rounds,
            "deals": self.deals,
            "mean_point_diff": _num(self.mean_point_diff),
            "std_error": _num(self.std_error),
            "ci95": [_num(x) for x in self.ci95],
            "mean_points_a": _num(self.mean_points_a),
            "mean_points_b": _num(self.mean_points_b),
            "round_win_rate": _num(self.round_win_rate),
            "round_win_rate_ci95": [_num(x) for x in self.round_win_rate_ci95],
            "round_wins": self.round_wins,
            "round_ties": self.round_ties,
            "round_losses": self.round_losses,
            "round_tie_rate": _num(self.round_tie_rate),
        }
        if self.games:
            out.update(
                games=self.games,
                game_win_rate=_num(self.game_win_rate),
                game_win_rate_ci95=[_num(x) for x in (self.game_win_rate_ci95 or ())],
                game_wins=self.game_wins,
                game_ties=self.game_ties,
                mean_rounds_per_game=_num(self.mean_rounds_per_game),
            )
        out.update(
            seconds=_num(self.seconds),
            decisions=self.decisions,
            decisions_per_s=_num(self.decisions_per_s),
            agent_decisions=dict(self.agent_decisions),
            seconds_per_decision={k: _num(v) for k, v in self.seconds_per_decision.items()},
        )
        return out

    def dumps(self, indent: int | None = 2) -> str:
        """:meth:`to_json` as a JSON string."""
        return json.dumps(self.to_json(), indent=indent)

    def summary(self) -> str:
        """A few human-readable lines."""
        R = len(self.seatings)
        lo, hi = self.ci95
        lines = [
            f"{self.a} (A) vs {self.b} (B), {self.players} players, seed {self.seed}",
            f"  {self.rounds:,} rounds = {self.deals:,} deals x {R} seatings "
            f"({', '.join(self.seatings)})" if self.mode == "round" else
            f"  {self.rounds:,} rounds in {self.games:,} games "
            f"({self.deals:,} deals x {R} seatings: {', '.join(self.seatings)})",
            f"  mean point diff (A - B) per round: {self.mean_point_diff:+.3f}  "
            f"95% CI [{lo:+.3f}, {hi:+.3f}]  (A {self.mean_points_a:.2f}, "
            f"B {self.mean_points_b:.2f} points/round per seat)",
            f"  round win rate (A): {100 * self.round_win_rate:.1f}%  95% CI "
            f"[{100 * self.round_win_rate_ci95[0]:.1f}%, {100 * self.round_win_rate_ci95[1]:.1f}%]"
            f"  (won {self.round_wins:,}, tied {self.round_ties:,}, lost {self.round_losses:,})",
        ]
        if self.games and self.game_win_rate is not None and self.game_win_rate_ci95:
            glo, ghi = self.game_win_rate_ci95
            lines.append(
                f"  game win rate (A), games to {self.rules.get('target_score')}: "
                f"{100 * self.game_win_rate:.1f}%  95% CI [{100 * glo:.1f}%, {100 * ghi:.1f}%]"
                f"  ({self.games:,} games, {self.mean_rounds_per_game:.2f} rounds/game)"
            )
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


# ---- the match loop -------------------------------------------------------------------------
@dataclass
class _Tally:
    """Per-group accumulators of one run."""

    groups: int
    diff: np.ndarray = field(init=False)
    wins: np.ndarray = field(init=False)  # rounds A won (+0.5 per tie)
    rounds: np.ndarray = field(init=False)
    pts_a: float = 0.0
    pts_b: float = 0.0
    n_win: int = 0
    n_tie: int = 0
    n_loss: int = 0
    game_wins: np.ndarray = field(init=False)  # games A won (+0.5 per tie)
    games: np.ndarray = field(init=False)
    n_game_win: int = 0
    n_game_tie: int = 0

    def __post_init__(self) -> None:
        z = lambda: np.zeros(self.groups, dtype=np.float64)  # noqa: E731
        self.diff, self.wins, self.rounds = z(), z(), z()
        self.game_wins, self.games = z(), z()


class _Match:
    """Plays duplicate batches of A vs B and tallies rounds and games per group."""

    def __init__(
        self,
        agents: tuple[Agent, Agent],
        players: int,
        seed: int,
        batch: int,
        rule_flags: dict[str, Any],
    ) -> None:
        self.agents = agents
        self.players = players
        self.seed = seed
        self.rule_flags = rule_flags
        self.seats = seatings(players)
        R = len(self.seats)
        #: ctrl[r, seat]: 0 if agent A plays that seat in seating r, else 1
        self.ctrl = np.array([[0 if ch == "A" else 1 for ch in s] for s in self.seats])
        S = 2 if players == 4 else players
        # weights[r, side]: A's sides +1/#A sides, B's sides -1/#B sides (side s holds seat s)
        side_ctrl = self.ctrl[:, :S]
        n_a = (side_ctrl == 0).sum(axis=1, keepdims=True)
        n_b = (side_ctrl == 1).sum(axis=1, keepdims=True)
        self.w_a = np.where(side_ctrl == 0, 1.0 / n_a, 0.0)
        self.w_b = np.where(side_ctrl == 1, 1.0 / n_b, 0.0)
        self.groups_per_batch = max(1, int(batch) // R)
        # distinct agent objects (A and B may be the same instance)
        self.same = agents[0] is agents[1]
        self.obs_needed = [bool(getattr(ag, "needs_observation", False)) for ag in agents]
        self.act_seconds = [0.0, 0.0]
        self.act_count = [0, 0]

    def run(
        self, groups: int, episode: str, progress: Progress, unit: str, offset: int = 0
    ) -> _Tally:
        R = len(self.seats)
        tally = _Tally(groups)
        for start in range(0, groups, self.groups_per_batch):
            g = min(self.groups_per_batch, groups - start)
            eng = duplicate_engine(
                g, R, seed=self.seed, offset=offset + start, episode=episode, **self.rule_flags
            )
            row_group = start + np.repeat(np.arange(g, dtype=np.int64), R)
            row_seating = np.tile(np.arange(R, dtype=np.int64), g)
            self._play(eng, row_group, row_seating, tally, episode, progress, unit)
        return tally

    def _act(self, k: int, eng: Engine, idx: np.ndarray, mask: np.ndarray) -> np.ndarray:
        agent = self.agents[k]
        sub = mask[idx]
        view = GameView(eng, idx)
        obs = encode(eng, idx, view.seats) if self.obs_needed[k] else None
        t0 = time.perf_counter()
        acts = agent.act(obs, sub, view)
        self.act_seconds[k] += time.perf_counter() - t0
        self.act_count[k] += idx.size
        return check_actions(acts, sub, f"agent {agent.name!r}")

    def _play(
        self,
        eng: Engine,
        row_group: np.ndarray,
        row_seating: np.ndarray,
        tally: _Tally,
        episode: str,
        progress: Progress,
        unit: str,
    ) -> None:
        ctrl = self.ctrl
        while True:
            active = eng.phase != DONE
            n_active = int(active.sum())
            if n_active == 0:
                return
            if n_active * 2 < eng.num_games and eng.num_games > 64:
                keep = np.flatnonzero(active)  # drop finished games (the tail of a batch)
                eng = eng.take(keep)
                row_group, row_seating = row_group[keep], row_seating[keep]
                active = np.ones(keep.size, dtype=np.bool_)
            mask = eng.legal_mask()
            who = ctrl[row_seating, eng.current_player]
            actions = np.full(eng.num_games, -1, dtype=np.int64)
            if self.same:
                idx = np.flatnonzero(active)
                actions[idx] = self._act(0, eng, idx, mask)
            else:
                for k in (0, 1):
                    idx = np.flatnonzero(active & (who == k))
                    if idx.size:
                        actions[idx] = self._act(k, eng, idx, mask)
            info = eng.step(actions)
            if not info.any_round_end:
                continue
            rows = np.flatnonzero(info.round_end)
            pts = info.round_points[rows].astype(np.float64)  # (n, S)
            r = row_seating[rows]
            pa = (pts * self.w_a[r]).sum(axis=1)
            pb = (pts * self.w_b[r]).sum(axis=1)
            d = pa - pb
            grp = row_group[rows]
            win = np.where(d > 0, 1.0, np.where(d < 0, 0.0, 0.5))
            np.add.at(tally.diff, grp, d)
            np.add.at(tally.wins, grp, win)
            np.add.at(tally.rounds, grp, 1.0)
            tally.pts_a += float(pa.sum())
            tally.pts_b += float(pb.sum())
            tally.n_win += int((d > 0).sum())
            tally.n_tie += int((d == 0).sum())
            tally.n_loss += int((d < 0).sum())
            if episode == "round":
                progress.update(rows.size)
                continue
            ends = rows[info.game_end[rows]]
            if ends.size:
                w = info.winner[ends]
                owner = ctrl[row_seating[ends], np.maximum(w, 0)]  # side s holds seat s
                gw = np.where(w < 0, 0.5, np.where(owner == 0, 1.0, 0.0))
                np.add.at(tally.game_wins, row_group[ends], gw)
                np.add.at(tally.games, row_group[ends], 1.0)
                tally.n_game_win += int((gw == 1.0).sum())
                tally.n_game_tie += int((w < 0).sum())
                progress.update(ends.size)


def _clip_rate(ci: tuple[float, float]) -> tuple[float, float]:
    """A rate's interval, clipped to [0, 1] (NaN stays NaN)."""
    return (float(np.clip(ci[0], 0.0, 1.0)), float(np.clip(ci[1], 0.0, 1.0)))


def _resolve_seed(seed: int | None) -> int:
    if seed is None:
        return int(np.random.SeedSequence().generate_state(1, np.uint32)[0])
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative int or None, got {seed!r}")
    return int(seed)


def evaluate(
    a: str | Agent,
    b: str | Agent,
    rounds: int = 10_000,
    players: int = 2,
    seed: int | None = 0,
    mode: str = "round",
    games: int | None = None,
    batch: int = 4096,
    progress: bool = True,
    preset: str | None = None,
    progress_file: TextIO | None = None,
    **rule_flags: Any,
) -> EvalResult:
    """Play agent A against agent B on duplicate deals and measure A minus B.

    Args:
        a, b: agents: registry names or paths, optionally with options
            (``"ismcts:budget=200"``), or :class:`Agent` instances (the same instance
            may play both sides).
        rounds: rounds to play in ``mode="round"``, rounded up to whole duplicate
            groups (a multiple of the number of seatings: 2, 6 or 2 for 2, 3, 4 players).
        players: 2, 3 or 4 (4 = teams of partners).
        seed: seeds the deals (deal ``g`` is game ``g`` of ``Engine(seed=seed)``) and the
            agents (A and B get independent seeds derived from it); None = fresh entropy
            (the seed used is reported).
        mode: ``"round"``: one-round episodes, the round statistics; ``"game"``: games to
            the target score; the round statistics then come from the rounds of those
            games (each group's rounds form one cluster).
        games: games to play to the target (rounded up to whole groups). In
            ``mode="round"`` a positive value adds a separate run of games for the
            game win rate; in ``mode="game"`` the default is 1,000.
        batch: games advanced together (rounded down to whole groups).
        progress: show a progress bar (tqdm when installed) on ``progress_file``
            (default stderr).
        preset: rule preset (``"classic"``, ``"cfr_paper"``).
        **rule_flags: rule flags (``target_score=...``, ``sur_points=...``).

    Returns:
        An :class:`EvalResult`.
    """
    if mode not in ("round", "game"):
        raise ValueError(f"mode must be 'round' or 'game', got {mode!r}")
    if "num_players" in rule_flags:
        if int(rule_flags["num_players"]) != players:
            raise ValueError("give the number of players as players=, not num_players=")
        rule_flags.pop("num_players")
    seats = seatings(players)
    R = len(seats)
    for name, val in (("rounds", rounds), ("batch", batch)):
        if isinstance(val, bool) or not isinstance(val, (int, np.integer)) or val < 1:
            raise ValueError(f"{name} must be a positive int, got {val!r}")
    if games is None:
        games = 1000 if mode == "game" else 0
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games < 0:
        raise ValueError(f"games must be a non-negative int, got {games!r}")
    if mode == "game" and games < 1:
        raise ValueError("mode='game' needs games >= 1")
    seed = _resolve_seed(seed)
    flags = dict(rule_flags)
    if preset is not None:
        flags["preset"] = preset
    rules = make_rules(num_players=players, **flags)  # validates the flags
    engine_flags = dict(flags, num_players=players)
    rules_label = "custom" if rule_flags else "classic"

    seed_a, seed_b = (int(x) for x in np.random.SeedSequence([seed, 1]).generate_state(2))
    agent_a = build_agent(a, seed=seed_a)
    # the same Agent instance may play both sides; equal specs build two agents
    agent_b = agent_a if isinstance(a, Agent) and b is a else build_agent(b, seed=seed_b)
    match = _Match((agent_a, agent_b), players, seed, batch, engine_flags)
    label_a, label_b = agent_label(a), agent_label(b)
    desc = f"{label_a} vs {label_b}"

    t0 = time.perf_counter()
    round_groups = -(-int(rounds) // R) if mode == "round" else 0
    game_groups = -(-int(games) // R) if games else 0
    tally = None
    if mode == "round":
        bar = Progress(round_groups * R, desc, "rounds", progress, progress_file)
        try:
            tally = match.run(round_groups, "round", bar, "rounds")
        finally:
            bar.close()
    gtally = None
    if game_groups:
        bar = Progress(game_groups * R, desc + " (games)", "games", progress, progress_file)
        try:
            # games use deals offset past the round run's, so the two runs are independent
            gtally = match.run(game_groups, "game", bar, "games", offset=round_groups)
        finally:
            bar.close()
    seconds = time.perf_counter() - t0
    if tally is None:
        tally = gtally
    assert tally is not None

    mean, se, ci = cluster_mean_ci(tally.diff, tally.rounds)
    wr, _, wci = cluster_mean_ci(tally.wins, tally.rounds)
    wci = _clip_rate(wci)
    n_rounds = int(tally.rounds.sum())
    decisions = int(sum(match.act_count))
    names = ("a", "b") if not match.same else ("a",)
    res = EvalResult(
        a=label_a,
        b=label_b,
        players=players,
        seed=seed,
        mode=mode,
        rules=dataclasses.asdict(rules) | {"preset": preset or rules_label},
        seatings=seats,
        rounds=n_rounds,
        deals=int((tally.rounds > 0).sum()),
        mean_point_diff=mean,
        std_error=se,
        ci95=ci,
        mean_points_a=tally.pts_a / n_rounds if n_rounds else math.nan,
        mean_points_b=tally.pts_b / n_rounds if n_rounds else math.nan,
        round_win_rate=wr,
        round_win_rate_ci95=wci,
        round_wins=tally.n_win,
        round_ties=tally.n_tie,
        round_losses=tally.n_loss,
        seconds=seconds,
        decisions=decisions,
        decisions_per_s=decisions / seconds if seconds > 0 else math.nan,
        agent_decisions={k: int(match.act_count[i]) for i, k in enumerate(names)},
        seconds_per_decision={
            k: match.act_seconds[i] / match.act_count[i]
            for i, k in enumerate(names)
            if match.act_count[i]
        },
        group_diff_sum=tally.diff,
        group_win_sum=tally.wins,
        group_rounds=tally.rounds,
    )
    if gtally is not None:
        gwr, _, gci = cluster_mean_ci(gtally.game_wins, gtally.games)
        res.games = int(gtally.games.sum())
        res.game_win_rate = gwr
        res.game_win_rate_ci95 = _clip_rate(gci)
        res.game_wins = gtally.n_game_win
        res.game_ties = gtally.n_game_tie
        res.mean_rounds_per_game = float(gtally.rounds.sum() / max(1.0, gtally.games.sum()))
    return res
