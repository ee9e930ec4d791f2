"""Determinized search (flat information-set Monte Carlo) over full moves.

At a decision of seat ``s`` in game ``g``:

1. the position is reduced to ``s``'s information set: the cards hidden from ``s``
   (``hidden_from``) are written into the hidden slots in ascending order and the
   other seats' deal orders are compacted, so nothing ``s`` cannot see survives;
2. ``K = max(1, budget // M)`` determinizations are drawn from it with the engine's
   ``determinize_kernel`` (hidden cards re-dealt uniformly at random), ``M`` = the
   number of full moves;
3. every full move is played in every determinization (common random numbers), and
   the round is played out by the rollout policy (by default the heuristic for the
   first ``plies`` actions, then greedy, for every seat; optionally epsilon-greedy)
   with one-round semantics: the engine stops at the round's end, whose scoring
   (clubs, cards, surs after cancellation, the leftover to the last capturer) gives
   the result (with ``horizon`` h > 0 a rollout stops once h more deals have been
   dealt, valued by :func:`position_value`);
4. the move with the best mean of ``my side's round points − mean of the other
   sides'`` is played.

``budget`` is the number of rollouts per decision (``K × M``, at least one per move).
All of it runs in one compiled kernel, in parallel over the decisions of a batch.
A multi-step capture is completed as planned: the move chosen at PLAY time is
remembered (keyed on the public position) and its TAKEs are emitted in ascending id
order; without a plan (e.g. another policy played the card) the options of the
pending card are searched the same way.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import prange

from agents.core.base import Agent
from agents.core.search import check_budget, decision_seeds
from agents.pasur.greedy import greedy_action
from agents.pasur.heuristic import club_value, heuristic_action, heuristic_params
from agents.pasur.inference import MAX_PLAYS, NREC, play_weights
from agents.pasur.minimax import is_solvable, solve_value
from agents.pasur.moves import (
    MOVE_BUF,
    NO_RESET,
    ROW0,
    decision_moves,
    emit_action,
    low,
    play_full_move,
    popcnt,
    round_params,
    side_of,
)
from pasur_env.core.args import check_bool
from pasur_env.core.compile import njit
from pasur_env.core.policy import GameView, check_actions
from pasur_env.pasur import kernels as K

__all__ = ["ISMCTSAgent", "canonical_infoset", "DEFAULT_BUDGET", "DEFAULT_PLIES"]

#: rollouts per decision (see docs/agents.md for the strength/time trade-off)
DEFAULT_BUDGET = 300
#: rollout steps played by the heuristic before greedy takes over
DEFAULT_PLIES = 6
#: ``plies`` meaning "the heuristic plays the whole rollout"
WHOLE_ROLLOUT = 1 << 30
ROLLOUT_POLICIES = ("greedy", "heuristic")


@njit(cache=True)
def canonical_infoset(st: np.ndarray, b: int, seat: int, open_hand: bool, out: np.ndarray) -> None:
    """Write into ``out[0]`` a copy of game ``b`` that depends only on ``seat``'s view.

    The other seats' deal orders are compacted (cards still held first, in dealing
    order, so a Ru Baaz face-up card stays first) and the hidden cards are written in
    ascending order into the hidden slots (their hand slots holding hidden cards,
    then the stock). Hands are rebuilt from the orders. The random stream is zeroed.
    """
    hidden = K.hidden_from(st, b, seat, open_hand)
    for k in range(K.NCOL):
        out[0, k] = st[b, k]
    out[0, K.RNG] = 0
    h = hidden
    for p in range(4):
        if p == seat:
            continue
        j2 = 0
        for j in range(4):
            c = st[b, K.ORDER + 4 * p + j]
            if c >= 0:
                out[0, K.ORDER + 4 * p + j2] = c
                j2 += 1
        for j in range(j2, 4):
            out[0, K.ORDER + 4 * p + j] = -1
        hand = 0
        for j in range(j2):
            col = K.ORDER + 4 * p + j
            if (hidden >> out[0, col]) & 1:
                out[0, col] = low(h)
                h &= h - 1
            hand |= 1 << out[0, col]
        out[0, K.HAND + p] = hand
    for i in range(st[b, K.STOCK_POS], 52):
        out[0, K.DECK + i] = low(h)
        h &= h - 1


@njit(cache=True)
def _rollout_action(
    st: np.ndarray,
    params: np.ndarray,
    open_hand: bool,
    policy: int,
    eps: float,
    hp: np.ndarray,
    z: np.uint64,
    cards: np.ndarray,
    capts: np.ndarray,
    scores: np.ndarray,
) -> tuple[int, np.uint64]:
    if eps > 0.0:
        z, x = K.splitmix_next(z)
        if K.unit_float(x) < eps:
            z, x = K.splitmix_next(z)
            return K.pick_legal(st, ROW0, K.unit_float(x)), z
    if policy == 1:
        return heuristic_action(st, ROW0, params, open_hand, hp, cards, capts, scores), z
    return greedy_action(st, ROW0, params, cards, capts), z


@njit(cache=True)
def position_value(work: np.ndarray, rparams: np.ndarray, side: int) -> float:
    """A round in progress valued for ``side`` without playing it out: the card points and
    surs captured so far by each side, plus the expected club award with the clubs not
    yet captured split at random (:func:`agents.pasur.heuristic.club_value`); my side minus
    the others' mean."""
    S = rparams[K.P_SIDES]
    sur = rparams[K.P_SUR_POINTS]
    mine = 0.0
    other = 0.0
    my_clubs = 0
    op_clubs = 0
    all_clubs = 0
    for s in range(S):
        pile = work[0, K.PILE + s]
        v = float(K.card_points(pile) + sur * work[0, K.SURS + s])
        c = popcnt(pile & K.CLUB_BITS)
        all_clubs += c
        if s == side:
            mine = v
            my_clubs = c
        else:
            other += v
            op_clubs = max(op_clubs, c)
    award = float(rparams[K.P_CLUBS_POINTS] if rparams[K.P_CLUBS_RULE] == 0 else 7)
    return mine - other / (S - 1) + club_value(my_clubs, op_clubs, 13 - all_clubs, award)


@njit(cache=True)
def rollout_value(
    work: np.ndarray, info: np.ndarray, rparams: np.ndarray, open_hand: bool, seat: int,
    card: int, capt: int, policy: int, plies: int, eps: float, hp: np.ndarray, z: np.uint64,
    rc: np.ndarray, rk: np.ndarray, rs: np.ndarray, horizon: int, exact: bool,
) -> tuple[float, np.uint64]:
    """Play full move ``(card, capt)`` in the one-game copy ``work``, then the round out with
    the rollout policy; returns (the mover's side's round points minus the others' mean,
    the rollout stream). With ``horizon`` > 0 the rollout stops when ``horizon`` more
    deals have been dealt, and the position is valued by :func:`position_value`. With
    ``exact`` (2 players) a rollout that reaches the round's last deal stops there and
    takes the deal's exact minimax value (:func:`agents.pasur.minimax.solve_value`): in
    the determinization every card is known, as it is to both players once the stock
    is empty, and best play replaces the rollout policy's (before ``horizon`` applies)."""
    deal0 = work[0, K.DEAL]
    ended = play_full_move(work, card, capt, rparams, info)
    ply = 0
    while not ended and work[0, K.PHASE] != K.DONE:
        if exact and work[0, K.PHASE] == K.PLAY and is_solvable(work, ROW0, rparams):
            return solve_value(work, rparams, seat), z
        if horizon > 0 and work[0, K.DEAL] - deal0 >= horizon:
            return position_value(work, rparams, side_of(seat, rparams[K.P_PLAYERS])), z
        pol = policy if ply < plies else 0
        ply += 1
        a, z = _rollout_action(work, rparams, open_hand, pol, eps, hp, z, rc, rk, rs)
        K.apply_action(work, ROW0, a, rparams, info, ROW0, NO_RESET)
        if info[0, K.I_ROUND_END]:
            ended = True
    S = rparams[K.P_SIDES]
    side = side_of(seat, rparams[K.P_PLAYERS])
    mine = 0.0
    other = 0.0
    for s in range(S):
        if s == side:
            mine = info[0, K.I_POINTS + s]
        else:
            other += info[0, K.I_POINTS + s]
    return mine - other / (S - 1), z


@njit(cache=True)
def _rollout_buffers() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The work arrays of :func:`rollout_value`: a one-game copy, its step info, and the
    rollout policy's move buffers."""
    return (np.empty((1, K.NCOL), dtype=np.int64), np.empty((1, K.NINFO), dtype=np.int64),
            np.empty(MOVE_BUF, dtype=np.int64), np.empty(MOVE_BUF, dtype=np.int64),
            np.empty(MOVE_BUF, dtype=np.float64))


@njit(cache=True)
def _determinizations(
    st: np.ndarray, g: int, seat: int, open_hand: bool, n: int, seed: np.uint64
) -> tuple[np.ndarray, np.uint64]:
    """``n`` determinizations of ``seat``'s information set in game ``g``, one stream
    each drawn from ``seed``; returns them and the stream after the draws."""
    canon = np.empty((1, K.NCOL), dtype=np.int64)
    canonical_infoset(st, g, seat, open_hand, canon)
    seeds = np.empty(n, dtype=np.int64)
    z = seed
    for d in range(n):
        z, x = K.splitmix_next(z)
        seeds[d] = np.int64(x)
    dets = np.empty((n, K.NCOL), dtype=np.int64)
    K.determinize_kernel(canon, ROW0, seat, open_hand, seeds, dets)
    return dets, z


@njit(cache=True)
def search_one(
    st: np.ndarray,
    g: int,
    params: np.ndarray,
    rparams: np.ndarray,
    open_hand: bool,
    budget: int,
    policy: int,
    plies: int,
    eps: float,
    hp: np.ndarray,
    seed: np.uint64,
    cards: np.ndarray,
    capts: np.ndarray,
    values: np.ndarray,
    keep: np.ndarray,
    horizon: int,
    rec: np.ndarray,
    beta: float,
    floor: float,
    exact: bool,
) -> int:
    """Search game ``g``'s decision; returns the index of the best of the listed moves.

    ``cards``/``capts`` hold the moves (``decision_moves``), ``values`` receives the
    mean result of each. ``rparams``: the rules with one-round episodes. Only the moves
    ``m`` with ``keep[m]`` are searched (the budget is split among them; the others get
    NaN): a guide such as a network may prune the candidates. With ``beta`` > 0 and the
    records ``rec`` of the positions after our moves in this deal
    (:mod:`agents.pasur.inference`), the mean is weighted by how well each determinization
    explains the opponent's plays (``floor``: the opponent model's share of random plays).
    ``exact``: rollouts that reach a 2-player last deal take its minimax value
    (:func:`rollout_value`).
    """
    n = decision_moves(st, g, cards, capts)
    if n <= 0:
        return -1
    for m in range(n):
        values[m] = 0.0
    if n == 1:
        return 0
    n_keep = 0
    for m in range(n):
        if keep[m]:
            n_keep += 1
    if n_keep == 0:
        return -1
    seat = st[g, K.MOVER]
    n_det = max(1, budget // n_keep)
    dets, z = _determinizations(st, g, seat, open_hand, n_det, seed)
    weight = np.empty(n_det, dtype=np.float64)
    play_weights(st, g, rec, dets, n_det, params, open_hand, hp, beta, floor, weight)
    work, info, rc, rk, rs = _rollout_buffers()
    for d in range(n_det):
        for m in range(n):
            if not keep[m]:
                continue
            for k in range(K.NCOL):
                work[0, k] = dets[d, k]
            value, z = rollout_value(
                work, info, rparams, open_hand, seat, cards[m], capts[m], policy, plies, eps,
                hp, z, rc, rk, rs, horizon, exact,
            )  # fmt: skip
            values[m] += weight[d] * value
    best = -1
    for m in range(n):
        if not keep[m]:
            values[m] = np.nan
            continue
        values[m] /= n_det
        if best < 0 or values[m] > values[best]:
            best = m
    return best


@njit(cache=True, parallel=False, nogil=True)
def ismcts_kernel(
    st: np.ndarray,
    games: np.ndarray,
    params: np.ndarray,
    rparams: np.ndarray,
    open_hand: bool,
    budget: int,
    policy: int,
    plies: int,
    eps: float,
    hp: np.ndarray,
    seeds: np.ndarray,
    horizon: int,
    exact: bool,
    out: np.ndarray,
    chosen: np.ndarray,
) -> None:
    """Search every decision of ``games``: ``out`` actions, ``chosen`` capture sets
    (``exact``: as for :func:`search_one`)."""
    no_record = np.zeros((MAX_PLAYS, NREC), dtype=np.int64)
    for i in prange(games.shape[0]):
        g = games[i]
        cards = np.empty(MOVE_BUF, dtype=np.int64)
        capts = np.empty(MOVE_BUF, dtype=np.int64)
        values = np.empty(MOVE_BUF, dtype=np.float64)
        keep = np.ones(MOVE_BUF, dtype=np.bool_)
        best = search_one(
            st, g, params, rparams, open_hand, budget, policy, plies, eps, hp,
            np.uint64(seeds[i]), cards, capts, values, keep, horizon, no_record, 0.0, 0.0,
            exact,
        )  # fmt: skip
        if best < 0:
            out[i] = K.pick_legal(st, g, 0.0)
            chosen[i] = 0
        else:
            out[i] = emit_action(st, g, cards[best], capts[best])
            chosen[i] = capts[best]


#: a search per decision is costly: two decisions already pay for a second thread
_ISMCTS = K.BatchKernel(ismcts_kernel, 2)


@njit(cache=True, parallel=False, nogil=True)
def search_values_kernel(
    st: np.ndarray,
    games: np.ndarray,
    params: np.ndarray,
    rparams: np.ndarray,
    open_hand: bool,
    budget: int,
    policy: int,
    plies: int,
    eps: float,
    hp: np.ndarray,
    seeds: np.ndarray,
    horizon: int,
    offsets: np.ndarray,
    keep_rows: np.ndarray,
    records: np.ndarray,
    beta: float,
    floor: float,
    exact: bool,
    values_out: np.ndarray,
) -> None:
    """The search's value of every move of every decision of ``games`` (in
    ``decision_moves`` order) into ``values_out[offsets[i]:offsets[i + 1]]``; a forced
    move (one option) gets 0: it is not searched; a move whose ``keep_rows`` entry is
    False gets NaN. ``records[i]``, ``beta``, ``floor``, ``exact``: as for :func:`search_one`."""
    for i in prange(games.shape[0]):
        cards = np.empty(MOVE_BUF, dtype=np.int64)
        capts = np.empty(MOVE_BUF, dtype=np.int64)
        values = np.empty(MOVE_BUF, dtype=np.float64)
        keep = np.zeros(MOVE_BUF, dtype=np.bool_)
        for m in range(offsets[i + 1] - offsets[i]):
            keep[m] = keep_rows[offsets[i] + m]
        search_one(
            st, games[i], params, rparams, open_hand, budget, policy, plies, eps, hp,
            np.uint64(seeds[i]), cards, capts, values, keep, horizon, records[i], beta, floor,
            exact,
        )  # fmt: skip
        for m in range(offsets[i + 1] - offsets[i]):
            values_out[offsets[i] + m] = values[m]


_VALUES = K.BatchKernel(search_values_kernel, 2)


def search_values(
    engine: object, games: np.ndarray, offsets: np.ndarray, seeds: np.ndarray, *,
    budget: int = DEFAULT_BUDGET, rollout: str = "heuristic", plies: int = DEFAULT_PLIES,
    epsilon: float = 0.0, keep: np.ndarray | None = None, horizon: int = 0,
    records: np.ndarray | None = None, beta: float = 0.0, floor: float = 0.0,
    exact_last_deal: bool = False,
) -> np.ndarray:
    """Action values of determinized search for every move of every decision of ``games``
    (moves as :func:`agents.pasur.move_net.features.candidate_moves` lists them: ``offsets``), one
    stream seed per decision: the mean result (my side's round points minus the others'
    mean) of ``budget // moves`` rollouts after each move. ``keep`` (bool per move row)
    restricts the search to some moves (the others get NaN). ``records`` (one per
    decision: ``(MAX_PLAYS, NREC)``, :func:`agents.pasur.inference.play_weights`) and ``beta`` > 0
    weight the determinizations by the opponent's plays, ``floor`` being the opponent
    model's share of uniformly random plays. ``exact_last_deal`` (2 players): a rollout
    that reaches the round's last deal takes its exact minimax value there
    (:func:`rollout_value`)."""
    games = np.ascontiguousarray(games, dtype=np.int64)
    if records is None:
        records = np.zeros((games.shape[0], MAX_PLAYS, NREC), dtype=np.int64)
    out = np.zeros(int(offsets[-1]), dtype=np.float64)
    rparams = round_params(engine)
    open_hand = bool(engine.rules.open_hand)  # type: ignore[attr-defined]
    _VALUES.for_batch(games.shape[0])(
        engine.state, games, engine.params, rparams, open_hand, int(budget),  # type: ignore[attr-defined]
        ROLLOUT_POLICIES.index(rollout), int(plies), float(epsilon), heuristic_params(),
        np.ascontiguousarray(seeds, dtype=np.int64), int(horizon), offsets,
        np.ones(out.shape[0], dtype=np.bool_) if keep is None else np.asarray(keep, np.bool_),
        np.ascontiguousarray(records, dtype=np.int64), float(beta), float(floor),
        bool(exact_last_deal), out,
    )  # fmt: skip
    return out


@njit(cache=True, parallel=False, nogil=True)
def oracle_values_kernel(
    st: np.ndarray,
    games: np.ndarray,
    rparams: np.ndarray,
    open_hand: bool,
    policy: int,
    plies: int,
    hp: np.ndarray,
    horizon: int,
    exact: bool,
    offsets: np.ndarray,
    values_out: np.ndarray,
) -> None:
    """Every move of every decision of ``games`` valued in the true position, the hidden
    cards as they lie: one rollout after each move (the rollout policies are
    deterministic, so one is the value), into ``values_out[offsets[i]:offsets[i + 1]]``,
    which comes zeroed: a forced move keeps 0. ``exact``: as for :func:`rollout_value`."""
    for i in prange(games.shape[0]):
        g = games[i]
        cards = np.empty(MOVE_BUF, dtype=np.int64)
        capts = np.empty(MOVE_BUF, dtype=np.int64)
        n = decision_moves(st, g, cards, capts)
        if n <= 1:
            continue
        seat = st[g, K.MOVER]
        work, info, rc, rk, rs = _rollout_buffers()
        for m in range(n):
            for k in range(K.NCOL):
                work[0, k] = st[g, k]
            value, _ = rollout_value(
                work, info, rparams, open_hand, seat, cards[m], capts[m], policy, plies, 0.0,
                hp, np.uint64(1), rc, rk, rs, horizon, exact,
            )  # fmt: skip
            values_out[offsets[i] + m] = value


_ORACLE = K.BatchKernel(oracle_values_kernel, 64)


def oracle_values(
    engine: object, games: np.ndarray, offsets: np.ndarray, *, rollout: str = "heuristic",
    plies: int = DEFAULT_PLIES, horizon: int = 0, exact_last_deal: bool = False,
) -> np.ndarray:
    """The value of every move of every decision of ``games`` (``offsets`` as
    :func:`search_values`) with the hidden cards *visible*: each move is played in the
    true position, the other hands and the stock as they lie, and valued by one rollout
    (the labels of oracle distillation: cheap, since nothing is sampled, and unbiased
    for the value a player who knew the true odds of the hidden cards would give). Not
    an agent's search: a player cannot see these cards. ``exact_last_deal``: as for
    :func:`search_values`."""
    games = np.ascontiguousarray(games, dtype=np.int64)
    out = np.zeros(int(offsets[-1]), dtype=np.float64)
    _ORACLE.for_batch(games.shape[0])(
        engine.state, games, round_params(engine), bool(engine.rules.open_hand),  # type: ignore[attr-defined]
        ROLLOUT_POLICIES.index(rollout), int(plies), heuristic_params(), int(horizon),
        bool(exact_last_deal), offsets, out,
    )  # fmt: skip
    return out


class ISMCTSAgent(Agent):
    """Determinized rollout search (module docstring).

    Args:
        seed: seed of the generator that draws each decision's determinizations.
        budget: rollouts per decision (split evenly over the full moves).
        rollout: rollout policy of every seat, ``"greedy"`` or ``"heuristic"``.
        epsilon: probability of a uniformly random action at each rollout step.
        plies: with ``rollout="heuristic"``, the number of rollout actions played by
            the heuristic before greedy takes over (``None``: the whole rollout).
        parallel: search the decisions of a batch on several threads (``None``:
            when the batch has at least two decisions).
        horizon: 0 (default) plays every rollout to the round's end; ``h`` > 0 stops a
            rollout once ``h`` more deals have been dealt and values the position by
            :func:`position_value` (shorter, less noisy rollouts).
        exact_leaves: a rollout that reaches a 2-player round's last deal takes that
            deal's exact minimax value in its determinization (:func:`rollout_value`),
            as the move network's labeller does (``--label-exact-leaves``): with
            ``budget=120, horizon=1, plies=None`` this agent plays the labels' policy. A
            solve from a full game's last deal costs hundreds of microseconds, one per
            rollout that reaches it; on the small variants, whose second deal is the
            last, it costs little.
    """

    name = "ismcts"
    game_ids = ("pasur",)

    def __init__(
        self,
        seed: int | None = None,
        budget: int = DEFAULT_BUDGET,
        rollout: str = "heuristic",
        epsilon: float = 0.0,
        plies: int | None = DEFAULT_PLIES,
        parallel: bool | None = None,
        horizon: int = 0,
        exact_leaves: bool = False,
    ) -> None:
        self.budget = check_budget(budget)
        if rollout not in ROLLOUT_POLICIES:
            raise ValueError(f"rollout must be one of {ROLLOUT_POLICIES}, got {rollout!r}")
        if not 0.0 <= float(epsilon) <= 1.0:
            raise ValueError(f"epsilon must be in [0, 1], got {epsilon!r}")
        self.rollout = rollout
        self.epsilon = float(epsilon)
        if plies is not None and (isinstance(plies, bool) or int(plies) < 0):
            raise ValueError(f"plies must be a non-negative int or None, got {plies!r}")
        self.plies = WHOLE_ROLLOUT if plies is None else int(plies)
        self.parallel = parallel
        if isinstance(horizon, bool) or not isinstance(horizon, int) or horizon < 0:
            raise ValueError(f"horizon must be a non-negative int, got {horizon!r}")
        self.horizon = horizon
        self.exact_leaves = check_bool(exact_leaves, "exact_leaves", type_error=ValueError)
        self._hp = heuristic_params()
        self._plans: dict[tuple[int, ...], int] = {}
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)
        self._plans.clear()

    @staticmethod
    def _key(state: np.ndarray, g: int, hand: int, card: int) -> tuple[int, ...]:
        """Public position of a (pending) full move: mover, table, hand, card, counters."""
        row = state[g]
        return (
            int(row[K.MOVER]), int(row[K.TABLE]), int(hand), int(card), int(row[K.TURN]),
            int(row[K.ROUND]), int(row[K.PILE]), int(row[K.PILE + 1]), int(row[K.PILE + 2]),
        )  # fmt: skip

    def _follow_plans(
        self, st: np.ndarray, games: np.ndarray, mask: np.ndarray, out: np.ndarray
    ) -> np.ndarray:
        """CAPTURE decisions with a remembered plan: write the plan's next TAKE to ``out``.
        Returns the decisions that still need a search."""
        search = np.ones(len(games), dtype=np.bool_)
        for i in np.flatnonzero(st[games, K.PHASE] == K.CAPTURE):
            g = int(games[i])
            sel = int(st[g, K.SELECTION])
            key = self._key(st, g, st[g, K.HAND + st[g, K.MOVER]], st[g, K.PENDING])
            plan = self._plans.get(key)
            if plan is None or (plan & sel) != sel or not (plan & ~sel):
                continue
            t = (plan & ~sel) & -(plan & ~sel)
            action = K.TAKE_OFFSET + t.bit_length() - 1
            if not mask[i, action]:
                continue
            out[i] = action
            search[i] = False
            if plan & ~sel & ~t == 0:  # the capture completes now
                self._plans.pop(key, None)
        return np.flatnonzero(search)

    def _remember_plans(self, st: np.ndarray, sub: np.ndarray, acts: np.ndarray,
                        chosen: np.ndarray) -> None:
        """Remember the multi-step captures chosen at PLAY time."""
        for j in np.flatnonzero((st[sub, K.PHASE] == K.PLAY) & (acts < K.TAKE_OFFSET)):
            g, card, cap = int(sub[j]), int(acts[j]), int(chosen[j])
            if cap == 0 or K.resolve_play(int(st[g, K.TABLE]), card)[0] < 2:
                continue
            hand = int(st[g, K.HAND + st[g, K.MOVER]]) & ~(1 << card)
            self._plans[self._key(st, g, hand, card)] = cap
        if len(self._plans) > 100_000:  # stale plans of abandoned games
            self._plans.clear()

    def _search(
        self, engine: Any, games: np.ndarray, obs: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Search the decisions of ``games``: ``(actions, chosen capture sets)``."""
        seeds = decision_seeds(self.rng, len(games))
        acts = np.empty(len(games), dtype=np.int64)
        chosen = np.empty(len(games), dtype=np.int64)
        rparams = round_params(engine)
        _ISMCTS.for_batch(len(games), self.parallel)(
            engine.state, games, engine.params, rparams, bool(engine.rules.open_hand),
            self.budget, ROLLOUT_POLICIES.index(self.rollout), self.plies, self.epsilon,
            self._hp, seeds, self.horizon, self.exact_leaves, acts, chosen,
        )  # fmt: skip
        return acts, chosen

    def act(self, obs: np.ndarray | None, mask: np.ndarray, view: GameView) -> np.ndarray:
        st = view.engine.state
        games = np.ascontiguousarray(view.games, dtype=np.int64)
        out = np.empty(len(games), dtype=np.int64)
        todo = self._follow_plans(st, games, mask, out)
        if len(todo):
            sub = games[todo]
            acts, chosen = self._search(view.engine, sub, None if obs is None else obs[todo])
            out[todo] = acts
            self._remember_plans(st, sub, acts, chosen)
        return check_actions(out, np.asarray(mask), self.name)
