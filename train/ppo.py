"""Train a Pasur agent with MaskablePPO and self-play, then evaluate it and write a report.

Read top to bottom (CleanRL style):

1. ``Args``: every setting, with its meaning; ``--config long`` swaps in the longer run.
2. The learner plays one seat of ``PasurVecEnv`` (one batched engine of ``num_envs``
   games); the other seats are played by an opponent drawn per episode from an
   ``OpponentPool`` holding scripted agents (random, greedy, heuristic) and frozen
   snapshots of the learner itself. A schedule moves the pool's weights from the easy
   scripted opponents towards heuristic play and self-play as training advances.
3. Before PPO, behaviour cloning (:mod:`train.bc`) copies the ``heuristic`` agent, so
   PPO refines a competent player.
4. Every ``eval_every`` steps the current policy plays duplicate-deal matches against
   the evaluation opponents; the figures go to TensorBoard and ``evals.csv``.
5. Checkpoints every ``checkpoint_every`` steps allow ``--resume``.
6. At the end: ``runs/<name>/model.zip`` and ``config.json``, a final evaluation
   (``rounds`` duplicate rounds per opponent), plots and ``report.md``.

    python -m train.ppo --name demo --total-timesteps 50000
    tensorboard --logdir runs
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from train.common.config import config_cli, parse_config_args


@dataclass
class Args:
    name: str = "ppo"
    """run name: everything is written to ``<out>/<name>/``"""
    out: str = "runs"
    """folder holding the runs (``--out DIR``: the run is ``DIR/NAME/``)"""
    config: str = "default"
    """named configuration whose values replace the defaults below: ``default``, ``long``
    or ``tiny`` (flags given on the command line still win)"""
    game: str = "pasur"
    """the game: this pipeline trains Pasur (``pasur``; Persian Rummy: ``train.rummy_ppo``)"""
    seed: int = 0
    """seed of the games, the opponents, the policy initialisation and the evaluations (default
    0, as in every command: the same command gives the same result)"""
    total_timesteps: int = 800_000
    """learner decisions to train for (including the CAPTURE-phase choices)"""
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
    """entropy bonus (keeps exploring capture choices)"""
    vf_coef: float = 0.5
    """value-loss weight"""
    net_arch: str = "256,256"
    """hidden layer sizes of the policy and value MLPs"""
    reward_scale: float = 0.1
    """learner rewards (round-point difference) are multiplied by this for training"""
    shaping: bool = True
    """potential-based reward shaping: pay captured points as they are taken (same optimum,
    denser signal; see ``train.sb3.wrappers.PotentialShaping``)"""
    bc_teacher: str = "heuristic"
    """agent whose self-play the policy imitates before PPO starts (behaviour cloning)"""
    bc_rounds: int = 12_000
    """rounds of teacher self-play recorded for behaviour cloning; 0 = start PPO from scratch"""
    bc_epochs: int = 4
    """passes over the recorded decisions"""
    bc_lr: float = 2e-3
    """Adam step size of behaviour cloning (halved after each epoch)"""
    bc_batch_size: int = 1024
    """minibatch size of behaviour cloning"""
    bc_vs_random: float = 0.0
    """fraction of the recorded rounds in which one seat is the random agent (its moves are
    not imitated): shows the student positions that weak opponents lead to"""
    bc_torch_threads: int = 2
    """torch CPU threads while cloning (large matrix products, nothing else running)"""
    learner_seat: str = "random"
    """learner seat: ``random`` per episode, or a seat number"""
    opponent_schedule: str = "random:1>0.5,greedy:1>1,heuristic:1>1,self:0>0.5"
    """pool weights as ``name:start>end`` (linear in training progress); ``self`` is the
    total weight of the learner's snapshots, shared equally among them"""
    snapshot_every: int = 100_000
    """steps between frozen copies of the learner added to the opponent pool"""
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
    """duplicate games to 62 per opponent in the final evaluation (game win rate); 0 = skip"""
    checkpoint_every: int = 100_000
    """steps between checkpoints (for ``--resume``)"""
    time_limit_min: float = 0.0
    """stop the PPO phase after this many minutes (0 = no limit; the run is then still saved,
    evaluated and reported with the steps it reached)"""
    resume: bool = False
    """continue from the latest checkpoint of this run"""
    device: str = "cpu"
    """torch device for the policy (``cpu``, ``cuda``)"""
    torch_threads: int = 1
    """torch CPU threads (the engine and the policy share the machine's cores)"""
    progress: bool = True
    """progress bars on stderr (``--no-progress``: none; default: on when stderr is a
    terminal)"""


#: named configurations (``--config``); the defaults above are ``default``
CONFIGS: dict[str, dict[str, Any]] = {
    "default": {},
    "long": {  # about 45 min on 2 cores; stronger against greedy and heuristic
        "total_timesteps": 2_000_000,
        "bc_rounds": 24_000,
        "bc_vs_random": 0.5,
        "bc_epochs": 6,
        "opponent_schedule": "random:0.5>0.2,greedy:1>1,heuristic:1>1,self:0>1",
        "snapshot_every": 200_000,
        "max_snapshots": 8,
        "eval_every": 500_000,
        "checkpoint_every": 250_000,
        "rounds": 10_000,
        "games": 300,
    },
    "tiny": {  # tests and smoke runs
        "total_timesteps": 4_096,
        "num_envs": 8,
        "bc_rounds": 16,
        "bc_epochs": 1,
        "bc_vs_random": 0.5,
        "bc_torch_threads": 1,
        "n_steps": 64,
        "batch_size": 256,
        "n_epochs": 1,
        "net_arch": "32",
        "snapshot_every": 1_024,
        "eval_every": 2_048,
        "eval_rounds": 40,
        "rounds": 40,
        "games": 2,
        "checkpoint_every": 2_048,
        "progress": False,
    },
}


def parse_args(argv: list[str] | None = None) -> Args:
    """Command line -> :class:`Args` (tyro): ``--config`` picks the defaults, flags win."""
    return parse_config_args(Args, CONFIGS, argv, "python -m train.ppo", __doc__,
                             games=("pasur",))


def cli_of(args: Args) -> list[str]:
    """The flags that differ from the defaults of ``args.config`` (to reproduce a run)."""
    return config_cli(args, CONFIGS)


# ---- the pieces of a run ------------------------------------------------------------------
def make_pool(args: Args, schedule: dict[str, tuple[float, float]]) -> Any:
    """The opponent pool: the scheduled scripted agents; snapshots join during training."""
    from train.common.pool import OpponentPool

    return OpponentPool(
        [(n, n, schedule[n][0]) for n in schedule if n != "self"], sampling="weights",
        max_size=len(schedule) - 1 + args.max_snapshots, seed=args.seed,
    )


def make_env(args: Args, pool: Any, run_dir: Path) -> tuple[Any, Any]:
    """The training env: ``PasurVecEnv`` -> ``VecMonitor`` (true round rewards) ->
    shaping -> reward scaling. Returns ``(env, the PasurVecEnv)``."""
    from stable_baselines3.common.vec_env import VecMonitor

    from pasur_env.pasur.vector_env import PasurVecEnv
    from train.sb3.wrappers import PotentialShaping, ScaleReward

    seat: int | str = int(args.learner_seat) if args.learner_seat.isdigit() else args.learner_seat
    venv = PasurVecEnv(args.num_envs, opponent=pool, learner_seat=seat, seed=args.seed,
                       episode="round", reward="diff")
    env = VecMonitor(venv, filename=str(run_dir / "monitor.csv"))
    if args.shaping:
        env = PotentialShaping(env, venv.rules, gamma=args.gamma)
    return ScaleReward(env, args.reward_scale), venv


def make_model(args: Args, env: Any, run_dir: Path, ckpt: Path | None, pool: Any) -> Any:
    """A new MaskablePPO, or the checkpoint's (its predecessors rejoin the pool)."""
    from sb3_contrib import MaskablePPO

    from agents import PolicyAgent
    from train.sb3.model import new_model, resume_model

    if ckpt is None:
        return new_model(args, env, run_dir)
    model = resume_model(ckpt, env, args.device)
    for old in sorted((run_dir / "checkpoints").glob("model_*.zip"))[-args.max_snapshots:]:
        steps = int(old.stem.split("_")[1])
        pool.add(PolicyAgent(MaskablePPO.load(old, device=args.device), seed=args.seed),
                 name=f"self@{steps}")
    return model


def clone_teacher(args: Args, model: Any, env: Any, run_dir: Path) -> None:
    """Behaviour cloning of ``bc_teacher`` into ``model`` (:mod:`train.bc`); writes
    ``bc.json``.

    The value head learns the round results minus the shaping potential (the value of
    the shaped reward), scaled like the training rewards.
    """
    from train import bc

    phi = env.venv.w if args.shaping else None  # the shaping potential's weights

    def value_target(obs: np.ndarray, returns: np.ndarray) -> np.ndarray:
        base = returns.astype(np.float64)
        if phi is not None:  # in chunks: obs is large and stored as float16
            for i in range(0, len(obs), 65536):
                base[i:i + 65536] -= obs[i:i + 65536].astype(np.float32) @ phi
        return (base * args.reward_scale).astype(np.float32)

    bc.clone_teacher(
        model, lambda: bc.collect(args.bc_teacher, args.bc_rounds, seed=args.seed + 500,
                                  vs_random=args.bc_vs_random),
        run_dir, teacher=args.bc_teacher, epochs=args.bc_epochs, lr=args.bc_lr,
        batch_size=args.bc_batch_size, seed=args.seed, value_target=value_target,
        bc_threads=args.bc_torch_threads, threads=args.torch_threads)


def callbacks(args: Args, run_dir: Path, pool: Any, append_evals: bool,
              run_start: float) -> list[Any]:
    """The training callbacks (:mod:`train.sb3.callbacks`)."""
    from train.sb3.callbacks import (
        Checkpoints,
        OpponentSchedule,
        PeriodicEvaluation,
        TimeLimit,
        parse_schedule,
    )

    return [
        OpponentSchedule(pool, parse_schedule(args.opponent_schedule), args.total_timesteps,
                         args.snapshot_every, args.seed),
        PeriodicEvaluation(args.eval_every, args.eval_opponents.split(","), args.eval_rounds,
                           args.seed + 7, run_dir / "evals.csv", append_evals),
        Checkpoints(args.checkpoint_every, run_dir),
        TimeLimit(args.time_limit_min, run_start),
    ]


def final_evaluation(args: Args, run_dir: Path) -> list[Any]:
    """The saved model against every evaluation opponent; writes ``final_eval.json``."""
    from sb3_contrib import MaskablePPO

    from agents import PolicyAgent
    from train.common.evaluation import final_evaluation as evaluate_run

    agent = PolicyAgent(MaskablePPO.load(run_dir / "model.zip", device="cpu"),
                        deterministic=True, name=f"{args.name}/model.zip")
    return evaluate_run(agent, args.eval_opponents, run_dir, game="pasur",
                        rounds=args.rounds, seed=args.seed + 1000,
                        progress=args.progress, games=args.games or None)


def write_report(args: Args, run_dir: Path, results: list[Any], train_seconds: float,
                 steps: int) -> None:
    """``report.md``: the final results table, the plots, how the run was made."""
    from train.bc import read_bc_stats
    from train.common.plots import report_plot_sections
    from train.common.report import Column, results_columns
    from train.common.report import write_report as write

    intro = [f"Trained for {steps:,} PPO decisions, {train_seconds / 60:.1f} min in all "
             f"(config `{args.config}`, seed {args.seed}); model: `model.zip`, settings: "
             "`config.json`."]
    bc = read_bc_stats(run_dir)
    if bc is not None:
        intro.append(f"Started from behaviour cloning of `{args.bc_teacher}` self-play "
                     f"({bc['decisions']:,} decisions, {args.bc_epochs} epochs, accuracy "
                     f"{bc['bc_accuracy']:.3f}, {bc['seconds'] / 60:.1f} min), then PPO "
                     f"against the opponent pool `{args.opponent_schedule}`.")
    columns = results_columns("mean points/round (A − B)") + [
        Column("games to 62", "---:", lambda r: str(r.games)),
        Column("game win rate", "---:",
               lambda r: "" if r.game_win_rate is None else f"{r.game_win_rate:.3f}"),
    ]
    write(run_dir, title=f"Pasur PPO run `{args.name}`", intro=intro,
          table_title="Final evaluation (duplicate deals, 2 players)", results=results,
          columns=columns,
          commands_intro="Round win rate counts ties as half. Command to reproduce:",
          commands=[f"python -m train.ppo {' '.join(cli_of(args))}"],
          sections=report_plot_sections(run_dir))


# ---- main ------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> Path:
    args = parse_args(argv)
    run_start = time.time()
    from train.sb3.callbacks import latest_checkpoint, parse_schedule
    from train.sb3.model import learn_and_save, start_sb3_run

    run_dir = start_sb3_run(args)
    pool = make_pool(args, parse_schedule(args.opponent_schedule))
    env, _venv = make_env(args, pool, run_dir)
    ckpt = latest_checkpoint(run_dir) if args.resume else None
    model = make_model(args, env, run_dir, ckpt, pool)
    if ckpt is None and args.bc_rounds > 0:
        clone_teacher(args, model, env, run_dir)
    append = ckpt is not None and (run_dir / "evals.csv").exists()
    train_seconds = learn_and_save(
        args, model, env, run_dir, lambda: callbacks(args, run_dir, pool, append, run_start),
        resumed=ckpt is not None, run_start=run_start)

    results = final_evaluation(args, run_dir)
    write_report(args, run_dir, results, train_seconds, int(model.num_timesteps))
    print(f"\nrun written to {run_dir}/ (report.md, model.zip, plots); "
          f"training took {train_seconds / 60:.1f} min")
    return run_dir


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
