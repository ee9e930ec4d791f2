"""The ``net-ismcts`` agent: determinized search guided by the move-scoring network.

At each decision the network scores every candidate move (one batched forward pass for
the whole batch of decisions). The search then spends its whole rollout budget on the
network's ``top_k`` moves only, so each of them gets more determinizations than plain
ISMCTS gives it, and the decision is taken on a blend of the two estimates of each
move's value: ``(1 - prior_weight) * rollout mean + prior_weight * Q``. Both estimate
the same thing (the round-point difference after the move), the rollouts with sampling
noise, the network with its approximation error.

With ``clear_gap`` set, a decision whose best move the network values more than that
many points above the second is played without search, so a larger budget for the
others keeps the time (0.5 skips about a third of the decisions with a choice for the
shipped 2-player network). Off by default: measured, it did not help (docs/agents.md).

With ``infer_beta`` > 0 (2 players) the determinizations are weighted by how well they
explain the opponent's plays in the current deal, the heuristic serving as the model of
the opponent (:mod:`agents.pasur.inference`): the agent keeps, per game, the position after
each of its moves in the deal, and reads the opponent's reply at its next decision.
The model's defaults (``infer_beta=1.25``, ``infer_floor=0.2``: a play's probability is
``0.8 * softmax(1.25 * heuristic score) + 0.2 / moves``) are fitted by likelihood to
``ismcts``'s plays (:mod:`train.opponent_fit`). Because the inference moves the values
away from the network's (which assume nothing about the opponent's hand), the search
keeps the network's 3 best moves, not 2.

In a 2-player round's last deal (the stock empty) the agent knows every card, and the
rest of the round, at most 8 full moves, is solved exactly (:mod:`agents.pasur.endgame`):
the minimax move is played, no rollouts are spent (``solve_last_deal``, on by default).

The rollouts are shorter and better than plain ISMCTS's: the heuristic plays every
seat (not greedy after a few plies), and a rollout stops when ``horizon`` more deals
have been dealt, where the position is valued by the points captured so far and the
expected club award (:func:`agents.pasur.ismcts.position_value`): the later deals' card
luck, most of a rollout's noise, is left out. The defaults take about the time per
decision of ``ismcts`` (see docs/agents.md). Multi-step captures are completed as
planned, as in :class:`agents.ISMCTSAgent`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from agents.core.search import decision_seeds
from agents.pasur.endgame import endgame_values
from agents.pasur.inference import PlayRecords, reads_plays
from agents.pasur.ismcts import ISMCTSAgent, search_values
from agents.pasur.move_net.agent import NetAgent, best_moves, shipped_net_files
from agents.pasur.move_net.model import MoveNet
from agents.pasur.moves import emit_actions
from pasur_env.core.args import check_bool
from pasur_env.core.policy import GameView

__all__ = ["NetSearchAgent", "top_k_mask", "value_gaps"]


def _ranks(q: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Rank of every move row within its decision: 0 = the best (ties by row order)."""
    counts = np.diff(offsets)
    dec = np.repeat(np.arange(counts.size), counts)
    order = np.lexsort((np.arange(q.size), -q, dec))  # by decision, best first
    rank = np.empty(q.size, dtype=np.int64)
    rank[order] = np.arange(q.size) - np.repeat(offsets[:-1], counts)
    return rank


def top_k_mask(q: np.ndarray, offsets: np.ndarray, k: int) -> np.ndarray:
    """Bool per move row: among the ``k`` best of its decision (ties by row order)."""
    return _ranks(q, offsets) < k


def value_gaps(q: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Per decision, its best move's value minus its second best's (``inf`` with one move)."""
    q = np.asarray(q, dtype=np.float64)
    second = _ranks(q, offsets) == 1
    dec = np.repeat(np.arange(offsets.size - 1), np.diff(offsets))[second]
    gaps = np.full(offsets.size - 1, np.inf)
    gaps[dec] = np.maximum.reduceat(q, offsets[:-1])[dec] - q[second]
    return gaps


class NetSearchAgent(ISMCTSAgent):
    """Network-guided determinized search (module docstring).

    Args:
        seed: seeds the determinizations.
        budget: rollouts per decision, split over the kept moves.
        top_k: moves the search considers (the network's best).
        prior_weight: weight of the network's value in the final blend.
        clear_gap: a decision whose best move the network values more than this many
            points above the second is played without search (``None``: search every
            decision); the budget goes to the close decisions.
        solve_last_deal: in a 2-player round's last deal (the stock empty, so every card
            known) play the exact minimax move (:mod:`agents.pasur.endgame`) instead of
            searching.
        infer_beta: trust in the heuristic as a model of the opponent when its plays
            weight the determinizations (0: uniform determinizations; only for 2 players
            with hidden hands: the other games are searched with uniform ones).
        infer_floor: the opponent model's probability of a uniformly random play (the
            rest follows ``softmax(infer_beta * heuristic score)``): a play the heuristic
            rates poorly then discounts a hand instead of ruling it out.
        path, model, files: the network (:class:`~agents.pasur.move_net.agent.NetAgent`;
            default: the shipped one of the latest ``net-ismcts`` for the game's players).
        rollout, plies, parallel, horizon: as for :class:`agents.ISMCTSAgent` (here the
            heuristic plays whole rollouts, which stop after two more deals).
    """

    name = "net-ismcts"
    needs_observation = True

    def __init__(
        self,
        seed: int | None = None,
        budget: int = 225,
        top_k: int = 3,
        prior_weight: float = 0.3,
        clear_gap: float | None = None,
        solve_last_deal: bool = True,
        infer_beta: float = 1.25,
        infer_floor: float = 0.2,
        path: str | Path | None = None,
        model: MoveNet | None = None,
        rollout: str = "heuristic",
        plies: int | None = None,
        parallel: bool | None = None,
        horizon: int = 2,
        files: Mapping[int, str | Path] | None = None,
    ) -> None:
        super().__init__(seed=seed, budget=budget, rollout=rollout, plies=plies,
                         parallel=parallel, horizon=horizon)
        if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1:
            raise ValueError(f"top_k must be a positive int, got {top_k!r}")
        if not 0.0 <= float(prior_weight) <= 1.0:
            raise ValueError(f"prior_weight must be in [0, 1], got {prior_weight!r}")
        if clear_gap is not None and not float(clear_gap) >= 0.0:
            raise ValueError(f"clear_gap must be a non-negative number or None, got {clear_gap!r}")
        if not float(infer_beta) >= 0.0:
            raise ValueError(f"infer_beta must be a non-negative number, got {infer_beta!r}")
        if not 0.0 <= float(infer_floor) <= 1.0:
            raise ValueError(f"infer_floor must be in [0, 1], got {infer_floor!r}")
        self.top_k, self.prior_weight = top_k, float(prior_weight)
        self.infer_beta = float(infer_beta)
        self.infer_floor = float(infer_floor)
        self.clear_gap = None if clear_gap is None else float(clear_gap)
        self.solve_last_deal = check_bool(solve_last_deal, "solve_last_deal",
                                          type_error=ValueError)
        if files is None:  # its own version's networks (the shipped ones can differ)
            files = shipped_net_files(agent="net-ismcts")
        self.net = NetAgent(path=path, model=model, files=files)

    @property
    def player_counts(self) -> tuple[int, ...]:  # type: ignore[override]
        """Its network's (see :class:`~agents.pasur.move_net.agent.NetAgent`)."""
        return self.net.player_counts

    @property
    def observation_size(self) -> int | None:  # type: ignore[override]
        return self.net.observation_size

    def weights_file(self, num_players: int | None) -> Path | None:
        """Its network's file (:meth:`NetAgent.weights_file`)."""
        return self.net.weights_file(num_players)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._records = PlayRecords()

    def _search(
        self, engine: Any, games: np.ndarray, obs: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray]:
        if obs is None:
            raise ValueError(f"{self.name} needs observations")
        offsets, cards, capts, q = self.net.scores(obs, GameView(engine, games))
        keep = top_k_mask(q, offsets, self.top_k)
        clear = np.zeros(len(games), dtype=np.bool_)
        if self.clear_gap is not None:
            clear = value_gaps(q, offsets) > self.clear_gap
            keep &= ~np.repeat(clear, np.diff(offsets))  # nothing of theirs is searched
        solved = np.zeros(len(games), dtype=np.bool_)
        if self.solve_last_deal:
            solved, exact = endgame_values(engine, games, offsets)
            keep &= ~np.repeat(solved, np.diff(offsets))  # no rollouts where play is exact
        seeds = decision_seeds(self.rng, len(games))
        records = self._records.current(engine, games) if self._infers(engine) else None
        values = search_values(engine, games, offsets, seeds, budget=self.budget,
                               rollout=self.rollout, plies=self.plies, keep=keep,
                               horizon=self.horizon, records=records, beta=self.infer_beta,
                               floor=self.infer_floor)
        w = self.prior_weight
        blend = np.where(keep, (1.0 - w) * np.nan_to_num(values) + w * q, -np.inf)
        best = np.where(clear, best_moves(q, offsets), best_moves(blend, offsets))
        if solved.any():
            best = np.where(solved, best_moves(np.nan_to_num(exact, nan=-np.inf), offsets), best)
        acts = np.empty(len(games), dtype=np.int64)
        emit_actions(engine.state, games, cards[best], capts[best], acts)
        if self._infers(engine):
            self._records.remember(engine, games, cards[best], capts[best])
        return acts, capts[best]

    def _infers(self, engine: Any) -> bool:
        """Whether the opponent's plays weight the determinizations in ``engine``'s games:
        2 players with hidden hands and ``infer_beta`` > 0."""
        return reads_plays(engine, self.infer_beta)
