"""The game plug-ins of the move-network pipeline (:mod:`train.net`): what differs
between Pasur and Persian Rummy, and nothing else.

One labelling loop (:func:`train.move_net.data.generate`), one fit
(:mod:`train.move_net.fit`), one budget planner (:mod:`train.move_net.budget`) and one
script serve both games; a :class:`NetGame` says only which numpy network class the
fit exports to, which agent plays it, which labeller values the candidates and how the
labels are described in the report.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["NetGame", "net_game", "NET_GAMES"]


@dataclass(frozen=True)
class NetGame:
    """A game's parts of the move-network pipeline."""

    id: str
    """the game's id (:data:`pasur_env.games.GAMES`)"""
    title: str
    """its name in reports"""
    net_class: Callable[[], type]
    """the numpy network class (imported on use)"""
    agent: Callable[[Any], Any]
    """network -> the agent that plays it alone"""
    labeler: Callable[[Any, int], Any]
    """(the run's ``Args``, seed) -> the labeller of an iteration"""
    label_text: Callable[[Any], str]
    """the run's ``Args`` -> how its labels were made, for the report"""
    relabellings: Callable[[int, np.random.Generator, int], tuple[np.ndarray, np.ndarray]]
    """(players, rng, n) -> ``n`` random symmetries of the rules as column indices of the
    observations and of the move rows (``augment``)"""


def _pasur_net() -> type:
    from agents.pasur.net import MoveNet

    return MoveNet


def _pasur_agent(model: Any) -> Any:
    from agents.pasur.net import NetAgent

    return NetAgent(model=model)


def _pasur_labeler(args: Any, seed: int) -> Any:
    from train.move_net.data import SearchLabeler

    return SearchLabeler(args.label_budget, seed=seed, explore=args.explore,
                         plies=args.label_plies, horizon=args.label_horizon)


def _pasur_text(args: Any) -> str:
    horizon = ("played to the round's end" if args.label_horizon == 0
               else f"{args.label_horizon}-deal horizon")
    return f"{args.label_budget} rollouts each, {horizon}"


def _stacked(perms: np.ndarray, observation: Callable[[np.ndarray], np.ndarray],
             move_rows: Callable[[np.ndarray], np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The column indices of ``perms`` for the observations and for the move rows."""
    return (np.stack([observation(p) for p in perms]), np.stack([move_rows(p) for p in perms]))


def _pasur_relabellings(players: int, rng: np.random.Generator,
                        n: int) -> tuple[np.ndarray, np.ndarray]:
    from agents.pasur.net.features import move_row_permutation
    from pasur_env.pasur.rules import make_rules
    from pasur_env.pasur.symmetry import observation_permutation, random_card_permutations

    rules = make_rules(num_players=players)
    return _stacked(random_card_permutations(rng, n),
                    lambda p: observation_permutation(rules, p), move_row_permutation)


def _rummy_net() -> type:
    from agents.rummy.net import RummyMoveNet

    return RummyMoveNet


def _rummy_agent(model: Any) -> Any:
    from agents.rummy.net import RummyNetAgent

    return RummyNetAgent(model=model)


def _rummy_labeler(args: Any, seed: int) -> Any:
    from train.move_net.rummy import RummyLabeler

    return RummyLabeler(args.label_budget, seed=seed, explore=args.explore,
                        search=args.label_search)


def _rummy_text(args: Any) -> str:
    if args.label_search == "ismcts":
        return (f"every candidate of a draw or discard valued by `ismcts`'s flat search, "
                f"{args.label_budget} rollouts per decision")
    return (f"every candidate of a draw or discard played out by greedy on "
            f"{args.label_budget} determinizations, the `rollout` agent's evaluation")


def _rummy_relabellings(players: int, rng: np.random.Generator,
                        n: int) -> tuple[np.ndarray, np.ndarray]:
    from agents.rummy.net.features import move_row_permutation
    from pasur_env.rummy.symmetry import observation_permutation, random_card_permutations

    return _stacked(random_card_permutations(rng, n), observation_permutation,
                    move_row_permutation)


#: the games the pipeline trains, by id
NET_GAMES: dict[str, NetGame] = {
    "pasur": NetGame("pasur", "Pasur", _pasur_net, _pasur_agent, _pasur_labeler, _pasur_text,
                     _pasur_relabellings),
    "persian_rummy": NetGame("persian_rummy", "Persian Rummy", _rummy_net, _rummy_agent,
                             _rummy_labeler, _rummy_text, _rummy_relabellings),
}


def net_game(game: str) -> NetGame:
    """The plug-in of ``game``; a clear error for a game the pipeline does not train."""
    try:
        return NET_GAMES[game]
    except KeyError:
        raise ValueError(f"the move network trains {sorted(NET_GAMES)}, not {game!r}") from None
