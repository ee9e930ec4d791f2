"""PettingZoo AEC loop throughput: pasur_v0 against PettingZoo classic references.

Every env is driven by the same loop (the one in PettingZoo's docs), with uniformly
random legal actions drawn from the action mask, through the standard wrappers
(`env()`), measured in the same process and run:

    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else rng.choice(flatnonzero(mask))
        env.step(action)

Reported: decisions/s (non-None actions) and games/s, median of ``--repeats`` runs
of ``--seconds`` each. Needs the ``bench`` extra (``pettingzoo[classic]``).

Two extra groups of rows put the figures in context:

* ``raw_env`` rows drive the unwrapped envs with the same loop, to separate each
  env's own cost from the cost of PettingZoo's wrappers;
* the ``null`` env has no game at all (a constant observation of pasur's size, five
  legal actions, 300 decisions per episode) in the same three standard wrappers: its
  rate is the ceiling of *any* env measured through ``env()`` and this loop, so
  ``null / texas_holdem_v4`` bounds the ratio an env can reach against texas.

    python benchmarks/bench_env.py
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers


def run_loop(make_env: Callable, seconds: float, seed: int) -> tuple[float, float]:
    env = make_env()
    rng = np.random.default_rng(seed)
    decisions = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset(seed=seed + games)
        for _agent in env.agent_iter():
            obs, reward, termination, truncation, info = env.last()
            if termination or truncation:
                action = None
            else:
                action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
                decisions += 1
            env.step(action)
        games += 1
    dt = time.perf_counter() - start
    env.close()
    return decisions / dt, games / dt


class NullEnv(AECEnv):
    """An AEC env without a game: the cost floor of the wrappers and the loop."""

    metadata = {"name": "null_v0", "render_modes": [], "is_parallelizable": False}

    def __init__(self, obs_size: int = 957, length: int = 300) -> None:
        super().__init__()
        self.possible_agents = ["player_0", "player_1"]
        box = spaces.Box(0.0, 1.0, (obs_size,), np.float32)
        mask_box = spaces.Box(0, 1, (104,), np.int8)
        self.observation_spaces = {
            a: spaces.Dict({"observation": box, "action_mask": mask_box})
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(104) for a in self.possible_agents}
        self._obs = np.zeros(obs_size, dtype=np.float32)
        self._mask = np.zeros(104, dtype=np.int8)
        self._mask[:5] = 1
        self._length = length

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.agents[0]
        self._t = 0

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return {"observation": self._obs, "action_mask": self._mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._t += 1
        if self._t >= self._length:
            self.terminations = dict.fromkeys(self.agents, True)
        self.agent_selection = self.possible_agents[self._t % 2]
        self._accumulate_rewards()


def null_env() -> AECEnv:
    """:class:`NullEnv` in the wrappers of PettingZoo classic's (and pasur's) ``env()``."""
    e: AECEnv = NullEnv()
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--seconds", type=float, default=5.0, help="length of one timed run")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json", help="also write the results to this file")
    ap.add_argument("--no-raw", action="store_true", help="skip the unwrapped raw_env rows")
    args = ap.parse_args()

    from pettingzoo.classic import connect_four_v3, texas_holdem_v4

    from pasur_env import pasur_v0

    envs: dict[str, Callable] = {
        "pasur_v0 (2 players, game to 62)": lambda: pasur_v0.env(),
        "pasur_v0 (2 players, episode=round)": lambda: pasur_v0.env(episode="round"),
        "texas_holdem_v4": lambda: texas_holdem_v4.env(),
        "connect_four_v3": lambda: connect_four_v3.env(),
        "null env (no game; wrapper + loop floor)": null_env,
    }
    if not args.no_raw:
        envs.update({
            "pasur_v0.raw_env (game to 62)": lambda: pasur_v0.raw_env(),
            "texas_holdem_v4.raw_env": lambda: texas_holdem_v4.raw_env(),
            "connect_four_v3.raw_env": lambda: connect_four_v3.raw_env(),
        })
    for make in envs.values():  # warm-up: imports, numba cache loads
        run_loop(make, 0.3, 0)
    results = {}
    for name, make in envs.items():
        runs = [run_loop(make, args.seconds, 1000 * r) for r in range(args.repeats)]
        results[name] = {
            "decisions_per_s": statistics.median(r[0] for r in runs),
            "games_per_s": statistics.median(r[1] for r in runs),
        }
    print(
        f"AEC loop, random legal actions, median of {args.repeats} x {args.seconds:g} s "
        f"(ratios: wrapped rows against the wrapped references, raw rows against the raw ones)\n"
    )
    print("| env | decisions/s | us/decision | games/s | vs texas_holdem_v4 | vs connect_four_v3 |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, r in results.items():
        raw = "raw_env" in name
        ref_holdem = results["texas_holdem_v4" + (".raw_env" if raw else "")]["decisions_per_s"]
        ref_c4 = results["connect_four_v3" + (".raw_env" if raw else "")]["decisions_per_s"]
        d = r["decisions_per_s"]
        print(
            f"| {name} | {d:,.0f} | {1e6 / d:.1f} | {r['games_per_s']:,.1f} "
            f"| {d / ref_holdem:.2f}x | {d / ref_c4:.2f}x |"
        )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
