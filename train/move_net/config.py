"""The settings of the move-network pipeline (:mod:`train.move_net.pipeline`) and its
named configurations.

:class:`Args` is every setting with its meaning; :data:`CONFIGS` the presets ``--config``
picks (``default``, ``long``: the shipped 2-player ``net``, ``rummy``: Persian Rummy's,
and ``tiny``/``rummy-tiny`` for tests and smoke runs); flags given on the command line
win over a preset. :func:`check_args` refuses settings that parse but cannot run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from train.move_net.budget import FIT_SHARE
from train.move_net.games import NET_GAMES, net_game

__all__ = ["Args", "CONFIGS", "check_args"]


@dataclass
class Args:
    name: str = "net"
    """run name: everything is written to ``<out>/<name>/``"""
    out: str = "runs"
    """folder holding the runs (``--out DIR``: the run is ``DIR/NAME/``)"""
    config: str = "default"
    """named configuration whose values replace the defaults below: ``default``, ``long``
    or ``tiny`` (Pasur), ``rummy`` or ``rummy-tiny`` (Persian Rummy) (flags given on the
    command line still win; without it, the configuration of ``--game``'s own run)"""
    game: str = "pasur"
    """the game: ``pasur`` or ``persian_rummy`` (4 players); without ``--config``, the
    game's own configuration is the defaults (``--game persian_rummy`` is ``--config
    rummy``: :attr:`train.move_net.games.NetGame.config`)"""
    preset: str | None = None
    """Pasur's rule preset to train on, such as the small variants ``mini`` and ``small``
    (2 players, one-round episodes: ``docs/rules.md`` section 8); the labelling games and
    every evaluation use it (``None``: the full game)"""
    seed: int = 0
    """seed of the games, the searches, the network's initialisation and the evaluations
    (default 0, as in every command: the same command gives the same result)"""
    players: int = 2
    """players per game (4 = two teams); the network is made for this number"""
    total_decisions: int = 600_000
    """labelled decisions to collect in all (forced decisions are not counted; about
    what Pasur's 18-minute run labels)"""
    iterations: int = 1
    """label-fit rounds the decisions are split into; the network joins the opponents'
    mix after the first. One, by default: two were not told apart from one in Pasur's
    18-minute runs (``docs/results.md``), and with one the network never plays in the
    labelling, whose rate is then the plan's measure throughout"""
    label_budget: int = 120
    """search rollouts per labelled decision (split over its moves; Persian Rummy:
    determinizations per decision, each candidate played out on every one). In a
    budgeted Pasur run twice the decisions at half the rollouts each made the stronger
    network (``docs/results.md``); ``--config long`` labels with 240"""
    label_search: str = "rollout"
    """the search that labels. Pasur: ``rollout`` (determinized search, ``label_budget``
    rollouts per decision) or ``oracle`` (every move played once in the true position,
    the hidden cards visible, while the labeller plays the heuristic: labels twenty
    times cheaper and noisier, fitted to their mean over what the player cannot see)
    or, on a small variant, ``solved`` (the probabilities of the solved policy
    ``label_policy``, which plays: :class:`train.move_net.data.SolvedLabeler`).
    Persian Rummy: ``rollout`` (``label_budget`` determinizations per decision) or
    ``ismcts`` (``label_budget`` rollouts per decision)"""
    label_policy: str | None = None
    """with ``--label-search solved``: the policy file of ``python -m train.cfr`` for the
    run's ``--preset``"""
    label_horizon: int = 1
    """deals a labelling rollout plays after the move before the position is valued by
    the points captured so far and the expected clubs award (0: play the round out);
    the later deals' card luck, most of a rollout's noise, is left out of the labels.
    One, by default: in Pasur's 18-minute run it labelled 3.3 times the decisions of
    two and made the stronger network (``docs/results.md``); ``--config long`` keeps 2"""
    label_endgame: bool = True
    """Pasur's ``rollout`` labels: label the decisions of a 2-player round's last deal (the
    stock empty, so every card is known) by exact minimax (:mod:`agents.pasur.endgame`)
    instead of rollouts, which value a move there by the heuristic's continuation. On
    by default: it labels 13% more decisions in ``make train``'s 18 minutes, and the
    network was not told apart from the rollouts' (``docs/results.md``);
    ``--no-label-endgame``: by rollouts, as before"""
    label_exact_leaves: str = "auto"
    """Pasur's ``rollout`` labels, 2 players: ``on``: a labelling rollout that reaches the
    round's last deal stops there and takes that deal's exact minimax value in its
    determinization (every card is known there, to both players too) instead of the
    horizon's cut or the heuristic's play (:func:`agents.pasur.ismcts.rollout_value`);
    ``off``: not; ``auto``: on for rounds of at most two deals (the small variants, whose
    NashConv it takes from 0.63 to 0.33), off for the full game, whose labelling it
    slows 3.5 times (``docs/results.md``)"""
    label_infer_beta: float = 0.0
    """Pasur's ``rollout`` labels, 2 players: weight each labelling search's
    determinizations by how well they explain the opponent's plays in the current deal
    (the round's opening play included), the heuristic as the opponent's model with this
    trust (``softmax(beta * heuristic score)``, :mod:`agents.pasur.inference`; ``net-ismcts``
    uses 1.25). 0, the default: uniform determinizations, as if the opponent's plays said
    nothing about its hand"""
    label_infer_floor: float = 0.2
    """with ``label_infer_beta``: the opponent model's share of uniformly random plays"""
    label_plies: int | None = None
    """rollout actions played by the heuristic before greedy takes over (``None``: the
    whole rollout)"""
    explore: float = 0.05
    """probability that the labeler plays a random candidate move instead of its best"""
    opponent_mix: str = "self:1,heuristic:1,greedy:0.5,random:0.25,net:1"
    """the labeler's opponents and their weights (``self``: the labeler; ``net``: the
    network being trained, from the second iteration)"""
    batch: int = 256
    """one-round games played together while labelling"""
    hidden: int = 512
    """width of the network's first hidden layer (the second is half of it)"""
    epochs: int = 16
    """passes over the labelled data at each fit (each pass sees every decision under a
    new random relabelling when ``augment``)"""
    batch_size: int = 512
    """decisions per minibatch"""
    learning_rate: float = 1e-3
    """Adam step size at the start of a fit (decays linearly to a tenth)"""
    weight_decay: float = 1e-5
    """Adam weight decay"""
    level_weight: float = 0.5
    """weight of the decision's mean value in the loss (the move advantages weigh 1)"""
    policy_weight: float = 0.5
    """weight of the cross-entropy between the softmax of the search values and of the
    network's values over each decision's moves (the weight on the moves near the top)"""
    temperature: float = 1.0
    """temperature of those softmaxes, in round points"""
    value_scale: float = 1.0
    """the values are fitted in units of this many round points (the network's output
    too; the agent plays by their order); Persian Rummy's differences are ten times
    Pasur's"""
    augment: bool = True
    """fit on randomly relabelled copies of each decision (the non-club suits exchanged
    rank by rank, a symmetry of the rules: :mod:`pasur_env.pasur.symmetry`)"""
    eval_rounds: int = 2_000
    """duplicate-deal rounds per opponent after each iteration"""
    eval_opponents: str = "greedy,heuristic"
    """opponents of the evaluation after each iteration"""
    rounds: int = 10_000
    """duplicate-deal rounds per opponent in the final evaluation"""
    final_eval_opponents: str = "random,greedy,heuristic,ismcts:400,ppo"
    """final opponents; ``name:R`` plays only R rounds (ISMCTS is slow); ``ppo`` only with
    2 players"""
    torch_threads: int = 2
    """torch CPU threads while fitting (the search uses numba's threads while labelling)"""
    last_decisions: int = 0
    """labelled decisions of the last iteration (0: as the others). A budgeted run ends
    its last iteration's labelling on the clock, when what remains just fits the budget,
    and records here how many decisions that was, so that its fixed-work command
    repeats it"""
    last_epochs: int = 0
    """epochs of the last iteration's fit once its second epoch has ended (0: ``epochs``).
    A budgeted run's last fit ends on the clock: after its second epoch (timed alone,
    without the fit's start-up) it keeps as many as end before the evaluations, at most
    twice ``epochs``, and records the number here, so that its fixed-work command
    repeats it"""
    time_limit_min: float = 0.0
    """stop labelling after this many minutes in all (0 = no limit); the data so far is
    still fitted, evaluated and reported"""
    time_budget_min: float = 0.0
    """wall-time budget of the whole run in minutes, final evaluation included (0 = none:
    the fixed work above). The first iteration's labelling measures the machine, then
    ``total_decisions`` (more or fewer), ``iterations`` and ``epochs`` (at most the values
    above) are planned to end within it; the plan is recorded in ``config.json``, the
    checkpoint and the report, which also prints the same run as a fixed-work command"""
    fit_share: float = FIT_SHARE
    """with a budget: the largest share of the labelling-and-fitting time the fits may
    take; beyond it the plan fits fewer epochs than ``epochs`` and labels more decisions.
    Persian Rummy's 512-wide network gained from its epochs more than from the decisions
    they cost (``docs/results.md``), so its configuration gives the fits more"""
    game_budget: bool = False
    """budget the run with its game's own wall-time budget (``--time-budget-min`` of
    the game's plug-in, :attr:`train.move_net.games.NetGame.budget_min`: Pasur 18 min,
    Persian Rummy 20), as ``make train GAME=<id>`` does; a ``--time-budget-min`` given
    on the command line wins. Resolved when the command line is read: the run's settings
    (``config.json``, the command to reproduce it) hold the budget itself"""
    resume: bool = False
    """continue from this run's latest checkpoint"""
    refit: bool = False
    """with ``--resume``: instead of labelling more, fit a new network from scratch
    (``hidden`` wide, ``epochs`` passes, ``augment`` as given) on all the run's labelled
    data, then evaluate, checkpoint and report it (a budgeted run's plan does not apply:
    the epochs are the ones given). The labels are the costly part; this tries a width, a
    longer fit or the augmentation on labels already paid for"""
    address: str | None = None
    """label on Ray (the rllib extra): ``local``, ``local:N`` (a local instance with N
    CPUs), ``auto`` (the cluster the machine belongs to) or ``HOST:PORT``. The labelling is cut
    into shards that depend on the seed, the iteration and the shard's index only, so the
    data and the network are the same whatever the number of workers; they differ from a
    run without ``--address`` after the first batch (:mod:`train.move_net.distributed`)"""
    workers: int = 0
    """with ``address``: labelling shards in flight at once (0: the cluster's CPUs)"""
    progress: bool = True
    """progress bars on stderr (``--no-progress``: none; default: on when stderr is a
    terminal)"""


#: named configurations (``--config``); the defaults above are ``default``
CONFIGS: dict[str, dict[str, Any]] = {
    "default": {},
    "long": {  # about 58 min on 2 cores: the shipped 2-player ``net``
        "total_decisions": 450_000,
        "iterations": 3,
        "label_budget": 240,
        "label_horizon": 2,
        "final_eval_opponents": "random,greedy,heuristic,ismcts:1000,ppo",
    },
    # Persian Rummy (make train GAME=persian_rummy: its plug-in's budget). One iteration
    # (the network never joins the mix, which labelled at 650 decisions/s against
    # 1,600 without it) and one 512-wide fit of 16 epochs on relabelled copies: on the
    # shipped network's labels that fit gained +20 against `rollout` over the 256-wide
    # warm-started fits; the fits take up to 65% of the time (docs/results.md)
    "rummy": {
        "name": "rummy",
        "game": "persian_rummy",
        "players": 4,
        "total_decisions": 90_000,
        "iterations": 1,
        "label_budget": 8,
        "explore": 0.05,
        "opponent_mix": "self:1,greedy:1,rollout:0.5,random:0.1,net:1",
        "batch": 64,
        "hidden": 512,
        "epochs": 16,
        "fit_share": 0.65,
        "batch_size": 512,
        "temperature": 8.0,
        "value_scale": 10.0,
        "augment": True,
        "eval_rounds": 200,
        "eval_opponents": "greedy,rollout",
        "rounds": 1_000,
        "final_eval_opponents": "random,greedy,rollout",
    },
    "rummy-tiny": {  # Persian Rummy's tests and smoke runs
        "game": "persian_rummy",
        "players": 4,
        "total_decisions": 200,
        "iterations": 2,
        "label_budget": 2,
        "opponent_mix": "self:1,greedy:1,net:1",
        "batch": 8,
        "hidden": 32,
        "epochs": 1,
        "batch_size": 64,
        "value_scale": 10.0,
        "augment": True,
        "eval_rounds": 10,
        "eval_opponents": "greedy",
        "rounds": 10,
        "final_eval_opponents": "random,greedy",
        "torch_threads": 1,
        "progress": False,
    },
    "tiny": {  # tests and smoke runs
        "total_decisions": 300,
        "iterations": 2,
        "label_budget": 16,
        "batch": 16,
        "hidden": 32,
        "epochs": 1,
        "batch_size": 64,
        "eval_rounds": 20,
        "rounds": 20,
        "final_eval_opponents": "random,greedy",
        "torch_threads": 1,
        "progress": False,
    },
}


def check_args(args: Args) -> str | None:
    """What is wrong with settings that parse but cannot run, or None."""
    if args.players not in (2, 3, 4):
        return f"--players must be 2, 3 or 4, got {args.players}"
    if args.game not in NET_GAMES:
        return f"--game must be {' or '.join(NET_GAMES)}, got {args.game!r}"
    game = net_game(args.game)
    if args.label_search not in game.label_searches:
        return (f"--label-search of {game.title} must be {' or '.join(game.label_searches)},"
                f" got {args.label_search!r}")
    refused = game.check(args)  # what the game itself refuses
    if refused is not None:
        return refused
    if args.last_decisions < 0:
        return (f"--last-decisions must be 0 (as the other iterations) or positive, got "
                f"{args.last_decisions}")
    if args.last_epochs < 0:
        return (f"--last-epochs must be 0 (as --epochs) or positive, got "
                f"{args.last_epochs}")
    if args.time_budget_min < 0:
        return f"--time-budget-min must be 0 (no budget) or positive, got {args.time_budget_min}"
    if not 0 < args.fit_share < 1:
        return f"--fit-share is a share of the time, between 0 and 1 excluded: {args.fit_share}"
    if args.address is not None:
        from agents.evaluation.distributed import parse_address

        try:
            parse_address(args.address)
        except ValueError as e:
            return str(e)
        if args.time_budget_min:
            return ("--time-budget-min plans from this machine's labelling speed: give "
                    "--total-decisions with --address")
    if args.workers < 0:
        return f"--workers must be 0 (the cluster's CPUs) or positive, got {args.workers}"
    if args.refit and not args.resume:
        return "--refit fits anew on a run's labelled data: give --resume and the run's --name"
    if args.refit and args.time_budget_min:
        return "--refit labels nothing, so there is no budget to plan: drop --time-budget-min"
    if args.time_budget_min and args.time_limit_min:
        return ("--time-budget-min and --time-limit-min do not go together: the budget "
                "already ends the run in time, and plans it so that it can be made again")
    return None

