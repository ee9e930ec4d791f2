"""Train a Persian Rummy agent: behaviour cloning of a strong teacher, then MaskablePPO.

Read top to bottom (CleanRL style, as :mod:`train.ppo` for Pasur; both use the shared
plumbing: :mod:`train.common` for the arguments, run folder, evaluation and report,
:mod:`train.sb3` for the model, callbacks and checkpoints, :mod:`train.bc` for cloning):

1. ``Args``: every setting, with its meaning; ``--config tiny`` for tests.
2. The learner plays one seat of ``PersianRummyVecEnv`` (one batched engine of
   ``num_envs`` one-round deals, reward = own team's round points minus the other's);
   its partner is a policy: a named agent (``greedy``, ``random``, ``rollout``) or
   ``self``, a frozen snapshot of the learner refreshed every ``snapshot_every`` steps;
   the two opponents are drawn per deal from an ``OpponentPool`` (the one
   :mod:`train.common.pool` Pasur's PPO uses): scripted agents and, with ``self`` in
   ``opponent``, frozen snapshots of the learner added every ``snapshot_every`` steps,
   their weights moving along a schedule. The learner's seat changes at every rollout,
   so it plays first, second, third and fourth.
3. Before PPO, behaviour cloning (:mod:`train.bc.rummy` records,
   :func:`train.bc.clone.pretrain` fits) copies ``bc_teacher``. *Why:* the teacher
   ``rollout`` beats ``greedy`` by about +136 points a round; measured on the same
   deals, cloning it and then PPO beat PPO from scratch against ``greedy`` (+109.7
   against +104.3) and clearly against ``random`` (+173.9 against +148.2)
   (``docs/persian_rummy.md``, Training).
4. Every ``eval_every`` steps the current policy plays duplicate deals against the
   evaluation opponents (:func:`train.common.evaluation.evaluate_game`); ``evals.csv``
   and TensorBoard get the figures. Checkpoints allow ``--resume``.
5. At the end: ``runs/<name>/model.zip`` (an agent:
   ``pasur eval --game persian_rummy runs/<name>/model.zip greedy``), the final
   duplicate-deal evaluation and ``report.md``.

    python -m train.rummy_ppo --name rummy
    make train GAME=persian_rummy
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from agents import make_agent
from train.common.config import config_cli, parse_config_args


@dataclass
class Args:
    name: str = "rummy"
    """run name: everything is written to ``<out>/<name>/``"""
    out: str = "runs"
    """folder holding the runs (``--out DIR``: the run is ``DIR/NAME/``)"""
    config: str = "default"
    """named configuration whose values replace the defaults below: ``default`` or
    ``tiny`` (flags given on the command line still win)"""
    game: str = "persian_rummy"
    """the game: this pipeline trains Persian Rummy (``persian_rummy``; Pasur: ``train.ppo``)"""
    seed: int = 0
    """seed of the deals, the agents, the policy initialisation and the evaluations (default 0,
    as in every command: the same command gives the same result)"""
    total_timesteps: int = 1_000_000
    """learner decisions of PPO after cloning (0 = behaviour cloning only)"""
    num_envs: int = 64
    """deals played in parallel by the batched engine"""
    n_steps: int = 256
    """rollout length per deal between updates (a round is about 30 learner decisions)"""
    batch_size: int = 1024
    """minibatch size of the PPO update"""
    n_epochs: int = 4
    """passes over each rollout buffer"""
    learning_rate: float = 3e-5
    """Adam step size (annealed linearly to 10% of it); small, to refine the cloned policy
    rather than overwrite it"""
    gamma: float = 0.999
    """discount; the reward comes only at the round's end"""
    gae_lambda: float = 0.95
    """GAE smoothing"""
    clip_range: float = 0.1
    """PPO clipping (tight: the cloned policy is the asset)"""
    ent_coef: float = 0.0
    """entropy bonus"""
    vf_coef: float = 0.5
    """value-loss weight"""
    net_arch: str = "512,512"
    """hidden layer sizes of the policy and value MLPs"""
    reward_scale: float = 0.01
    """round-point differences (about ±150) are multiplied by this for training"""
    bc_teacher: str = "rollout"
    """agent whose self-play the policy imitates before PPO (an ``agents.rummy`` name)"""
    bc_rounds: int = 4_000
    """one-round deals of teacher self-play recorded for cloning (0 = no cloning)"""
    bc_epochs: int = 8
    """passes over the recorded decisions"""
    bc_lr: float = 1e-3
    """Adam step size of behaviour cloning (multiplied by ``bc_lr_decay`` after each epoch)"""
    bc_lr_decay: float = 0.7
    """step-size factor per cloning epoch"""
    bc_batch_size: int = 512
    """minibatch size of behaviour cloning"""
    bc_vs_random: float = 0.1
    """fraction of the recorded deals in which one seat is the random agent (not imitated)"""
    bc_torch_threads: int = 1
    """torch CPU threads while cloning"""
    partner: str = "self"
    """the learner's partner: ``self`` (a frozen snapshot of the learner) or an agent name"""
    opponent: str = "greedy"
    """the two opponents' pool: an agent name, ``self`` (snapshots of the learner), or
    pool weights ``name:start>end,...`` (linear in training progress; ``self`` weighs
    the snapshots together), e.g. ``greedy:1>0.5,rollout:0.2>0.5,self:0>1``"""
    max_snapshots: int = 5
    """snapshots of the learner kept in the opponents' pool (oldest evicted)"""
    snapshot_every: int = 20_000
    """steps between refreshes of the ``self`` partner and new snapshots in the pool"""
    eval_every: int = 100_000
    """steps between evaluations (and one after cloning, at step 0)"""
    eval_rounds: int = 1_000
    """duplicate-deal rounds per opponent at each periodic evaluation"""
    eval_opponents: str = "greedy,random"
    """opponents of the periodic and final evaluations"""
    rounds: int = 4_000
    """duplicate-deal rounds per opponent in the final evaluation"""
    checkpoint_every: int = 100_000
    """steps between checkpoints (for ``--resume``)"""
    time_limit_min: float = 35.0
    """stop the PPO phase after this many minutes since the start (0 = no limit); the run
    is still saved, evaluated and reported. The default caps the run at the project's
    budget on a shared 2-core machine (the default run took 22 min there)"""
    resume: bool = False
    """continue from the latest checkpoint of this run"""
    device: str = "cpu"
    """torch device for the policy"""
    torch_threads: int = 1
    """torch CPU threads (the engine and the policy share the machine's cores)"""
    progress: bool = True
    """progress bars on stderr (``--no-progress``: none; default: on when stderr is a
    terminal)"""


#: named configurations (``--config``); the defaults above are ``default``
CONFIGS: dict[str, dict[str, Any]] = {
    "default": {},
    "tiny": {  # tests and smoke runs: seconds
        "total_timesteps": 1_024,
        "num_envs": 8,
        "n_steps": 64,
        "batch_size": 256,
        "n_epochs": 1,
        "net_arch": "32",
        "bc_teacher": "greedy",
        "bc_rounds": 16,
        "bc_epochs": 1,
        "snapshot_every": 256,
        "eval_every": 512,
        "eval_rounds": 20,
        "rounds": 20,
        "checkpoint_every": 512,
        "time_limit_min": 0.0,
        "progress": False,
    },
}


def parse_args(argv: list[str] | None = None) -> Args:
    """Command line -> :class:`Args` (tyro): ``--config`` picks the defaults, flags win."""
    return parse_config_args(Args, CONFIGS, argv, "python -m train.rummy_ppo", __doc__,
                             games=("persian_rummy",))


def cli_of(args: Args) -> list[str]:
    """The flags that differ from the defaults of ``args.config`` (to reproduce a run)."""
    return config_cli(args, CONFIGS)


# ---- the pieces of a run ------------------------------------------------------------------
def opponent_schedule(args: Args) -> dict[str, tuple[float, float]]:
    """``--opponent`` as pool weights: a bare name weighs 1 throughout."""
    from train.sb3.callbacks import parse_schedule

    return parse_schedule(",".join(item if ":" in item else f"{item}:1"
                                   for item in args.opponent.split(",")))


def make_pool(args: Args) -> Any:
    """The opponents' pool (:class:`train.common.pool.OpponentPool`): the scheduled
    scripted agents (an all-``self`` pool starts with random play until the first
    snapshot); snapshots join during training."""
    from train.common.pool import OpponentPool

    schedule = opponent_schedule(args)
    scripted = [(n, n, schedule[n][0]) for n in schedule if n != "self"] or [("random", "random",
                                                                             0.0)]
    return OpponentPool(scripted, sampling="weights", seed=args.seed + 2, game="persian_rummy",
                        max_size=len(scripted) + args.max_snapshots)


def make_env(args: Args, run_dir: Path, pool: Any) -> tuple[Any, Any]:
    """``PersianRummyVecEnv`` -> ``VecMonitor`` (true round rewards) -> reward scaling.
    The opponents come from ``pool``; a ``self`` partner starts as random play and
    :class:`SelfSnapshots` fills it before the first rollout. Returns ``(env, the
    PersianRummyVecEnv)``."""
    from stable_baselines3.common.vec_env import VecMonitor

    from pasur_env.rummy.vector_env import PersianRummyVecEnv
    from train.sb3.wrappers import ScaleReward

    def role(name: str, seed: int) -> Any:
        return make_agent("random" if name == "self" else name, game="persian_rummy", seed=seed)

    venv = PersianRummyVecEnv(args.num_envs, opponent=pool,
                              partner=role(args.partner, args.seed + 3), seed=args.seed,
                              episode="round", reward="diff")
    env = VecMonitor(venv, filename=str(run_dir / "monitor.csv"))
    return ScaleReward(env, args.reward_scale), venv


class SelfSnapshots(BaseCallback):
    """Puts a frozen copy of the learner in the ``self`` roles (the partner) at the start
    and every ``every`` steps (at a rollout's end)."""

    def __init__(self, venv: Any, roles: list[str], every: int, seed: int) -> None:
        super().__init__()
        self.venv, self.roles, self.every, self.seed = venv, roles, int(every), seed
        self.last = -1

    def _refresh(self) -> None:
        from agents import policy_snapshot

        snap = policy_snapshot(self.model, deterministic=True, seed=self.seed, name="self")
        for role in self.roles:  # the games hold the policies they call
            setattr(self.venv.games, role, snap)

    def _on_training_start(self) -> None:
        self.last = self.num_timesteps
        if self.roles:
            self._refresh()

    def _on_rollout_end(self) -> None:
        if self.roles and self.num_timesteps - self.last >= self.every:
            self.last = self.num_timesteps
            self._refresh()

    def _on_step(self) -> bool:
        return True


class RotateSeat(BaseCallback):
    """Draws the learner's seat for the deals that start after each rollout. *Why:* the
    evaluation seats an agent at 0+2 and at 1+3, and seat 0 always plays first."""

    def __init__(self, venv: Any, seed: int) -> None:
        super().__init__()
        self.venv, self.rng = venv, np.random.default_rng(seed)

    def _on_rollout_end(self) -> None:
        self.venv.games.learner_seat = int(self.rng.integers(0, 4))

    def _on_step(self) -> bool:
        return True


def clone_teacher(args: Args, model: Any, run_dir: Path) -> None:
    """Behaviour cloning of ``bc_teacher`` into ``model`` (:mod:`train.bc`; policy: the
    teacher's actions; value: the mover's team's round result, scaled like the rewards);
    writes ``bc.json``."""
    from train import bc

    bc.clone_teacher(
        model, lambda: bc.collect_rummy(args.bc_teacher, args.bc_rounds, seed=args.seed + 500,
                                        vs_random=args.bc_vs_random),
        run_dir, teacher=args.bc_teacher, epochs=args.bc_epochs, lr=args.bc_lr,
        lr_decay=args.bc_lr_decay, batch_size=args.bc_batch_size, seed=args.seed,
        value_target=lambda _obs, r: (r * args.reward_scale).astype(np.float32),
        bc_threads=args.bc_torch_threads, threads=args.torch_threads)


def callbacks(args: Args, venv: Any, pool: Any, run_dir: Path, append_evals: bool,
              run_start: float) -> list[Any]:
    """The training callbacks (:mod:`train.sb3.callbacks` plus the two above)."""
    from train.sb3.callbacks import Checkpoints, OpponentSchedule, PeriodicEvaluation, TimeLimit

    schedule = opponent_schedule(args)
    pooled = ([OpponentSchedule(pool, schedule, args.total_timesteps, args.snapshot_every,
                                args.seed)] if "self" in schedule else [])
    return [
        SelfSnapshots(venv, ["partner"] if args.partner == "self" else [], args.snapshot_every,
                      args.seed),
        *pooled,
        RotateSeat(venv, args.seed),
        PeriodicEvaluation(args.eval_every, args.eval_opponents.split(","), args.eval_rounds,
                           args.seed + 7, run_dir / "evals.csv", append_evals,
                           game="persian_rummy"),
        Checkpoints(args.checkpoint_every, run_dir),
        TimeLimit(args.time_limit_min, run_start),
    ]


def final_evaluation(args: Args, run_dir: Path) -> list[Any]:
    """The saved model against every evaluation opponent; writes ``final_eval.json``."""
    from train.common.evaluation import final_evaluation as evaluate_run

    agent = make_agent(str(run_dir / "model.zip"), game="persian_rummy", seed=args.seed)
    agent.name = f"{args.name}/model.zip"
    return evaluate_run(agent, args.eval_opponents, run_dir, game="persian_rummy",
                        rounds=args.rounds, seed=args.seed + 1000)


def write_report(args: Args, run_dir: Path, results: list[Any], train_seconds: float,
                 steps: int) -> None:
    """``report.md``: the final results table, the plots, how the run was made."""
    from train.bc import read_bc_stats
    from train.common.plots import report_plot_sections
    from train.common.report import Column, results_columns
    from train.common.report import write_report as write

    intro = [f"Training took {train_seconds / 60:.1f} min in all (config `{args.config}`, "
             f"seed {args.seed}), {steps:,} PPO decisions after cloning; model: `model.zip`, "
             "settings: `config.json`."]
    bc = read_bc_stats(run_dir)
    if bc is not None:
        intro.append(f"Behaviour cloning of `{args.bc_teacher}` self-play: {bc['decisions']:,} "
                     f"decisions of {args.bc_rounds:,} deals recorded in "
                     f"{bc['collect_seconds'] / 60:.1f} min, {args.bc_epochs} epochs, accuracy "
                     f"{bc['bc_accuracy']:.3f}, {bc['seconds'] / 60:.1f} min in all; then PPO "
                     f"with partner `{args.partner}` against `{args.opponent}`.")
    columns = results_columns("mean team points/round (A − B)") + [
        Column("95% CI", "---", lambda r: f"[{r.win_ci95[0]:.3f}, {r.win_ci95[1]:.3f}]")]
    write(run_dir, title=f"Persian Rummy run `{args.name}`", intro=intro,
          table_title="Final evaluation (duplicate deals, both team seatings)",
          results=results, columns=columns,
          commands_intro="Round win rate counts ties as half. To reproduce the run and an "
                         "evaluation:",
          commands=[f"python -m train.rummy_ppo {' '.join(cli_of(args))}".rstrip(),
                    f"pasur eval --game persian_rummy {run_dir}/model.zip greedy "
                    f"--rounds {args.rounds} --seed {args.seed + 1000}"],
          sections=report_plot_sections(run_dir))


# ---- main ------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> Path:
    args = parse_args(argv)
    run_start = time.time()
    from train.sb3.callbacks import latest_checkpoint
    from train.sb3.model import learn_and_save, new_model, resume_model, start_sb3_run

    run_dir = start_sb3_run(args)
    pool = make_pool(args)
    env, venv = make_env(args, run_dir, pool)
    ckpt = latest_checkpoint(run_dir) if args.resume else None
    model = new_model(args, env, run_dir) if ckpt is None else resume_model(ckpt, env,
                                                                             args.device)
    if ckpt is None and args.bc_rounds > 0:
        clone_teacher(args, model, run_dir)
    append = ckpt is not None and (run_dir / "evals.csv").exists()
    train_seconds = learn_and_save(
        args, model, env, run_dir, lambda: callbacks(args, venv, pool, run_dir, append,
                                                        run_start),
        resumed=ckpt is not None, run_start=run_start)

    results = final_evaluation(args, run_dir)
    write_report(args, run_dir, results, train_seconds, int(model.num_timesteps))
    print(f"\nrun written to {run_dir}/ (report.md, model.zip, plots); "
          f"training took {train_seconds / 60:.1f} min")
    return run_dir


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
