"""Train a Pasur agent with MaskablePPO and self-play, then evaluate it and write a report.

Read top to bottom (CleanRL style):

1. ``Args``: every setting, with its meaning; ``--config long`` swaps in the longer run.
2. The learner plays one seat of ``PasurVecEnv`` (one batched engine of ``num_envs``
   games); the other seats are played by an opponent drawn per episode from an
   ``OpponentPool`` holding scripted agents (random, greedy, heuristic) and frozen
   snapshots of the learner itself. A schedule moves the pool's weights from the easy
   scripted opponents towards heuristic play and self-play as training advances.
3. Every ``eval_every`` steps the current policy plays duplicate-deal matches against
   the evaluation opponents; the figures go to TensorBoard and ``evals.csv``.
4. Checkpoints every ``checkpoint_every`` steps allow ``--resume``.
5. At the end: ``runs/<name>/model.zip`` and ``config.json``, a final evaluation
   (``final_eval_rounds`` duplicate rounds per opponent), plots and ``report.md``.

    python -m train.ppo --name demo --total-timesteps 50000
    tensorboard --logdir runs
"""

from __future__ import annotations

import argparse
import ast
import csv
import dataclasses
import inspect
import json
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np


@dataclass
class Args:
    name: str = "ppo"
    """run name: everything is written to ``<runs_dir>/<name>/``"""
    runs_dir: str = "runs"
    """folder holding the runs"""
    config: str = "default"
    """named configuration whose values replace the defaults below: ``default`` or ``long``
    (flags given on the command line still win)"""
    seed: int = 1
    """seed of the games, the opponents, the policy initialisation and the evaluations"""
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
    denser signal; see ``train.wrappers.PotentialShaping``)"""
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
    final_eval_rounds: int = 5_000
    """duplicate-deal rounds per opponent in the final evaluation"""
    final_eval_games: int = 200
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
    progress_bar: bool = True
    """show a progress bar while training"""


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
        "final_eval_rounds": 10_000,
        "final_eval_games": 300,
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
        "final_eval_rounds": 40,
        "final_eval_games": 2,
        "checkpoint_every": 2_048,
        "progress_bar": False,
    },
}


def field_docs(cls: type) -> dict[str, str]:
    """The docstring written under each dataclass field (shown by ``--help``)."""
    tree = ast.parse(inspect.getsource(cls))
    body = tree.body[0].body  # type: ignore[attr-defined]
    docs = {}
    for node, nxt in zip(body, body[1:], strict=False):
        if isinstance(node, ast.AnnAssign) and isinstance(nxt, ast.Expr):
            docs[node.target.id] = " ".join(str(nxt.value.value).split())  # type: ignore
    return docs


def parse_args(argv: list[str] | None = None) -> Args:
    """Command line -> :class:`Args`: ``--config`` first, then explicit flags."""
    docs = field_docs(Args)
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    for f in dataclasses.fields(Args):
        flag = "--" + f.name.replace("_", "-")
        if f.type == "bool":
            ap.add_argument(flag, action=argparse.BooleanOptionalAction, default=None,
                            help=docs.get(f.name))
        else:
            kind = {"int": int, "float": float, "str": str}[f.type]
            ap.add_argument(flag, type=kind, default=None, help=docs.get(f.name),
                            metavar=f.name.upper())
    ns = vars(ap.parse_args(argv))
    config = ns.get("config") or "default"
    if config not in CONFIGS:
        ap.error(f"unknown --config {config!r}; known: {sorted(CONFIGS)}")
    values = {**CONFIGS[config], **{k: v for k, v in ns.items() if v is not None}}
    return Args(**values)


# ---- pieces -----------------------------------------------------------------------------
def parse_schedule(text: str) -> dict[str, tuple[float, float]]:
    """``"random:1>0.1,self:0>1"`` -> ``{"random": (1.0, 0.1), "self": (0.0, 1.0)}``."""
    out = {}
    for item in text.split(","):
        name, _, span = item.partition(":")
        start, _, end = span.partition(">")
        out[name.strip()] = (float(start), float(end or start))
    return out


def make_callbacks(args: Args, run_dir: Path, pool: Any, schedule: dict, writer_files: dict,
                   run_start: float):
    """The training callbacks: opponent schedule, snapshots, evaluation, checkpoints."""
    from stable_baselines3.common.callbacks import BaseCallback

    from agents.evaluate import evaluate
    from pasur_env.opponents import policy_snapshot

    class Schedule(BaseCallback):
        """Sets the pool's weights from the schedule and adds learner snapshots."""

        def __init__(self) -> None:
            super().__init__()
            self.last_snapshot = -1

        def _apply(self) -> None:
            p = min(1.0, self.num_timesteps / max(1, args.total_timesteps))
            snaps = [e for e in pool if e.name.startswith("self@")]
            for e in pool:
                key = "self" if e.name.startswith("self@") else e.name
                lo, hi = schedule.get(key, (0.0, 0.0))
                w = lo + (hi - lo) * p
                e.weight = w / max(1, len(snaps)) if key == "self" else w
            for name in ("random", "greedy", "heuristic"):
                self.logger.record(f"pool/weight_{name}", next(
                    (e.weight for e in pool if e.name == name), 0.0))

        def _on_training_start(self) -> None:
            self.last_snapshot = self.num_timesteps
            self._apply()

        def _on_rollout_end(self) -> None:
            if self.num_timesteps - self.last_snapshot >= args.snapshot_every:
                self.last_snapshot = self.num_timesteps
                pool.add(policy_snapshot(self.model, seed=args.seed),
                         name=f"self@{self.num_timesteps}")
            self._apply()

        def _on_step(self) -> bool:
            return True

    class Evaluate(BaseCallback):
        """Duplicate-deal matches of the current policy against the eval opponents."""

        def __init__(self) -> None:
            super().__init__()
            self.last = -1

        def _on_rollout_end(self) -> None:
            if self.last >= 0 and self.num_timesteps - self.last < args.eval_every:
                return
            self.last = self.num_timesteps
            agent = policy_snapshot(self.model, deterministic=True, name="learner")
            for opp in args.eval_opponents.split(","):
                res = evaluate(agent, opp, rounds=args.eval_rounds, seed=args.seed + 7,
                               progress=False)
                self.logger.record(f"eval/mean_point_diff_vs_{opp}", res.mean_point_diff)
                self.logger.record(f"eval/round_win_rate_vs_{opp}", res.round_win_rate)
                writer_files["evals"].writerow([self.num_timesteps, opp, res.mean_point_diff,
                                                res.ci95[0], res.ci95[1], res.round_win_rate])
            writer_files["evals_fh"].flush()

        def _on_step(self) -> bool:
            return True

    class Checkpoint(BaseCallback):
        """Saves the model (and so the self-play history) every ``checkpoint_every`` steps."""

        def __init__(self) -> None:
            super().__init__()
            self.last = 0

        def _on_training_start(self) -> None:
            self.last = self.num_timesteps

        def _on_rollout_end(self) -> None:
            if self.num_timesteps - self.last >= args.checkpoint_every:
                self.last = self.num_timesteps
                save_checkpoint(self.model, run_dir)

        def _on_step(self) -> bool:
            return True

    class TimeLimit(BaseCallback):
        """Ends learning once ``time_limit_min`` minutes have passed since the run started."""

        def _on_step(self) -> bool:
            return not args.time_limit_min or time.time() - run_start < 60 * args.time_limit_min

    return [Schedule(), Evaluate(), Checkpoint(), TimeLimit()]


def save_checkpoint(model: Any, run_dir: Path) -> Path:
    ckpt_dir = run_dir / "checkpoints"
    ckpt_dir.mkdir(parents=True, exist_ok=True)
    path = ckpt_dir / f"model_{model.num_timesteps:09d}.zip"
    model.save(path)
    return path


def latest_checkpoint(run_dir: Path) -> Path | None:
    found = sorted((run_dir / "checkpoints").glob("model_*.zip"))
    return found[-1] if found else None


def write_report(args: Args, run_dir: Path, results: list[Any], train_seconds: float,
                 steps: int) -> None:
    """``report.md``: the final results table, the plots, how the run was made."""
    from train.plots import plot_evaluations, plot_learning_curve

    learning_png = plot_learning_curve(run_dir / "monitor.csv", run_dir / "learning_curve.png")
    eval_png = plot_evaluations(run_dir / "evals.csv", run_dir / "eval_curves.png")
    lines = [
        f"# Pasur PPO run `{args.name}`",
        "",
        f"Trained for {steps:,} PPO decisions, {train_seconds / 60:.1f} min in all "
        f"(config `{args.config}`, seed {args.seed}); model: `model.zip`, settings: "
        "`config.json`.",
        "",
    ]
    bc_file = run_dir / "bc.json"
    if bc_file.exists():
        bc = json.loads(bc_file.read_text())
        lines += [
            f"Started from behaviour cloning of `{args.bc_teacher}` self-play "
            f"({bc['decisions']:,} decisions, {args.bc_epochs} epochs, accuracy "
            f"{bc['bc_accuracy']:.3f}, {bc['seconds'] / 60:.1f} min), then PPO against the "
            f"opponent pool `{args.opponent_schedule}`.",
            "",
        ]
    lines += [
        "## Final evaluation (duplicate deals, 2 players)",
        "",
        "| opponent | rounds | mean points/round (A − B) | 95% CI | round win rate "
        "| games to 62 | game win rate |",
        "|---|---:|---:|---|---:|---:|---:|",
    ]
    for r in results:
        gw = "" if r.game_win_rate is None else f"{r.game_win_rate:.3f}"
        lines.append(
            f"| {r.b} | {r.rounds:,} | {r.mean_point_diff:+.2f} | "
            f"[{r.ci95[0]:+.2f}, {r.ci95[1]:+.2f}] | {r.round_win_rate:.3f} | {r.games} | {gw} |"
        )
    lines += ["", "Round win rate counts ties as half. Command to reproduce:", "",
              "```", f"python -m train.ppo {' '.join(cli_of(args))}", "```", ""]
    if learning_png:
        lines += ["## Learning curve", "", f"![learning curve]({learning_png.name})", ""]
    if eval_png:
        lines += ["## Evaluation during training", "", f"![evaluations]({eval_png.name})", ""]
    (run_dir / "report.md").write_text("\n".join(lines))


def cli_of(args: Args) -> list[str]:
    """The flags that differ from the defaults of ``args.config``."""
    base = Args(**CONFIGS[args.config])
    out = [f"--config {args.config}"] if args.config != "default" else []
    for f in dataclasses.fields(Args):
        v = getattr(args, f.name)
        if f.name not in ("config", "resume") and v != getattr(base, f.name):
            flag = "--" + f.name.replace("_", "-")
            out.append(flag if v is True else f"--no-{flag[2:]}" if v is False else f"{flag} {v}")
    return out


# ---- main ------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> Path:
    args = parse_args(argv)
    run_start = time.time()
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.utils import set_random_seed
    from stable_baselines3.common.vec_env import VecMonitor

    from agents.evaluate import evaluate
    from pasur_env.opponents import OpponentPool, PolicyAgent
    from pasur_env.vector_env import PasurVecEnv
    from train.wrappers import PotentialShaping, ScaleReward

    torch.set_num_threads(args.torch_threads)
    set_random_seed(args.seed)
    run_dir = Path(args.runs_dir) / args.name
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.json").write_text(json.dumps(asdict(args), indent=2))

    # the opponents: scripted agents plus (later) snapshots of the learner
    schedule = parse_schedule(args.opponent_schedule)
    pool = OpponentPool(
        [(n, n, schedule[n][0]) for n in schedule if n != "self"], sampling="weights",
        max_size=len(schedule) - 1 + args.max_snapshots, seed=args.seed,
    )
    seat: int | str = int(args.learner_seat) if args.learner_seat.isdigit() else args.learner_seat
    venv = PasurVecEnv(args.num_envs, opponent=pool, learner_seat=seat, seed=args.seed,
                       episode="round", reward="diff")
    monitor_path = run_dir / "monitor.csv"
    env = VecMonitor(venv, filename=str(monitor_path))  # logs the true round rewards
    if args.shaping:
        env = PotentialShaping(env, venv.rules, gamma=args.gamma)
    env = ScaleReward(env, args.reward_scale)

    ckpt = latest_checkpoint(run_dir) if args.resume else None
    lr0 = args.learning_rate
    if ckpt is not None:
        model = MaskablePPO.load(ckpt, env=env, device=args.device)
        # the self-play history: the checkpoints' policies rejoin the pool
        for old in sorted((run_dir / "checkpoints").glob("model_*.zip"))[-args.max_snapshots:]:
            steps = int(old.stem.split("_")[1])
            pool.add(PolicyAgent(MaskablePPO.load(old, device=args.device), seed=args.seed),
                     name=f"self@{steps}")
        print(f"resuming from {ckpt} at {model.num_timesteps:,} steps")
    else:
        model = MaskablePPO(
            "MlpPolicy", env, n_steps=args.n_steps, batch_size=args.batch_size,
            n_epochs=args.n_epochs, learning_rate=lambda frac: lr0 * (0.1 + 0.9 * frac),
            gamma=args.gamma, gae_lambda=args.gae_lambda, clip_range=args.clip_range,
            ent_coef=args.ent_coef, vf_coef=args.vf_coef, seed=args.seed, device=args.device,
            policy_kwargs={"net_arch": [int(x) for x in args.net_arch.split(",")]},
            tensorboard_log=str(run_dir / "tb"), verbose=0,
        )
    bc_stats: dict[str, float] = {}
    if ckpt is None and args.bc_rounds > 0:
        from train.bc import collect, pretrain

        t0 = time.time()
        demos = collect(args.bc_teacher, args.bc_rounds, seed=args.seed + 500,
                        vs_random=args.bc_vs_random)
        phi = env.venv.w if args.shaping else None  # the shaping potential's weights

        def value_target(obs: np.ndarray, returns: np.ndarray) -> np.ndarray:
            base = returns.astype(np.float64)
            if phi is not None:  # in chunks: obs is large and stored as float16
                for i in range(0, len(obs), 65536):
                    base[i:i + 65536] -= obs[i:i + 65536].astype(np.float32) @ phi
            return (base * args.reward_scale).astype(np.float32)

        torch.set_num_threads(args.bc_torch_threads)
        bc_stats = pretrain(model, demos, epochs=args.bc_epochs, lr=args.bc_lr,
                            batch_size=args.bc_batch_size,
                            value_target=value_target, seed=args.seed)
        torch.set_num_threads(args.torch_threads)
        bc_stats.update(decisions=len(demos.actions), seconds=time.time() - t0)
        del demos
        (run_dir / "bc.json").write_text(json.dumps(bc_stats, indent=2))
    new_evals = not (run_dir / "evals.csv").exists() or ckpt is None
    evals_fh = open(run_dir / "evals.csv", "w" if new_evals else "a", newline="")  # noqa: SIM115
    evals = csv.writer(evals_fh)
    if new_evals:
        evals.writerow(["timesteps", "opponent", "mean_point_diff", "ci_low", "ci_high",
                        "round_win_rate"])
    callbacks = make_callbacks(args, run_dir, pool, schedule,
                               {"evals": evals, "evals_fh": evals_fh}, run_start)

    remaining = args.total_timesteps - model.num_timesteps
    if remaining > 0:
        model.learn(remaining, callback=callbacks, progress_bar=args.progress_bar,
                    reset_num_timesteps=ckpt is None, tb_log_name="ppo")
    train_seconds = time.time() - run_start  # behaviour cloning and PPO
    model.save(run_dir / "model.zip")
    save_checkpoint(model, run_dir)
    evals_fh.close()
    env.close()

    # final evaluation of the saved model
    agent = PolicyAgent(MaskablePPO.load(run_dir / "model.zip", device="cpu"),
                        deterministic=True, name=f"{args.name}/model.zip")
    results = []
    for opp in args.eval_opponents.split(","):
        res = evaluate(agent, opp, rounds=args.final_eval_rounds, seed=args.seed + 1000,
                       games=args.final_eval_games or None, progress=args.progress_bar)
        print(res.summary())
        results.append(res)
    (run_dir / "final_eval.json").write_text(
        json.dumps([r.to_json() for r in results], indent=2))
    write_report(args, run_dir, results, train_seconds, int(model.num_timesteps))
    print(f"\nrun written to {run_dir}/ (report.md, model.zip, plots); "
          f"training took {train_seconds / 60:.1f} min")
    return run_dir


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
