"""Behaviour cloning: warm-start a MaskablePPO policy from a scripted teacher's play.

The teacher (by default the ``heuristic`` agent) plays rounds against itself on the
batched engine; every decision is recorded as (the mover's observation, its legal
mask, the teacher's action, the mover's final round result). The policy head learns
the teacher's actions by masked cross-entropy and the value head learns the
round results, so PPO starts from a competent player instead of from random play
(which at this game costs millions of decisions to outgrow).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from agents import make_agent
from pasur_env import Engine, GameView
from pasur_env.core.loop import play
from pasur_env.pasur.observation import encode
from pasur_env.pasur.rewards import seat_rewards

TEACHER, WEAK = 0, 1  # policy indices in the play loop


@dataclass
class Demonstrations:
    """Recorded decisions: observations (n, N) stored as float16, masks (n, 104), actions
    (n,), returns (n,)."""

    obs: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    returns: np.ndarray


class _Recorder:
    """Keeps the teacher's decisions of one batch of rounds (the play loop's hooks)."""

    def __init__(self, engine: Engine, num_players: int) -> None:
        self.engine = engine
        self.games, self.seats, self.obs, self.masks, self.actions = [], [], [], [], []
        self.final = np.zeros((engine.num_games, num_players), dtype=np.float32)

    def decisions(self, k: int, view: GameView, obs: np.ndarray | None, mask: np.ndarray,
                  actions: np.ndarray) -> None:
        if k != TEACHER:
            return
        self.games.append(view.games)
        self.seats.append(view.seats)
        self.obs.append(obs if obs is not None else encode(self.engine, view.games, view.seats))
        self.masks.append(mask)
        self.actions.append(actions.copy())

    def step(self, games: np.ndarray, info) -> None:  # noqa: ANN001 - a StepInfo
        ended = np.flatnonzero(info.round_end)
        if ended.size:
            self.final[games[ended]] = seat_rewards(info, self.engine.rules, "diff")[ended]

    def demonstrations(self) -> Demonstrations:
        games, seats = np.concatenate(self.games), np.concatenate(self.seats)
        return Demonstrations(
            np.concatenate(self.obs).astype(np.float16),  # half the memory
            np.concatenate(self.masks), np.concatenate(self.actions), self.final[games, seats],
        )


def collect(teacher: str, rounds: int, seed: int, batch: int = 2048,
            num_players: int = 2, vs_random: float = 0.0) -> Demonstrations:
    """Play ``rounds`` rounds of ``teacher`` and record every decision the teacher makes.

    In a fraction ``vs_random`` of the rounds one seat (chosen at random) is played by
    the uniformly random agent and its decisions are not recorded: the student then
    also sees the positions a weak opponent leads to (loose tables, early surs), which
    self-play of a careful teacher rarely reaches. ``returns`` holds, for each decision,
    the mover's side's round-point difference (the ``diff`` reward) of its round. The
    rounds are played by the one play loop (:func:`pasur_env.core.loop.play`).
    """
    if not 0.0 <= vs_random <= 1.0:
        raise ValueError(f"vs_random must lie in [0, 1], got {vs_random!r}")
    policies = [make_agent(teacher, seed=seed), make_agent("random", seed=seed + 1)]
    rng = np.random.default_rng(seed)
    parts: list[Demonstrations] = []
    done_rounds = 0
    chunk_seed = seed
    while done_rounds < rounds:
        n = min(batch, rounds - done_rounds)
        eng = Engine(n, seed=chunk_seed, episode="round", auto_reset=False,
                     num_players=num_players)
        chunk_seed += 1
        # the seat the random agent plays in each game, -1 where the teacher plays all
        weak_seat = np.where(rng.random(n) < vs_random, rng.integers(0, num_players, n), -1)
        seat_policy = np.where(np.arange(num_players)[None, :] == weak_seat[:, None],
                               WEAK, TEACHER)
        rec = _Recorder(eng, num_players)
        play(eng, policies, seat_policy, on_step=rec.step, on_decisions=rec.decisions)
        parts.append(rec.demonstrations())
        done_rounds += n
    return Demonstrations(*(np.concatenate([getattr(d, f) for d in parts])
                            for f in ("obs", "masks", "actions", "returns")))


def pretrain(model, demos: Demonstrations, *, epochs: int, batch_size: int = 1024,  # noqa: ANN001
             lr: float = 2e-3, lr_decay: float = 0.5, value_target=None, seed: int = 0,  # noqa: ANN001
             log=print) -> dict[str, float]:  # noqa: ANN001
    """Fit ``model.policy`` (a MaskablePPO policy) to the demonstrations.

    ``value_target(obs, returns)`` maps recorded returns to the value head's target
    (e.g. scaled, minus a shaping potential); by default the returns themselves. The
    step size is multiplied by ``lr_decay`` after each epoch.
    Returns the last epoch's mean losses and the accuracy of the greedy action.
    """
    import torch

    policy = model.policy
    policy.set_training_mode(True)
    opt = torch.optim.Adam(policy.parameters(), lr=lr)
    target = demos.returns if value_target is None else value_target(demos.obs, demos.returns)
    n = len(demos.actions)
    rng = np.random.default_rng(seed)
    stats: dict[str, float] = {}
    for epoch in range(epochs):
        for group in opt.param_groups:
            group["lr"] = lr * lr_decay**epoch
        order = rng.permutation(n)
        tot_pi = tot_v = tot_acc = 0.0
        batches = 0
        for start in range(0, n, batch_size):
            b = order[start:start + batch_size]
            obs = torch.as_tensor(demos.obs[b].astype(np.float32), device=policy.device)
            act = torch.as_tensor(demos.actions[b], device=policy.device)
            ret = torch.as_tensor(target[b], dtype=torch.float32, device=policy.device)
            dist = policy.get_distribution(obs, action_masks=demos.masks[b])
            values = policy.predict_values(obs)
            loss_pi = -dist.log_prob(act).mean()
            loss_v = torch.nn.functional.mse_loss(values.flatten(), ret)
            loss = loss_pi + 0.5 * loss_v
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            opt.step()
            with torch.no_grad():
                acc = (dist.distribution.probs.argmax(dim=1) == act).float().mean()
            tot_pi += loss_pi.item()
            tot_v += loss_v.item()
            tot_acc += float(acc)
            batches += 1
        stats = {"bc_policy_loss": tot_pi / batches, "bc_value_loss": tot_v / batches,
                 "bc_accuracy": tot_acc / batches}
        log(f"behaviour cloning epoch {epoch + 1}/{epochs}: " +
            ", ".join(f"{k} {v:.3f}" for k, v in stats.items()))
    policy.set_training_mode(False)
    return stats
