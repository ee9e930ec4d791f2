"""Duplicate-deal evaluation of two Persian Rummy agents, team against team.

Every deal (deck and random stream) is played twice, once with agent A at seats 0+2
(``ABAB``) and once at seats 1+3 (``BABA``), so the cards' luck cancels out of the
comparison as in :mod:`agents.evaluation.match`. A deal in both seatings is a *duplicate group*,
the independent unit of the statistics (:func:`agents.evaluation.stats.cluster_mean_ci`): the mean
A-minus-B team point difference per round and A's round win rate (a tie counts half)
get 95% Student-t intervals over the groups. Example::

    from agents.evaluation.rummy_match import evaluate_rummy
    print(evaluate_rummy("greedy", "random", rounds=10_000, seed=0).summary())
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from agents.evaluation.stats import clip_rate, cluster_mean_ci
from agents.registry import make_agent
from pasur_env.core.policy import GameView, Policy, check_actions
from pasur_env.rummy import RummyEngine
from pasur_env.rummy.kernels import state as S
from pasur_env.rummy.observation import OBS_SIZE, observe_batch

__all__ = ["evaluate_rummy", "RummyEvalResult", "play_rummy", "duplicate_rummy_engine"]

#: seat -> 0 if agent A plays it, 1 if B; one row per seating (ABAB, BABA)
SEATINGS = np.array([[0, 1, 0, 1], [1, 0, 1, 0]], dtype=np.int64)


@dataclass
class RummyEvalResult:
    """Result of :func:`evaluate_rummy` (A's view)."""

    a: str
    b: str
    rounds: int
    groups: int
    seed: int
    mean_point_diff: float
    ci95: tuple[float, float]
    win_rate: float
    win_ci95: tuple[float, float]
    points_a: float
    points_b: float
    seconds: float

    @property
    def round_win_rate(self) -> float:
        """``win_rate`` under the name the Pasur results use (shared training callbacks)."""
        return self.win_rate

    def summary(self) -> str:
        return (
            f"Persian Rummy: {self.a} vs {self.b}, {self.rounds} rounds "
            f"({self.groups} duplicate deals x 2 seatings, seed {self.seed}, "
            f"{self.seconds:.1f} s)\n"
            f"  mean team point difference per round (A - B): {self.mean_point_diff:+.2f} "
            f"[95% CI {self.ci95[0]:+.2f}, {self.ci95[1]:+.2f}]\n"
            f"  round win rate of A: {self.win_rate:.3f} "
            f"[95% CI {self.win_ci95[0]:.3f}, {self.win_ci95[1]:.3f}]\n"
            f"  mean points per round: A {self.points_a:.1f}, B {self.points_b:.1f}"
        )

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def duplicate_rummy_engine(groups: int, seed: int, offset: int = 0, **flags: Any
                           ) -> RummyEngine:
    """``2 * groups`` one-round games: deal ``g`` (game ``offset + g`` of ``seed``, whatever
    the batch) twice in a row; the games wait in DONE when they end."""
    base = RummyEngine(groups, seed=0, episode="round", auto_reset=False, parallel=False,
                       **flags)
    base.seed_streams(seed, offset)
    base.reset()  # deal from the streams just set
    eng = base.take(np.repeat(np.arange(groups, dtype=np.int64), 2))
    eng.parallel = None
    return eng


def play_rummy(eng: RummyEngine, policies: list[Policy], seat_policy: np.ndarray,
               on_step: Any = None) -> None:
    """Play every game until DONE: ``seat_policy[g, s]`` indexes the policy of seat s in
    game g. Each policy is asked once per iteration for all its decisions."""
    rows = np.arange(eng.num_games)
    while True:
        live = eng.phase != S.DONE
        if not live.any():
            return
        games = np.flatnonzero(live)
        who = seat_policy[rows, eng.current_player][games]
        masks = eng.legal_mask(games)
        acts = np.empty(games.size, dtype=np.int64)
        for k in np.unique(who).tolist():
            sel = who == k
            pol, g = policies[k], games[sel]
            obs = None
            if pol.needs_observation:
                obs = np.zeros((g.size, OBS_SIZE), dtype=np.float32)
                observe_batch(eng.state, g, eng.current_player[g], obs)
            acts[sel] = check_actions(pol.act(obs, masks[sel], GameView(eng, g)), masks[sel],
                                      pol.name)
        info = eng.step(acts, games=games)
        if on_step is not None:
            on_step(games, info)


def evaluate_rummy(a: str | Policy, b: str | Policy, rounds: int = 10_000, seed: int = 0,
                   batch: int = 4096, **flags: Any) -> RummyEvalResult:
    """Play A against B on ``ceil(rounds / 2)`` duplicate deals (see the module doc)."""
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 2:
        raise ValueError(f"rounds must be an int >= 2, got {rounds!r}")
    pa = make_agent(a, game="persian_rummy", seed=seed) if isinstance(a, str) else a
    pb = make_agent(b, game="persian_rummy", seed=seed + 1) if isinstance(b, str) else b
    groups = -(-rounds // 2)
    diff = np.zeros(groups)
    wins = np.zeros(groups)
    tot = np.zeros(2)
    t0 = time.perf_counter()
    per = max(1, batch // 2)
    for start in range(0, groups, per):
        g = min(per, groups - start)
        eng = duplicate_rummy_engine(g, seed, start, **flags)
        seating = np.tile(np.arange(2), g)
        group = start + np.repeat(np.arange(g), 2)

        def book(games: np.ndarray, info: Any, seating=seating, group=group) -> None:
            rows = np.flatnonzero(info.round_end)
            if rows.size == 0:
                return
            team_a = seating[games[rows]]  # seating 0: A holds team 0
            pts = info.round_points[rows].astype(np.float64)
            p_a = pts[np.arange(rows.size), team_a]
            p_b = pts[np.arange(rows.size), 1 - team_a]
            np.add.at(diff, group[games[rows]], p_a - p_b)
            np.add.at(wins, group[games[rows]], np.sign(p_a - p_b) * 0.5 + 0.5)
            tot[0] += p_a.sum()
            tot[1] += p_b.sum()

        play_rummy(eng, [pa, pb], SEATINGS[seating], on_step=book)
    counts = np.full(groups, 2.0)
    mean, _, ci = cluster_mean_ci(diff, counts)
    wr, _, wci = cluster_mean_ci(wins, counts)
    n = 2 * groups
    name = lambda p, s: s if isinstance(s, str) else getattr(p, "name", repr(p))  # noqa: E731
    return RummyEvalResult(
        name(pa, a), name(pb, b), n, groups, seed, mean, ci, wr, clip_rate(wci),
        tot[0] / n, tot[1] / n, time.perf_counter() - t0,
    )
