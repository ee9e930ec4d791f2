"""Train a Pasur agent with Ray RLlib's PPO (new API stack), on one machine or a cluster.

Read top to bottom (CleanRL style):

1. ``Args``: every setting, with its meaning (``--config tiny`` for tests).
2. The env, in one of two modes:
   * ``selfplay``: ``pasur_v0`` (the AEC env) through RLlib's ``PettingZooEnv``; the
     module ``main`` learns at one seat (shared policy: it also plays some of the other
     seats), the other seats are played by frozen snapshots of it (``snap_1..K``),
     chosen per episode by RLlib's multi-agent module mapping. Every
     ``snapshot_every`` iterations the oldest slot receives ``main``'s weights.
   * ``single``: the Gymnasium env; the other seats are the project's scripted agents
     (an ``OpponentPool`` with the ``opponents`` weights), the same set-up as the SB3 path.
3. The network is the project's own :class:`agents.learned.rllib_module.MaskedPPOModule`
   (policy and value MLPs, illegal logits masked); observations are adapted to RLlib's
   ``{"observations", "action_mask"}`` keys by ``train/rllib/env.py``.
4. Each iteration: env runners (``num_env_runners`` Ray actors, or the driver itself
   when 0) sample ``train_batch`` env steps, the learner runs PPO on them. Figures go
   to TensorBoard (``runs/<name>/tb``) and ``progress.csv``; every ``eval_every``
   iterations the learner's module plays duplicate-deal matches (the evaluator of
   ``pasur eval``) against ``eval_opponents``; checkpoints every ``checkpoint_every``
   iterations (``--resume`` continues from the last).
5. At the end: the Algorithm checkpoint (``checkpoint/``), the module alone
   (``module/``: ``pasur eval rllib:runs/<name>/module greedy``), the last iteration's
   figures (``train_stats.json``), a final evaluation (``final_eval.json``) and
   ``report.md``.

Ray: ``--address`` joins a running cluster (``ray start --head`` ...; see
docs/distributed.md); by default a local Ray instance starts without its dashboard.

    python -m train.rllib_ppo --name rllib --minutes 10
    tensorboard --logdir runs
"""

from __future__ import annotations

import csv
import functools
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from train.common.config import parse_config_args


@dataclass
class Args:
    name: str = "rllib"
    """run name: everything is written to ``<out>/<name>/``"""
    out: str = "runs"
    """folder holding the runs (``--out DIR``: the run is ``DIR/NAME/``)"""
    config: str = "default"
    """named configuration whose values replace the defaults below: ``default`` or
    ``tiny`` (flags given on the command line still win)"""
    game: str = "pasur"
    """the game: this pipeline trains Pasur (``pasur``)"""
    seed: int = 0
    """seed of RLlib (env resets, module initialisation) and of the evaluations (default 0, as
    in every command: the same command gives the same result)"""
    mode: str = "single"
    """``single``: the Gymnasium env against scripted opponents; ``selfplay``: the AEC
    env through RLlib's PettingZoo wrapper, shared policy plus frozen snapshots"""
    players: int = 2
    """players per game (4 = two teams)"""
    opponents: str = "random:0.25,greedy:1,heuristic:1"
    """``single`` mode: the scripted opponents and their weights (drawn per episode)"""
    snapshots: int = 3
    """``selfplay`` mode: frozen snapshot slots playing the other seats"""
    snapshot_every: int = 10
    """``selfplay`` mode: iterations between copies of ``main`` into a snapshot slot"""
    minutes: float = 10.0
    """wall-clock budget of the training loop (0 = no limit)"""
    total_env_steps: int = 0
    """stop after this many sampled env steps (0 = no limit; the time budget rules)"""
    num_env_runners: int = 1
    """Ray actors sampling the env (0 = sample in the driver process)"""
    envs_per_runner: int = 8
    """environments stepped together by each env runner"""
    train_batch: int = 4000
    """env steps per PPO update (``train_batch_size_per_learner``)"""
    minibatch: int = 256
    """minibatch size of the PPO epochs"""
    epochs: int = 6
    """passes over each train batch"""
    lr: float = 3e-4
    """Adam step size"""
    gamma: float = 0.995
    """discount (a round is about 24 decisions per player; its points come at the end)"""
    entropy: float = 0.01
    """entropy bonus coefficient"""
    hidden: tuple[int, ...] = (256, 256)
    """widths of the policy and value MLPs"""
    num_learners: int = 0
    """Ray learner actors (0 = learn in the driver; more for GPUs or many CPUs)"""
    eval_every: int = 10
    """iterations between duplicate-deal evaluations (0 = only at the end)"""
    eval_rounds: int = 1000
    """rounds per opponent at each periodic evaluation"""
    eval_opponents: str = "random,greedy"
    """opponents of the periodic and final evaluations"""
    rounds: int = 2000
    """duplicate-deal rounds per opponent in the final evaluation"""
    checkpoint_every: int = 10
    """iterations between checkpoints"""
    resume: bool = False
    """continue the run in ``<out>/<name>/`` from its last checkpoint"""
    address: str | None = None
    """Ray cluster to join (``auto`` or ``host:port``); None = start a local instance"""
    progress: bool = True
    """progress bars on stderr (``--no-progress``: none; default: on when stderr is a
    terminal)"""


CONFIGS: dict[str, dict[str, Any]] = {
    "default": {},
    "tiny": {  # tests and smoke runs
        "minutes": 0.0,
        "total_env_steps": 400,
        "num_env_runners": 0,
        "envs_per_runner": 2,
        "train_batch": 200,
        "minibatch": 100,
        "epochs": 1,
        "hidden": (32,),
        "snapshots": 1,
        "snapshot_every": 1,
        "eval_every": 1,
        "eval_rounds": 8,
        "rounds": 8,
        "checkpoint_every": 1,
        "progress": False,
    },
}


def check_args(args: Args) -> str | None:
    """What is wrong with settings that parse but cannot run, or None."""
    if args.mode not in ("single", "selfplay"):
        return f"--mode must be single or selfplay, got {args.mode!r}"
    if args.players not in (2, 3, 4):
        return f"--players must be 2, 3 or 4, got {args.players}"
    if args.minibatch > args.train_batch:
        return f"--minibatch ({args.minibatch}) must be <= --train-batch ({args.train_batch})"
    return None


def parse_args(argv: list[str] | None = None) -> Args:
    """Command line -> :class:`Args` (tyro): ``--config`` picks the defaults, flags win."""
    return parse_config_args(Args, CONFIGS, argv, "python -m train.rllib_ppo", __doc__,
                             check_args, games=("pasur",))


# ---- the algorithm ----------------------------------------------------------------------
def learner_module_id(args: Args) -> str:
    from ray.rllib.core import DEFAULT_MODULE_ID

    from train.rllib.env import MAIN

    return MAIN if args.mode == "selfplay" else DEFAULT_MODULE_ID


def build_config(args: Args) -> Any:
    """RLlib's ``PPOConfig`` for ``args``: env, runners, PPO settings, the masked module."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    from agents.learned.rllib_module import MaskedPPOModule
    from train.rllib import env as E

    env_kwargs = {"num_players": args.players}
    module = RLModuleSpec(module_class=MaskedPPOModule,
                          model_config={"hidden": list(args.hidden)})
    config = (
        PPOConfig()
        .env_runners(num_env_runners=args.num_env_runners,
                     num_envs_per_env_runner=args.envs_per_runner,
                     num_cpus_per_env_runner=1)
        .learners(num_learners=args.num_learners)
        .training(train_batch_size_per_learner=args.train_batch, minibatch_size=args.minibatch,
                  num_epochs=args.epochs, lr=args.lr, gamma=args.gamma, lambda_=0.95,
                  entropy_coeff=args.entropy, vf_loss_coeff=0.5, clip_param=0.2)
        .debugging(seed=args.seed)
    )
    if args.mode == "single":
        register_env(E.SINGLE_AGENT_ENV, E.make_single_agent_env)
        return (config.environment(E.SINGLE_AGENT_ENV, env_config={
                    "env_kwargs": env_kwargs, "opponents": args.opponents, "seed": args.seed})
                .rl_module(rl_module_spec=module))
    register_env(E.MULTI_AGENT_ENV, E.make_multi_agent_env)
    modules = [E.MAIN, *E.snapshot_ids(args.snapshots)]
    mapping = functools.partial(E.selfplay_mapping, players=args.players,
                                snapshots=args.snapshots)
    return (config.environment(E.MULTI_AGENT_ENV, env_config={"env_kwargs": env_kwargs})
            .multi_agent(policies=set(modules), policy_mapping_fn=mapping,
                         policies_to_train=[E.MAIN])
            .rl_module(rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={m: module for m in modules})))


def copy_into_snapshot(algo: Any, slot: str) -> None:
    """Freeze ``main``'s current weights into ``slot`` (learner and env runners)."""
    from train.rllib.env import MAIN

    state = algo.get_module(MAIN).get_state()
    algo.set_state({"learner_group": {"learner": {"rl_module": {slot: state}}}})


# ---- evaluation, logging ------------------------------------------------------------------
def learner_agent(args: Args, algo: Any) -> Any:
    """The learner's module as a project agent (what ``pasur eval rllib:...`` plays)."""
    from agents.learned.rllib_agent import RLlibAgent

    return RLlibAgent(algo.get_module(learner_module_id(args)), name=args.name)


def evaluate_module(args: Args, algo: Any, rounds: int, seed: int) -> list[Any]:
    """The learner's module against each evaluation opponent (duplicate deals)."""
    from train.common.evaluation import evaluate_against

    return evaluate_against(learner_agent(args, algo), args.eval_opponents, game="pasur",
                            rounds=rounds, seed=seed, progress=False, players=args.players)


def flat_metrics(result: dict[str, Any], module_id: str) -> dict[str, float]:
    """The few figures worth a curve from one ``algo.train()`` result."""
    runners = result.get("env_runners", {})
    learner = result.get("learners", {}).get(module_id, {})
    pick = {
        "env_steps": runners.get("num_env_steps_sampled_lifetime"),
        "episode_return_mean": runners.get("episode_return_mean"),
        "episode_len_mean": runners.get("episode_len_mean"),
        "policy_loss": learner.get("policy_loss"),
        "vf_loss": learner.get("vf_loss"),
        "entropy": learner.get("entropy"),
        "mean_kl": learner.get("mean_kl_loss"),
    }
    return {k: float(v) for k, v in pick.items() if isinstance(v, (int, float))}


class RunLog:
    """TensorBoard scalars and ``progress.csv`` rows for each iteration."""

    def __init__(self, run_dir: Path) -> None:
        from torch.utils.tensorboard import SummaryWriter

        self.writer = SummaryWriter(str(run_dir / "tb"))
        self.csv_path = run_dir / "progress.csv"

    def iteration(self, it: int, row: dict[str, float]) -> None:
        step = int(row.get("env_steps", it))
        for key, value in row.items():
            self.writer.add_scalar(f"train/{key}", value, step)
        new = not self.csv_path.exists()
        with self.csv_path.open("a", newline="") as f:
            w = csv.DictWriter(f, fieldnames=["iteration", *row])
            if new:
                w.writeheader()
            w.writerow({"iteration": it, **row})

    def evaluation(self, step: int, results: list[Any]) -> None:
        for r in results:
            self.writer.add_scalar(f"eval/{r.b}", r.mean_point_diff, step)
        self.writer.flush()


# ---- the run ------------------------------------------------------------------------------
def train_loop(args: Args, algo: Any, run_dir: Path, log: RunLog) -> dict[str, Any]:
    """``algo.train()`` until the time or step budget; snapshots, evals, checkpoints."""
    from agents.evaluation.progress import Progress
    from train.rllib.env import snapshot_ids

    module_id = learner_module_id(args)
    slots = snapshot_ids(args.snapshots) if args.mode == "selfplay" else []
    if slots and algo.iteration == 0:
        for slot in slots:  # the snapshots start as copies of the initial policy
            copy_into_snapshot(algo, slot)
    budget_s = args.minutes * 60 if args.minutes > 0 else float("inf")
    total = args.total_env_steps or 0
    bar = Progress(total or int(budget_s), "RLlib PPO", "env steps" if total else "s",
                   args.progress)
    t0, steps0, row = time.perf_counter(), None, {}
    while True:
        result = algo.train()
        it = algo.iteration
        row = flat_metrics(result, module_id)
        steps = int(row.get("env_steps", 0))
        steps0 = steps0 if steps0 is not None else steps - args.train_batch
        elapsed = time.perf_counter() - t0
        row["env_steps_per_s"] = (steps - steps0) / max(elapsed, 1e-9)
        log.iteration(it, row)
        bar.update(steps - bar.n if total else int(elapsed) - bar.n)
        if slots and it % args.snapshot_every == 0:
            copy_into_snapshot(algo, slots[(it // args.snapshot_every - 1) % len(slots)])
        if args.eval_every and it % args.eval_every == 0:
            log.evaluation(steps, evaluate_module(args, algo, args.eval_rounds, args.seed))
        if it % args.checkpoint_every == 0:
            algo.save_to_path(str((run_dir / "checkpoint").resolve()))
        if elapsed >= budget_s or (total and steps >= total):
            break
    bar.close()
    row["train_seconds"] = time.perf_counter() - t0
    return row


def write_report(args: Args, run_dir: Path, last: dict[str, Any], final: list[Any]) -> None:
    """``report.md``: the run's throughput and the final evaluation."""
    from train.common.report import results_columns
    from train.common.report import write_report as write

    write(run_dir, title=f"RLlib PPO run `{args.name}` ({args.players} players, mode "
                         f"`{args.mode}`)",
          intro=[f"{int(last.get('env_steps', 0)):,} env steps in "
                 f"{last['train_seconds'] / 60:.1f} min ({last.get('env_steps_per_s', 0):,.0f} "
                 f"env steps/s over the run; {args.num_env_runners} env runners x "
                 f"{args.envs_per_runner} envs)."],
          table_title=f"Final evaluation (duplicate deals, {args.players} players)",
          results=final, columns=results_columns("agent − opponent, points/round", digits=3,
                                                 win_rate=False),
          commands_intro="Evaluate again:",
          commands=[f"pasur eval rllib:{run_dir / 'module'} greedy --rounds 2000"])


def main(argv: list[str] | None = None) -> Path:
    args = parse_args(argv)
    from train.common.run_dir import start_run_dir

    run_dir = start_run_dir(args, fresh=True)
    ckpt = run_dir / "checkpoint"
    os.environ.setdefault("RAY_DEDUP_LOGS", "0")
    from train.common.evaluation import final_evaluation
    from train.rllib.env import ray_session

    with ray_session(address=args.address):
        algo = build_config(args).build_algo()
        if args.resume and ckpt.exists():
            algo.restore_from_path(str(ckpt.resolve()))
            print(f"resumed from {ckpt} at iteration {algo.iteration}")
        log = RunLog(run_dir)
        last = train_loop(args, algo, run_dir, log)
        algo.save_to_path(str(ckpt.resolve()))
        algo.get_module(learner_module_id(args)).save_to_path(str((run_dir / "module").resolve()))
        final = final_evaluation(learner_agent(args, algo), args.eval_opponents, run_dir,
                                 game="pasur", rounds=args.rounds,
                                 seed=args.seed + 1, progress=False, players=args.players)
        log.evaluation(int(last.get("env_steps", 0)), final)
        (run_dir / "train_stats.json").write_text(json.dumps(last, indent=2))
        write_report(args, run_dir, last, final)
        algo.stop()
    print((run_dir / "report.md").read_text())
    return run_dir


if __name__ == "__main__":
    main()
