"""Determinized-rollout agent for Persian Rummy: greedy, with its turn-level choices
checked by Monte Carlo on the batched engine.

At a decision that shapes the turn (the draw, when a discard-pile card is takeable;
the discard, once melding is over or instead of it) the agent compares its candidate
actions: the greedy action and every legal draw, or the greedy action and every legal
discard. For each candidate it plays ``samples`` determinized rounds to the end:
the cards the mover cannot see (the other hands, except the cards they took from the
pile, and the stock) are dealt at random in the sizes it knows, the candidate is
applied, and every seat then plays greedy. The candidate with the best mean team point
difference wins (the greedy action on ties). All candidates of one decision share
the same determinizations (common random numbers), and every rollout of a batch of
decisions runs in one compiled loop. Other decisions (picks, melds, lay-offs, meld
choice) are greedy's.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import prange

from agents.core.base import Agent
from agents.rummy.greedy import greedy_rummy_action, greedy_rummy_actions
from pasur_env.core.compile import BatchKernel, njit
from pasur_env.core.policy import GameView, check_actions
from pasur_env.rummy import kernels as K
from pasur_env.rummy.kernels.deal import determinize
from pasur_env.rummy.kernels.step import apply_action

__all__ = ["RummyRolloutAgent", "determinize", "greedy_playout", "candidate_actions",
           "rollout_rows"]


@njit(cache=True)
def greedy_playout(st: np.ndarray, b: int, params: np.ndarray, info: np.ndarray,
                   team: int) -> int:
    """Play game ``b`` on with greedy for every seat to the round's end (``params`` of
    one-round episodes, no auto reset); ``info`` holds the last step's report (zeros if
    none). Returns team ``team``'s round points minus the other team's."""
    for _ in range(4000):
        if info[K.I_ROUND_END]:
            break
        a = greedy_rummy_action(st, b, params)
        info[:] = 0
        apply_action(st, b, a, params, info, False)
    return info[K.I_POINTS + team] - info[K.I_POINTS + 1 - team]


@njit(cache=True, parallel=False, nogil=True)
def rollout_kernel(st: np.ndarray, params: np.ndarray, first: np.ndarray, team: np.ndarray,
                   out: np.ndarray) -> None:
    """Play each row from action ``first[b]`` with greedy for every seat to the round's
    end; ``out[b]`` = team ``team[b]``'s round points minus the other team's."""
    for b in prange(st.shape[0]):
        info = np.zeros(K.NINFO, dtype=np.int64)
        apply_action(st, b, first[b], params, info, False)
        out[b] = greedy_playout(st, b, params, info, team[b])


_ROLLOUT = BatchKernel(rollout_kernel, 64)


@njit(cache=True)
def rollout_rows(state: np.ndarray, games: np.ndarray, cand_offsets: np.ndarray,
                 cands: np.ndarray, samples: int, z: np.uint64
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.uint64]:
    """The rows of :func:`rollout_kernel` for decisions in ``games`` (engine rows of
    ``state``), decision ``i`` comparing ``cands[cand_offsets[i]:cand_offsets[i + 1]]``:
    for each decision, ``samples`` determinizations (drawn in that order from ``z``),
    each repeated once per candidate. Returns ``(rows, first, team, z)``.

    One compiled loop instead of a Python loop over decisions and samples: the rows
    and the random stream are those of the loop it replaced, to the bit, and the
    labeller's rollouts spent about a tenth of their time building them in Python."""
    n = cand_offsets[-1] * samples
    rows = np.empty((n, state.shape[1]), dtype=state.dtype)
    first = np.empty(n, dtype=np.int64)
    team = np.empty(n, dtype=np.int64)
    one = np.empty((1, state.shape[1]), dtype=state.dtype)
    r = 0
    for i in range(games.size):
        g = games[i]
        seat = state[g, K.MOVER]
        for _ in range(samples):
            one[0] = state[g]
            z = determinize(one, 0, seat, z)
            for k in range(cand_offsets[i], cand_offsets[i + 1]):
                rows[r] = one[0]
                first[r] = cands[k]
                team[r] = seat % 2
                r += 1
    return rows, first, team, z


def candidates(eng: Any, g: int, mask: np.ndarray, greedy: int) -> list[int]:
    """The actions compared at this decision (the greedy action first), or just it."""
    st = eng.state[g]
    if st[K.PHASE] == K.DRAW:
        others = [int(a) for a in np.flatnonzero(mask[:K.PICK0]) if a != greedy]
    elif st[K.PHASE] == K.MELDING and st[K.PICKED] == 0 and st[K.TARGET] < 0:
        others = [int(a) for a in np.flatnonzero(mask[K.DISCARD0:]) + K.DISCARD0 if a != greedy]
    else:
        others = []
    return [greedy] + others


def candidate_actions(eng: Any, games: np.ndarray,
                      mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(offsets, actions, greedy)``: the candidates of each game's decision (rows
    ``offsets[i]:offsets[i + 1]``, greedy's action first; one row where the decision is
    greedy's, :func:`candidates`) and greedy's action per game."""
    greedy = greedy_rummy_actions(eng, games)
    lists = [candidates(eng, int(g), mask[i], int(greedy[i]))
             for i, g in enumerate(np.asarray(games).tolist())]
    offsets = np.zeros(len(lists) + 1, dtype=np.int64)
    np.cumsum([len(c) for c in lists], out=offsets[1:])
    actions = np.fromiter((a for c in lists for a in c), dtype=np.int64, count=int(offsets[-1]))
    return offsets, actions, greedy


class RummyRolloutAgent(Agent):
    """Greedy with its draws and discards chosen by determinized rollouts (module doc).

    Args:
        samples: determinizations per decision (shared by its candidates).
        seed: seed of the determinizations.
    """

    name = "rollout"
    game_ids = ("persian_rummy",)

    def __init__(self, samples: int = 8, seed: int | None = None) -> None:
        if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
            raise ValueError(f"samples must be a positive int, got {samples!r}")
        self.samples = samples
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self._z = np.random.SeedSequence(seed).generate_state(1, np.uint64)[0]

    def act(self, obs: np.ndarray | None, mask: np.ndarray, view: GameView) -> np.ndarray:
        offsets, actions, values = self.candidate_values(view.engine, view.games, mask)
        acts = actions[offsets[:-1]].copy()  # greedy's action
        for i in np.flatnonzero(np.diff(offsets) > 1).tolist():
            lo = int(offsets[i])
            acts[i] = actions[lo + int(np.argmax(values[lo:offsets[i + 1]]))]  # greedy on ties
        return check_actions(acts, np.asarray(mask), self.name)

    def candidate_values(self, eng: Any, games: np.ndarray,
                         mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The value of every candidate of each decision: ``(offsets, actions, values)``;
        decision ``i``'s candidates are rows ``offsets[i]:offsets[i + 1]`` (greedy's action
        first), each valued by the mean team point difference of its rollouts (0 where
        greedy's action is the only candidate: nothing is rolled out there). The
        labeller of the Rummy network (:mod:`train.move_net.rummy`) calls this."""
        offsets, actions, _ = candidate_actions(eng, games, mask)
        values = np.zeros(len(actions), dtype=np.float64)
        multi = np.flatnonzero(np.diff(offsets) > 1)
        if multi.size:
            self._rollouts(eng, np.asarray(games, dtype=np.int64)[multi], offsets[multi],
                           offsets[multi + 1], actions, values)
        return offsets, actions, values

    def _rollouts(self, eng: Any, games: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                  actions: np.ndarray, values: np.ndarray) -> None:
        """Roll out the candidates ``actions[lo[i]:hi[i]]`` of the decision in
        ``games[i]``, for every ``i``; write their means into ``values`` (same rows)."""
        cand_offsets = np.zeros(games.size + 1, dtype=np.int64)
        np.cumsum(hi - lo, out=cand_offsets[1:])
        rows = np.repeat(lo - cand_offsets[:-1], hi - lo) + np.arange(cand_offsets[-1])
        st, first, team, z = rollout_rows(eng.state, games, cand_offsets, actions[rows],
                                          self.samples, np.uint64(self._z))
        self._z = np.uint64(z)
        out = np.zeros(len(st), dtype=np.int64)
        params = eng.rules.as_params(episode_round=True)
        _ROLLOUT.for_batch(len(st))(st, params, first, team, out)
        for i in range(games.size):
            a, b = int(lo[i]), int(hi[i])
            block = out[self.samples * int(cand_offsets[i]):self.samples * int(cand_offsets[i + 1])]
            values[a:b] = block.reshape(self.samples, b - a).mean(axis=0)
