"""Inference from the opponent's plays (agents/pasur/inference.py): each play is read off the
public change, the determinization holding the opponent's true hand explains a heuristic
opponent's plays as well as their probability in the true positions says, and the
weights reach the search only when asked for."""

from __future__ import annotations

import numpy as np
import pytest

from agents.pasur.heuristic import (
    HeuristicAgent,
    heuristic_actions,
    heuristic_params,
    heuristic_scores,
)
from agents.pasur.inference import (
    MAX_PLAYS,
    NREC,
    R_CARD,
    R_DEAL,
    R_TABLE,
    R_TAKEN,
    R_TURN,
    R_VALID,
    PlayRecords,
    after_move_records,
    lead_record,
    opponent_play,
    play_weights,
)
from agents.pasur.ismcts import canonical_infoset, search_values
from agents.pasur.move_net import MoveNet
from agents.pasur.move_net.features import candidate_moves
from agents.pasur.move_net.search import NetSearchAgent
from agents.pasur.moves import MOVE_BUF, decision_moves
from pasur_env import Engine
from pasur_env.core.loop import play
from pasur_env.pasur import kernels as K
from pasur_env.pasur.cards import mask_of
from pasur_env.pasur.moves import move_options, move_to_actions
from pasur_env.pasur.observation import observation_size
from pasur_env.pasur.rules import make_rules

HP = heuristic_params()


class Deal:
    """A 2-player round played by us (random full moves, recorded) and a heuristic
    opponent, up to ``plays`` of its plays in one deal: the records with their plays
    filled in as read, and what the test may see besides (the opponent's true hands)."""

    def __init__(self, seed: int, plays: int, random_opponent: bool = False) -> None:
        rng = np.random.default_rng(seed)
        self.eng = eng = Engine(1, seed=seed, episode="round")
        for _ in range(int(rng.integers(0, 30))):  # somewhere in the round
            eng.step(eng.random_actions(rng))
        while eng.state[0, K.PHASE] == K.CAPTURE:
            eng.step(eng.random_actions(rng))
        self.records: list[np.ndarray] = []
        self.truth: list[tuple[int, int, np.ndarray]] = []  # (card, taken, state before)
        self.seat = int(eng.state[0, K.MOVER])
        while len(self.truth) < plays and eng.state[0, K.PHASE] == K.PLAY:
            if self.records and self.records[-1][R_DEAL] != eng.state[0, K.DEAL]:
                break
            if self.records:  # read the previous play, as the agent does
                card, taken = opponent_play(eng.state, 0, self.records[-1])
                self.records[-1][R_CARD], self.records[-1][R_TAKEN] = card, taken
            moves = move_options(eng, 0)
            card, cap = moves[int(rng.integers(len(moves)))]
            rec = after_move_records(eng, np.array([0]), np.array([card]),
                                     np.array([mask_of(cap)]))[0]
            for a in move_to_actions(eng, 0, card, cap):
                eng.step([a])
            if eng.state[0, K.PHASE] == K.DONE or eng.state[0, K.DEAL] != rec[R_DEAL]:
                break
            opp = 1 - self.seat
            hand0, table0 = set(eng.hand(0, opp)), int(eng.state[0, K.TABLE])
            before = eng.state.copy()
            while eng.state[0, K.MOVER] == opp and eng.state[0, K.PHASE] != K.DONE:
                eng.step(eng.random_actions(rng) if random_opponent
                         else heuristic_actions(eng, np.array([0]), HP))
            self.records.append(rec)
            (c,) = hand0 - set(eng.hand(0, opp))
            self.truth.append((c, table0 & ~int(eng.state[0, K.TABLE]), before))
        self.fits = (eng.state[0, K.PHASE] == K.PLAY and len(self.truth) > 0
                     and eng.state[0, K.DEAL] == self.records[-1][R_DEAL])

    def recs(self) -> np.ndarray:
        out = np.zeros((MAX_PLAYS, NREC), dtype=np.int64)
        out[: len(self.records)] = self.records
        return out


def _deals(n: int, plays: int, random_opponent: bool = False) -> list[Deal]:
    return [d for d in (Deal(seed, plays, random_opponent) for seed in range(n)) if d.fits]


def test_the_opponents_play_is_read_from_the_public_change() -> None:
    deals = _deals(80, 3)
    assert len(deals) >= 20
    for d in deals:
        for rec, (card, taken, _) in zip(d.records[:-1], d.truth[:-1], strict=True):
            assert (rec[R_CARD], rec[R_TAKEN]) == (card, taken)
        assert opponent_play(d.eng.state, 0, d.records[-1]) == d.truth[-1][:2]
    # a record of another position does not fit: nothing is read
    stale = deals[0].records[-1].copy()
    stale[R_TURN] += 2
    assert opponent_play(deals[0].eng.state, 0, stale) == (-1, 0)
    assert opponent_play(deals[0].eng.state, 0, np.zeros(NREC, dtype=np.int64)) == (-1, 0)


def _play_probability(before: np.ndarray, params: np.ndarray, card: int, taken: int,
                      beta: float, floor: float = 0.0) -> float:
    """softmax(beta * heuristic score) of the play made, in the true position before it,
    mixed with a uniformly random play with probability ``floor``."""
    cards, capts = np.empty(MOVE_BUF, np.int64), np.empty(MOVE_BUF, np.int64)
    n = decision_moves(before, 0, cards, capts)
    scores = np.empty(MOVE_BUF)
    heuristic_scores(before, 0, params, False, HP, cards, capts, n, scores)
    p = np.exp(beta * (scores[:n] - scores[:n].max()))
    made = np.flatnonzero((cards[:n] == card) & (capts[:n] == taken))
    return float((1.0 - floor) * p[made[0]] / p.sum() + floor / n)


def _true_and_random_dets(d: Deal, n: int = 64) -> np.ndarray:
    """Determinization 0 holds the opponent's real hand, the others are drawn uniformly."""
    canon = np.empty((1, K.NCOL), dtype=np.int64)
    canonical_infoset(d.eng.state, 0, d.seat, False, canon)
    dets = np.empty((n, K.NCOL), dtype=np.int64)
    K.determinize_kernel(canon, 0, d.seat, False, np.arange(1, n, dtype=np.int64), dets[1:])
    dets[0] = d.eng.state[0]
    return dets


@pytest.mark.parametrize("plays", [1, 3])
def test_the_true_hand_explains_a_heuristic_opponent_as_its_play_probability(plays) -> None:
    """The determinization holding the opponent's real hand gets, relative to the best
    one, at least the product of the plays' probabilities in the real positions before
    them (computed there, independently of the record): the positions are rebuilt as
    they were. And the plays rule some hands out."""
    sharp = 0
    used = 0
    for d in _deals(80, plays):
        eng, dets = d.eng, _true_and_random_dets(d)
        w = np.empty(64)
        assert play_weights(eng.state, 0, d.recs(), dets, 64, eng.params, False, HP, 50.0, 0.0, w)
        assert abs(w.mean() - 1.0) < 1e-9
        p_true = np.prod([_play_probability(b, eng.params, c, t, 50.0) for c, t, b in d.truth])
        assert p_true > 0.2 ** len(d.truth)  # the heuristic made these plays there
        assert w[0] >= p_true * w.max() * (1 - 1e-9)
        sharp += w.min() < 1e-3 * w.max()
        used += len(d.truth) == plays
        w0 = np.empty(64)
        assert not play_weights(eng.state, 0, d.recs(), dets, 64, eng.params, False, HP, 0.0,
                                0.0, w0)
        assert (w0 == 1.0).all()
    assert sharp >= 5 and used >= 5


def test_a_floor_keeps_the_hands_of_an_opponent_the_heuristic_does_not_explain() -> None:
    """A random opponent's plays, read by a sharp heuristic model: without a floor the
    real hand is all but ruled out in some deals; with floor ``f`` it keeps, relative to
    the best, at least the product of ``(1 - f) p + f / m`` of its plays in the real
    positions (``m`` moves there), since no hand explains a play with more than 1."""
    ruled_out = 0
    deals = _deals(80, 3, random_opponent=True)
    assert len(deals) >= 20
    for d in deals:
        eng, dets, w = d.eng, _true_and_random_dets(d), np.empty(64)
        assert play_weights(eng.state, 0, d.recs(), dets, 64, eng.params, False, HP, 50.0, 0.0, w)
        ruled_out += w[0] < 1e-6 * w.max()
        for floor in (0.1, 0.5):
            assert play_weights(eng.state, 0, d.recs(), dets, 64, eng.params, False, HP, 50.0,
                                floor, w)
            p_true = np.prod([_play_probability(b, eng.params, c, t, 50.0, floor)
                              for c, t, b in d.truth])
            assert w[0] >= p_true * w.max() * (1 - 1e-9)
    assert ruled_out >= 5


def test_the_weights_reach_the_search_only_with_a_fitting_record_and_beta() -> None:
    deals = _deals(40, 2)
    assert len(deals) >= 10
    changed = 0
    for d in deals[:10]:
        eng, games = d.eng, np.array([0])
        offsets = candidate_moves(eng, games)[0]
        seeds = np.array([7], dtype=np.int64)
        plain = search_values(eng, games, offsets, seeds, budget=64)
        recs = d.recs()[None]
        assert np.array_equal(plain, search_values(eng, games, offsets, seeds, budget=64,
                                                   records=recs, beta=0.0))
        bad = recs.copy()
        bad[0, :, R_VALID] = 0
        assert np.array_equal(plain, search_values(eng, games, offsets, seeds, budget=64,
                                                   records=bad, beta=3.0))
        weighted = search_values(eng, games, offsets, seeds, budget=64, records=recs, beta=3.0)
        changed += offsets[1] > 1 and not np.array_equal(plain, weighted)
    assert changed >= 3


class CountingRecords(PlayRecords):
    """Records that count the opponent's plays read (the most held at once, all games)."""

    read = 0

    def remember(self, *args) -> None:  # noqa: ANN002
        super().remember(*args)
        self.read = max(self.read, sum(int((r[:, R_CARD] >= 0).sum())
                                       for r in self._recs.values()))


def test_net_ismcts_reads_the_opponents_plays_in_play() -> None:
    """In real play the agent's records fill with the opponent's plays (2 players), and
    it keeps none where it does not infer (3 players, or ``infer_beta=0``)."""
    for players, beta, reads in ((2, 3.0, True), (2, 0.0, False), (3, 3.0, False)):
        net = MoveNet.init(observation_size(make_rules(num_players=players)), 16, 8,
                           num_players=players)
        agent = NetSearchAgent(model=net, budget=8, seed=0, infer_beta=beta)
        agent._records = records = CountingRecords()
        eng = Engine(8, seed=1, episode="round", auto_reset=False, num_players=players)
        seats = np.zeros((8, players), dtype=np.int64)
        seats[:, 1] = 1
        play(eng, [agent, HeuristicAgent()], seats)
        assert (records.read > 4) == reads
        assert bool(records._recs) == reads


def _after_the_lead(seed: int, preset: str | None = None) -> tuple[Engine, int, int, int]:
    """A round whose leader made a heuristic full move: the engine at the second
    player's first decision, the leader's seat, and the play (card, table cards taken)."""
    eng = Engine(1, seed=seed, episode="round", auto_reset=False,
                 **({} if preset is None else {"preset": preset}))
    leader = int(eng.state[0, K.MOVER])
    hand, table = int(eng.state[0, K.HAND + leader]), int(eng.state[0, K.TABLE])
    while eng.state[0, K.MOVER] == leader:
        eng.step(heuristic_actions(eng, np.array([0]), HP))
    card = K.lowest(hand & ~int(eng.state[0, K.HAND + leader]))
    return eng, leader, card, table & ~int(eng.state[0, K.TABLE])


@pytest.mark.parametrize("preset", [None, "small"])
def test_the_rounds_opening_play_is_read_at_the_second_players_first_decision(preset) -> None:
    """:func:`lead_record` rebuilds the position the leader played from: its play reads
    back as made, the determinization holding the leader's real hand explains it at
    least as its probability in the true position says, and it is the records' start
    only where it applies (``PlayRecords(lead=True)``)."""
    captures = 0
    for seed in range(40):
        eng, leader, card, taken = _after_the_lead(seed, preset)
        before = Engine(1, seed=seed, episode="round", auto_reset=False,
                        **({} if preset is None else {"preset": preset})).state[0]
        rec = lead_record(eng.state, 0)
        assert rec is not None and rec[R_TABLE] == before[K.TABLE]
        assert opponent_play(eng.state, 0, rec) == (card, taken)
        captures += taken != 0
        seat = 1 - leader
        canon = np.empty((1, K.NCOL), dtype=np.int64)
        canonical_infoset(eng.state, 0, seat, False, canon)
        dets = np.empty((32, K.NCOL), dtype=np.int64)
        K.determinize_kernel(canon, 0, seat, False, np.arange(1, 32, dtype=np.int64), dets[1:])
        dets[0] = eng.state[0]
        recs = np.zeros((MAX_PLAYS, NREC), dtype=np.int64)
        recs[0] = rec
        w = np.empty(32)
        assert play_weights(eng.state, 0, recs, dets, 32, eng.params, False, HP, 50.0, 0.0, w)
        p_true = _play_probability(before[None], eng.params, card, taken, 50.0)
        assert w[0] >= p_true * w.max() * (1 - 1e-9)
        games = np.array([0])
        assert PlayRecords(lead=True).current(eng, games)[0, 0, R_VALID] == 1
        assert PlayRecords().current(eng, games)[0, 0, R_VALID] == 0
    assert captures >= 3
    # the leader's own first decision, and later ones, have no lead record
    eng = Engine(1, seed=0, episode="round", auto_reset=False)
    assert lead_record(eng.state, 0) is None
    eng, *_ = _after_the_lead(0)
    while eng.state[0, K.TURN] < 2:
        eng.step(heuristic_actions(eng, np.array([0]), HP))
    assert lead_record(eng.state, 0) is None
