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
statistics (:mod:`agents.evaluation.stats`): the mean A-minus-B point difference per round gets
a 95% Student-t interval over the groups (a cluster/ratio estimator when groups hold
unequal numbers of rounds, as in games to the target). The games are played by the
one play loop, :func:`pasur_env.core.loop.play`. Example::

    from agents.evaluation.match import evaluate
    res = evaluate("greedy", "random", rounds=10_000, seed=0)
    print(res.summary())
    res.to_json()  # {"a": "greedy", "b": "random", "mean_point_diff": 7.1, ...}
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from agents.evaluation.progress import Progress
from agents.evaluation.results import EvalResult, library_info, utc_now
from agents.evaluation.sprt import Sprt, group_counts
from agents.evaluation.stats import clip_rate, cluster_mean_ci
from agents.games import Setup, agent_game
from agents.registry import agent_label, agent_provenance, build_agent, with_spec
from pasur_env.core.args import check_seed
from pasur_env.core.loop import DecisionClock, play
from pasur_env.core.policy import Policy, check_policy_fits
from pasur_env.core.record import BatchRecorder, append_records, records_file
from pasur_env.games import game_info

__all__ = [
    "evaluate", "seatings", "duplicate_engine", "setup", "Setup", "Match", "Tally",
    "check_agents", "sequential_test", "SPRT_CHUNK",
]


def seatings(players: int) -> list[str]:
    """The seatings of a duplicate group, seat 0 first (``"A"`` = agent A's seat)."""
    if players == 2:
        return ["AB", "BA"]
    if players == 3:
        return ["ABB", "BAB", "BBA", "AAB", "ABA", "BAA"]
    if players == 4:
        return ["ABAB", "BABA"]
    raise ValueError(f"players must be 2, 3 or 4, got {players!r}")


def duplicate_engine(
    groups: int,
    copies: int,
    *,
    seed: int,
    offset: int = 0,
    episode: str = "round",
    game: str = "pasur",
    **rule_flags: Any,
) -> Any:
    """An engine of ``game`` with ``groups * copies`` games: each deal repeated ``copies``
    times in a row.

    Deal ``g`` is the game ``offset + g`` of the engine seeded ``seed``: its stream does
    not depend on the batch size, so splitting an evaluation into batches changes
    nothing. Game ``g * copies + r`` is copy ``r`` of deal ``g``; copies share the deck
    and the random stream (later shuffles, buried jacks, redeals), and the games wait
    in the DONE phase when they end (``auto_reset=False``).
    """
    engine_class = game_info(game).engine_class()
    base = engine_class(
        int(groups), seed=0, episode=episode, auto_reset=False, parallel=False, **rule_flags
    )
    base.seed_streams(int(seed), int(offset))
    base.reset()  # the streams are set: deal from them
    eng = base.take(np.repeat(np.arange(int(groups), dtype=np.int64), int(copies)))
    eng.parallel = None  # choose serial/parallel kernels by batch size again
    return eng


@dataclass
class Tally:
    """Per-group accumulators of one run (rounds, and games to the target)."""

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

    @classmethod
    def joined(cls, parts: Sequence[Tally]) -> Tally:
        """The tally of runs played one after the other (their groups in order)."""
        out = cls(sum(p.groups for p in parts))
        for f in fields(cls):
            if f.name != "groups":
                values = [getattr(p, f.name) for p in parts]
                array = isinstance(values[0], np.ndarray)
                setattr(out, f.name, np.concatenate(values) if array else sum(values))
        return out


def check_agents(agents: Sequence[Any], game: str, players: int, engine_flags: dict[str, Any],
                 roles: Sequence[str] | None = None) -> None:
    """Refuse an agent that cannot play this game, table size or observation layout
    (:func:`~pasur_env.core.policy.check_policy_fits`) before any game is dealt.

    Specs (names, paths) are skipped: they are built for the game when played (so a
    match of specs builds no engine here, and a missing file is reported before any
    kernel compiles).
    """
    if all(isinstance(agent, str) for agent in agents):
        return
    engine = game_info(game).engine_class()(1, auto_reset=False, parallel=False,
                                           **engine_flags)
    for i, agent in enumerate(agents):
        if not isinstance(agent, str):
            role = roles[i] if roles is not None else "agent"
            check_policy_fits(agent, engine.GAME_ID, players, engine.obs_size, role=role)


class Match:
    """Plays duplicate batches of A vs B through the play loop and tallies every group.

    Args:
        agents: A and B (the same object may play both sides).
        players: 2, 3 or 4 (Persian Rummy: 4).
        seed: seed of the deals.
        batch: games advanced together (rounded down to whole groups).
        rule_flags: engine flags (Pasur's ``num_players`` included).
        save_games: a file (JSON lines) to append every game's record to (the game's
            record module, :mod:`pasur_env.pasur.record`, :mod:`pasur_env.rummy.record`),
            or None.
        labels: the names A and B go by in the records.
        game: the game (an id of :data:`pasur_env.games.GAMES`).
    """

    def __init__(
        self,
        agents: tuple[Policy, Policy],
        players: int,
        seed: int,
        batch: int,
        rule_flags: dict[str, Any],
        save_games: Path | None = None,
        labels: tuple[str, str] = ("A", "B"),
        game: str = "pasur",
    ) -> None:
        self.save_games, self.labels, self.game = save_games, labels, game
        check_agents(agents, game, players, rule_flags,
                     roles=[with_spec(f"agent {side}", label)
                            for side, label in zip("AB", labels, strict=True)])
        self.same = agents[0] is agents[1]
        self.policies = [agents[0]] if self.same else list(agents)
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
        n = len(self.policies)
        self.clock = DecisionClock([0.0] * n, [0] * n)

    def run(self, groups: int, episode: str, progress: Progress, offset: int = 0) -> Tally:
        """Play ``groups`` duplicate groups (deals ``offset ..``) with one-round or whole-game
        episodes; returns their tally."""
        R = len(self.seats)
        tally = Tally(groups)
        for start in range(0, groups, self.groups_per_batch):
            g = min(self.groups_per_batch, groups - start)
            eng = duplicate_engine(
                g, R, seed=self.seed, offset=offset + start, episode=episode, game=self.game,
                **self.rule_flags,
            )
            row_group = start + np.repeat(np.arange(g, dtype=np.int64), R)
            row_seating = np.tile(np.arange(R, dtype=np.int64), g)
            seat_policy = np.zeros_like(self.ctrl[row_seating]) if self.same else (
                self.ctrl[row_seating]
            )

            rec = self._recorder(eng, row_seating)

            def book(games: np.ndarray, info: Any, rg=row_group, rs=row_seating,
                     rec=rec) -> None:
                self._book(games, info, rg, rs, tally, episode, progress)
                if rec is not None:
                    rec.step(games, info)

            play(eng, self.policies, seat_policy, on_step=book, clock=self.clock,
                 on_decisions=None if rec is None else rec.decisions)
            self._write(rec)
        return tally

    def _recorder(self, eng: Any, row_seating: np.ndarray) -> BatchRecorder | None:
        if self.save_games is None:
            return None
        names = [[self.labels[0] if ch == "A" else self.labels[1] for ch in self.seats[r]]
                 for r in row_seating.tolist()]
        recorder = game_info(self.game).record_module().BatchRecorder
        return recorder(eng, names, seed=self.seed)  # type: ignore[no-any-return]

    def _write(self, rec: BatchRecorder | None) -> None:
        if rec is not None and self.save_games is not None:
            append_records(self.save_games, rec.records)

    def _book(
        self,
        games: np.ndarray,
        info: Any,
        row_group: np.ndarray,
        row_seating: np.ndarray,
        tally: Tally,
        episode: str,
        progress: Progress,
    ) -> None:
        """Add the rounds (and games) that ended in one step to the tally."""
        rows = np.flatnonzero(info.round_end)
        if not rows.size:
            return
        pts = info.round_points[rows].astype(np.float64)  # (n, S)
        r = row_seating[games[rows]]
        pa = (pts * self.w_a[r]).sum(axis=1)
        pb = (pts * self.w_b[r]).sum(axis=1)
        d = pa - pb
        grp = row_group[games[rows]]
        np.add.at(tally.diff, grp, d)
        np.add.at(tally.wins, grp, np.where(d > 0, 1.0, np.where(d < 0, 0.0, 0.5)))
        np.add.at(tally.rounds, grp, 1.0)
        tally.pts_a += float(pa.sum())
        tally.pts_b += float(pb.sum())
        tally.n_win += int((d > 0).sum())
        tally.n_tie += int((d == 0).sum())
        tally.n_loss += int((d < 0).sum())
        if episode == "round":
            progress.update(rows.size)
            return
        ends = rows[info.game_end[rows]]
        if ends.size:
            w = info.winner[ends]
            owner = self.ctrl[row_seating[games[ends]], np.maximum(w, 0)]  # side s: seat s
            gw = np.where(w < 0, 0.5, np.where(owner == 0, 1.0, 0.0))
            np.add.at(tally.game_wins, row_group[games[ends]], gw)
            np.add.at(tally.games, row_group[games[ends]], 1.0)
            tally.n_game_win += int((gw == 1.0).sum())
            tally.n_game_tie += int((w < 0).sum())
            progress.update(ends.size)


def _resolve_seed(seed: int | None) -> int:
    """The match seed after the one seed rule (None: fresh entropy, as a 32-bit int)."""
    checked = check_seed(seed)
    if checked is None:
        return int(np.random.SeedSequence().generate_state(1, np.uint32)[0])
    return checked


def _agent_seed(agent_seed: int | None, seed: int) -> int:
    """The seed of the agents: ``agent_seed`` when given (checked by the one seed rule),
    else the match seed."""
    if agent_seed is None:
        return seed
    try:
        checked = check_seed(agent_seed)
    except (TypeError, ValueError) as e:
        raise type(e)(str(e).replace("seed", "agent_seed", 1)) from None
    assert checked is not None
    return checked


def _check_counts(rounds: int, batch: int, games: int | None, mode: str) -> int:
    """Validate the sizes of a match; returns the number of games to the target."""
    if mode not in ("round", "game"):
        raise ValueError(f"mode must be 'round' or 'game', got {mode!r}")
    for name, val in (("rounds", rounds), ("batch", batch)):
        if isinstance(val, bool) or not isinstance(val, (int, np.integer)) or val < 1:
            raise ValueError(f"{name} must be a positive int, got {val!r}")
    if games is None:
        games = 1000 if mode == "game" else 0
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games < 0:
        raise ValueError(f"games must be a non-negative int, got {games!r}")
    if mode == "game" and games < 1:
        raise ValueError("mode='game' needs games >= 1")
    return int(games)


def setup(game: str, players: int | None, preset: str | None,
          rule_flags: dict[str, Any]) -> Setup:
    """The :class:`Setup` of a match of ``game`` (``players`` None: the game's first seat
    count); ``ValueError`` for what the game does not take (its row's set-up,
    :class:`agents.games.AgentGame`)."""
    info = game_info(game)
    players = info.players[0] if players is None else players
    if isinstance(players, bool) or not isinstance(players, (int, np.integer)):
        raise ValueError(f"players must be an int, got {players!r}")
    return agent_game(info.id).match_setup(int(players), preset, rule_flags)


def sequential_test(sprt: Sprt | tuple[float, float] | None, mode: str = "round",
                    games: int = 0) -> Sprt | None:
    """The :class:`~agents.evaluation.sprt.Sprt` of ``evaluate(sprt=...)``; ``ValueError``
    for a sequential match of whole games (its groups are one-round deals)."""
    if sprt is None:
        return None
    if mode != "round" or games:
        raise ValueError("a sequential test (sprt) plays one-round deals: not with games "
                         "to the target (--games, --episode game)")
    if isinstance(sprt, Sprt):
        return sprt
    if not isinstance(sprt, (tuple, list)) or len(sprt) != 2:
        raise TypeError(f"sprt must be an Sprt or (elo0, elo1), got {sprt!r}")
    return Sprt(*sprt)


def _agents(game: str, a: str | Policy, b: str | Policy, seed: int) -> tuple[Policy, Policy]:
    """Build A and B (the same instance may play both sides; equal specs build two).

    The seeds of A and B come from ``seed`` as the game's row says
    (:attr:`agents.games.AgentGame.match_seeds`: Pasur's are derived independently,
    Persian Rummy's are ``seed`` and ``seed + 1``, the seeding its results were first
    published with), and so does whether an instance is reseeded.
    """
    row = agent_game(game)
    seed_a, seed_b = row.match_seeds(seed)

    def make(spec: str | Policy, s: int) -> Policy:
        reseed = isinstance(spec, str) or row.reseed_instances
        return build_agent(spec, seed=s if reseed else None, game=game)

    agent_a = make(a, seed_a)
    agent_b = agent_a if not isinstance(a, str) and b is a else make(b, seed_b)
    return agent_a, agent_b


def _run_tallies(
    match: Match, rounds: int, games: int, mode: str, desc: str, progress: bool,
    progress_file: TextIO | None,
) -> tuple[Tally | None, Tally | None]:
    """The round run (``mode="round"``) and the games run (when ``games`` > 0)."""
    R = len(match.seats)
    round_groups = -(-int(rounds) // R) if mode == "round" else 0
    game_groups = -(-int(games) // R) if games else 0
    tally = gtally = None
    if mode == "round":
        bar = Progress(round_groups * R, desc, "rounds", progress, progress_file)
        try:
            tally = match.run(round_groups, "round", bar)
        finally:
            bar.close()
    if game_groups:
        bar = Progress(game_groups * R, desc + " (games)", "games", progress, progress_file)
        try:
            # games use deals offset past the round run's, so the two runs are independent
            gtally = match.run(game_groups, "game", bar, offset=round_groups)
        finally:
            bar.close()
    return tally, gtally


def _play_match(
    match: Match, rounds: int, games: int | None, mode: str, test: Sprt | None,
    progress: bool, progress_file: TextIO | None,
) -> tuple[Tally | None, Tally | None, dict[str, Any] | None]:
    """The round and game tallies of a fixed-size match, or the round tally and the
    test's report of a sequential one."""
    desc = f"{match.labels[0]} vs {match.labels[1]}"
    if test is None:
        tally, gtally = _run_tallies(match, rounds, games, mode, desc, progress, progress_file)
        return tally, gtally, None
    tally, report = _run_sequential(match, rounds, test, desc, progress, progress_file)
    return tally, None, report


#: with a sequential test, the games played between two looks at the LLR (at most)
SPRT_CHUNK = 256


def _run_sequential(
    match: Match, rounds: int, test: Sprt, desc: str, progress: bool,
    progress_file: TextIO | None,
) -> tuple[Tally, dict[str, Any]]:
    """Play chunks of duplicate groups (deals in the order of the fixed-size match) until
    the sequential test decides or ``rounds`` are played; the tally and the test's report.

    The LLR is looked at after every chunk of :data:`SPRT_CHUNK` games (fewer with a
    smaller ``batch``): a decision overshoots its bound by at most one chunk."""
    R = len(match.seats)
    groups = -(-int(rounds) // R)
    chunk = max(1, min(match.groups_per_batch, SPRT_CHUNK // R))
    parts: list[Tally] = []
    counts = np.zeros(2 * R + 1)
    llr, done = 0.0, 0
    bar = Progress(groups * R, desc, "rounds", progress, progress_file)
    try:
        while done < groups:
            part = match.run(min(chunk, groups - done), "round", bar, offset=done)
            parts.append(part)
            done += part.groups
            counts += group_counts(part.wins, part.rounds, R)
            llr = test.llr(counts)
            if test.decision(llr) is not None:
                break
    finally:
        bar.close()
    return Tally.joined(parts), test.report(llr, done * R, groups * R)


def _result(
    match: Match, tally: Tally, gtally: Tally | None, labels: tuple[str, str], seed: int,
    mode: str, rules: dict[str, Any], seconds: float, agent_seed: int | None = None,
) -> EvalResult:
    """The :class:`EvalResult` of a finished match (``agent_seed`` None: ``seed``). Its
    groups are deals ``0 ..`` of ``seed``: the run they come from starts there (a game
    run after a round run, whose groups are not kept, starts past the round run's)."""
    mean, se, ci = cluster_mean_ci(tally.diff, tally.rounds)
    wr, _, wci = cluster_mean_ci(tally.wins, tally.rounds)
    n_rounds = int(tally.rounds.sum())
    clock = match.clock
    decisions = int(sum(clock.decisions))
    names = ("a",) if match.same else ("a", "b")
    res = EvalResult(
        game=match.game, a=labels[0], b=labels[1], players=match.players, seed=seed,
        mode=mode, rules=rules,
        seatings=match.seats, rounds=n_rounds, deals=int((tally.rounds > 0).sum()),
        mean_point_diff=mean, std_error=se, ci95=ci,
        mean_points_a=tally.pts_a / n_rounds if n_rounds else math.nan,
        mean_points_b=tally.pts_b / n_rounds if n_rounds else math.nan,
        round_win_rate=wr, round_win_rate_ci95=clip_rate(wci), round_wins=tally.n_win,
        round_ties=tally.n_tie, round_losses=tally.n_loss, seconds=seconds,
        decisions=decisions,
        decisions_per_s=decisions / seconds if seconds > 0 else math.nan,
        agent_decisions={k: int(clock.decisions[i]) for i, k in enumerate(names)},
        seconds_per_decision={
            k: clock.per_decision(i) for i, k in enumerate(names) if clock.decisions[i]
        },
        group_diff_sum=tally.diff, group_win_sum=tally.wins, group_rounds=tally.rounds,
        group_deal=np.arange(tally.groups, dtype=np.int64),
        agent_seed=seed if agent_seed is None else int(agent_seed),
        library_version=library_info()["version"], git_commit=library_info()["commit"],
        date=utc_now(),
    )  # fmt: skip
    if gtally is not None:
        gwr, _, gci = cluster_mean_ci(gtally.game_wins, gtally.games)
        res.games = int(gtally.games.sum())
        res.game_win_rate = gwr
        res.game_win_rate_ci95 = clip_rate(gci)
        res.game_wins = gtally.n_game_win
        res.game_ties = gtally.n_game_tie
        res.mean_rounds_per_game = float(gtally.rounds.sum() / max(1.0, gtally.games.sum()))
    return res


def evaluate(
    a: str | Policy,
    b: str | Policy,
    rounds: int = 10_000,
    players: int | None = None,
    seed: int | None = 0,
    mode: str = "round",
    games: int | None = None,
    batch: int = 4096,
    progress: bool = True,
    preset: str | None = None,
    progress_file: TextIO | None = None,
    save_games: str | Path | None = None,
    *,
    game: str = "pasur",
    agent_seed: int | None = None,
    sprt: Sprt | tuple[float, float] | None = None,
    **rule_flags: Any,
) -> EvalResult:
    """Play agent A against agent B on duplicate deals and measure A minus B.

    Args:
        a, b: agents: registry names or paths, optionally with options
            (``"ismcts:budget=200"``), or :class:`pasur_env.Policy` instances (the same
            instance may play both sides).
        rounds: rounds to play in ``mode="round"``, rounded up to whole duplicate
            groups (a multiple of the number of seatings: 2, 6 or 2 for 2, 3, 4 players).
        players: 2, 3 or 4 (4 = teams of partners); None: the game's first (Pasur 2,
            Persian Rummy 4, the only one it takes).
        seed: seeds the deals (deal ``g`` is game ``g`` of ``Engine(seed=seed)``) and,
            unless ``agent_seed`` is given, the agents (A and B get independent seeds
            derived from it); None = fresh entropy (the seed used is reported).
        mode: ``"round"``: one-round episodes, the round statistics; ``"game"``: games to
            the target score; the round statistics then come from the rounds of those
            games (each group's rounds form one cluster).
        games: games to play to the target (rounded up to whole groups). In
            ``mode="round"`` a positive value adds a separate run of games for the
            game win rate; in ``mode="game"`` the default is 1,000.
        batch: games advanced together (rounded down to whole groups).
        progress: show a progress bar (tqdm when installed) on ``progress_file``
            (default stderr).
        preset: Pasur's rule preset (``"classic"``, ``"cfr_paper"``, ``"mini"``, ``"small"``).
        save_games: a folder: every game played is written there as a record
            (:mod:`pasur_env.core.record`), one JSON object per line, in
            ``<A>_vs_<B>_seed<seed>.jsonl`` (replay them with ``pasur replay``).
        game: ``"pasur"`` (default) or ``"persian_rummy"`` (4 players, team against
            team: seatings ``ABAB`` and ``BABA``; games have ``deals`` deals).
        agent_seed: seeds the agents instead of ``seed``: the same deals played with
            other draws of the agents' randomness (two such runs pair deal by deal,
            :func:`agents.evaluation.compare.compare`); None: ``seed``.
        sprt: a sequential test, :class:`~agents.evaluation.sprt.Sprt` or ``(elo0,
            elo1)`` (error rates 0.05): the match stops as soon as it decides between
            Elo <= elo0 and Elo >= elo1 (``rounds`` is then the most played; one-round
            deals only); the result's ``sprt`` says the decision and the rounds used.
        **rule_flags: the game's rule flags (Pasur: ``target_score=...``,
            ``sur_points=...``; Persian Rummy: ``deals=...``, ``four_set_double=...``).

    Returns:
        An :class:`EvalResult`.
    """
    games = _check_counts(rounds, batch, games, mode)
    test = sequential_test(sprt, mode, games)
    seed = _resolve_seed(seed)
    agent_seed = _agent_seed(agent_seed, seed)
    spec = setup(game, players, preset, rule_flags)
    agent_a, agent_b = _agents(spec.game, a, b, agent_seed)
    labels = (agent_label(a), agent_label(b))
    match = Match((agent_a, agent_b), spec.players, seed, batch, spec.engine_flags,
                  save_games=records_file(save_games, labels, seed), labels=labels,
                  game=spec.game)
    t0 = time.perf_counter()
    tally, gtally, report = _play_match(match, rounds, games, mode, test, progress,
                                        progress_file)
    seconds = time.perf_counter() - t0
    res = _result(match, tally or gtally, gtally, labels, seed, mode, spec.rules, seconds,
                  agent_seed)
    res.sprt = report
    res.provenance = {"a": agent_provenance(a, agent_a, spec.game, spec.players),
                      "b": agent_provenance(b, agent_b, spec.game, spec.players)}
    return res
