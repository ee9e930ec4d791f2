"""Positions labelled by search: the training data of the move-scoring network.

A :class:`SearchLabeler` is a policy: at each of its decisions it lists the candidate
moves with their features (:func:`agents.pasur.move_net.features.candidate_moves`), runs
determinized search to value *every* move (:func:`agents.pasur.ismcts.search_values`), records
the observation, the move rows and the values, and plays the best move (or, with
probability ``explore``, a uniformly random one, so that the data also holds the
positions that follow weaker play). :func:`generate` plays rounds with the labeler in
some seats and opponents drawn from a mix in the others, through the one play loop
(:func:`pasur_env.core.loop.play`), until it has the number of decisions asked for.
Forced decisions (one move) carry no information and are not recorded.
"""

from __future__ import annotations

import dataclasses
import io
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents import make_agent
from agents.core.search import decision_seeds
from agents.pasur.endgame import endgame_values
from agents.pasur.inference import PlayRecords, reads_plays
from agents.pasur.ismcts import WHOLE_ROLLOUT, oracle_values, search_values
from agents.pasur.move_net.agent import best_moves
from agents.pasur.move_net.features import candidate_moves
from agents.pasur.moves import emit_actions
from pasur_env import GameView
from pasur_env.core.loop import play
from pasur_env.core.policy import Policy, check_actions
from pasur_env.games import game_info
from pasur_env.pasur import kernels as K
from train.common.threads import one_blas_thread

__all__ = ["Dataset", "Labeler", "SOLVED_SCALE", "SearchLabeler", "SolvedLabeler", "generate",
           "size_text"]


@dataclass
class Dataset:
    """Labelled decisions: ``obs`` (n, N) float16, ``offsets`` (n + 1,) into the move rows,
    ``feats`` (m, MOVE_WIDTH) float16, ``values`` (m,) float32 (search values), and
    ``states`` (n, NCOL) int64, the engine rows of the decisions (to recompute
    observations or features when they change)."""

    obs: np.ndarray
    offsets: np.ndarray
    feats: np.ndarray
    values: np.ndarray
    states: np.ndarray

    def __len__(self) -> int:
        return int(self.obs.shape[0])

    @classmethod
    def concat(cls, parts: list[Dataset], release: bool = False) -> Dataset:
        """The decisions of ``parts`` in one dataset. One part is returned as it is (no
        copy: a one-iteration run fits the data it labelled without holding it twice).
        With ``release`` each part's arrays are dropped as soon as they are copied, so
        that the copy costs one array's memory at a time, not the whole data again (the
        labelled parts of a 20-minute run are over a gigabyte)."""
        parts = [p for p in parts if len(p)]
        if not parts:
            raise ValueError("no labelled decisions")
        if len(parts) == 1:
            return parts[0]
        sizes = np.cumsum([0] + [int(p.offsets[-1]) for p in parts[:-1]])
        fields: dict[str, np.ndarray] = {"offsets": np.concatenate(
            [p.offsets[:-1] + s for p, s in zip(parts, sizes, strict=True)]
            + [np.array([sizes[-1] + parts[-1].offsets[-1]])]
        )}
        for f in FIELDS:
            if f != "offsets":
                fields[f] = np.concatenate([getattr(p, f) for p in parts])
                if release:
                    for p in parts:  # a new empty array: a view would keep the old alive
                        a = getattr(p, f)
                        setattr(p, f, np.empty((0, *a.shape[1:]), dtype=a.dtype))
        return cls(**fields)

    def head(self, n: int) -> Dataset:
        """The first ``n`` decisions (to time a fit on a sample)."""
        end = int(self.offsets[n])
        return Dataset(self.obs[:n], self.offsets[:n + 1], self.feats[:end], self.values[:end],
                       self.states[:n])

    @property
    def nbytes(self) -> int:
        """The bytes of the arrays in memory (what an uncompressed file holds)."""
        return sum(int(getattr(self, f).nbytes) for f in FIELDS)

    def save(self, path: Any) -> None:
        """Write the arrays as an ``.npz`` whose members are compressed with bzip2 (a path
        or a binary file; :func:`numpy.load` reads it as any ``.npz``). The labels are
        mostly zeros and small integers (float16 observations and move rows, int64 engine
        rows): bzip2 makes them 30 to 40 times smaller, ``np.savez_compressed``'s deflate
        only 14 to 16 times, in the same time to write (Pasur and Persian Rummy
        iterations of ``make train``), so a long run's data stays small on disk."""
        with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_BZIP2) as zf:
            for f in FIELDS:
                with zf.open(f"{f}.npy", "w", force_zip64=True) as fh:
                    np.lib.format.write_array(fh, np.asanyarray(getattr(self, f)),
                                              allow_pickle=False)

    @classmethod
    def load(cls, path: Any) -> Dataset:
        """Read a file written by :meth:`save`, compressed or not (the files of runs made
        before the data was compressed load as they are); no pickled object is read."""
        with np.load(path, allow_pickle=False) as d:
            return cls(*(d[f] for f in FIELDS))

    def to_bytes(self) -> bytes:
        """The compressed file of :meth:`save` as bytes (a labelling shard travels from
        its worker to the driver so: :mod:`train.move_net.distributed`)."""
        buf = io.BytesIO()
        self.save(buf)
        return buf.getvalue()

    @classmethod
    def from_bytes(cls, data: bytes) -> Dataset:
        """The dataset of :meth:`to_bytes`."""
        return cls.load(io.BytesIO(data))


#: the arrays of a :class:`Dataset`, in its fields' order (the names in its files)
FIELDS = tuple(f.name for f in dataclasses.fields(Dataset))


class Labeler:
    """What every game's labeller shares: the decisions recorded so far (:meth:`take`).

    A labeller is a policy (``act``) that values every candidate of its decisions and
    records them with :meth:`_record`; :func:`generate` plays it and counts
    :attr:`decisions`. Pasur's is :class:`SearchLabeler`, Persian Rummy's
    :class:`train.move_net.rummy.RummyLabeler`.
    """

    name = "labeler"
    needs_observation = True

    def __init__(self, seed: int, explore: float = 0.0) -> None:
        self.explore = explore
        self.rng = np.random.default_rng(seed)
        self.parts: list[Dataset] = []
        self.decisions = 0

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def _explore(self, chosen: np.ndarray, offsets: np.ndarray) -> np.ndarray:
        """``chosen`` with, in each decision with probability ``explore``, a uniformly
        random candidate instead."""
        counts = np.diff(offsets)
        n = counts.size
        wild = self.rng.random(n) < self.explore
        if wild.any():
            pick = (self.rng.random(n) * counts).astype(np.int64)
            chosen = np.where(wild, offsets[:-1] + pick, chosen)
        return chosen

    def _record(self, states: np.ndarray, obs: np.ndarray, offsets: np.ndarray,
                feats: np.ndarray, values: np.ndarray) -> None:
        counts = np.diff(offsets)
        keep = np.flatnonzero(counts > 1)
        if not keep.size:
            return
        rows = np.concatenate([np.arange(offsets[i], offsets[i + 1]) for i in keep])
        sub = np.zeros(keep.size + 1, dtype=np.int64)
        np.cumsum(counts[keep], out=sub[1:])
        self.parts.append(Dataset(obs[keep].astype(np.float16), sub,
                                  feats[rows].astype(np.float16),
                                  values[rows].astype(np.float32), states[keep]))
        self.decisions += int(keep.size)

    def take(self) -> Dataset:
        """The decisions recorded so far (and forget them: each array of the recorded
        parts is released as it is copied)."""
        parts, self.parts, self.decisions = self.parts, [], 0
        data = Dataset.concat(parts, release=True)
        return_free_memory()
        return data


def return_free_memory() -> None:
    """Give the memory the C heap holds free back to the system (glibc's
    ``malloc_trim``; elsewhere nothing). The labelled parts are hundreds of arrays of a
    few megabytes; freed after :meth:`Labeler.take` copies them into one dataset, much
    of their memory stayed in the heap for the rest of the run (measured on 100,000
    Persian Rummy decisions, 485 MB of arrays: the fit and the evaluations held 1.6 GB
    without the trim, 1.35 GB with it; the peak was 1.63 and 1.54 GB)."""
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("c")
    try:
        ctypes.CDLL(name).malloc_trim(0)
    except (OSError, AttributeError, TypeError):  # not glibc: its allocator gives back itself
        pass


class SearchLabeler(Labeler):
    """A policy that values every move by search, records it, and plays the best.

    Args:
        budget: rollouts per decision (split over the moves).
        seed: seeds the search streams and the exploration.
        explore: probability of playing a uniformly random candidate move instead.
        rollout, plies, horizon: the search's rollout policy and depth (as
            :class:`agents.ISMCTSAgent`).
        student: a network (:class:`agents.pasur.move_net.MoveNet`) whose own choice is played with
            probability ``follow`` instead of the search's: the labels then also cover
            the positions the network's own play leads to (DAgger).
        follow: see ``student``.
        endgame: label the decisions of a 2-player round's last deal (the stock empty:
            every card is known) by exact minimax (:mod:`agents.pasur.endgame`) instead
            of rollouts, which value a move by the heuristic's continuation there.
        exact_leaves: a rollout that reaches a 2-player round's last deal takes that
            deal's exact minimax value in its determinization instead of playing it
            (``exact_last_deal`` of :func:`agents.pasur.ismcts.search_values`).
        infer_beta, infer_floor: with ``infer_beta`` > 0 (2 players, hidden hands) the
            determinizations are weighted by how well they explain the opponent's plays
            in the current deal, the round's opening play included, under the heuristic
            as the opponent's model (:mod:`agents.pasur.inference`, as ``net-ismcts``);
            0: uniform determinizations.
    """

    def __init__(self, budget: int, seed: int, explore: float = 0.0,
                 rollout: str = "heuristic", plies: int | None = 6, horizon: int = 0,
                 student: Any = None, follow: float = 0.0, oracle: bool = False,
                 endgame: bool = False, exact_leaves: bool = False,
                 infer_beta: float = 0.0, infer_floor: float = 0.2) -> None:
        super().__init__(seed, explore)
        self.endgame, self.exact_leaves = endgame, exact_leaves
        self.infer_beta, self.infer_floor = float(infer_beta), float(infer_floor)
        self.records = PlayRecords(lead=True)
        self.budget, self.rollout = budget, rollout
        self.plies = WHOLE_ROLLOUT if plies is None else plies
        self.horizon, self.student, self.follow = horizon, student, follow
        self.player = make_agent("heuristic", game="pasur", seed=seed) if oracle else None

    def act(self, obs: np.ndarray | None, mask: np.ndarray, view: GameView) -> np.ndarray:
        assert obs is not None
        eng, games = view.engine, view.games
        offsets, cards, capts, feats = candidate_moves(eng, games)
        if self.player is not None:
            return self._act_oracle(obs, mask, view, offsets, cards, capts, feats)
        seeds = decision_seeds(self.rng, len(games))
        solved, exact = self._solved(eng, games, offsets)
        exact_rows = np.repeat(solved, np.diff(offsets))
        infers = reads_plays(eng, self.infer_beta)
        values = search_values(eng, games, offsets, seeds, budget=self.budget,
                               rollout=self.rollout, plies=self.plies, horizon=self.horizon,
                               keep=~exact_rows, exact_last_deal=self.exact_leaves,
                               records=self.records.current(eng, games) if infers else None,
                               beta=self.infer_beta, floor=self.infer_floor)
        values = np.where(exact_rows, exact, values)
        self._record(eng.state[games], obs, offsets, feats, values)
        chosen = best_moves(values, offsets)
        if self.student is not None and self.follow > 0:
            own = best_moves(self.student.q_values(obs, offsets, feats), offsets)
            chosen = np.where(self.rng.random(len(games)) < self.follow, own, chosen)
        chosen = self._explore(chosen, offsets)
        out = np.empty(len(games), dtype=np.int64)
        emit_actions(eng.state, games, cards[chosen], capts[chosen], out)
        if infers:
            self.records.remember(eng, games, cards[chosen], capts[chosen])
        return check_actions(out, mask, self.name)

    def _solved(self, eng: Any, games: np.ndarray,
                offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Which decisions are labelled exactly (``endgame``: those of a 2-player last
        deal) and their moves' exact values (NaN elsewhere)."""
        if not self.endgame:
            return np.zeros(len(games), dtype=np.bool_), np.full(int(offsets[-1]), np.nan)
        return endgame_values(eng, games, offsets)

    def _act_oracle(self, obs: np.ndarray, mask: np.ndarray, view: GameView,
                    offsets: np.ndarray, cards: np.ndarray, capts: np.ndarray,
                    feats: np.ndarray) -> np.ndarray:
        """Oracle labels (the true position's values, :func:`oracle_values`) recorded,
        and the heuristic's action played (a random candidate with probability
        ``explore``): a player choosing by those values would see the hidden cards."""
        eng, games = view.engine, view.games
        values = oracle_values(eng, games, offsets, rollout=self.rollout, plies=self.plies,
                               horizon=self.horizon, exact_last_deal=self.exact_leaves)
        self._record(eng.state[games], obs, offsets, feats, values)
        played = self.player.act(obs, mask, view)
        chosen = self._explore(np.full(len(games), -1), offsets)  # -1: not exploring
        move = np.where(chosen < 0, offsets[:-1], chosen)
        out = np.empty(len(games), dtype=np.int64)
        emit_actions(eng.state, games, cards[move], capts[move], out)
        return check_actions(np.where(chosen < 0, played, out), mask, self.name)


#: round points a move's label gets per unit of the solved policy's probability of it
SOLVED_SCALE = 4.0


class SolvedLabeler(Labeler):
    """Labels from a solved policy of a small variant (``--label-search solved``): the
    policy plays (``cfr:PATH``, sampling its mixed strategy), and each candidate move of
    its PLAY decisions is labelled :data:`SOLVED_SCALE` times the policy's probability of
    the move's card. The fit's policy term (a softmax over the values, one point of
    temperature) then puts most weight on the policy's most probable move, which the
    network, playing the best-valued move, learns to play (in a trial on ``small``, 8
    points per unit made a more exploitable network). What a network can learn from the
    equilibrium itself: a yardstick for the search labels, which the full game needs,
    not a substitute.

    Args:
        path: the policy file of ``python -m train.cfr`` (its variant's games only).
        seed: seeds the policy's sampling.
    """

    def __init__(self, path: str, seed: int) -> None:
        from agents.pasur.cfr import CFRAgent

        super().__init__(seed, 0.0)
        self.policy = CFRAgent(path, seed=seed)

    def act(self, obs: np.ndarray | None, mask: np.ndarray, view: GameView) -> np.ndarray:
        assert obs is not None
        eng, games = view.engine, view.games
        acts = self.policy.act(obs, mask, view)
        play = eng.state[games, K.PHASE] == K.PLAY
        if play.any():
            sub = games[play]
            offsets, cards, _, feats = candidate_moves(eng, sub)
            values = np.zeros(int(offsets[-1]))
            for j, g in enumerate(sub.tolist()):
                known = self.policy.last_policy(eng, g)
                if known is not None:
                    ids, probs = known
                    rows = slice(offsets[j], offsets[j + 1])
                    where = np.searchsorted(ids, cards[rows]).clip(0, ids.size - 1)
                    values[rows] = np.where(ids[where] == cards[rows],
                                            SOLVED_SCALE * probs[where], 0.0)
            self._record(eng.state[sub], obs[play], offsets, feats, values)
        return acts


def _engine(game: str, batch: int, seed: int, num_players: int,
            preset: str | None = None) -> Any:
    """A batch of one-round games of ``game`` (Pasur: of its rule ``preset``, such as
    a small variant) that stop when they end."""
    extra: dict[str, Any] = {} if preset is None else {"preset": preset}
    return game_info(game).engine(batch, players=num_players, seed=seed, episode="round",
                                  auto_reset=False, **extra)


def generate(
    labeler: Labeler, decisions: int, *, num_players: int, seed: int,
    opponents: dict[str, float], batch: int = 256, progress: Any = None,
    policies: dict[str, Policy] | None = None, deadline: float | None = None,
    resize: Callable[[Labeler], int] | None = None, game: str = "pasur",
    preset: str | None = None,
) -> Dataset:
    """Play one-round games until ``labeler`` has recorded ``decisions`` decisions.

    In each game the labeler plays one seat (its side in 4-player games); the other
    seats are played by an opponent drawn from ``opponents`` (name -> weight; ``"self"``
    is the labeler itself, which then records every seat). ``policies`` may give
    objects for names (e.g. the network being trained); others come from
    :func:`agents.make_agent`. At ``deadline`` (a ``time.time()`` value) it stops after
    the batch of games in progress. ``resize(labeler)``, called after each batch, returns
    the number of decisions to reach from then on (a wall-time budget sizes the run while
    it labels: :class:`train.move_net.budget.Budget`). ``game`` is the game played (its
    engine and its agents' registry; Persian Rummy has 4 players); ``preset`` a Pasur
    rule preset (the small variants ``mini`` and ``small``). numpy's BLAS runs on one
    thread meanwhile (:func:`train.common.threads.one_blas_thread`).
    """
    names = list(opponents)
    weights = np.array([opponents[n] for n in names], dtype=np.float64)
    weights /= weights.sum()
    rng = np.random.default_rng([seed, 11])
    built = [labeler] + [
        labeler if n == "self" else (policies or {}).get(n)
        or make_agent(n, game=game, seed=seed + k)
        for k, n in enumerate(names)
    ]
    with one_blas_thread():
        chunk = seed
        while labeler.decisions < decisions and (deadline is None or time.time() < deadline):
            eng = _engine(game, batch, chunk, num_players, preset)
            chunk += 1
            learner = rng.integers(0, num_players, batch)
            opp = 1 + rng.choice(len(names), size=batch, p=weights)
            seat_policy = np.repeat(opp[:, None], num_players, axis=1)
            sides = np.arange(num_players) % 2 if num_players == 4 else np.arange(num_players)
            mine = sides[None, :] == sides[learner][:, None]
            seat_policy[mine] = 0
            before = labeler.decisions
            play(eng, built, seat_policy)
            if resize is not None:
                decisions = resize(labeler)
            if progress is not None:
                progress.update(min(labeler.decisions, decisions) - min(before, decisions))
        return labeler.take()


def size_text(n: int) -> str:
    """``n`` bytes for a reader: three significant digits and a decimal unit."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n} B"
