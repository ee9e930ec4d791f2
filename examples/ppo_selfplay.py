"""Masked PPO with self-play on the all-seats env, in plain torch (CleanRL style), both games.

One network plays every seat of ``num_envs`` games (``pasur_env.AllSeatsEnv``): each
step it answers for the seat to move in every game, illegal actions masked out of its
logits. A decision's reward is what its seat earns until that seat's next decision
(a round can end on another seat's move, and every seat is paid then), and the
advantages (GAE) run along each seat's own chain of decisions in each game; with
``shaping`` each seat is also paid its side's points as they are won (a potential, so a
round's total is unchanged). Every ``eval_every`` updates the greedy policy plays
``eval_rounds`` duplicate rounds against each of ``eval_opponents`` with the project's
public training utilities (``train.common.tracking.DuplicateEvaluation``: the same deals
every time, 95% intervals, ``evals.csv`` and TensorBoard in ``log_dir``); at the end the
network is saved and the learning curve drawn (``evals.png``). Play the saved network
with any command through ``SelfPlayPPO`` (below)::

    pip install -e ".[train]"                                # torch, tyro
    python examples/ppo_selfplay.py --game pasur --time-limit 1200 --log-dir runs/pasur
    pasur eval ./examples/ppo_selfplay.py:SelfPlayPPO:weights=runs/pasur/model.pt greedy
    python examples/ppo_selfplay.py --game persian_rummy --help
"""

import functools
import time
from dataclasses import dataclass

import numpy as np
import torch
import tyro
from torch import nn

import agents
from pasur_env import AllSeatsEnv
from train.common.plots import plot_learning_curve
from train.common.tracking import BatchPolicy, DuplicateEvaluation


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
    total_timesteps: int = 20_000_000
    """decisions to train on (all seats of all games count)"""
    num_envs: int = 512
    """games stepped together by the all-seats env"""
    num_steps: int = 32
    """steps of every game per rollout (a rollout holds num_envs * num_steps decisions)"""
    learning_rate: float = 1e-3
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
    clip_vloss: bool = False
    """clip the value change as the ratio is clipped (CleanRL's default; off here: the
    returns are points, far larger than clip_coef, and clipping stalls the critic)"""
    vf_coef: float = 0.5
    """weight of the value loss"""
    max_grad_norm: float = 0.5
    """the gradients' norm is clipped to this"""
    target_kl: float | None = None
    """stop an update's epochs early once the approximate KL exceeds this (None: never)"""
    hidden: int = 256
    """width of the network's two hidden layers"""
    eval_every: int = 80
    """updates between duplicate-deal evaluations (0: only at the end)"""
    eval_opponents: str = "random,greedy"
    """the built-in agents the greedy policy is evaluated against"""
    eval_rounds: int = 200
    """rounds of each evaluation (duplicate deals: both seatings of every deal; the same
    deals every time)"""
    log_dir: str = "runs/ppo_selfplay"
    """where evals.csv, the TensorBoard logs (tb/) and the learning curve (evals.png) go"""
    time_limit: float | None = None
    """stop training after this many seconds (None: after total_timesteps)"""
    torch_threads: int | None = None
    """torch's CPU threads (None: torch's default, one per core; on 2 cores that trains
    twice as fast as 1)"""
    shaping: bool = True
    """pay each side's points as they are won (potential-based shaping: the change of
    each side's points so far; a round's total return is unchanged)"""
    save_path: str | None = None
    """write the trained network here (default: log_dir/model.pt; load it with
    ``SelfPlayPPO``, below)"""


def _bits(masks: np.ndarray, num_cards: int) -> np.ndarray:
    """(..., num_cards) 0/1 matrix of the card masks' bits."""
    return (masks[..., None] >> np.arange(num_cards)) & 1


@functools.cache
def _values(value_of_mask, num_cards: int) -> np.ndarray:
    """Each card's value by itself, computed once (not at every step)."""
    return np.array([value_of_mask(1 << c) for c in range(num_cards)], dtype=np.float64)


def pasur_points(env: AllSeatsEnv) -> np.ndarray:
    """Each side's points won so far in the current round, (B, sides): the card points of
    its pile, its surs, and its clubs' share of the clubs' points (the majority itself is
    decided at the round's end)."""
    from pasur_env.pasur.kernels import score
    from pasur_env.pasur.kernels import state as K
    st, sides, rules = env.engine.state, env.num_sides, env.engine.rules
    values = _values(score.card_points, 52) + (K.CLUB_BITS >> np.arange(52) & 1) * (
        rules.clubs_points / 13)
    piles = _bits(st[:, K.PILE:K.PILE + sides], 52) @ values
    return piles + rules.sur_points * st[:, K.SURS:K.SURS + sides]


def rummy_points(env: AllSeatsEnv) -> np.ndarray:
    """Each team's round points if the round ended now, (B, 2): the values it laid
    plus its bonuses minus the values left in its hands."""
    from pasur_env.rummy.kernels import melds
    from pasur_env.rummy.kernels import state as K
    st = env.engine.state
    values = _values(melds.mask_value, K.NUM_CARDS)
    hands = st[:, K.HAND:K.HAND + 2] | st[:, K.HAND + 2:K.HAND + 4]
    laid = _bits(st[:, K.CREDIT:K.CREDIT + 2], K.NUM_CARDS) @ values
    return laid + st[:, K.BONUS:K.BONUS + 2] - _bits(hands, K.NUM_CARDS) @ values


#: each game's points so far, for the shaping (a user's own game adds its function)
POINTS_SO_FAR = {"pasur": pasur_points, "persian_rummy": rummy_points}


def seat_potential(env: AllSeatsEnv, points) -> np.ndarray:
    """(B, P) each seat's shaping potential: its side's points so far, minus the mean
    of the other sides' with ``reward="diff"`` (0 everywhere with ``reward="win"``)."""
    pts = points(env).astype(np.float32)
    if env.reward_mode == "win":
        return np.zeros((env.num_envs, env.num_players), dtype=np.float32)
    if env.reward_mode == "diff":
        pts = pts - (pts.sum(1, keepdims=True) - pts) / (env.num_sides - 1)
    return pts[:, env.sides]


def shape(rewards: np.ndarray, before: np.ndarray, after: np.ndarray,
          ended: np.ndarray) -> np.ndarray:
    """Shaped rewards (B, P): the step's rewards plus the potential after it (0 where the
    episode ended: the next row is a new game) minus the potential before it. Summed
    over an episode they give its rewards minus the potential it started from."""
    return rewards + after * ~ended[:, None] - before


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


class SelfPlayPPO(agents.Agent):
    """A trained network as an agent of every command: the greedy (most probable) legal
    action. ``pasur eval ./ppo_selfplay.py:SelfPlayPPO:weights=pasur.pt greedy``."""

    name, needs_observation = "ppo-selfplay", True

    def __init__(self, weights: str):
        saved = torch.load(weights, weights_only=True)
        self.game_ids, self.player_counts = (saved["game"],), (saved["players"],)
        size, actions = saved["state_dict"]["body.0.weight"].shape[1], saved[
            "state_dict"]["actor.weight"].shape[0]
        self.observation_size = size
        self.net = Agent(size, actions, saved["hidden"])
        self.net.load_state_dict(saved["state_dict"])

    def act(self, obs, mask, view):
        with torch.no_grad():
            return self.net.act(torch.as_tensor(obs), torch.as_tensor(mask), greedy=True)[
                0].numpy()


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
            v_loss = (new_val - returns[mb]) ** 2
            if args.clip_vloss:
                v_clipped = b_val[mb] + (new_val - b_val[mb]).clamp(-args.clip_coef,
                                                                     args.clip_coef)
                v_loss = torch.max(v_loss, (v_clipped - returns[mb]) ** 2)
            v_loss = 0.5 * v_loss.mean()
            loss = pg_loss - args.ent_coef * entropy.mean() + args.vf_coef * v_loss
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
            optimizer.step()
        if args.target_kl is not None and approx_kl > args.target_kl:
            break
    return entropy, approx_kl


def annealed_lr(args: Args, update: int, num_updates: int, start: float) -> float:
    """The learning rate decreased linearly to 0 over the updates, or over the time limit
    when there is one and it runs out first."""
    done = (update - 1.0) / num_updates
    if args.time_limit is not None:
        done = max(done, (time.time() - start) / args.time_limit)
    return args.learning_rate * max(1.0 - done, 0.0)


def main(args: Args):
    if args.torch_threads is not None:
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

    evaluation = DuplicateEvaluation(args.eval_opponents, game=args.game, rounds=args.eval_rounds,
                                     seed=10_000, every=0, log_dir=args.log_dir,
                                     players=env.num_players)
    greedy_policy = BatchPolicy(lambda o, m: agent.act(torch.as_tensor(o), torch.as_tensor(m),
                                                       greedy=True)[0], name="ppo-selfplay")
    obs, mask, seat, _ = env.reset(seed=args.seed)
    points = POINTS_SO_FAR[args.game] if args.shaping else None
    potential = seat_potential(env, points) if args.shaping else None
    start, curve = time.time(), []
    for update in range(1, num_updates + 1):
        if args.anneal_lr:
            optimizer.param_groups[0]["lr"] = annealed_lr(args, update, num_updates, start)
        for t in range(T):  # rollout: the one network answers for every game's mover
            obs_buf[t], mask_buf[t], seat_buf[t] = torch.as_tensor(obs), torch.as_tensor(mask), seat
            with torch.no_grad():
                action, logp, _, value = agent.act(obs_buf[t], mask_buf[t])
            act_buf[t], logp_buf[t], val_buf[t] = action, logp, value
            obs, mask, seat, rewards, terminated, truncated, _ = env.step(action.numpy())
            end_buf[t] = terminated | truncated
            if args.shaping:
                before, potential = potential, seat_potential(env, points)
                rewards = shape(rewards, before, potential, end_buf[t])
            rew_buf[t] = rewards
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
            with torch.no_grad():
                results = evaluation.evaluate(steps, greedy_policy)
            curve.append((steps, elapsed, [r.mean_point_diff for r in results]))
            scores = "  ".join(f"vs {r.b}: {r.mean_point_diff:+.3f} [{r.ci95[0]:+.2f}, "
                               f"{r.ci95[1]:+.2f}]" for r in results)
            print(f"update {update}/{num_updates}  decisions {steps}  {steps / elapsed:,.0f}/s  "
                  f"entropy {entropy.mean().item():.3f}  kl {approx_kl.item():.4f}  {scores}",
                  flush=True)
        if out_of_time:
            break
    torch.save({"state_dict": agent.state_dict(), "game": args.game,
                "players": env.num_players, "hidden": args.hidden},
               args.save_path or f"{args.log_dir}/model.pt")
    evaluation.close()
    plot_learning_curve(evaluation.csv_path, xlabel="decisions (all seats)")
    return agent, curve


if __name__ == "__main__":
    main(tyro.cli(Args))
