"""Self-play on the all-seats env: one policy plays every seat of B games at once.

The loop a self-play learner runs (docs/multi_agent.md, "All seats at once"): each
step hands out every game's current seat, its observation and its legal mask; one
batched policy call answers for all of them; every seat's reward comes back as a
(B, P) array. Here the policy is uniformly random over the legal actions, and the loop
books what a learner would need: each seat's return over each finished game.

    python examples/selfplay_random.py --game persian_rummy --num-envs 64 --steps 2000
"""

import argparse

import numpy as np

from pasur_env import AllSeatsEnv


def random_policy(obs, mask, seat, rng):
    """One legal action per game, uniformly at random: (B,) ints. A learned policy takes
    the same arguments (``obs`` (B, N) from the view of ``seat`` (B,), ``mask`` (B, A))."""
    counts = mask.sum(axis=1)
    pick = (rng.random(len(mask)) * counts).astype(np.int64)  # the pick-th legal action
    return (mask.cumsum(axis=1) <= pick[:, None]).sum(axis=1)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="pasur", choices=["pasur", "persian_rummy"])
    ap.add_argument("--num-envs", type=int, default=32)
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)

    env = AllSeatsEnv(args.game, num_envs=args.num_envs, reward="diff", episode="round")
    rng = np.random.default_rng(args.seed)
    obs, mask, seat, _ = env.reset(seed=args.seed)
    running = np.zeros((env.num_envs, env.num_players))  # each seat's return so far
    finished = []  # the per-seat returns of every game that ended
    decisions = np.zeros(env.num_players, dtype=np.int64)
    for _ in range(args.steps):
        actions = random_policy(obs, mask, seat, rng)
        decisions += np.bincount(seat, minlength=env.num_players)
        # a learner stores (obs, mask, actions) here under each game's seat, and adds
        # rewards[g, s] to seat s's latest transition in game g: a round may end on
        # another seat's move, and every seat is paid at that step
        obs, mask, seat, rewards, terminated, truncated, info = env.step(actions)
        running += rewards
        ended = terminated | truncated  # obs/mask/seat of these rows are already a new game
        finished.extend(running[ended].tolist())
        running[ended] = 0.0
    returns = np.array(finished).reshape(-1, env.num_players)
    print(f"{env}: {args.steps} steps, {decisions.sum()} decisions "
          f"(per seat {decisions.tolist()}), {len(returns)} episodes ended")
    if len(returns):
        print("mean return per seat:", np.round(returns.mean(axis=0), 3).tolist())
    return returns


if __name__ == "__main__":
    main()
