"""A learned best response to a frozen agent: a lower bound on the agent's exploitability.

``pasur best-response AGENT`` (the same as ``python -m train.best_response AGENT``):

1. The frozen agent (any spec: ``heuristic``, ``greedy@1``, ``./my_agent.py:Class``,
   ``package.module:Class``, ``net.npz``...) is built once for the game and seeded.
2. Masked PPO trains a small network (a tanh MLP: a logit per action and a value) on
   the all-seats env (:class:`pasur_env.AllSeatsEnv`, one-round episodes, reward
   ``diff``): in each game the learner plays one side's seats (every seat of that side,
   so in Persian Rummy both seats of a team), the side alternating between games, and
   the frozen agent plays the other seats (``--seat S``: the agent plays only seat S's
   side, as in ``pasur exploitability --seat``, the learner every other seat),
   asked once per step for all the games where it moves, through the play loop's
   :func:`pasur_env.core.loop.decide`. A learner decision earns what its seat earns
   until that seat's next decision; the advantages (GAE) run along each learner
   seat's own decisions. Training deals come from a seed derived from ``--seed``,
   never the evaluation's.
3. ``--teacher SPEC``: the learner's policy is the network's logits plus
   :attr:`Ppo.teacher_bonus` on the move the teacher agent would play (asked once per
   step for the learner's decisions, through ``decide``), so it starts as the teacher
   (its gain the teacher's head-to-head result) and learns where deviating pays; the
   exploiter file names the teacher, which plays with it.
4. The budget is wall time (``--minutes``) or learner decisions (``--decisions``),
   counted from the first rollout (the kernels are compiled before).
5. The network is saved as an exploiter file (:mod:`agents.learned.exploiter`), which
   every command plays as ``br:PATH``.
6. The exploiter plays the frozen agent on fresh duplicate deals
   (:func:`agents.evaluation.match.evaluate`, or on Ray with ``--address``): its mean
   point difference per round with a 95% interval is the *gain*, a lower bound on the
   gain of the exact best response (with two players: NashConv / 2, the figure of
   ``pasur exploitability`` on the small variants; docs/exploitability.md).

``--method search`` (:func:`search_best_response`) trains nothing: the exploiter is a
search against the agent itself at every decision (:mod:`agents.core.search_br`),
saved as a ``.json`` file (``br:PATH.json``) and measured in the same way. It needs
more time per decision and no training: on the small variants it reaches 77% or more of
the exact gain in minutes against every agent (against ``ismcts``, of the mixed policy
it plays; docs/exploitability.md).
"""

from __future__ import annotations

import dataclasses
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

import numpy as np
import torch
from torch import nn

from agents.core.search import check_budget as check_search_budget
from agents.core.search_br import DEFAULT_PARTICLES, check_margin
from agents.evaluation.match import duplicate_engine, evaluate, setup
from agents.evaluation.results import SCHEMA, library_info, utc_now
from agents.evaluation.stats import mean_ci
from agents.games import derived_seeds
from agents.learned.exploiter import (
    PREFIX,
    exploiter_inputs,
    file_stem,
    save_exploiter,
    save_search_exploiter,
)
from agents.registry import agent_label, build_agent
from pasur_env import AllSeatsEnv
from pasur_env.core.loop import decide, play
from pasur_env.core.policy import Policy, check_policy_fits
from pasur_env.games import game_info
from train.common.threads import one_thread_each
from train.common.tracking import WallClock

__all__ = ["Ppo", "BestResponseResult", "best_response", "search_best_response",
           "train_exploiter", "learner_advantages", "default_save_path", "main"]

#: the default budget when neither minutes nor decisions are given
DEFAULT_MINUTES = 5.0


@dataclasses.dataclass(frozen=True)
class Ppo:
    """The learner's settings (the defaults are those measured in docs/exploitability.md)."""

    envs: int = 128  # games stepped together
    steps: int = 32  # steps of every game per rollout
    hidden: int = 256  # width of the two hidden layers
    lr: float = 5e-4  # Adam's step size, decreased linearly over the budget
    epochs: int = 4  # passes over a rollout
    minibatches: int = 4  # minibatches per pass
    clip: float = 0.2  # PPO's clipping of the probability ratio
    ent_coef: float = 0.01  # weight of the entropy bonus
    vf_coef: float = 0.5  # weight of the value loss
    gae_lambda: float = 0.95  # lambda of the advantages (no discount within a round)
    max_grad_norm: float = 0.5  # the gradients' norm is clipped to this
    teacher_bonus: float = 3.0  # added to the teacher's action's logit (with a teacher)
    select_rounds: int = 1000  # validation rounds choosing trained vs teacher (0: keep trained)
    history: bool = False  # the learner also reads what every seat played this round


class _Net(nn.Module):
    """A tanh MLP with a logit per action and a value (the exploiter file keeps the logits)."""

    def __init__(self, obs_size: int, num_actions: int, hidden: int, bonus: float = 0.0
                 ) -> None:
        super().__init__()
        self.bonus = bonus  # added to the teacher's action's logit, where one is given
        layers = [nn.Linear(obs_size, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh()]
        self.body = nn.Sequential(*layers)
        self.actor, self.critic = nn.Linear(hidden, num_actions), nn.Linear(hidden, 1)
        with torch.no_grad():  # small first logits: a near-uniform first policy
            self.actor.weight.mul_(0.01)
            self.actor.bias.zero_()

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.critic(self.body(obs)).squeeze(-1)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor, action: torch.Tensor | None = None,
                teach: torch.Tensor | None = None
                ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """(action, its log-probability, entropy, value); illegal actions get probability 0.
        ``teach``: the teacher's action in each row (-1: none), whose logit gets the bonus:
        the policy starts as the teacher's and the network learns where to deviate."""
        hidden = self.body(obs)
        floor = torch.finfo(torch.float32).min
        logits = self.actor(hidden)
        if teach is not None:
            bonus = (teach >= 0).to(logits.dtype).unsqueeze(1) * self.bonus
            logits = logits.scatter_add(1, teach.clamp(min=0).unsqueeze(1), bonus)
        dist = torch.distributions.Categorical(logits=torch.where(mask, logits, floor))
        chosen = dist.sample() if action is None else action
        return chosen, dist.log_prob(chosen), dist.entropy(), self.critic(hidden).squeeze(-1)

    def layers(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """The policy's layers as numpy ``(weight (in, out), bias)``, for the exploiter file."""
        linear = [self.body[0], self.body[2], self.actor]
        return [(m.weight.detach().numpy().T.copy(), m.bias.detach().numpy().copy())
                for m in linear]


def learner_advantages(rewards: np.ndarray, values: np.ndarray, seats: np.ndarray,
                       ended: np.ndarray, active: np.ndarray, last_values: np.ndarray,
                       lam: float) -> np.ndarray:
    """GAE (no discount) along each learner seat's own decisions in each game.

    ``rewards`` (T, B, P): every seat's reward at each step; ``values`` (T, B): the value
    of the decision at each step; ``seats`` (T, B): its seat; ``ended`` (T, B): the
    episode ended with that step; ``active`` (T, B): the learner made that decision
    (the others are the frozen agent's: their rewards only accrue); ``last_values``
    (B, P): each seat's value after the rollout. Zero where the learner did not decide.
    """
    T, B, _ = rewards.shape
    next_value = last_values.astype(np.float64)
    next_adv = np.zeros_like(next_value)
    alive = np.ones_like(next_value)  # 0: the seat's next decision is in another episode
    earned = np.zeros_like(next_value)  # rewards since the step looked at, per seat
    adv = np.zeros((T, B))
    for t in reversed(range(T)):
        done = ended[t]
        next_value[done], next_adv[done], alive[done], earned[done] = 0.0, 0.0, 0.0, 0.0
        earned += rewards[t]
        g = np.flatnonzero(active[t])
        s = seats[t, g]
        delta = earned[g, s] + alive[g, s] * next_value[g, s] - values[t, g]
        adv[t, g] = delta + lam * alive[g, s] * next_adv[g, s]
        next_value[g, s], next_adv[g, s] = values[t, g], adv[t, g]
        alive[g, s], earned[g, s] = 1.0, 0.0
    return adv


def _check_seat(seat: int, players: int) -> None:
    """``ValueError`` unless ``seat`` is a seat of a ``players``-seat game."""
    if not 0 <= seat < players:
        raise ValueError(f"--seat must be a seat of the {players}-player game "
                         f"(0 to {players - 1}), got {seat}")


def _learner_seats(env: AllSeatsEnv, seat: int | None) -> np.ndarray:
    """(B, P) bool: the seats the learner plays in each game: one side's seats, the side
    alternating between games; with ``seat``, every seat but those of its side (the
    agent's)."""
    if seat is not None:
        _check_seat(seat, env.num_players)
        return np.broadcast_to(env.sides != env.sides[seat],  # type: ignore[no-any-return]
                               (env.num_envs, env.num_players))
    side = np.arange(env.num_envs) % env.num_sides
    return env.sides[None, :] == side[:, None]  # type: ignore[no-any-return]


@dataclasses.dataclass
class _Rollout:
    """One rollout's buffers: a row per step, a column per game."""

    obs: np.ndarray
    mask: np.ndarray
    act: np.ndarray
    logp: np.ndarray
    val: np.ndarray
    seat: np.ndarray
    rew: np.ndarray
    end: np.ndarray
    mine: np.ndarray
    teach: np.ndarray | None = None  # the teacher's action (-1: none); None: no teacher

    @classmethod
    def empty(cls, T: int, env: AllSeatsEnv, width: int, teacher: bool = False) -> _Rollout:
        B, P = env.num_envs, env.num_players
        z = lambda *shape, dtype=np.float32: np.zeros(shape, dtype=dtype)  # noqa: E731
        return cls(z(T, B, width), z(T, B, env.num_actions, dtype=bool),
                   z(T, B, dtype=np.int64), z(T, B), z(T, B), z(T, B, dtype=np.int64),
                   z(T, B, P), z(T, B, dtype=bool), z(T, B, dtype=bool),
                   np.full((T, B), -1, dtype=np.int64) if teacher else None)


def input_size(env: AllSeatsEnv, history: bool) -> int:
    """The width of the rows of :func:`agents.learned.exploiter.exploiter_inputs` on
    ``env``; ``ValueError`` for ``history`` on a game whose engine keeps none."""
    if not history:
        return env.obs_size
    if env.engine.history_size == 0:
        raise ValueError(f"--history: the {env.game} engine keeps no play history")
    return env.obs_size + env.engine.history_size


def _collect(env: AllSeatsEnv, net: _Net, frozen: Policy, state: list[np.ndarray],
             mine: np.ndarray, buf: _Rollout, teacher: Policy | None = None,
             history: bool = False) -> None:
    """Fill ``buf``: the learner samples its decisions, the frozen agent plays the rest.
    ``state`` is the env's current ``[obs, mask, seat]``, advanced in place; ``teacher``
    is asked for the learner's decisions (its moves get the bonus)."""
    rows = np.arange(env.num_envs)
    for t in range(buf.obs.shape[0]):
        obs, mask, seat = state
        obs = exploiter_inputs(env.engine, rows, seat, obs, history)
        learner = mine[rows, seat]
        actions = np.zeros(env.num_envs, dtype=np.int64)
        others = np.flatnonzero(~learner)
        if others.size:
            actions[others] = decide(env.engine, others, [frozen],
                                     np.zeros(others.size, dtype=np.int64))
        ours = np.flatnonzero(learner)
        if buf.teach is not None:
            buf.teach[t] = -1
        if ours.size:
            teach = None
            if teacher is not None and buf.teach is not None:
                buf.teach[t, ours] = decide(env.engine, ours, [teacher],
                                            np.zeros(ours.size, dtype=np.int64))
                teach = torch.as_tensor(buf.teach[t, ours])
            with torch.no_grad():
                a, logp, _, v = net(torch.as_tensor(obs[ours]), torch.as_tensor(mask[ours]),
                                    teach=teach)
            actions[ours] = a.numpy()
            buf.logp[t, ours], buf.val[t, ours] = logp.numpy(), v.numpy()
        buf.obs[t], buf.mask[t], buf.seat[t], buf.act[t], buf.mine[t] = (
            obs, mask, seat, actions, learner)
        obs, mask, seat, rewards, terminated, truncated, _ = env.step(actions)
        buf.rew[t], buf.end[t] = rewards, terminated | truncated
        state[:] = [obs, mask, seat]


def _update(net: _Net, opt: torch.optim.Optimizer, ppo: Ppo, rng: np.random.Generator,
            data: dict[str, torch.Tensor]) -> None:
    """Clipped PPO epochs over the learner's decisions of one rollout."""
    n = len(data["act"])
    size = max(1, n // ppo.minibatches)
    order = np.arange(n)
    for _ in range(ppo.epochs):
        rng.shuffle(order)
        for lo in range(0, n, size):
            mb = torch.as_tensor(order[lo:lo + size])
            teach = data["teach"][mb] if "teach" in data else None
            _, logp, entropy, value = net(data["obs"][mb], data["mask"][mb], data["act"][mb],
                                          teach)
            ratio = (logp - data["logp"][mb]).exp()
            adv = data["adv"][mb]
            adv = (adv - adv.mean()) / (adv.std() + 1e-8) if len(mb) > 1 else adv
            policy_loss = -torch.min(adv * ratio,
                                     adv * ratio.clamp(1 - ppo.clip, 1 + ppo.clip)).mean()
            value_loss = 0.5 * ((value - data["ret"][mb]) ** 2).mean()
            loss = policy_loss - ppo.ent_coef * entropy.mean() + ppo.vf_coef * value_loss
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(net.parameters(), ppo.max_grad_norm)
            opt.step()


def _learn(env: AllSeatsEnv, net: _Net, opt: torch.optim.Optimizer, ppo: Ppo,
           rng: np.random.Generator, buf: _Rollout, scale: float) -> int:
    """Advantages of one filled rollout, then the update; returns its learner decisions."""
    rows = np.arange(env.num_envs)
    with torch.no_grad():  # every seat's value where the rollout stopped
        last = np.stack([net.value(torch.as_tensor(exploiter_inputs(
            env.engine, rows, np.full(env.num_envs, s), env.observe(s), ppo.history))).numpy()
            for s in range(env.num_players)], axis=1)
    adv = learner_advantages(buf.rew / scale, buf.val, buf.seat, buf.end, buf.mine, last,
                             ppo.gae_lambda)
    rows = buf.mine.reshape(-1)
    flat = lambda a: torch.as_tensor(a.reshape(-1, *a.shape[2:])[rows])  # noqa: E731
    data = {"obs": flat(buf.obs), "mask": flat(buf.mask), "act": flat(buf.act),
            "logp": flat(buf.logp), "adv": flat(adv.astype(np.float32))}
    data["ret"] = data["adv"] + flat(buf.val)
    if buf.teach is not None:
        data["teach"] = flat(buf.teach)
    _update(net, opt, ppo, rng, data)
    return int(rows.sum())


#: the tags of the seeds a run derives from ``--seed``: the training deals, the teacher
#: (an agent's seed) and the validation deals (a deal seed: the same tag, another use)
_TRAINING_DEALS, _TEACHER, _VALIDATION_DEALS = 41, 43, 43


def _derived_seed(seed: int, tag: int) -> int:
    """A seed derived from ``seed`` for one use of the run (the ``_...`` tags above),
    independent of the evaluation's deals and agents (which use ``seed`` itself)."""
    return int(np.random.SeedSequence([seed, tag]).generate_state(1)[0])


def _build_teacher(teacher: str | Policy | None, seed: int, game: str, env: AllSeatsEnv | None
                   ) -> Policy | None:
    """The teacher as a policy (None: none), checked to fit ``env`` when given; an unknown
    spec or an agent of another game is one ``ValueError``."""
    if teacher is None:
        return None
    policy = build_agent(teacher, seed=_derived_seed(seed, _TEACHER), game=game)
    if env is not None:
        check_policy_fits(policy, env.game, env.num_players, env.obs_size, role="teacher")
    return policy


def train_exploiter(frozen: Policy, env: AllSeatsEnv, *, minutes: float | None,
                    decisions: int | None, seat: int | None = None, seed: int = 0,
                    ppo: Ppo | None = None, log: TextIO | None = None,
                    teacher: str | Policy | None = None) -> tuple[_Net, dict[str, Any]]:
    """Train the learner against ``frozen`` on ``env`` until the budget is spent; returns
    the network and what was used (seconds, learner decisions, updates). ``teacher``: the
    learner's policy starts as this agent's moves (their logit plus
    :attr:`Ppo.teacher_bonus`)."""
    ppo = ppo or Ppo()
    teach = _build_teacher(teacher, seed, env.game, env)
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    width = input_size(env, ppo.history)
    net = _Net(width, env.num_actions, ppo.hidden,
               ppo.teacher_bonus if teach is not None else 0.0)
    opt = torch.optim.Adam(net.parameters(), lr=ppo.lr, eps=1e-5)
    mine = _learner_seats(env, seat)
    obs, mask, seat_now, _ = env.reset(seed=_derived_seed(seed, _TRAINING_DEALS))
    warm = env.engine.copy()  # the agents' kernels compiled before the clock starts, on a
    for policy in [frozen] + ([teach] if teach is not None else []):  # copy: the training
        decide(warm, np.arange(env.num_envs), [policy],  # games are untouched
               np.zeros(env.num_envs, dtype=np.int64))
    buf = _Rollout.empty(ppo.steps, env, width, teacher=teach is not None)
    state = [obs, mask, seat_now]
    clock = WallClock(minutes or 0, clock=time.perf_counter)  # 0: no limit
    used, updates, scale = 0, 0, 0.0
    while not clock.over() and (decisions is None or used < decisions):
        spent = clock.elapsed() / (60 * minutes) if minutes else used / (decisions or 1)
        opt.param_groups[0]["lr"] = ppo.lr * max(0.05, 1.0 - spent)
        _collect(env, net, frozen, state, mine, buf, teach, ppo.history)
        paid = buf.rew[buf.rew != 0]
        if not scale and paid.size:  # the rewards' scale, from the first round ends paid
            scale = float(max(1.0, np.abs(paid).mean()))
        used += _learn(env, net, opt, ppo, rng, buf, scale or 1.0)
        updates += 1
        if log is not None and updates % 20 == 0:
            print(f"  {updates} updates, {used:,} learner decisions, "
                  f"{clock.elapsed():.0f} s", file=log, flush=True)
    return net, {"seconds": clock.elapsed(), "decisions": used,
                 "updates": updates, "reward_scale": scale}


@dataclasses.dataclass
class BestResponseResult:
    """A learned best response and its gain against the frozen agent (points per round)."""

    agent: str
    game: str
    players: int
    preset: str | None
    rules: dict[str, Any]
    seat: int | None
    seed: int
    #: the budget asked (``minutes`` or ``decisions``) and what training used
    budget: dict[str, Any]
    used: dict[str, Any]
    exploiter: str
    #: the exploiter's mean point difference per round against the agent, its 95% CI
    gain: float
    ci95: tuple[float, float]
    rounds: int
    evaluation: Any = dataclasses.field(repr=False, default=None)
    settings: dict[str, Any] = dataclasses.field(default_factory=dict)
    date: str | None = None
    #: the agent whose moves the exploiter started from (None: learned from scratch)
    teacher: str | None = None
    #: with a teacher: the trained exploiter and the teacher alone on validation deals,
    #: and which one was kept (:func:`keep_the_better`)
    selection: dict[str, Any] | None = None
    #: ``"ppo"`` (a trained network) or ``"search"`` (:func:`search_best_response`)
    method: str = "ppo"

    def to_json(self) -> dict[str, Any]:
        """The result as plain JSON values (``--json``), with the evaluation's own."""
        d = {"schema": SCHEMA, **{f.name: getattr(self, f.name)
                                  for f in dataclasses.fields(self) if f.name != "evaluation"}}
        d["ci95"] = list(self.ci95)
        d["evaluation"] = self.evaluation.to_json() if self.evaluation is not None else None
        d["library"] = library_info()
        return d

    def summary(self) -> str:
        if self.method == "search":
            return self._search_summary()
        limit = (f"{self.budget['minutes']:g} min" if self.budget.get("minutes")
                 else f"{self.budget['decisions']:,} decisions")
        where = f"{self.game}, {self.players} players" + (
            f", preset {self.preset}" if self.preset else "") + (
            f", the agent at seat {self.seat}'s side only" if self.seat is not None else "")
        lo, hi = self.ci95
        start = ("from scratch" if self.teacher is None else
                 f"from {self.teacher}'s moves (bonus {self.settings.get('teacher_bonus')})")
        return "\n".join([
            f"learned best response to {self.agent} ({where}), {start}",
            f"trained {self.used['seconds'] / 60:.1f} min on {self.used['decisions']:,} learner "
            f"decisions ({self.used['updates']} updates; budget {limit})",
            f"saved {self.exploiter} (play it as {PREFIX}{self.exploiter})",
            *self._selection_lines(),
            f"gain on {self.rounds:,} fresh " + ("duplicate rounds" if self.seat is None else
                                                 f"deals, the agent at seat {self.seat}")
            + f" (seed {self.seed}): "
            f"{self.gain:+.4f} [{lo:+.4f}, {hi:+.4f}] points per round",
            "a lower bound on the agent's exploitability (the exact best response's gain; "
            "with 2 players NashConv / 2, docs/exploitability.md)",
        ])

    def _search_summary(self) -> str:
        lo, hi = self.ci95
        where = f"{self.game}, {self.players} players" + (
            f", preset {self.preset}" if self.preset else "")
        how = ("positions filtered by the agent's plays" if self.settings.get("posterior")
               else "positions dealt uniformly")
        if self.settings.get("continuation"):
            how += f", {self.settings['continuation']} playing its later moves"
        if self.settings.get("margin"):
            how += (f", the continuation's move unless beaten by {self.settings['margin']:g} "
                    "standard errors")
        if self.settings.get("depth", 1) > 1:
            how += f", its next {self.settings['depth']} decisions planned"
        return "\n".join([
            f"search best response to {self.agent} ({where}): "
            f"{self.settings['particles']} positions per candidate action, {how}",
            f"saved {self.exploiter} (play it as {PREFIX}{self.exploiter})",
            f"gain on {self.rounds:,} fresh duplicate rounds (seed {self.seed}): "
            f"{self.gain:+.4f} [{lo:+.4f}, {hi:+.4f}] points per round, "
            f"{self.used['seconds']:.0f} s",
            "a lower bound on the agent's exploitability (the exact best response's gain; "
            "with 2 players NashConv / 2, docs/exploitability.md)",
        ])

    def _selection_lines(self) -> list[str]:
        """What the validation deals chose, with a teacher (none without one)."""
        c = self.selection
        if not c:
            return []
        kept = ("the trained network" if c["kept"] == "trained"
                else f"{self.teacher}'s moves alone (training did not beat them)")
        return [f"kept {kept}: on {c['rounds']:,} validation rounds the trained exploiter "
                f"gained {c['trained']:+.4f}, {self.teacher} alone {c['teacher']:+.4f}"]


def default_save_path(agent: str, game: str) -> Path:
    """``runs/best_response/<agent>_<game>.npz``, the agent's spec made a file name."""
    return Path("runs") / "best_response" / f"{file_stem(agent)}_{game}.npz"


def seat_gain(exploiter: str, agent: str | Policy, *, game: str, sides: np.ndarray, seat: int,
              rounds: int, seed: int, batch: int = 4096, preset: str | None = None,
              **rules: Any) -> tuple[float, tuple[float, float], int]:
    """The exploiter's mean point difference per round against ``agent`` at seat
    ``seat``'s side (the exploiter at every other seat; the mean of its sides minus the
    agent's), each of ``rounds`` fresh deals of ``seed`` played once (deal ``g`` as in
    :func:`agents.evaluation.match.evaluate`), with its 95% interval over the deals:
    ``(gain, ci95, rounds)``."""
    players = len(sides)
    flags = setup(game, players, preset, dict(rules)).engine_flags
    seeds = derived_seeds(seed)
    policies = [build_agent(exploiter, seed=seeds[0], game=game),
                build_agent(agent, seed=seeds[1], game=game)]
    ours = sides != sides[seat]
    side_ours = np.zeros(int(sides.max()) + 1, dtype=bool)
    side_ours[sides[ours]] = True
    diffs = []
    for lo in range(0, rounds, batch):
        n = min(batch, rounds - lo)
        eng = duplicate_engine(n, 1, seed=seed, offset=lo, episode="round", game=game, **flags)
        out = np.zeros(n)

        def book(games: np.ndarray, info: Any, out: np.ndarray = out) -> None:
            rows = np.flatnonzero(info.round_end)
            pts = info.round_points[rows].astype(np.float64)
            out[games[rows]] = pts[:, side_ours].mean(1) - pts[:, ~side_ours].mean(1)

        play(eng, policies, np.where(ours, 0, 1)[None, :].repeat(n, axis=0), on_step=book)
        diffs.append(out)
    mean, _, ci = mean_ci(np.concatenate(diffs))
    return mean, ci, rounds


def check_budget(minutes: float | None, decisions: int | None) -> tuple[float | None, int | None]:
    """The training budget: minutes or decisions, not both, positive (default: minutes
    :data:`DEFAULT_MINUTES`); ``ValueError`` in the command's words otherwise."""
    if minutes is not None and decisions is not None:
        raise ValueError("give the budget as --minutes or --decisions, not both")
    if minutes is None and decisions is None:
        return DEFAULT_MINUTES, None
    if minutes is not None:
        if isinstance(minutes, bool) or not isinstance(minutes, (int, float)) \
                or not np.isfinite(minutes) or minutes <= 0:
            raise ValueError(f"--minutes must be a positive number, got {minutes!r}")
        return float(minutes), None
    if isinstance(decisions, bool) or not isinstance(decisions, (int, np.integer)) \
            or decisions < 1:
        raise ValueError(f"--decisions must be a positive integer, got {decisions!r}")
    return None, int(decisions)


def best_response(agent: str | Policy, *, game: str = "pasur", players: int | None = None,
                  seat: int | None = None, preset: str | None = None,
                  minutes: float | None = None, decisions: int | None = None,
                  rounds: int = 2000, seed: int = 0, save: str | Path | None = None,
                  address: str | None = None, batch: int = 4096, progress: bool = False,
                  ppo: Ppo | None = None, teacher: str | Policy | None = None,
                  **rules: Any) -> BestResponseResult:
    """Train an exploiter of the frozen ``agent`` (a spec), save it and measure its gain
    on ``rounds`` fresh duplicate rounds of ``seed`` (module docstring). ``address``:
    the evaluation on Ray (``local``, ``local:N``, ``auto``, ``HOST:PORT``); ``teacher``:
    an agent whose moves the exploiter starts from (default none: from scratch)."""
    minutes, decisions = check_budget(minutes, decisions)
    if address is not None:
        if seat is not None:
            raise ValueError("--address plays the duplicate evaluation of every seat; with "
                             "--seat the exploiter is evaluated here")
        from agents.evaluation.distributed import import_ray, parse_address

        parse_address(address)  # a bad address or a missing Ray: said before training
        import_ray("pasur best-response --address")
    if seat is not None:  # before anything compiles
        _check_seat(seat, players if players is not None else game_info(game).players[0])
    ppo = ppo or Ppo()
    frozen = build_agent(agent, seed=seed, game=game)  # an unknown spec fails before compiling
    teach = _build_teacher(teacher, seed, game, None)
    options = {"preset": preset} if preset is not None else {}
    env = AllSeatsEnv(game, num_envs=ppo.envs, players=players, reward="diff",
                      episode="round", **options, **rules)
    check_policy_fits(frozen, env.game, env.num_players, env.obs_size,
                      role="agent to exploit")
    input_size(env, ppo.history)  # --history on a game without one: said before training
    log = sys.stderr if progress else None
    with one_thread_each():
        net, used = train_exploiter(frozen, env, minutes=minutes, decisions=decisions,
                                    seat=seat, seed=seed, ppo=ppo, log=log, teacher=teach)
    path = Path(save) if save is not None else default_save_path(agent_label(agent), env.game)
    header = {"game": env.game, "players": env.num_players, "observation_size": env.obs_size,
              "num_actions": env.num_actions, "agent": agent_label(agent), "preset": preset,
              "rules": rules, "seat": seat, "seed": seed, "used": used,
              "settings": dataclasses.asdict(ppo), "history": ppo.history, "date": utc_now()}
    if teacher is not None:  # the exploiter plays with the teacher (agents.learned.exploiter)
        header.update(teacher=agent_label(teacher), teacher_bonus=ppo.teacher_bonus)
    save_exploiter(path, net.layers(), header)
    spec = f"{PREFIX}{path.resolve()}"
    selection = None
    if teach is not None and ppo.select_rounds > 0:
        selection = keep_the_better(spec, teacher, agent, path, net.layers(), header,
                                    rounds=ppo.select_rounds, seed=seed, batch=batch,
                                    game=env.game, players=env.num_players, seat=seat,
                                    sides=env.sides, preset=preset, **rules)
    gain, ci, played, res = measure_gain(
        spec, agent, seat=seat, sides=env.sides, rounds=rounds, seed=seed, batch=batch,
        game=env.game, players=env.num_players, preset=preset, address=address,
        progress=progress, **rules)
    return BestResponseResult(
        agent_label(agent), env.game, env.num_players, preset, dict(rules), seat, seed,
        {"minutes": minutes, "decisions": decisions}, used, str(path), gain, ci, played, res,
        dataclasses.asdict(ppo), utc_now(), agent_label(teacher) if teacher is not None else None,
        selection)


def search_best_response(agent: str, *, game: str = "pasur", players: int | None = None,
                         preset: str | None = None, particles: int = DEFAULT_PARTICLES,
                         posterior: bool = True, continuation: str | None = None,
                         margin: float = 0.0, depth: int = 1,
                         rounds: int = 2000, seed: int = 0,
                         save: str | Path | None = None, address: str | None = None,
                         batch: int = 512, progress: bool = False,
                         **rules: Any) -> BestResponseResult:
    """The search best response to ``agent`` (:mod:`agents.core.search_br`: nothing is
    trained), saved as a ``.json`` exploiter and measured as :func:`best_response`
    measures a learned one, on ``rounds`` fresh duplicate rounds of ``seed``.
    ``continuation``: the spec of who plays the exploiter's later moves in the rollouts
    (default: the agent); ``margin``: its own move is played unless the search's best
    beats it by more than this many standard errors (0: the search's best); ``depth``:
    the exploiter's own decisions it plans over information sets (1: this one)."""
    spec = setup(game, players, preset, dict(rules))
    for who, role in ((agent, "agent to exploit"), (continuation, "continuation")):
        if who is not None:  # an unknown spec or another game's agent fails here
            check_policy_fits(build_agent(who, seed=seed, game=spec.game), spec.game,
                              spec.players, None, role=role)
    path = Path(save) if save is not None else default_save_path(
        agent_label(agent), spec.game).with_suffix(".json")
    settings = {"particles": check_search_budget(particles, "--particles"),
                "posterior": bool(posterior), "continuation": continuation,
                "margin": check_margin(margin, "--margin"),
                "depth": check_search_budget(depth, "--depth")}
    save_search_exploiter(path, {
        "game": spec.game, "players": spec.players, "agent": agent_label(agent),
        "preset": preset, "rules": rules, "seed": seed, "date": utc_now(), **settings})
    t0 = time.perf_counter()
    gain, ci, played, res = measure_gain(  # duplicate deals: no seat, so no sides needed
        f"{PREFIX}{path.resolve()}", agent, seat=None, sides=np.zeros(0, dtype=np.int64),
        rounds=rounds, seed=seed,
        batch=batch, game=spec.game, players=spec.players, preset=preset, address=address,
        progress=progress, **rules)
    used = {"seconds": time.perf_counter() - t0, "decisions": 0}  # no training decision
    return BestResponseResult(
        agent_label(agent), spec.game, spec.players, preset, dict(rules), None, seed,
        {"particles": settings["particles"]}, used, str(path), gain, ci, played, res,
        settings, utc_now(), method="search")


def validation_seed(seed: int) -> int:
    """The deals that choose between the trained exploiter and its teacher: derived from
    ``seed``, neither the training's nor the evaluation's."""
    return _derived_seed(seed, _VALIDATION_DEALS)


def keep_the_better(spec: str, teacher: str | Policy, agent: str | Policy, path: Path,
                    layers: list[tuple[np.ndarray, np.ndarray]], header: dict[str, Any], *,
                    rounds: int, seed: int, batch: int, game: str, players: int,
                    seat: int | None, sides: np.ndarray, preset: str | None,
                    **rules: Any) -> dict[str, Any]:
    """Play the trained exploiter ``spec`` and its teacher alone against ``agent`` on
    ``rounds`` validation deals (:func:`validation_seed`); when the teacher does at least
    as well, the file at ``path`` is saved again with the network's last layer zeroed, so
    the exploiter plays exactly the teacher's moves. Training can lose to its start
    (a short budget, noisy advantages): the bound then stays the teacher's, and the
    choice is made on deals the final evaluation never sees. Returns both gains and
    the choice."""
    val = validation_seed(seed)
    trained, alone = (measure_gain(who, agent, seat=seat, sides=sides, rounds=rounds, seed=val,
                                   batch=batch, game=game, players=players, preset=preset,
                                   **rules)[0] for who in (spec, teacher))
    kept = "trained" if trained > alone else "teacher"
    choice = {"rounds": rounds, "seed": val, "trained": trained, "teacher": alone,
              "kept": kept}
    if kept == "teacher":
        *body, (w, b) = layers
        save_exploiter(path, [*body, (np.zeros_like(w), np.zeros_like(b))],
                       {**header, "selection": choice})
    return choice


def measure_gain(who: str | Policy, agent: str | Policy, *, seat: int | None,
                 sides: np.ndarray, rounds: int, seed: int, batch: int, game: str,
                 players: int, preset: str | None, address: str | None = None,
                 progress: bool = False, **rules: Any
                 ) -> tuple[float, tuple[float, float], int, Any]:
    """``who``'s mean point difference per round against ``agent`` on ``rounds`` deals of
    ``seed``: ``(gain, ci95, rounds, evaluation)``. Duplicate deals (the evaluation's
    result, here or on Ray with ``address``), or with ``seat`` the agent at that seat's
    side only (:func:`seat_gain`; no evaluation result)."""
    if seat is not None:
        return (*seat_gain(who, agent, game=game, sides=sides, seat=seat, rounds=rounds,
                           seed=seed, batch=batch, preset=preset, **rules), None)
    kwargs = dict(rounds=rounds, players=players, seed=seed, batch=batch, progress=progress,
                  preset=preset, game=game, **rules)
    if address is None:
        res = evaluate(who, agent, **kwargs)
    else:
        from agents.evaluation import distributed as ray

        with ray.ray_session(*ray.parse_address(address)):
            res = ray.evaluate_on_ray(who, agent, shard_rounds=ray.SHARD_ROUNDS, **kwargs)
    return res.mean_point_diff, tuple(res.ci95), res.rounds, res


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m train.best_response ...``: the ``pasur best-response`` command."""
    from agents.apps.cli import main as pasur

    return pasur(["best-response", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
