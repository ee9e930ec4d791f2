"""Masked PPO with self-play on the all-seats env, in plain torch (CleanRL style), both games.

One network plays every seat of ``num_envs`` games (``pasur_env.AllSeatsEnv``): each
step it answers for the seat to move in every game, illegal actions masked out of its
logits. A decision's reward is what its seat earns until that seat's next decision
(a round can end on another seat's move, and every seat is paid then), and the
advantages (GAE) run along each seat's own chain of decisions in each game. Every
``eval_every`` updates the greedy policy plays ``eval_games`` games against uniformly
random play (the learner's side alternates between games), and the learner side's
mean reward per round is printed.

    pip install -e ".[train]"                                # torch, tyro
    python examples/ppo_selfplay.py --game pasur --total-timesteps 2000000
    python examples/ppo_selfplay.py --game persian_rummy --help
"""

import time
from dataclasses import dataclass

import numpy as np
import torch
import tyro
from torch import nn

from pasur_env import AllSeatsEnv


@dataclass
class Args:
    game: str = "pasur"
    """the game: pasur or persian_rummy"""
    seed: int = 1
    """seed of the deals, the network's initial weights and the action sampling"""
    reward: str = "diff"
    """what a seat is paid at round ends: diff (its side's points minus the others'),
    points or win"""
    episode: str = "round"
    """an episode is one round (round) or a whole game (game)"""
    total_timesteps: int = 500_000
    """decisions to train on (all seats of all games count)"""
    num_envs: int = 64
    """games stepped together by the all-seats env"""
    num_steps: int = 64
    """steps of every game per rollout (a rollout holds num_envs * num_steps decisions)"""
    learning_rate: float = 3e-4
    """Adam's step size"""
    anneal_lr: bool = True
    """decrease the step size linearly to 0 over the run"""
    gamma: float = 1.0
    """discount per decision of a seat (1: the round's points count whenever they come)"""
    gae_lambda: float = 0.95
    """lambda of the generalized advantage estimate"""
    num_minibatches: int = 4
    """minibatches per epoch of an update"""
    update_epochs: int = 4
    """passes over a rollout per update"""
    clip_coef: float = 0.2
    """PPO's clipping of the probability ratio (and of the value change)"""
    ent_coef: float = 0.01
    """weight of the entropy bonus"""
    vf_coef: float = 0.5
    """weight of the value loss"""
    max_grad_norm: float = 0.5
    """the gradients' norm is clipped to this"""
    target_kl: float | None = None
    """stop an update's epochs early once the approximate KL exceeds this (None: never)"""
    hidden: int = 256
    """width of the network's two hidden layers"""
    eval_every: int = 20
    """updates between evaluations against random play (0: only at the end)"""
    eval_games: int = 256
    """games of each evaluation (num_envs of them at once)"""
    eval_rounds: int = 2
    """rounds each evaluation game plays"""
    time_limit: float | None = None
    """stop training after this many seconds (None: after total_timesteps)"""
    torch_threads: int = 1
    """torch's CPU threads (1 is fastest for small networks on small machines)"""


class Agent(nn.Module):
    """An MLP with a policy head (logits over the actions) and a value head."""

    def __init__(self, obs_size: int, num_actions: int, hidden: int):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs_size, hidden), nn.Tanh(),
                                  nn.Linear(hidden, hidden), nn.Tanh())
        self.actor = nn.Linear(hidden, num_actions)
        self.critic = nn.Linear(hidden, 1)
        nn.init.orthogonal_(self.actor.weight, 0.01)
        nn.init.zeros_(self.actor.bias)

    def value(self, obs):
        return self.critic(self.body(obs)).squeeze(-1)

    def act(self, obs, mask, action=None, greedy=False):
        """(action, its log-probability, the entropy, the value): illegal actions get
        probability 0 (their logits are set to the float minimum)."""
        h = self.body(obs)
        logits = self.actor(h).masked_fill(~mask, torch.finfo(torch.float32).min)
        dist = torch.distributions.Categorical(logits=logits)
        if action is None:
            action = logits.argmax(-1) if greedy else dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.critic(h).squeeze(-1)


def seat_advantages(rewards, values, seats, ended, last_values, gamma, lam):
    """GAE along each seat's own decisions in each game.

    ``rewards`` (T, B, P): every seat's reward at each step; ``values`` (T, B): the
    value of the decision taken at each step (for its seat ``seats`` (T, B));
    ``ended`` (T, B): the game's episode ended with that step (the next row is a new
    game); ``last_values`` (B, P): each seat's value after the rollout (bootstrap).
    A decision earns its seat's rewards from its step until the seat's next decision.
    """
    T, B, P = rewards.shape
    games = np.arange(B)
    next_value = last_values.copy()  # per (game, seat): value of the seat's next decision
    next_adv = np.zeros((B, P))
    alive = np.ones((B, P))  # 0 where the seat's next decision is in another episode
    earned = np.zeros((B, P))  # rewards since the step being looked at, per seat
    adv = np.zeros((T, B))
    for t in reversed(range(T)):
        done = ended[t]
        next_value[done], next_adv[done], alive[done], earned[done] = 0.0, 0.0, 0.0, 0.0
        earned += rewards[t]
        s = seats[t]
        delta = earned[games, s] + gamma * alive[games, s] * next_value[games, s] - values[t]
        adv[t] = delta + gamma * lam * alive[games, s] * next_adv[games, s]
        next_value[games, s], next_adv[games, s] = values[t], adv[t]
        alive[games, s], earned[games, s] = 1.0, 0.0
    return adv


def evaluate(agent, args, seed):
    """The greedy policy against uniformly random play: the learner side's mean reward
    per round over ``eval_games`` games of ``eval_rounds`` rounds (game i: the learner
    plays side i mod the number of sides)."""
    env = AllSeatsEnv(args.game, num_envs=args.num_envs, reward=args.reward, episode="round")
    rng = np.random.default_rng(seed)
    total, rounds = 0.0, 0
    for start in range(0, args.eval_games, args.num_envs):
        obs, mask, seat, _ = env.reset(seed=seed + start)
        learner_side = (start + np.arange(env.num_envs)) % env.num_sides
        mine = env.sides[None, :] == learner_side[:, None]  # (B, P): the learner's seats
        played = np.zeros(env.num_envs, dtype=np.int64)
        scored = start + np.arange(env.num_envs) < args.eval_games  # the last batch's extra
        while (played[scored] < args.eval_rounds).any():
            with torch.no_grad():
                greedy = agent.act(torch.as_tensor(obs), torch.as_tensor(mask), greedy=True)[0]
            counts = mask.sum(1)
            pick = (rng.random(len(mask)) * counts).astype(np.int64)
            randoms = (mask.cumsum(1) <= pick[:, None]).sum(1)
            learner_moves = mine[np.arange(env.num_envs), seat]
            actions = np.where(learner_moves, greedy.numpy(), randoms)
            obs, mask, seat, rewards, terminated, truncated, _ = env.step(actions)
            counting = (played < args.eval_rounds) & scored  # the others play on unscored
            side_reward = (rewards * mine).sum(1) / mine.sum(1)
            total += float(side_reward[counting].sum())
            played += (terminated | truncated) & counting
        rounds += int(min(args.num_envs, args.eval_games - start) * args.eval_rounds)
    return total / max(rounds, 1)


def ppo_update(agent, optimizer, args: Args, rng, b_obs, b_mask, b_act, b_logp, b_val,
               advantages, returns):
    """Clipped PPO epochs over one flattened rollout; the last minibatch's entropy and
    approximate KL (for the log line)."""
    batch_size = len(b_act)
    minibatch_size = batch_size // args.num_minibatches
    order = np.arange(batch_size)
    for _epoch in range(args.update_epochs):
        rng.shuffle(order)
        for lo in range(0, batch_size, minibatch_size):
            mb = torch.as_tensor(order[lo:lo + minibatch_size])
            _, new_logp, entropy, new_val = agent.act(b_obs[mb], b_mask[mb], b_act[mb])
            log_ratio = new_logp - b_logp[mb]
            ratio = log_ratio.exp()
            with torch.no_grad():
                approx_kl = ((ratio - 1) - log_ratio).mean()
            mb_adv = advantages[mb]
            mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
            pg_loss = torch.max(-mb_adv * ratio, -mb_adv * ratio.clamp(
                1 - args.clip_coef, 1 + args.clip_coef)).mean()
            v_clipped = b_val[mb] + (new_val - b_val[mb]).clamp(-args.clip_coef,
                                                                 args.clip_coef)
            v_loss = 0.5 * torch.max((new_val - returns[mb]) ** 2,
                                     (v_clipped - returns[mb]) ** 2).mean()
            loss = pg_loss - args.ent_coef * entropy.mean() + args.vf_coef * v_loss
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
            optimizer.step()
        if args.target_kl is not None and approx_kl > args.target_kl:
            break
    return entropy, approx_kl


def main(args: Args):
    torch.set_num_threads(args.torch_threads)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    env = AllSeatsEnv(args.game, num_envs=args.num_envs, reward=args.reward,
                      episode=args.episode)
    B, T, P = args.num_envs, args.num_steps, env.num_players
    agent = Agent(env.obs_size, env.num_actions, args.hidden)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)
    batch_size = B * T
    num_updates = max(1, args.total_timesteps // batch_size)

    # the rollout buffers: one row per step, one column per game
    obs_buf = torch.zeros((T, B, env.obs_size))
    mask_buf = torch.zeros((T, B, env.num_actions), dtype=torch.bool)
    act_buf = torch.zeros((T, B), dtype=torch.long)
    logp_buf = torch.zeros((T, B))
    val_buf = torch.zeros((T, B))
    seat_buf = np.zeros((T, B), dtype=np.int64)
    rew_buf = np.zeros((T, B, P), dtype=np.float32)
    end_buf = np.zeros((T, B), dtype=bool)

    obs, mask, seat, _ = env.reset(seed=args.seed)
    start, curve = time.time(), []
    for update in range(1, num_updates + 1):
        if args.anneal_lr:
            optimizer.param_groups[0]["lr"] = args.learning_rate * (
                1.0 - (update - 1.0) / num_updates)
        for t in range(T):  # rollout: the one network answers for every game's mover
            obs_buf[t], mask_buf[t], seat_buf[t] = torch.as_tensor(obs), torch.as_tensor(mask), seat
            with torch.no_grad():
                action, logp, _, value = agent.act(obs_buf[t], mask_buf[t])
            act_buf[t], logp_buf[t], val_buf[t] = action, logp, value
            obs, mask, seat, rewards, terminated, truncated, _ = env.step(action.numpy())
            rew_buf[t], end_buf[t] = rewards, terminated | truncated
        with torch.no_grad():  # each seat's value of where the rollout stopped
            last = torch.stack([agent.value(torch.as_tensor(env.observe(s)))
                                for s in range(P)], dim=1).numpy()
        adv = seat_advantages(rew_buf, val_buf.numpy(), seat_buf, end_buf, last,
                              args.gamma, args.gae_lambda)
        advantages = torch.as_tensor(adv, dtype=torch.float32).reshape(-1)
        returns = advantages + val_buf.reshape(-1)

        # the PPO update, on the flattened rollout
        entropy, approx_kl = ppo_update(
            agent, optimizer, args, rng, obs_buf.reshape(batch_size, -1),
            mask_buf.reshape(batch_size, -1), act_buf.reshape(-1), logp_buf.reshape(-1),
            val_buf.reshape(-1), advantages, returns)

        steps, elapsed = update * batch_size, time.time() - start
        out_of_time = args.time_limit is not None and elapsed > args.time_limit
        last_update = update == num_updates or out_of_time
        if (args.eval_every and update % args.eval_every == 0) or last_update:
            score = evaluate(agent, args, seed=10_000)
            curve.append((steps, elapsed, score))
            print(f"update {update}/{num_updates}  decisions {steps}  {steps / elapsed:,.0f}/s  "
                  f"entropy {entropy.mean().item():.3f}  kl {approx_kl.item():.4f}  "
                  f"vs random: {score:+.3f} per round", flush=True)
        if out_of_time:
            break
    return agent, curve


if __name__ == "__main__":
    main(tyro.cli(Args))
