"""Pasur's plug-in of the move-network pipeline (:class:`train.move_net.games.NetGame`):
its network and agent, its labeller (:class:`train.move_net.data.SearchLabeler`), the
symmetries of its rules, the settings it refuses."""

from __future__ import annotations

from typing import Any

import numpy as np

from train.move_net.games import NetGame, stacked_relabellings

__all__ = ["NET_GAME"]


def _labeler(args: Any, seed: int) -> Any:
    from train.move_net.data import SearchLabeler, SolvedLabeler

    if args.label_search == "solved":
        return SolvedLabeler(args.label_policy, seed)
    return SearchLabeler(args.label_budget, seed=seed, explore=args.explore,
                         plies=args.label_plies, horizon=args.label_horizon,
                         oracle=args.label_search == "oracle",
                         endgame=args.label_endgame, exact_leaves=_exact_leaves(args),
                         infer_beta=args.label_infer_beta,
                         infer_floor=args.label_infer_floor)


#: the values of ``--label-exact-leaves``
EXACT_LEAVES = ("auto", "on", "off")


def _exact_leaves(args: Any) -> bool:
    """Whether labelling rollouts take the last deal's exact value
    (:attr:`train.move_net.config.Args.label_exact_leaves`): ``auto`` where a round has
    at most two deals, so that rollouts from the first reach the last, whose solve costs
    little; in the full game a solve from a last deal's start costs hundreds of
    microseconds, and every rollout from the deal before it pays one."""
    if args.label_exact_leaves != "auto":
        return bool(args.label_exact_leaves == "on")
    from pasur_env.pasur.rules import make_rules

    rules = make_rules(args.preset, num_players=args.players)
    return rules.num_players == 2 and rules.deals_per_round <= 2


def _text(args: Any) -> str:
    if args.label_search == "solved":
        from train.move_net.data import SOLVED_SCALE

        return (f"the solved policy {args.label_policy} (its probability of each move's "
                f"card, times {SOLVED_SCALE:g} points), which plays")
    horizon = ("played to the round's end" if args.label_horizon == 0
               else f"{args.label_horizon}-deal horizon")
    leaves = ""
    if _exact_leaves(args):
        leaves = ", rollouts reaching the last deal take its exact value"
    if args.label_search == "oracle":
        return (f"oracle labels: one rollout of every move in the true position, the "
                f"hidden cards as they lie, {horizon}{leaves}; the labeller plays the "
                f"heuristic")
    exact = ", the last deal solved exactly" if args.label_endgame else ""
    infer = ""
    if args.label_infer_beta > 0:
        infer = (f", determinizations weighted by the opponent's plays (beta "
                 f"{args.label_infer_beta:g}, floor {args.label_infer_floor:g})")
    return f"{args.label_budget} rollouts each, {horizon}{exact}{leaves}{infer}"


def _relabellings(players: int, rng: np.random.Generator,
                  n: int) -> tuple[np.ndarray, np.ndarray]:
    from agents.pasur.move_net.features import move_row_permutation
    from pasur_env.pasur.rules import make_rules
    from pasur_env.pasur.symmetry import observation_permutation, random_card_permutations

    rules = make_rules(num_players=players)
    return stacked_relabellings(random_card_permutations(rng, n),
                                lambda p: observation_permutation(rules, p),
                                move_row_permutation)


def _check(args: Any) -> str | None:
    """The labels' settings (:func:`_check_labels`), then the rule preset: it must exist
    and be a game of ``--players``."""
    wrong = _check_labels(args)
    if wrong is not None or args.preset is None:
        return wrong
    from pasur_env.pasur.rules import make_rules

    try:
        rules = make_rules(args.preset)
    except ValueError as e:
        return str(e)
    if rules.num_players != args.players:
        return (f"preset {args.preset!r} is a {rules.num_players}-player game: "
                f"--players {rules.num_players}")
    return None


def _check_labels(args: Any) -> str | None:
    """``--label-exact-leaves`` one of :data:`EXACT_LEAVES`; the opponent model's
    settings in range, with 2 players; ``--label-search solved`` with a policy file of
    the run's preset."""
    if args.label_exact_leaves not in EXACT_LEAVES:
        return (f"--label-exact-leaves must be {', '.join(EXACT_LEAVES)}, got "
                f"{args.label_exact_leaves!r}")
    if args.label_infer_beta and args.label_search != "rollout":
        return "--label-infer-beta weights the rollout search's deals: --label-search rollout"
    if args.label_infer_beta and args.players != 2:
        return "--label-infer-beta reads a single opponent's plays: it needs 2 players"
    if not args.label_infer_beta >= 0.0:
        return f"--label-infer-beta must be a non-negative number, got {args.label_infer_beta!r}"
    if not 0.0 <= args.label_infer_floor <= 1.0:
        return f"--label-infer-floor must be in [0, 1], got {args.label_infer_floor!r}"
    if (args.label_search == "solved") != (args.label_policy is not None):
        return "--label-search solved and --label-policy PATH go together"
    if args.label_search == "solved":
        return _check_policy(args.label_policy, args.preset)
    return None


def _check_policy(path: str, preset: str | None) -> str | None:
    """A solved policy's file must exist and be of the run's ``--preset``."""
    from pathlib import Path

    if not Path(path).is_file():
        return f"--label-policy: no policy file at {path!r} (python -m train.cfr writes one)"
    with np.load(path) as f:
        solved = str(f["preset"]) if "preset" in f.files else None
    if solved != preset:
        return (f"--label-policy {path} solves the preset {solved!r}; the run plays "
                f"{preset!r}: --preset {solved}")
    return None


NET_GAME = NetGame(
    "pasur", "Pasur", "agents.pasur.move_net:MoveNet", "agents.pasur.move_net:NetAgent",
    _labeler, _text,
    _relabellings, check=_check, label_searches=("rollout", "oracle", "solved"),
    eval_skip=lambda players: () if players == 2 else ("ppo",),
    train_longer="the configuration of the shipped network (`--config long`)",
    config="default", budget_min=18.0,
)
