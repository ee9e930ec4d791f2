"""Train an agent with behaviour cloning, then MaskablePPO against an opponent pool;
evaluate it and write a report. One pipeline for every game: ``--game pasur`` (the
default) or ``--game persian_rummy``.

What differs per game is a plug-in (:mod:`train.ppo.games`, declared in
:mod:`train.ppo.pasur` and :mod:`train.ppo.rummy`): the game's settings and named
configurations, its vector env's arguments and reward wrappers, the teacher's recorded
decisions and the value head's target of cloning, its own callbacks, the settings it
refuses. The rest is the same for every game; read it top to bottom (CleanRL style):

1. ``Args``: every setting, with its meaning; ``--game`` picks the game's defaults
   (``--game persian_rummy --help`` shows them), ``--config`` one of its named
   configurations (``tiny`` for tests, Pasur's ``long``), flags given win.
2. The learner plays one seat of the game's vector env (one batched engine of
   ``num_envs`` games, reward = own side's round points minus the other's); the other
   side is drawn per episode from an ``OpponentPool`` (:mod:`train.common.pool`):
   scripted agents and frozen snapshots of the learner (``self``), their weights moving
   along the ``--opponent`` schedule as training advances. Pasur pays captured points
   as they are taken (potential-based shaping); in Persian Rummy the partner is a frozen
   snapshot of the learner and the learner's seat changes at every rollout.
3. Before PPO, behaviour cloning (:mod:`train.bc`) copies ``bc_teacher``, so PPO
   refines a competent player (Pasur: the heuristic; Persian Rummy: ``rollout``, which
   measured better than PPO from scratch, ``docs/persian_rummy.md``, Training).
4. Every ``eval_every`` steps the current policy plays duplicate-deal matches against
   the evaluation opponents; the figures go to TensorBoard and ``evals.csv``.
   Checkpoints every ``checkpoint_every`` steps allow ``--resume``.
5. At the end: ``runs/<name>/model.zip`` (an agent: ``pasur eval --game GAME
   runs/<name>/model.zip greedy``) and ``config.json``, a final evaluation (``rounds``
   duplicate rounds per opponent), plots and ``report.md``.

    python -m train.ppo --name demo --total-timesteps 50000
    python -m train.ppo --game persian_rummy --name rummy_ppo
    tensorboard --logdir runs
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.apps.flags import Parser
from train.common.config import config_cli, parse_config_args
from train.ppo.games import PPO_GAMES, PpoGame, ppo_game

__all__ = ["Args", "parse_args", "configs_of", "cli_of", "opponent_schedule", "make_pool",
           "make_env", "main"]

PROG = "python -m train.ppo"


@dataclass
class Args:
    """The settings of a run. The defaults shown are Pasur's (the default game); a game's
    plug-in replaces some of them (``--game persian_rummy --help`` shows its own)."""

    name: str = "ppo"
    """run name: everything is written to ``<out>/<name>/``"""
    out: str = "runs"
    """folder holding the runs (``--out DIR``: the run is ``DIR/NAME/``)"""
    config: str = "default"
    """named configuration whose values replace the game's defaults: ``default``, ``tiny``
    (tests and smoke runs), Pasur's ``long`` (flags given on the command line still win)"""
    game: str = "pasur"
    """the game: ``pasur`` or ``persian_rummy`` (picks the defaults of the settings below)"""
    seed: int = 0
    """seed of the games, the opponents, the policy initialisation and the evaluations (default
    0, as in every command: the same command gives the same result)"""
    total_timesteps: int = 800_000
    """learner decisions of PPO after cloning (Pasur's include the CAPTURE-phase choices)"""
    num_envs: int = 64
    """games played in parallel by the batched engine"""
    n_steps: int = 128
    """rollout length per game between updates (buffer = num_envs * n_steps)"""
    batch_size: int = 256
    """minibatch size of the PPO update"""
    n_epochs: int = 10
    """passes over each rollout buffer"""
    learning_rate: float = 1e-4
    """Adam step size (annealed linearly to 10% of it); small, to refine the cloned policy"""
    gamma: float = 0.995
    """discount; rewards come at the end of a round, about 30 decisions later"""
    gae_lambda: float = 0.95
    """GAE smoothing"""
    clip_range: float = 0.2
    """PPO clipping"""
    ent_coef: float = 0.003
    """entropy bonus (keeps exploring)"""
    vf_coef: float = 0.5
    """value-loss weight"""
    net_arch: str = "256,256"
    """hidden layer sizes of the policy and value MLPs"""
    reward_scale: float = 0.1
    """learner rewards (round-point difference) are multiplied by this for training"""
    shaping: bool = True
    """Pasur: potential-based reward shaping, captured points paid as they are taken (same
    optimum, denser signal; see ``train.sb3.wrappers.PotentialShaping``)"""
    bc_teacher: str = "heuristic"
    """agent whose self-play the policy imitates before PPO starts (behaviour cloning)"""
    bc_rounds: int = 12_000
    """rounds of teacher self-play recorded for behaviour cloning; 0 = start PPO from scratch"""
    bc_epochs: int = 4
    """passes over the recorded decisions"""
    bc_lr: float = 2e-3
    """Adam step size of behaviour cloning (multiplied by ``bc_lr_decay`` after each epoch)"""
    bc_lr_decay: float = 0.5
    """step-size factor per cloning epoch"""
    bc_batch_size: int = 1024
    """minibatch size of behaviour cloning"""
    bc_vs_random: float = 0.0
    """fraction of the recorded rounds in which one seat is the random agent (its moves are
    not imitated): shows the student positions that weak opponents lead to"""
    bc_torch_threads: int = 2
    """torch CPU threads while cloning (large matrix products, nothing else running)"""
    learner_seat: str = "random"
    """learner seat: a seat number, or ``random`` (Pasur: drawn per episode; Persian Rummy:
    per rollout, so the learner plays first, second, third and fourth)"""
    partner: str = "self"
    """Persian Rummy: the learner's partner, ``self`` (a frozen snapshot of the learner,
    refreshed every ``snapshot_every`` steps) or an agent name"""
    opponent: str = "random:1>0.5,greedy:1>1,heuristic:1>1,self:0>0.5"
    """the opponents' pool: an agent name, ``self`` (snapshots of the learner), or pool
    weights ``name:start>end,...`` (linear in training progress; a bare name weighs 1
    throughout); ``self`` is the total weight of the learner's snapshots, shared equally
    among them"""
    snapshot_every: int = 100_000
    """steps between frozen copies of the learner added to the opponent pool (and
    refreshes of a ``self`` partner)"""
    max_snapshots: int = 5
    """snapshots kept in the pool (oldest evicted)"""
    eval_every: int = 200_000
    """steps between evaluations"""
    eval_rounds: int = 1_000
    """duplicate-deal rounds per opponent at each periodic evaluation"""
    eval_opponents: str = "random,greedy,heuristic"
    """opponents of the periodic and final evaluations"""
    rounds: int = 5_000
    """duplicate-deal rounds per opponent in the final evaluation"""
    games: int = 200
    """duplicate games to the target score per opponent in the final evaluation (game win
    rate); 0 = skip"""
    checkpoint_every: int = 100_000
    """steps between checkpoints (for ``--resume``)"""
    time_limit_min: float = 0.0
    """stop the PPO phase after this many minutes since the start (0 = no limit; the run is
    then still saved, evaluated and reported with the steps it reached)"""
    resume: bool = False
    """continue from the latest checkpoint of this run"""
    device: str = "cpu"
    """torch device for the policy (``cpu``, ``cuda``)"""
    torch_threads: int = 1
    """torch CPU threads (the engine and the policy share the machine's cores)"""
    progress: bool = True
    """progress bars on stderr (``--no-progress``: none; default: on when stderr is a
    terminal)"""


def configs_of(row: PpoGame) -> dict[str, dict[str, Any]]:
    """The named configurations of a game (``--config``): its ``default`` values, and each
    other configuration on top of them."""
    base = dict(row.configs.get("default", {}))
    return {name: {**base, **values} for name, values in {"default": {}, **row.configs}.items()}


def _row_of(argv: list[str] | None) -> PpoGame:
    """The plug-in of the ``--game`` of ``argv`` (the default game's for a game the
    pipeline does not train: the parser then says so in one line)."""
    import sys

    pre = Parser(prog=PROG, add_help=False)
    pre.add_argument("--game", default=Args.game)
    game = pre.parse_known_args(sys.argv[1:] if argv is None else list(argv))[0].game
    return PPO_GAMES[game] if game in PPO_GAMES else ppo_game(Args.game)


def parse_args(argv: list[str] | None = None) -> Args:
    """Command line -> :class:`Args` (tyro): ``--game`` picks the game's settings,
    ``--config`` one of its configurations, flags win; a setting the game does not use
    is refused in one line."""
    configs = configs_of(_row_of(argv))

    def check(args: Args) -> str | None:
        return ppo_game(args.game).check(args, Args(**configs[args.config]))

    return parse_config_args(Args, configs, argv, PROG, __doc__, check=check,
                             games=tuple(PPO_GAMES))


def cli_of(args: Args) -> list[str]:
    """The flags that differ from the defaults of the game's ``args.config`` (to reproduce
    a run), ``--game`` first when it is not the default game (it picks the others'
    defaults)."""
    flags = config_cli(args, configs_of(ppo_game(args.game)))
    return sorted(flags, key=lambda flag: not flag.startswith("--game "))


# ---- the pieces of a run ------------------------------------------------------------------
def opponent_schedule(args: Args) -> dict[str, tuple[float, float]]:
    """``--opponent`` as pool weights: a bare name weighs 1 throughout."""
    from train.sb3.callbacks import parse_schedule

    return parse_schedule(",".join(item if ":" in item else f"{item}:1"
                                   for item in args.opponent.split(",")))


def _scheduled(schedule: Mapping[str, tuple[float, float]]) -> bool:
    """Whether the pool needs the schedule callback: snapshots of the learner, or weights
    that move."""
    return "self" in schedule or any(lo != hi for lo, hi in schedule.values())


def make_pool(args: Args) -> Any:
    """The opponents' pool (:class:`train.common.pool.OpponentPool`): the scheduled
    scripted agents (an all-``self`` pool starts with random play until the first
    snapshot); snapshots join during training."""
    from train.common.pool import OpponentPool

    schedule = opponent_schedule(args)
    scripted = ([(n, n, schedule[n][0]) for n in schedule if n != "self"]
                or [("random", "random", 0.0)])
    seed = args.seed + ppo_game(args.game).pool_seed
    return OpponentPool(scripted, sampling="weights", seed=seed, game=args.game,
                        max_size=len(scripted) + args.max_snapshots)


def make_env(args: Args, pool: Any, run_dir: Path) -> tuple[Any, Any]:
    """The game's vector env (the opponents from ``pool``) -> ``VecMonitor`` (true round
    rewards) -> the game's reward wrappers -> reward scaling. Returns ``(env, the vector
    env)``."""
    from stable_baselines3.common.vec_env import VecMonitor

    from pasur_env.games import game_info
    from train.sb3.wrappers import ScaleReward

    row = ppo_game(args.game)
    venv = game_info(args.game).vector_env_class()(
        args.num_envs, opponent=pool, seed=args.seed, episode="round", reward="diff",
        **row.env_kwargs(args))
    env = VecMonitor(venv, filename=str(run_dir / "monitor.csv"))
    return ScaleReward(row.wrap(args, env, venv), args.reward_scale), venv


def make_model(args: Args, env: Any, run_dir: Path, ckpt: Path | None, pool: Any) -> Any:
    """A new MaskablePPO, or the checkpoint's (with snapshots of the learner in the pool,
    its predecessors rejoin it)."""
    from sb3_contrib import MaskablePPO

    from agents import PolicyAgent
    from train.sb3.model import new_model, resume_model

    if ckpt is None:
        return new_model(args, env, run_dir)
    model = resume_model(ckpt, env, args.device)
    if "self" in opponent_schedule(args):
        for old in sorted((run_dir / "checkpoints").glob("model_*.zip"))[-args.max_snapshots:]:
            steps = int(old.stem.split("_")[1])
            pool.add(PolicyAgent(MaskablePPO.load(old, device=args.device), seed=args.seed),
                     name=f"self@{steps}")
    return model


def clone_teacher(args: Args, model: Any, env: Any, run_dir: Path) -> None:
    """Behaviour cloning of ``bc_teacher`` into ``model`` (:mod:`train.bc`): the game's
    recorded decisions and value target (the round results as the training rewards see
    them); writes ``bc.json``."""
    from train import bc

    row = ppo_game(args.game)
    bc.clone_teacher(
        model, lambda: row.collect(args), run_dir, teacher=args.bc_teacher,
        epochs=args.bc_epochs, lr=args.bc_lr, lr_decay=args.bc_lr_decay,
        batch_size=args.bc_batch_size, seed=args.seed, value_target=row.value_target(args, env),
        bc_threads=args.bc_torch_threads, threads=args.torch_threads)


def callbacks(args: Args, venv: Any, pool: Any, run_dir: Path, append_evals: bool,
              run_start: float) -> list[Any]:
    """The training callbacks: the game's own (:mod:`train.ppo.games`), then the shared
    ones (:mod:`train.sb3.callbacks`)."""
    from train.sb3.callbacks import Checkpoints, OpponentSchedule, PeriodicEvaluation, TimeLimit

    schedule = opponent_schedule(args)
    pooled = ([OpponentSchedule(pool, schedule, args.total_timesteps, args.snapshot_every,
                                args.seed)] if _scheduled(schedule) else [])
    return [
        *ppo_game(args.game).callbacks(args, venv),
        *pooled,
        PeriodicEvaluation(args.eval_every, args.eval_opponents.split(","), args.eval_rounds,
                           args.seed + 7, run_dir / "evals.csv", append_evals, game=args.game),
        Checkpoints(args.checkpoint_every, run_dir),
        TimeLimit(args.time_limit_min, run_start),
    ]


def final_evaluation(args: Args, run_dir: Path) -> list[Any]:
    """The saved model (playing its most probable legal action) against every evaluation
    opponent; writes ``final_eval.json``."""
    from agents import PolicyAgent
    from train.common.evaluation import final_evaluation as evaluate_run

    agent = PolicyAgent(run_dir / "model.zip", deterministic=True, seed=args.seed,
                        name=f"{args.name}/model.zip", game_ids=(args.game,))
    return evaluate_run(agent, args.eval_opponents, run_dir, game=args.game,
                        rounds=args.rounds, seed=args.seed + 1000,
                        progress=args.progress, games=args.games or None)


def write_report(args: Args, run_dir: Path, results: list[Any], train_seconds: float,
                 steps: int) -> None:
    """``report.md``: the final results table, the plots, how the run was made."""
    from agents.games import agent_game
    from pasur_env.games import game_info
    from train.bc import read_bc_stats
    from train.common.plots import report_plot_sections
    from train.common.report import Column, results_columns
    from train.common.report import write_report as write

    intro = [f"Trained for {steps:,} PPO decisions, {train_seconds / 60:.1f} min in all "
             f"(config `{args.config}`, seed {args.seed}); model: `model.zip`, settings: "
             "`config.json`."]
    bc = read_bc_stats(run_dir)
    if bc is not None:
        intro.append(f"Started from behaviour cloning of `{args.bc_teacher}` self-play: "
                     f"{bc['decisions']:,} decisions of {args.bc_rounds:,} rounds recorded in "
                     f"{bc['collect_seconds'] / 60:.1f} min, {args.bc_epochs} epochs, accuracy "
                     f"{bc['bc_accuracy']:.3f}, {bc['seconds'] / 60:.1f} min in all; then PPO "
                     f"{ppo_game(args.game).report_setting(args)}.")
    columns = results_columns(f"mean {agent_game(args.game).points_unit} (A − B)") + [
        Column("win rate 95% CI", "---", lambda r: f"[{r.win_ci95[0]:.3f}, {r.win_ci95[1]:.3f}]")]
    if args.games:
        columns += [Column("games to the target", "---:", lambda r: str(r.games)),
                    Column("game win rate", "---:", lambda r: "" if r.game_win_rate is None
                           else f"{r.game_win_rate:.3f}")]
    first = args.eval_opponents.split(",")[0]
    write(run_dir, title=f"{game_info(args.game).title} PPO run `{args.name}`", intro=intro,
          table_title="Final evaluation (duplicate deals)", results=results, columns=columns,
          commands_intro="Round win rate counts ties as half. To reproduce the run and an "
                         "evaluation:",
          commands=[f"{PROG} {' '.join(cli_of(args))}".rstrip(),
                    f"pasur eval --game {args.game} {run_dir}/model.zip {first} "
                    f"--rounds {args.rounds} --seed {args.seed + 1000}"],
          sections=report_plot_sections(run_dir))


# ---- main ------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> Path:
    """One run (the module docstring); returns its folder."""
    args = parse_args(argv)
    run_start = time.time()
    from train.sb3.callbacks import latest_checkpoint
    from train.sb3.model import learn_and_save, start_sb3_run

    run_dir = start_sb3_run(args)
    pool = make_pool(args)
    env, venv = make_env(args, pool, run_dir)
    ckpt = latest_checkpoint(run_dir) if args.resume else None
    model = make_model(args, env, run_dir, ckpt, pool)
    if ckpt is None and args.bc_rounds > 0:
        clone_teacher(args, model, env, run_dir)
    append = ckpt is not None and (run_dir / "evals.csv").exists()
    train_seconds = learn_and_save(
        args, model, env, run_dir,
        lambda: callbacks(args, venv, pool, run_dir, append, run_start),
        resumed=ckpt is not None, run_start=run_start)

    results = final_evaluation(args, run_dir)
    write_report(args, run_dir, results, train_seconds, int(model.num_timesteps))
    print(f"\nrun written to {run_dir}/ (report.md, model.zip, plots); "
          f"training took {train_seconds / 60:.1f} min")
    return run_dir
