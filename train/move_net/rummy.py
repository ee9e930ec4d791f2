"""Persian Rummy's labeller for the move-scoring network: every candidate of a
turn-shaping decision valued by search.

:class:`RummyLabeler` is :func:`train.move_net.data.generate`'s policy for Persian
Rummy. At each of its decisions it asks its *valuer* for the value of every candidate
(``valuer.candidate_values(engine, games, mask) -> (offsets, actions, values)``, the
candidates of :func:`agents.rummy.move_net.features.candidate_actions`), records the
observation, the candidates' features (:mod:`agents.rummy.move_net.features`) and the
values, and plays the best candidate (or, with probability ``explore``, a uniformly
random one). Decisions with one candidate (greedy's) are played, not recorded.

The valuer (:func:`make_valuer`) is the ``rollout`` agent's determinized evaluation by
default (:meth:`agents.rummy.rollout.RummyRolloutAgent.candidate_values`: ``budget``
determinized rounds per decision, every candidate played out by greedy on each), or
``ismcts``'s flat search (:meth:`agents.rummy.ismcts.RummyISMCTSAgent.values`:
``budget`` rollouts per decision spread over every legal action, read at the
candidates: :class:`ActionValues`). Any search with either method can take their place.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.core.move_net import best_moves
from agents.rummy.ismcts import RummyISMCTSAgent
from agents.rummy.move_net.features import candidate_features
from agents.rummy.rollout import RummyRolloutAgent, candidate_actions
from pasur_env.core.policy import GameView, check_actions
from train.move_net.data import Labeler
from train.move_net.games import NetGame, stacked_relabellings

__all__ = ["RummyLabeler", "make_valuer", "ActionValues", "LABEL_SEARCHES", "NET_GAME"]

#: the searches that can label (``train.move_net --label-search``)
LABEL_SEARCHES = ("rollout", "ismcts")


class ActionValues:
    """``candidate_values`` over a search that values every action
    (``values(mask, view) -> (n, NUM_ACTIONS)``): each candidate gets its action's value."""

    def __init__(self, search: Any) -> None:
        self.search = search

    def candidate_values(self, eng: Any, games: np.ndarray,
                         mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        offsets, actions, _ = candidate_actions(eng, games, mask)
        values = np.zeros(len(actions), dtype=np.float64)
        multi = np.flatnonzero(np.diff(offsets) > 1)
        if multi.size:
            v = self.search.values(mask[multi], GameView(eng, np.asarray(games)[multi]))
            for k, i in enumerate(multi.tolist()):
                rows = slice(offsets[i], offsets[i + 1])
                got = v[k, actions[rows]]  # an action the search never tried: its worst
                values[rows] = np.where(np.isnan(got), np.nanmin(got), got)
        return offsets, actions, values


def make_valuer(budget: int, seed: int, search: str = "rollout") -> Any:
    """The search that values the candidates: ``rollout`` (``budget`` determinizations
    per decision) or ``ismcts`` (``budget`` rollouts per decision)."""
    if search == "rollout":
        return RummyRolloutAgent(samples=budget, seed=seed)
    if search == "ismcts":
        return ActionValues(RummyISMCTSAgent(seed=seed, budget=budget))
    raise ValueError(f"the Rummy labels come from {LABEL_SEARCHES}, not {search!r}")


class RummyLabeler(Labeler):
    """Values every candidate by search, records it, plays the best (module docstring).

    Args:
        budget: the search's size (see :func:`make_valuer`).
        seed: seeds the search and the exploration.
        explore: probability of playing a uniformly random candidate instead.
        search: ``rollout`` or ``ismcts`` (:func:`make_valuer`).
    """

    def __init__(self, budget: int, seed: int, explore: float = 0.0,
                 search: str = "rollout") -> None:
        super().__init__(seed, explore)
        self.valuer = make_valuer(budget, int(self.rng.integers(2**62)), search)

    def act(self, obs: np.ndarray | None, mask: np.ndarray, view: GameView) -> np.ndarray:
        assert obs is not None
        eng, games = view.engine, view.games
        mask = np.asarray(mask)
        offsets, actions, values = self.valuer.candidate_values(eng, games, mask)
        greedy = actions[offsets[:-1]]
        feats = candidate_features(eng, games, offsets, actions, greedy)
        self._record(eng.state[games], np.asarray(obs), offsets, feats, values)
        chosen = self._explore(best_moves(values, offsets), offsets)
        return check_actions(actions[chosen], mask, self.name)


# ---- the game's plug-in of the pipeline (train.move_net.games) ---------------------------
def _labeler(args: Any, seed: int) -> RummyLabeler:
    return RummyLabeler(args.label_budget, seed=seed, explore=args.explore,
                        search=args.label_search)


def _text(args: Any) -> str:
    if args.label_search == "ismcts":
        return (f"every candidate of a draw or discard valued by `ismcts`'s flat search, "
                f"{args.label_budget} rollouts per decision")
    return (f"every candidate of a draw or discard played out by greedy on "
            f"{args.label_budget} determinizations, the `rollout` agent's evaluation")


def _relabellings(players: int, rng: np.random.Generator,
                  n: int) -> tuple[np.ndarray, np.ndarray]:
    from agents.rummy.move_net.features import move_row_permutation
    from pasur_env.rummy.symmetry import observation_permutation, random_card_permutations

    return stacked_relabellings(random_card_permutations(rng, n), observation_permutation,
                                move_row_permutation)


def _check(args: Any) -> str | None:
    """Four players, no presets, no opponent model."""
    if args.players != 4:
        return "Persian Rummy has 4 players: --players 4 (--config rummy sets it)"
    if args.preset is not None:
        return f"--preset is a Pasur rule preset; {args.game} has none"
    if args.label_infer_beta:
        return f"--label-infer-beta is Pasur's (2 players); {args.game} has no opponent model"
    return None


NET_GAME = NetGame(
    "persian_rummy", "Persian Rummy", "agents.rummy.move_net:RummyMoveNet",
    "agents.rummy.move_net:RummyNetAgent", _labeler, _text, _relabellings, check=_check,
    train_longer="continue it with `--resume` and more `--iterations` and "
    "`--total-decisions`, as the shipped network was made (`agents/pretrained/README.md`)",
    config="rummy", budget_min=20.0, label_searches=("rollout", "ismcts"),
)
