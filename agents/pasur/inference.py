"""Inference from the opponent's plays, for determinized search (2 players).

Plain determinized search deals the cards hidden from the mover uniformly at random,
as if the opponent's play said nothing about its hand. It does: a player who lays a
small card while holding a jack that would sweep the table is rare. Search that is
told just one card of the opponent's hand beats ``ismcts`` by about +2 points per round
(docs/agents.md), so what the opponent's plays reveal is worth having.

This module reads the opponent's plays in the current deal and weights each
determinization by how likely the opponent was to make them with the hand the
determinization gives it:

1. After each of our moves, :func:`after_move_records` notes the position the opponent
   then faced: the public columns (table, piles, surs, the last capturer, the turn
   counters) and our own hand, read after the move is applied to a scratch copy.
2. At our next decision, if exactly one turn has passed in the same deal,
   :func:`opponent_play` reads its play off the public change: the card that reached
   its pile or the table, and the table cards it took. The caller keeps the records of
   the deal with their plays (at most :data:`MAX_PLAYS`, oldest first).
   The round's opening play, which no move of ours preceded, is read at the second
   player's first decision from a record rebuilt from what is public
   (:func:`lead_record`). :class:`PlayRecords` keeps all this per game and seat, for
   ``net-ismcts`` (without the opening play) and the move network's labeller
   (``--label-infer-beta``, with it).
3. :func:`play_weights` rebuilds, in every determinization, each position the opponent
   faced in this deal (its hand there = the determinized hand + the cards it has
   played since, our hand as it was), scores the opponent's full moves with the
   heuristic (:func:`agents.pasur.heuristic.heuristic_scores`, in points) and gives the
   determinization the product over those plays of the play's probability
   ``(1 - floor) * softmax(beta * score) + floor / moves``, normalised to mean 1 over
   the determinizations.

The heuristic is a model of the opponent, not the opponent: ``beta`` says how closely
the opponent is taken to follow its scores (0 = uniform determinizations, plain
search), ``floor`` how often it is taken to play otherwise. A model sharper than the
opponent is worse than none (it rules out the true hand whenever the opponent
deviates): :mod:`train.opponent_fit` fits both to an agent's plays. A record that does not fit
the position (another game in that slot, a new deal, a round end) is ignored, so a
stale record can only cost a weighting, never a legal move.
"""

from __future__ import annotations

import numpy as np

from agents.pasur.heuristic import heuristic_scores
from agents.pasur.moves import (
    MOVE_BUF,
    ROW0,
    decision_moves,
    low,
    play_full_move,
    popcnt,
    round_params,
)
from pasur_env.core.compile import njit
from pasur_env.pasur import kernels as K

__all__ = ["NREC", "MAX_PLAYS", "R_VALID", "R_CARD", "R_TAKEN", "PlayRecords",
           "after_move_records", "lead_record", "model_log_prob", "opponent_play",
           "play_weights", "reads_plays"]

#: columns of a record (the position after our move): valid, round, deal, turn, table,
#: opponent's pile, its surs, last capturer, opponent seat, our seat, our hand, our pile,
#: our surs; then the opponent's play from there once read (card, -1 until then; taken)
NREC = 15
(R_VALID, R_ROUND, R_DEAL, R_TURN, R_TABLE, R_PILE, R_SURS, R_LAST, R_OPP, R_SEAT,
 R_MYHAND, R_MYPILE, R_MYSURS, R_CARD, R_TAKEN) = range(NREC)
#: records kept per game: a player makes at most 4 plays in a deal
MAX_PLAYS = 4


@njit(cache=True)
def _record_kernel(
    st: np.ndarray, games: np.ndarray, cards: np.ndarray, capts: np.ndarray,
    rparams: np.ndarray, out: np.ndarray,
) -> None:
    work = np.empty((1, K.NCOL), dtype=np.int64)
    info = np.empty((1, K.NINFO), dtype=np.int64)
    for i in range(games.shape[0]):
        g = games[i]
        out[i, R_VALID] = 0
        if st[g, K.PHASE] != K.PLAY or rparams[K.P_PLAYERS] != 2:
            continue
        for k in range(K.NCOL):
            work[0, k] = st[g, k]
        seat = work[0, K.MOVER]
        if play_full_move(work, cards[i], capts[i], rparams, info):
            continue
        # kept: public columns and our own hand (after a deal it ends, the hand we will
        # hold at our next decision, when the record is read); nothing of the opponent's
        opp = 1 - seat
        out[i, R_VALID] = 1
        out[i, R_ROUND] = work[0, K.ROUND]
        out[i, R_DEAL] = work[0, K.DEAL]
        out[i, R_TURN] = work[0, K.TURN]
        out[i, R_TABLE] = work[0, K.TABLE]
        out[i, R_PILE] = work[0, K.PILE + opp]
        out[i, R_SURS] = work[0, K.SURS + opp]
        out[i, R_LAST] = work[0, K.LAST_CAP]
        out[i, R_OPP] = opp
        out[i, R_SEAT] = seat
        out[i, R_MYHAND] = work[0, K.HAND + seat]
        out[i, R_MYPILE] = work[0, K.PILE + seat]
        out[i, R_MYSURS] = work[0, K.SURS + seat]
        out[i, R_CARD] = -1


def after_move_records(
    engine: object, games: np.ndarray, cards: np.ndarray, capts: np.ndarray
) -> np.ndarray:
    """Records ``(len(games), NREC)`` of the public position the opponent faces after the
    mover of each game plays full move ``(cards[i], capts[i])`` (PLAY decisions of 2-player
    games; other rows are marked invalid)."""
    games = np.ascontiguousarray(games, dtype=np.int64)
    out = np.zeros((games.shape[0], NREC), dtype=np.int64)
    _record_kernel(engine.state, games,  # type: ignore[attr-defined]
                   np.ascontiguousarray(cards, dtype=np.int64),
                   np.ascontiguousarray(capts, dtype=np.int64), round_params(engine), out)
    return out


@njit(cache=True)
def opponent_play(st: np.ndarray, g: int, rec: np.ndarray) -> tuple[int, int]:
    """``(card, captured)`` of the opponent's play since record ``rec`` of game ``g``, or
    ``(-1, 0)`` when the record does not fit: not our PLAY decision one turn later in
    the same round and deal, or a table/pile change that is not a single play."""
    if (rec[R_VALID] != 1 or st[g, K.PHASE] != K.PLAY or st[g, K.MOVER] != rec[R_SEAT]
            or st[g, K.ROUND] != rec[R_ROUND] or st[g, K.DEAL] != rec[R_DEAL]
            or st[g, K.TURN] != rec[R_TURN] + 1):
        return -1, 0
    before = rec[R_TABLE]
    table = st[g, K.TABLE]
    gained = st[g, K.PILE + rec[R_OPP]] & ~rec[R_PILE]
    if gained != 0:  # a capture: the played card and the table cards it took
        card = gained & ~before
        taken = gained & before
        if popcnt(card) != 1 or table != (before & ~taken):
            return -1, 0
        return low(card), taken
    card = table & ~before  # a lay
    if popcnt(card) != 1 or (table & before) != before:
        return -1, 0
    return low(card), 0


@njit(cache=True)
def _set_hand(row: np.ndarray, seat: int, hand: int) -> None:
    """Give ``seat`` the cards of mask ``hand`` (hand mask and dealing-order slots)."""
    row[0, K.HAND + seat] = hand
    h = hand
    for j in range(4):
        if h:
            row[0, K.ORDER + 4 * seat + j] = low(h)
            h &= h - 1
        else:
            row[0, K.ORDER + 4 * seat + j] = -1


@njit(cache=True)
def _play_log_prob(
    det: np.ndarray, rec: np.ndarray, held: int, card: int, taken: int, params: np.ndarray,
    open_hand: bool, hp: np.ndarray, beta: float, floor: float, row: np.ndarray,
    cards: np.ndarray, capts: np.ndarray, scores: np.ndarray,
) -> float:
    """log probability of play ``(card, taken)`` by the opponent holding ``held`` in the
    position of record ``rec`` (the rest from determinization ``det``): ``softmax(beta *
    heuristic score)``, mixed with a uniformly random play with probability ``floor``."""
    for k in range(K.NCOL):
        row[0, k] = det[k]
    opp = rec[R_OPP]
    seat = rec[R_SEAT]
    _set_hand(row, opp, held)
    _set_hand(row, seat, rec[R_MYHAND])
    row[0, K.TABLE] = rec[R_TABLE]
    row[0, K.PILE + opp] = rec[R_PILE]
    row[0, K.SURS + opp] = rec[R_SURS]
    row[0, K.PILE + seat] = rec[R_MYPILE]
    row[0, K.SURS + seat] = rec[R_MYSURS]
    row[0, K.LAST_CAP] = rec[R_LAST]
    row[0, K.TURN] = rec[R_TURN]
    row[0, K.MOVER] = opp
    m = decision_moves(row, ROW0, cards, capts)
    if m <= 1:
        return 0.0
    heuristic_scores(row, ROW0, params, open_hand, hp, cards, capts, m, scores)
    made = -1
    for i in range(m):
        if cards[i] == card and capts[i] == taken:
            made = i
    return model_log_prob(scores, m, made, beta, floor)


@njit(cache=True)
def model_log_prob(scores: np.ndarray, m: int, made: int, beta: float, floor: float) -> float:
    """The opponent model: log probability of move ``made`` among the ``m`` moves scored
    ``scores[:m]`` by the heuristic, ``(1 - floor) * softmax(beta * score) + floor / m``
    (``-inf`` for ``made`` < 0, a play that is not among the moves). The one formula
    the search weights with and :mod:`train.opponent_fit` fits."""
    if made < 0:
        return -np.inf
    top = scores[0]
    for i in range(1, m):
        top = max(top, scores[i])
    total = 0.0
    for i in range(m):
        total += np.exp(beta * (scores[i] - top))
    return np.log((1.0 - floor) * np.exp(beta * (scores[made] - top)) / total + floor / m)


@njit(cache=True)
def play_weights(
    st: np.ndarray, g: int, recs: np.ndarray, dets: np.ndarray, n: int, params: np.ndarray,
    open_hand: bool, hp: np.ndarray, beta: float, floor: float, w: np.ndarray,
) -> bool:
    """Weights ``w[:n]`` (mean 1) of determinizations ``dets[:n]`` of game ``g`` by the
    probability of the opponent's plays in this deal under the model of
    :func:`_play_log_prob` (``softmax(beta * heuristic score)``, a uniformly random play
    with probability ``floor``); all 1 (and ``False`` returned) when there is nothing to
    infer.

    ``recs`` (``MAX_PLAYS`` x ``NREC``, oldest first, unused rows invalid): the records
    after our moves; the last one's play is read from ``st``, the earlier ones carry
    theirs (``R_CARD``, ``R_TAKEN``). Only the plays of the last record's deal count.
    """
    for d in range(n):
        w[d] = 1.0
    if beta <= 0.0:
        return False
    last = -1
    for j in range(recs.shape[0]):
        if recs[j, R_VALID] == 1:
            last = j
    if last < 0:
        return False
    card, taken = opponent_play(st, g, recs[last])
    if card < 0:
        return False
    first = last
    while (first > 0 and recs[first - 1, R_VALID] == 1 and recs[first - 1, R_CARD] >= 0
           and recs[first - 1, R_ROUND] == recs[last, R_ROUND]
           and recs[first - 1, R_DEAL] == recs[last, R_DEAL]):
        first -= 1
    opp = recs[last, R_OPP]
    row = np.empty((1, K.NCOL), dtype=np.int64)
    cards = np.empty(MOVE_BUF, dtype=np.int64)
    capts = np.empty(MOVE_BUF, dtype=np.int64)
    scores = np.empty(MOVE_BUF, dtype=np.float64)
    logw = np.empty(n, dtype=np.float64)
    for d in range(n):
        held = dets[d, K.HAND + opp] | (np.int64(1) << card)
        lw = _play_log_prob(dets[d], recs[last], held, card, taken, params, open_hand, hp,
                            beta, floor, row, cards, capts, scores)
        for j in range(last - 1, first - 1, -1):  # earlier plays: the hand held more
            c = recs[j, R_CARD]
            held |= np.int64(1) << c
            lw += _play_log_prob(dets[d], recs[j], held, c, recs[j, R_TAKEN], params,
                                 open_hand, hp, beta, floor, row, cards, capts, scores)
        logw[d] = lw
    top = logw.max()
    if not np.isfinite(top):  # no determinization explains the plays: keep them all
        for d in range(n):
            w[d] = 1.0
        return False
    s = 0.0
    for d in range(n):
        w[d] = np.exp(logw[d] - top)
        s += w[d]
    for d in range(n):
        w[d] *= n / s
    return True


def reads_plays(engine: object, beta: float) -> bool:
    """Whether a search with the model's ``beta`` weights ``engine``'s determinizations by
    the opponent's plays: 2 players with hidden hands and ``beta`` > 0."""
    return (beta > 0.0 and engine.num_players == 2  # type: ignore[attr-defined]
            and not engine.rules.open_hand)  # type: ignore[attr-defined]


def lead_record(st: np.ndarray, g: int) -> np.ndarray | None:
    """The record of the round's start for the player who moves second, read at its first
    decision (one turn played, in the first deal): the position the opponent led from,
    rebuilt from what is public. The card it played is its only card in the ``PLAYED``
    column; a lay left it on the table, a capture took it with the table cards now in its
    pile. ``None`` where this is not that decision. Without it the leader's first play of
    a round, which no move of ours preceded, would tell the search nothing."""
    row = st[g]
    if row[K.PHASE] != K.PLAY or row[K.TURN] != 1 or row[K.DEAL] != 0:
        return None
    seat = int(row[K.MOVER])
    opp = 1 - seat
    played = int(row[K.PLAYED + opp])
    if played == 0 or played & (played - 1):
        return None
    pile = int(row[K.PILE + opp])
    table = int(row[K.TABLE])
    before = table & ~played if table & played else table | (pile & ~played)
    rec = np.zeros(NREC, dtype=np.int64)
    rec[R_VALID], rec[R_ROUND], rec[R_DEAL], rec[R_TURN] = 1, row[K.ROUND], 0, 0
    rec[R_TABLE], rec[R_LAST], rec[R_OPP], rec[R_SEAT] = before, -1, opp, seat
    rec[R_MYHAND] = row[K.HAND + seat]
    rec[R_MYPILE], rec[R_MYSURS], rec[R_CARD] = row[K.PILE + seat], row[K.SURS + seat], -1
    return rec


class PlayRecords:
    """What a searching player keeps to read the opponent's plays (2 players): per engine,
    game and seat, the records of its own moves in the current deal, oldest first.

    :meth:`current` gives them to the search at a decision (:func:`play_weights` reads the
    last one's play from the state); :meth:`remember` notes the opponent's play since our
    last move and adds the record of the move chosen now. With ``lead``, the second
    player's first decision of a round also reads the leader's opening play
    (:func:`lead_record`). Keyed by seat, so one object can play both seats of a game.
    """

    def __init__(self, lead: bool = False) -> None:
        self.lead = lead
        self._recs: dict[tuple[int, int, int], np.ndarray] = {}

    def _key(self, engine: object, g: int) -> tuple[int, int, int]:
        return id(engine), g, int(engine.state[g, K.MOVER])  # type: ignore[attr-defined]

    def _lead(self, st: np.ndarray, g: int) -> np.ndarray | None:
        """The records to start from at a round's first decision of the second player:
        the lead record with its play read (``None``: not that decision, or no lead)."""
        rec = lead_record(st, g) if self.lead else None
        if rec is None:
            return None
        recs = np.zeros((MAX_PLAYS, NREC), dtype=np.int64)
        recs[0] = rec
        return recs

    def current(self, engine: object, games: np.ndarray) -> np.ndarray:
        """``(len(games), MAX_PLAYS, NREC)``: each game's records for the search."""
        st = engine.state  # type: ignore[attr-defined]
        out = np.zeros((len(games), MAX_PLAYS, NREC), dtype=np.int64)
        for i, g in enumerate(np.asarray(games).tolist()):
            recs = self._lead(st, g)
            if recs is None:
                recs = self._recs.get(self._key(engine, g))
            if recs is not None:
                out[i] = recs
        return out

    def remember(self, engine: object, games: np.ndarray, cards: np.ndarray,
                 capts: np.ndarray) -> None:
        """After choosing full moves ``(cards, capts)`` in ``games`` (PLAY decisions):
        note the opponent's play since our last move, then add the record of the position
        after the move chosen now (a PLAY move that ends the round clears them)."""
        st = engine.state  # type: ignore[attr-defined]
        after = after_move_records(engine, games, cards, capts)
        for i, g in enumerate(np.asarray(games).tolist()):
            if st[g, K.PHASE] != K.PLAY:
                continue
            key = self._key(engine, g)
            lead = self._lead(st, g)
            recs = self._recs.get(key) if lead is None else lead
            if not after[i, R_VALID]:
                self._recs.pop(key, None)
                continue
            if recs is None:
                recs = np.zeros((MAX_PLAYS, NREC), dtype=np.int64)
            n = int(recs[:, R_VALID].sum())
            if n:
                card, taken = opponent_play(st, g, recs[n - 1])
                recs[n - 1, R_CARD], recs[n - 1, R_TAKEN] = card, taken
                if card < 0:  # a new deal (or another game): the old plays do not count
                    recs[:] = 0
                    n = 0
            if n == MAX_PLAYS:
                recs[:-1] = recs[1:].copy()
                n -= 1
            recs[n] = after[i]
            self._recs[key] = recs
        if len(self._recs) > 100_000:  # records of abandoned engines
            self._recs.clear()
