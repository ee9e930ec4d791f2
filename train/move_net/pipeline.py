"""Train the move-scoring network from search: label positions, fit, play, repeat.

One pipeline for both games: ``--config rummy`` trains Persian Rummy's network (the
game's parts are plug-ins, :mod:`train.move_net.games`: its labeller, network class and
agent; the loop, the fit and the budget are the same). Read top to bottom (CleanRL
style):

1. ``Args`` (:mod:`train.move_net.config`): every setting, with its meaning;
   ``--config long`` is the run behind the shipped 2-player ``net``, ``--players 3``/``4``
   trains for other tables, ``--config rummy`` is Persian Rummy's (``make train
   GAME=persian_rummy``). The game's plug-in is resolved once, at the start of ``main``,
   and handed to every step.
2. Each *iteration* plays one-round games in which a :class:`train.move_net.data.SearchLabeler`
   holds one side: at every decision it values **every** candidate move by determinized
   search (ISMCTS rollouts on the batched engine; in Persian Rummy every candidate of a
   draw or discard played out on determinizations, :mod:`train.move_net.rummy`),
   records the observation, the move features and the values, and plays the best move.
   The other side is drawn from a mix of opponents: the labeler itself, the scripted
   agents, and from the second iteration on the network being trained, so the positions
   follow the learner's own play.
3. The network (:class:`train.move_net.fit.TorchMoveNet`) is fitted on everything labelled so
   far (warm start from the last iteration): it learns each move's value, so it needs no
   search to play.
4. After each iteration the network plays duplicate-deal matches against the
   evaluation opponents (TensorBoard ``eval/...``, ``evals.csv``); the data, the network
   and the random state are checkpointed, so ``--resume`` continues a run.
5. At the end: ``runs/<name>/net.npz`` (the network with its provenance), a final
   evaluation against every baseline (``final_eval.json``) and ``report.md``.
6. ``--time-budget-min B`` sizes the run to end within B minutes on the machine it runs
   on (:mod:`train.move_net.budget`): the first iteration's labelling measures the
   machine, then the iterations, decisions and epochs are planned once, recorded and
   kept; without it the run does the fixed amount of work of its settings.
7. ``--address`` labels on Ray (:mod:`train.move_net.distributed`): each iteration's games
   in shards seeded by the seed, the iteration and the shard's index, as many at once as
   there are workers; the data and the network do not depend on the number of workers.

    python -m train.move_net --game-budget                        # make train: 18 min
    python -m train.move_net --name net --total-decisions 100000  # a fixed amount of work
    python -m train.move_net --game persian_rummy --game-budget   # Persian Rummy, 20 min
    python -m train.move_net --name net --address auto           # label on a Ray cluster
    tensorboard --logdir runs
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.apps.flags import Parser
from train.common.config import command_line, config_cli, parse_config_args
from train.move_net.config import CONFIGS, Args, check_args
from train.move_net.games import NET_GAMES, NetGame, net_game

__all__ = ["Args", "CONFIGS", "State", "main", "parse_args", "command_of"]

#: the program's name in its messages
PROG = "python -m train.move_net"


def parse_args(argv: list[str] | None = None) -> Args:
    """Command line -> :class:`Args` (tyro): ``--config`` picks the defaults (without it,
    the configuration of ``--game``'s own run, :attr:`NetGame.config`), ``--game-budget``
    adds the game's wall-time budget to them (:attr:`NetGame.budget_min`), flags win."""
    argv = list(sys.argv[1:] if argv is None else argv)
    pre = Parser(prog=PROG, add_help=False)
    pre.add_argument("--config")
    pre.add_argument("--game")
    pre.add_argument("--game-budget", action=argparse.BooleanOptionalAction, default=False)
    known, _ = pre.parse_known_args(argv)
    configs = CONFIGS
    if known.config is None and known.game in NET_GAMES:
        argv = ["--config", NET_GAMES[known.game].config, *argv]
        known.config = NET_GAMES[known.game].config
    config = CONFIGS.get(known.config or "default")
    game = known.game or (config or {}).get("game", Args.game)
    if known.game_budget and config is not None and game in NET_GAMES:
        # the budget as a default of the configuration: a --time-budget-min given wins
        configs = {**CONFIGS, known.config or "default": {
            **config, "time_budget_min": NET_GAMES[game].budget_min}}
    args = parse_config_args(Args, configs, argv, PROG, __doc__, check_args)
    return dataclasses.replace(args, game_budget=False)  # resolved: the run's budget is set


def cli_of(args: Args) -> list[str]:
    """The flags that differ from the defaults of ``args.config`` (to reproduce a run)."""
    return config_cli(args, CONFIGS)


def command_of(args: Args) -> str:
    """The whole command that makes this run again (its ``--name`` included)."""
    return command_line("train.move_net", args, CONFIGS)


# ---- the pieces of a run ------------------------------------------------------------------
#: the folder of a run holding its labelled decisions, one file per iteration
DATA_DIR = "data"


@dataclass
class State:
    """A run's progress: the iterations done, the labelled data, the network, the history.

    A checkpoint is three kinds of plain files, no pickle: ``checkpoint.json``
    (iteration, seconds, history, and a budgeted run's plan), ``checkpoint_net.npz``
    (the network) and one compressed ``data/iteration_<k>.npz`` per iteration's labelled
    decisions (:meth:`train.move_net.data.Dataset.save`).
    """

    iteration: int = 0
    seconds: float = 0.0
    data: list[Any] = dataclasses.field(default_factory=list)
    net: Any = None  # agents.core.move_net.MoveNetBase (the game's class)
    history: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    plan: dict[str, Any] | None = None  # train.move_net.budget.Plan.to_json()


def save_checkpoint(run_dir: Path, state: State, data: bool = True) -> None:
    """Write the iteration's data file (unless ``data`` is False: a refit adds none), the
    network and the progress (atomically last); the writing's seconds join the
    iteration's phase timings."""
    (run_dir / DATA_DIR).mkdir(exist_ok=True)
    k = state.iteration
    t0 = time.perf_counter()
    if data:
        state.data[k - 1].save(run_dir / DATA_DIR / f"iteration_{k}.npz")
    state.net.save(run_dir / "checkpoint_net.npz")
    if state.history:
        state.history[-1].setdefault("phase_seconds", {})["saving"] = round(
            time.perf_counter() - t0, 2)
    tmp = run_dir / "checkpoint.json.tmp"
    info: dict[str, Any] = {"iteration": k, "seconds": state.seconds, "history": state.history}
    if state.plan is not None:
        info["plan"] = state.plan
    tmp.write_text(json.dumps(info, indent=2))
    os.replace(tmp, run_dir / "checkpoint.json")


def load_checkpoint(run_dir: Path, game: NetGame) -> State | None:
    """The run's state from its checkpoint files, or None when there is none."""
    from train.move_net.data import Dataset

    path = run_dir / "checkpoint.json"
    if not path.exists():
        return None
    info = json.loads(path.read_text())
    k = int(info["iteration"])
    data = [Dataset.load(run_dir / DATA_DIR / f"iteration_{i}.npz") for i in range(1, k + 1)]
    net = game.net_class().load(run_dir / "checkpoint_net.npz")
    return State(k, float(info["seconds"]), data, net,
                 list(info["history"]), info.get("plan"))


def opponent_mix(args: Args, game: NetGame, net: Any
                 ) -> tuple[dict[str, float], dict[str, Any]]:
    """The labeler's opponents (name -> weight) and the objects for names the registry
    does not build (the network being trained)."""
    mix: dict[str, float] = {}
    for item in args.opponent_mix.split(","):
        name, _, weight = item.partition(":")
        if name.strip() == "net" and net is None:
            continue
        mix[name.strip()] = float(weight or 1.0)
    return mix, ({} if net is None else {"net": game.agent(net)})


def label(args: Args, game: NetGame, state: State, decisions: int, deadline: float | None,
          budget: Any = None, closing: Any = None) -> Any:
    """One iteration's labelled decisions (:func:`train.move_net.data.generate`); a
    :class:`train.move_net.budget.Budget` without a plan yet watches it and plans, a
    :class:`train.move_net.budget.Closing` ends the last iteration on the clock."""
    from agents.evaluation.progress import Progress
    from train.move_net.data import generate

    seed = args.seed * 1000 + state.iteration
    if args.address is not None:
        return label_on_ray(args, game, state, decisions, deadline, seed)
    labeler = game.labeler(args, seed)
    mix, objects = opponent_mix(args, game, state.net)
    bar = Progress(decisions, f"labelling (iteration {state.iteration + 1})", "decisions",
                   args.progress)
    resize = None
    watcher = closing if closing is not None else (
        budget if budget is not None and budget.plan is None else None)
    if watcher is not None:
        watcher.start()

        def resize(labeler: Any) -> int:
            target = watcher.resize(labeler)
            if target < sys.maxsize:  # a Budget asks for "more" until it has planned
                bar.set_total(target)
            return target

    try:
        return generate(labeler, decisions, num_players=args.players, seed=seed,
                        opponents=mix, batch=args.batch, progress=bar,
                        policies=objects, deadline=deadline, resize=resize, game=args.game,
                        preset=args.preset)
    finally:
        bar.close()


def label_on_ray(args: Args, game: NetGame, state: State, decisions: int,
                 deadline: float | None, seed: int) -> Any:
    """One iteration's labelled decisions in shards on Ray (:mod:`train.move_net.distributed`);
    prints the labelling throughput."""
    from agents.evaluation.distributed import cluster_cpus
    from agents.evaluation.progress import Progress
    from train.move_net.distributed import LabelJob, label_sharded, ray_tasks

    mix, _ = opponent_mix(args, game, state.net)
    job = LabelJob(seed, args.players, args.label_budget, args.explore, args.label_plies,
                   args.label_horizon, args.batch, mix, state.net, game=args.game,
                   label_search=args.label_search, preset=args.preset,
                   label_endgame=args.label_endgame,
                   label_exact_leaves=args.label_exact_leaves,
                   label_infer_beta=args.label_infer_beta,
                   label_infer_floor=args.label_infer_floor,
                   label_policy=args.label_policy)
    workers = args.workers or cluster_cpus()
    bar = Progress(decisions, f"labelling on Ray (iteration {state.iteration + 1})",
                   "decisions", args.progress)
    tasks = ray_tasks()
    t0 = time.perf_counter()
    try:
        data = label_sharded(job, decisions, tasks, workers, deadline=deadline, progress=bar)
    finally:
        bar.close()
    seconds = time.perf_counter() - t0
    print(f"labelled {len(data):,} decisions in {seconds:.1f} s with {workers} "
          f"worker{'s' if workers > 1 else ''}: "
          f"{len(data) / seconds:.1f} decisions/s"
          + (f" ({tasks.lost} shards resubmitted)" if tasks.lost else ""))
    return data


def fit_settings(args: Args, iteration: int) -> Any:
    """The :class:`train.move_net.fit.FitSettings` of the fit after ``iteration``."""
    from train.move_net.fit import FitSettings

    return FitSettings(
        epochs=args.epochs, batch_size=args.batch_size, lr=args.learning_rate,
        lr_final=args.learning_rate / 10, weight_decay=args.weight_decay,
        level_weight=args.level_weight, augment=args.augment, num_players=args.players,
        game=args.game,
        policy_weight=args.policy_weight, temperature=args.temperature,
        value_scale=args.value_scale, seed=args.seed + iteration,
        last_epochs=args.last_epochs if iteration == args.iterations - 1 else 0,
    )


def fit_network(args: Args, game: NetGame, state: State, writer: Any,
                closing: Any = None) -> dict[str, float]:
    """Fit the network on all the data so far, warm-starting from the last one; a
    :class:`train.move_net.budget.Closing` ends the last fit on the clock."""
    import torch

    from agents.evaluation.progress import Progress
    from train.move_net.data import Dataset
    from train.move_net.fit import TorchMoveNet, fit

    torch.manual_seed(args.seed + state.iteration)
    data = Dataset.concat(state.data)
    net_class = game.net_class()
    if state.net is None:
        model = TorchMoveNet(data.obs.shape[1], args.hidden, args.hidden // 2,
                             net_class.MOVE_WIDTH)
    else:
        model = TorchMoveNet.from_numpy(state.net)
    settings = fit_settings(args, state.iteration)
    per_epoch = -(-len(data) // args.batch_size)
    bar = Progress((settings.last_epochs or args.epochs) * per_epoch,
                   f"fitting (iteration {state.iteration + 1})", "batches", args.progress)
    base = state.iteration * 1_000_000

    def log(step: int, parts: dict[str, float]) -> None:
        if step % 50 == 0:
            for k, v in parts.items():
                writer.add_scalar(f"fit/{k}", v, base + step)

    try:
        def replan(done: int, seconds: float) -> int:  # a budgeted run's last fit
            epochs = closing.fit_epochs(seconds, 2 * args.epochs, done=done)
            bar.set_total(epochs * per_epoch)
            return int(epochs)

        stats = fit(model, data, settings, log=log, progress=bar.update,
                    replan=None if closing is None or args.last_epochs else replan)
    finally:
        bar.close()
    state.net = model.to_numpy(net_class, num_players=args.players)
    return stats


def _match(args: Args) -> dict[str, Any]:
    """The settings of every match the run plays: its players and rule preset."""
    return {"players": args.players} | ({} if args.preset is None else {"preset": args.preset})


def evaluate_network(args: Args, game: NetGame, state: State, opponents: str, rounds: int,
                     seed: int) -> list[Any]:
    """Duplicate-deal matches of the network against ``opponents`` (``name[:rounds]``;
    the opponents the game's plug-in skips left out: ``ppo`` plays 2-player Pasur only)."""
    from train.common.evaluation import evaluate_against

    return evaluate_against(game.agent(state.net), opponents, game=args.game,
                            rounds=rounds, seed=seed, progress=args.progress,
                            skip=game.eval_skip(args.players), **_match(args))


def final_evaluation(args: Args, game: NetGame, state: State, run_dir: Path) -> list[Any]:
    """The finished network against every final opponent; writes ``final_eval.json``."""
    from train.common.evaluation import final_evaluation as evaluate_run

    return evaluate_run(game.agent(state.net), args.final_eval_opponents,
                        run_dir, game=args.game, rounds=args.rounds,
                        seed=args.seed + 1000, progress=args.progress,
                        skip=game.eval_skip(args.players), **_match(args))


def budget_probe(args: Args, game: NetGame, clock: Callable[[], float]
                 ) -> Callable[[Any], tuple[float, ...]]:
    """The timings a :class:`train.move_net.budget.Budget` plans from, on the data
    labelled so far: a throwaway network's fit, a share of every evaluation the run
    will play, a batch of games labelled against that network, and the writing of the
    data so far (compressed, in memory). No random stream of
    the run is touched (torch's is forked; the fit, the network, the matches and the
    labelling have their own)."""

    def probe(data: Any) -> tuple[float, float, float, float, float]:
        import io

        import torch

        from train.common.evaluation import evaluate_game, parse_opponents
        from train.move_net.budget import time_evaluations, time_fit
        from train.move_net.fit import TorchMoveNet, fit

        with torch.random.fork_rng():
            net_class = game.net_class()
            model = TorchMoveNet(data.obs.shape[1], args.hidden, args.hidden // 2,
                                 net_class.MOVE_WIDTH)
            fit_s = time_fit(lambda sample, tick: fit(model, sample, fit_settings(args, 0),
                                                      progress=tick),
                             data, args.batch_size, clock)
            net = model.to_numpy(net_class, num_players=args.players)
            agent = game.agent(net)
        skip = game.eval_skip(args.players)

        def play(name: str, rounds: int) -> None:
            evaluate_game(agent, name, game=args.game, rounds=rounds, seed=args.seed + 2000,
                          **_match(args))

        def listed(text: str, rounds: int) -> list[tuple[str, int]]:
            return [(n, r) for n, r in parse_opponents(text, rounds) if n not in skip]

        each, final = time_evaluations(play, [listed(args.eval_opponents, args.eval_rounds),
                                              listed(args.final_eval_opponents,
                                                     args.rounds)], clock)
        t0 = clock()
        data.save(io.BytesIO())
        save_s = (clock() - t0) / max(len(data), 1)
        return fit_s, each, final, net_labelling(args, game, net, clock), save_s

    return probe


def net_labelling(args: Args, game: NetGame, net: Any, clock: Callable[[], float]) -> float:
    """For the budget: labelled decisions per second with the opponents of
    the second iteration on (the mix, ``net`` a throwaway network among them), over one
    batch of at most 64 games with their own seed (a smaller batch than the run's costs
    more per decision: the estimate errs slow); 0 when the mix has no network or the run
    has one iteration (the network never plays)."""
    from train.move_net.data import generate

    mix, objects = opponent_mix(args, game, net)
    if "net" not in mix or args.iterations == 1:
        return 0.0
    seed = args.seed * 1000 + 999
    labeler = game.labeler(args, seed)
    t0 = clock()
    data = generate(labeler, 1, num_players=args.players, seed=seed, opponents=mix,
                    batch=min(args.batch, 64), policies=objects, game=args.game,
                    preset=args.preset)
    return len(data) / max(clock() - t0, 1e-9)


def start_budget(args: Args, game: NetGame, state: State, started: float,
                 clock: Callable[[], float]) -> tuple[Any, Args]:
    """The run's :class:`train.move_net.budget.Budget` (None when there is nothing to
    plan) and its settings: a checkpoint's plan is continued as it was made."""
    from train.move_net.budget import Budget, Plan

    if state.plan is not None:
        plan = Plan.from_json(state.plan)
        print(f"continuing the plan of the checkpoint: {plan.summary()}")
        return None, plan.apply(args)
    if not args.time_budget_min:
        return None, args
    if state.iteration:
        print("the checkpoint was made without a budget: --time-budget-min is ignored")
        return None, args
    return Budget(args.time_budget_min, started, clock, budget_probe(args, game, clock),
                  args.iterations, args.epochs, args.fit_share), args


def write_config(run_dir: Path, args: Args, plan: dict[str, Any] | None) -> None:
    """``config.json``: the settings the run used, and the budget's plan when it made one."""
    config = dataclasses.asdict(args)
    if plan is not None:
        config["budget_plan"] = plan
    (run_dir / "config.json").write_text(json.dumps(config, indent=2))


def log_iteration(args: Args, state: State, stats: dict[str, float], results: list[Any],
                  writer: Any, evals: Any) -> None:
    """TensorBoard scalars, an ``evals.csv`` row per opponent, and the run's history."""
    decisions = sum(len(d) for d in state.data)
    for k, v in stats.items():
        writer.add_scalar(f"fit_epoch/{k}", v, decisions)
    row: dict[str, Any] = {"iteration": state.iteration + 1, "decisions": decisions, **stats}
    for r in results:
        writer.add_scalar(f"eval/mean_point_diff_vs_{r.b}", r.mean_point_diff, decisions)
        evals.writerow([decisions, r.b, r.mean_point_diff, r.ci95[0], r.ci95[1],
                        r.round_win_rate])
        row[f"vs_{r.b}"] = r.mean_point_diff
        print(r.summary())
    writer.flush()
    state.history.append(row)


def budget_lines(given: Args, args: Args, game: NetGame, plan: dict[str, Any],
                 wall: float) -> list[str]:
    """The report's paragraph on a budgeted run: what it measured and planned, the same
    run as a fixed-work command, and how to train longer."""
    from train.move_net.budget import Plan

    p = Plan.from_json(plan)
    fixed = command_of(dataclasses.replace(args, time_budget_min=0.0))
    longer = command_of(dataclasses.replace(given, time_budget_min=2 * p.budget_min))
    shipped = game.train_longer
    return [f"Wall-time budget: {p.summary()}. The run took {wall / 60:.1f} min up to this "
            f"report. The same run without a budget (the same network to the last digit): "
            f"`{fixed}`. To train longer, give a larger budget (`{longer}`) or {shipped}."]


def phase_line(plan: dict[str, Any], history: list[dict[str, Any]],
               final_seconds: float | None) -> str:
    """Where a budgeted run's time went, phase by phase, next to what its plan expected
    (how an overrun is read: which phase took longer than planned)."""
    from train.move_net.budget import Plan

    p = Plan.from_json(plan)
    taken: dict[str, float] = {}
    for h in history:
        for k, v in h.get("phase_seconds", {}).items():
            taken[k] = taken.get(k, 0.0) + v
    if final_seconds is not None:
        taken["final evaluation"] = final_seconds
    parts = [f"{k} {v:,.0f} / {taken[k]:,.0f}" if k in taken else f"{k} {v:,.0f} / ?"
             for k, v in p.phases().items()]
    closed = ""
    if "closed_on_the_clock" in history[-1]:
        c = history[-1]["closed_on_the_clock"]
        rates = ("this run's own rates" if len(history) > 1 else
                 "the plan's rates (the fit's with a margin: not timed in the run yet)")
        closed = (f" The last iteration's labelling ended on the clock at "
                  f"{last_labelled(history):,} decisions "
                  f"(planned {p.decisions_per_iteration:,}), from {rates}: "
                  f"fitting {c['fit_seconds'] * 1e6:,.0f} µs per decision and epoch, saving "
                  f"{c['save_seconds'] * 1e6:,.0f} µs per decision, {c['after']:,.0f} s of "
                  "evaluations" + ("." if c["seconds_left"] is None else
                                   f", {c['seconds_left']:,.0f} s left when it ended."))
        if c.get("fit_epochs") is not None:
            closed += (f" Its fit then had {c['fit_epochs']} epochs (planned {p.epochs}): "
                       "as many as its second epoch's time left room for.")
    return (f"Seconds planned / taken, by phase: {', '.join(parts)}. The plan was made "
            f"{p.measured.elapsed:,.0f} s into the run, during the first iteration's "
            "labelling, whose time taken includes that part (start-up, compilation, the "
            f"first batches and the budget's probes).{closed}")


def data_line(run_dir: Path, state: State) -> str:
    """The disk the run's labelled data takes (its files compressed), next to the bytes of
    its arrays in memory: a long run's data is its largest part."""
    from pasur_env.core.cache import folder_size
    from train.move_net.data import size_text

    return (f"Labelled data: {size_text(folder_size(run_dir / DATA_DIR)[1])} on disk in "
            f"`{DATA_DIR}/` ({size_text(sum(d.nbytes for d in state.data))} as arrays in "
            "memory).")


def write_report(args: Args, game: NetGame, run_dir: Path, state: State, results: list[Any],
                 seconds: float, given: Args | None = None, wall: float = 0.0,
                 final_seconds: float | None = None) -> None:
    """``report.md``: how the network was made and how it plays against every baseline."""
    from train.common.plots import plot_evaluations
    from train.common.report import Column, results_columns
    from train.common.report import write_report as write

    png = plot_evaluations(run_dir / "evals.csv", run_dir / "eval_curves.png",
                           xlabel="labelled decisions")
    decisions = sum(len(d) for d in state.data)
    intro = [f"{decisions:,} decisions labelled by search ({game.label_text(args)}) in "
             f"{state.iteration} iterations; {seconds / 60:.1f} min in all (config "
             f"`{args.config}`, seed {args.seed}). Network: `net.npz` (hidden {args.hidden}, "
             f"{args.hidden // 2}); settings: `config.json`."]
    refits = [h["iteration"] for h in state.history if str(h["iteration"]).startswith("refit")]
    if refits:
        intro[0] += (f" The network is the last refit ({refits[-1][7:]}): a new network "
                     "fitted from scratch on all the labelled data.")
    if state.plan is not None:
        intro += budget_lines(given or args, args, game, state.plan, wall)
        intro.append(phase_line(state.plan, state.history, final_seconds))
    intro.append(data_line(run_dir, state))
    columns = results_columns("net − opponent, points/round") + [Column(
        "net time/decision", "---:",
        lambda r: f"{r.seconds_per_decision.get('a', float('nan')) * 1e6:.0f} µs")]
    opponents = args.eval_opponents.split(",")
    iterations = ["", "## Iterations", "", "| iteration | decisions | fit regret | " +
                  " | ".join(f"vs {o}" for o in opponents) + " |",
                  "|---:|---:|---:|" + "---:|" * len(opponents)]
    for h in state.history:
        cells = [f"{h.get('vs_' + o, float('nan')):+.2f}" for o in opponents]
        iterations.append(f"| {h['iteration']} | {h['decisions']:,} | {h['regret']:.3f} | "
                          + " | ".join(cells) + " |")
    plots = (["## Evaluation after each iteration", "", f"![evaluations]({png.name})", ""]
             if png else [])
    variant = "" if args.preset is None else f", preset `{args.preset}`"
    write(run_dir, title=f"{game.title} move-scoring network `{args.name}` "
                         f"({args.players} players{variant})",
          intro=intro,
          table_title=f"Final evaluation (duplicate deals, {args.players} players{variant})",
          results=results, columns=columns, after_table=iterations,
          commands_intro="Command to reproduce:",
          commands=[command_of(given or args)], sections=plots)


# ---- main ------------------------------------------------------------------------------------
def last_closing(args: Args, state: State, end: tuple[Callable[[], float], float] | None
                 ) -> Any:
    """The :class:`train.move_net.budget.Closing` of a budgeted run's last iteration,
    the one about to be labelled (``end``: the budget's clock and the time the run should
    end by on it), or None: no plan, the first iteration (when it is the only one, the
    :class:`train.move_net.budget.Budget` that plans it closes it), or
    ``--last-decisions`` given."""
    from train.move_net.budget import Plan, closing

    if end is None or state.plan is None or args.last_decisions or state.iteration == 0:
        return None
    return closing(Plan.from_json(state.plan), state.history, end[1], end[0])


def run_iterations(args: Args, game: NetGame, state: State, run_dir: Path, writer: Any,
                   start: float, budget: Any,
                   end: tuple[Callable[[], float], float] | None = None) -> Args:
    """Label, fit, evaluate and checkpoint until the run's iterations are done; returns
    the settings, with the plan applied once ``budget`` has made one and the decisions of
    a last iteration closed on the clock (``end``, :func:`last_closing`) recorded."""
    append = args.resume and (run_dir / "evals.csv").exists()
    with open(run_dir / "evals.csv", "a" if append else "w", newline="") as fh:
        evals = csv.writer(fh)
        if not append:
            evals.writerow(["timesteps", "opponent", "mean_point_diff", "ci_low", "ci_high",
                            "round_win_rate"])
        deadline = start + 60 * args.time_limit_min if args.time_limit_min else None
        while state.iteration < args.iterations:
            t0 = time.time()
            last = state.iteration == args.iterations - 1
            per_iteration = (args.last_decisions if last and args.last_decisions
                             else -(-args.total_decisions // args.iterations))
            closing = last_closing(args, state, end) if last else None
            state.data.append(label(args, game, state, per_iteration, deadline, budget,
                                    closing))
            if budget is not None and state.plan is None:  # planned while labelling
                closing = budget.closing  # the plan's one iteration, closed on the clock
                state.plan = budget.plan.to_json()
                args = budget.plan.apply(args)
                write_config(run_dir, args, state.plan)
            t1 = time.time()
            stats = fit_network(args, game, state, writer, closing)
            t2 = time.time()
            results = evaluate_network(args, game, state, args.eval_opponents, args.eval_rounds,
                                       args.seed + 7)
            log_iteration(args, state, stats, results, writer, evals)
            if closing is not None:
                state.history[-1]["closed_on_the_clock"] = closing.to_json()
            state.history[-1]["phase_seconds"] = {
                "labelling": round(t1 - t0, 2), "fitting": round(t2 - t1, 2),
                "evaluations": round(time.time() - t2, 2)}
            state.iteration += 1
            state.seconds += time.time() - t0
            save_checkpoint(run_dir, state)
            fh.flush()
            if deadline is not None and time.time() > deadline:
                print(f"time limit reached after iteration {state.iteration}")
                break
    return closed_last(args, state)


def last_labelled(history: list[dict[str, Any]]) -> int:
    """The decisions the last iteration of ``history`` labelled (its rows count them
    cumulatively)."""
    return history[-1]["decisions"] - (history[-2]["decisions"] if len(history) > 1 else 0)


def closed_last(args: Args, state: State) -> Args:
    """``args`` with ``last_decisions`` and ``last_epochs`` set when the last iteration
    was closed on the clock: the decisions it labelled and the epochs its fit had, so
    that the fixed-work command repeats it."""
    if not state.history or "closed_on_the_clock" not in state.history[-1]:
        return args
    epochs = state.history[-1]["closed_on_the_clock"].get("fit_epochs")
    if epochs is not None and not args.last_epochs and epochs != args.epochs:
        args = dataclasses.replace(args, last_epochs=epochs)
    if args.last_decisions:
        return args
    return dataclasses.replace(args, last_decisions=last_labelled(state.history))


def refit_network(args: Args, game: NetGame, state: State, run_dir: Path, writer: Any
                  ) -> None:
    """``--refit``: a network fitted from scratch on all the run's data, evaluated and
    checkpointed (the run's iterations and data stay as they were)."""
    if not state.iteration:
        raise SystemExit(f"--refit: {run_dir} has no labelled data to fit on")
    t0 = time.time()
    state.net = None
    stats = fit_network(args, game, state, writer)
    results = evaluate_network(args, game, state, args.eval_opponents, args.eval_rounds,
                               args.seed + 7)
    with open(run_dir / "evals.csv", "a", newline="") as fh:
        log_iteration(args, state, stats, results, writer, csv.writer(fh))
    state.history[-1]["iteration"] = (f"refit: hidden {args.hidden}, {args.epochs} epochs"
                                      + (", augmented" if args.augment else ""))
    state.seconds += time.time() - t0
    save_checkpoint(run_dir, state, data=False)


def ray_or_not(args: Args) -> Any:
    """The Ray session of ``--address`` (nothing without it)."""
    import contextlib

    if args.address is None:
        return contextlib.nullcontext()
    from agents.evaluation.distributed import parse_address, ray_session

    return ray_session(*parse_address(args.address))


def main(argv: list[str] | None = None, *, clock: Callable[[], float] = time.monotonic) -> Path:
    """Run the pipeline; ``clock`` is the budget's clock (tests inject one). numpy's BLAS
    runs on one thread throughout (:func:`train.common.threads.one_blas_thread`): the
    networks' small products in the labelling and in the evaluations, and the budget
    times both as they will run."""
    from train.common.threads import one_blas_thread
    from train.move_net.fit import denormals_flushed

    # denormals flushed before torch starts its threads, so that they flush too
    with one_blas_thread(), denormals_flushed():
        return run(parse_args(argv), clock)


def budget_end(args: Args, state: State, started: float, clock: Callable[[], float]
               ) -> tuple[Callable[[], float], float] | None:
    """The budget's clock and the time on it the run should end by (the budget less its
    :data:`train.move_net.budget.SAFETY` share, less the seconds a resumed run had
    already spent); None without a budget."""
    from train.move_net.budget import end_by

    if not args.time_budget_min:
        return None
    return clock, end_by(started, args.time_budget_min, state.seconds)


def run(args: Args, clock: Callable[[], float]) -> Path:
    """The run of :func:`main`, on its parsed settings."""
    given = args
    game = net_game(args.game)  # the game's plug-in, resolved once: every step is handed it
    started = clock()
    start = time.time()
    import torch
    from torch.utils.tensorboard import SummaryWriter

    torch.set_num_threads(args.torch_threads)
    from train.common.run_dir import start_run_dir

    run_dir = start_run_dir(args)
    state = (load_checkpoint(run_dir, game) if args.resume else None) or State()
    if args.resume and state.iteration:
        print(f"resuming {run_dir} after iteration {state.iteration}")
    budget, args = (None, args) if args.refit else start_budget(args, game, state, started, clock)
    if state.plan is not None:
        write_config(run_dir, args, state.plan)
    writer = SummaryWriter(str(run_dir / "tb"))
    if args.refit:
        refit_network(args, game, state, run_dir, writer)
    else:
        with ray_or_not(args):
            args = run_iterations(args, game, state, run_dir, writer, start, budget,
                                  budget_end(args, state, started, clock))
    writer.close()
    state.net.meta.update(
        made_by=command_of(given), seed=args.seed,
        decisions=sum(len(d) for d in state.data), iterations=state.iteration,
        label_budget=args.label_budget, label_horizon=args.label_horizon,
        label_endgame=args.label_endgame, label_exact_leaves=args.label_exact_leaves,
        label_infer_beta=args.label_infer_beta,
        value_scale=args.value_scale,
        minutes=round(state.seconds / 60, 1),
    )
    state.net.save(run_dir / "net.npz")
    t_final = time.time()
    results = final_evaluation(args, game, state, run_dir)
    write_report(args, game, run_dir, state, results, state.seconds, given,
                 clock() - started, final_seconds=time.time() - t_final)
    print(f"\nrun written to {run_dir}/ (net.npz, report.md); training took "
          f"{state.seconds / 60:.1f} min\n{data_line(run_dir, state)}")
    return run_dir

