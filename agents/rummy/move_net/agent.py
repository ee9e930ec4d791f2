"""The Persian Rummy ``net`` agent: the move-scoring network alone, greedy elsewhere.

At the decisions that shape a turn (the draw with a takeable pile card, the discard:
:mod:`agents.rummy.move_net.features`) it scores every candidate with the network
(:class:`agents.rummy.move_net.model.RummyMoveNet`, one batched forward pass per call) and
plays the best; every other decision is greedy's, as in ``rollout``, whose choices the
network learned from (``train.move_net --config rummy``). No search, and no randomness
unless asked: ``net:temperature=T`` draws among the scored candidates from a softmax of
their values over ``T`` points, as Pasur's ``net`` (:meth:`RummyNetAgent.action_probs`
says the probabilities). The shipped network is ``agents/pretrained/rummy_net_4p.npz``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from agents.core.base import Agent
from agents.core.move_net import action_probs, check_temperature, choose_moves
from agents.rummy.move_net.features import candidate_actions, candidate_features
from agents.rummy.move_net.model import RummyMoveNet
from pasur_env.core.policy import GameView, check_actions

__all__ = ["RummyNetAgent", "PRETRAINED_RUMMY_NET"]

#: the shipped network
PRETRAINED_RUMMY_NET = Path(__file__).resolve().parents[2] / "pretrained" / "rummy_net_4p.npz"


class RummyNetAgent(Agent):
    """The Rummy move-scoring network as a batched agent (module docstring).

    Args:
        seed: seeds the draws at a temperature above 0 (at 0 the agent is deterministic).
        path: a network file (``.npz``, written by ``train.move_net --config rummy``);
            default: the shipped one.
        model: a :class:`RummyMoveNet` already in memory (instead of ``path``).
        temperature: 0 (default) plays the best-scored candidate; ``T > 0`` draws one
            with probability proportional to ``exp(Q / T)``, ``Q`` in round points.
    """

    name = "net"
    needs_observation = True
    game_ids = ("persian_rummy",)

    def __init__(self, seed: int | None = None, path: str | Path | None = None,
                 model: RummyMoveNet | None = None, temperature: float = 0.0) -> None:
        self.temperature = check_temperature(temperature, self.name)
        self.reset(seed)
        #: the network's file (None for a network given in memory): a result's provenance
        self.path: Path | None = None
        if model is None:
            file = self.path = PRETRAINED_RUMMY_NET if path is None else Path(path)
            if path is None and not file.exists():
                raise ValueError(f"{self.name}: no shipped Persian Rummy network ({file.name}); "
                                 "train one with `python -m train.move_net --config rummy`")
            model = RummyMoveNet.shared(file)
        if not isinstance(model, RummyMoveNet):
            raise TypeError(f"{self.name}: model must be a RummyMoveNet, got "
                            f"{type(model).__name__}")
        self.model = model
        self.model.check(self.model.obs_size, 4, self.name)  # a Pasur file fails here
        self.observation_size = self.model.obs_size

    def scores(self, obs: np.ndarray, mask: np.ndarray,
               view: GameView) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(offsets, actions, q)``: every candidate of each decision and its value (the
        network's where there is a choice, 0 where greedy's action is the only one)."""
        eng, games = view.engine, view.games
        self.model.check(obs.shape[1], 4, self.name)
        offsets, actions, greedy = candidate_actions(eng, games, mask)
        q = np.zeros(len(actions), dtype=np.float32)
        pick = np.flatnonzero(np.diff(offsets) > 1)
        if pick.size:
            sub = np.zeros(pick.size + 1, dtype=np.int64)
            np.cumsum(np.diff(offsets)[pick], out=sub[1:])
            rows = np.concatenate([np.arange(offsets[i], offsets[i + 1]) for i in pick])
            feats = candidate_features(eng, games[pick], sub, actions[rows], greedy[pick])
            q[rows] = self.model.q_values(obs[pick], sub, feats)
        return offsets, actions, q

    def act(self, obs: np.ndarray | None, mask: np.ndarray, view: GameView) -> np.ndarray:
        if obs is None:
            raise ValueError(f"{self.name} needs observations")
        mask = np.asarray(mask)
        offsets, actions, q = self.scores(np.asarray(obs), mask, view)
        pick = choose_moves(q, offsets, self.temperature, self.rng)
        return check_actions(actions[pick], mask, self.name)

    def action_probs(self, obs: np.ndarray | None, mask: np.ndarray,
                     view: GameView) -> np.ndarray:
        """``(n, num_actions)``: the probability that :meth:`act` returns each action."""
        if obs is None:
            raise ValueError(f"{self.name} needs observations")
        mask = np.asarray(mask)
        offsets, actions, q = self.scores(np.asarray(obs), mask, view)
        return action_probs(q, offsets, actions, self.temperature, mask.shape)
