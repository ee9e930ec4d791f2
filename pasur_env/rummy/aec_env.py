# noqa: D212, D415
"""
# Persian Rummy (PettingZoo AEC)

| Import             | `from pasur_env import persian_rummy_v0`          |
|--------------------|---------------------------------------------------|
| Actions            | Discrete                                          |
| Parallel API       | No                                                |
| Manual Control     | No                                                |
| Agents             | `agents = ['player_0', 'player_1', 'player_2', 'player_3']` |
| Agents             | 4 (two teams: seats 0+2 and 1+3)                  |
| Action Shape       | (1,)                                              |
| Action Values      | Discrete(245)                                     |
| Observation Shape  | (685,)                                            |
| Observation Values | [-1, 1]                                           |

Persian Rummy is a partnership rummy for four players with 52 cards and four jokers:
draw from the stock or take a card of the discard pile with everything above it (only
to meld it at once), lay down sets and runs (aces high) or lay cards off on any meld,
then discard. A round ends when a player goes out by melding (+25 for the team) or
when the empty stock has been passed four times in a row; a team scores the cards it
put on the table (a four-set laid at once counts double) minus the cards left in its
hands. A game is two deals. The rules are exactly those of `docs/persian_rummy.md`,
computed by the batched compiled engine (`pasur_env.rummy.RummyEngine`); this env is a
thin layer over one game of it.

### Arguments

`persian_rummy_v0.env(episode="game", reward="win", max_rounds=None,
render_mode=None, deals=2, four_set_double=True, last_discard_goes_out=False)`:
`episode` is `"game"` (two deals) or `"round"` (one deal); `reward` is `"win"`,
`"points"` or `"diff"`; `max_rounds` truncates; `render_mode` is `"ansi"`,
`"human"` or `"rgb_array"` (a picture of the table from the mover's view: hands, the
discard pile, the melds with the team credited for each card; `svg()` gives the same
drawing as SVG); the last three are the rule flags (`docs/persian_rummy.md`, "Flags").
Unknown keywords raise `TypeError`, bad values `ValueError`.

### Observation Space

A dict: `observation` is `Box(-1, 1, (685,), float32)` from the observing seat (own
hand, the table with each card's team, the cards that would extend a meld, the
discard pile in order, the cards each other player took from the pile and still
holds, picked cards, target, pending lay-off, phase, stock and hand sizes, passes,
scores, deal index; offsets in `pasur_env.rummy.observation`). It never contains
another seat's unseen cards. `action_mask` is `Box(0, 1, (245,), int8)`: the legal
actions of the agent to move, all zeros for the others.

### Action Space

`Discrete(245)`, card ids `c` as in Pasur (`4 * rank + suit`, A=0 .. K=12) and jokers
52..55: `0` DRAW_STOCK, `1 + c` TAKE_DISCARD c (and the cards above it), `57` PASS
(stock empty), `58 + c` PICK hand card c into the meld being built (ascending ids),
`114` MELD the picked cards, `115 + c` LAY_OFF c, `171 + m` TARGET meld m (when the
laid-off card fits several melds), `189 + c` DISCARD c (ends the turn). The same
agent acts until it discards (or passes); every legal turn is exactly one sequence.

### Rewards

Paid to every agent at the step that ends a round (accumulated until it acts):

| `reward` | when | amount |
|---|---|---|
| `win` | game end (or round end if `episode="round"`) | +1 winning team, -1 other; 0 on a draw |
| `points` | each round end | the seat's team's round points |
| `diff` | each round end | own team's round points minus the other team's |

At the step that ends a round every agent's `info` holds `round_points` (list of 4:
each seat's team's points that round) and `scores` (each seat's team's game total).

### Episode End

`episode="game"`: after `deals` deals; `episode="round"`: after one deal.
`reset(seed, options={"deck": [56 codes, top first], "dealer": d})` fixes the first
deal (default dealer seat 3, so player_0 starts); the same seed gives the same game.

### Version History

* v0: initial release.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from pasur_env.core.options import check_modes, check_render_mode
from pasur_env.rummy import RummyEngine, action_str
from pasur_env.rummy.kernels import state as S
from pasur_env.rummy.observation import OBS_SIZE, observe_kernel
from pasur_env.rummy.rewards import round_infos, seat_rewards

__all__ = ["env", "raw_env"]


def env(**kwargs: Any) -> AECEnv:
    """The Persian Rummy AEC env in PettingZoo's standard wrappers (as ``pasur_v0``)."""
    e: AECEnv = raw_env(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)


class raw_env(AECEnv, EzPickle):
    """Persian Rummy as a PettingZoo AEC env over a one-game :class:`RummyEngine`."""

    metadata = {"name": "persian_rummy_v0", "render_modes": ["ansi", "human", "rgb_array"],
                "is_parallelizable": False, "render_fps": 1}

    def __init__(self, episode: str = "game", reward: str = "win",
                 max_rounds: int | None = None, render_mode: str | None = None,
                 **rule_flags: Any) -> None:
        EzPickle.__init__(self, episode=episode, reward=reward, max_rounds=max_rounds,
                          render_mode=render_mode, **rule_flags)
        super().__init__()
        check_modes(reward, episode)
        check_render_mode(render_mode, self.metadata["render_modes"])
        if max_rounds is not None and (isinstance(max_rounds, bool) or not isinstance(
                max_rounds, (int, np.integer)) or max_rounds < 1):
            raise ValueError(f"max_rounds must be a positive int or None, got {max_rounds!r}")
        self.engine = RummyEngine(1, episode=episode, auto_reset=False, parallel=False,
                                  **rule_flags)
        self.rules, self.episode, self.reward_mode = self.engine.rules, episode, reward
        self.max_rounds, self.render_mode = max_rounds, render_mode
        self.possible_agents = [f"player_{i}" for i in range(4)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict({
            "observation": spaces.Box(-1.0, 1.0, (OBS_SIZE,), np.float32),
            "action_mask": spaces.Box(0, 1, (S.NUM_ACTIONS,), np.int8),
        })
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = {a: spaces.Discrete(S.NUM_ACTIONS) for a in self.possible_agents}
        self.last_step_info = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        options = dict(options or {})
        unknown = set(options) - {"deck", "dealer"}
        if unknown:  # gymnasium convention: other options are ignored (api_test sends some)
            gymnasium.logger.warn(f"ignoring unknown reset option(s) {sorted(unknown)}")
        self.engine.reset(seed=seed, deck=options.get("deck"), dealer=options.get("dealer"))
        if seed is not None:
            for i, a in enumerate(self.possible_agents):
                self.action_spaces[a].seed(seed + i)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.rounds_played = 0
        self.last_step_info = None
        self._obs_cache: dict[str, dict[str, np.ndarray]] = {}
        self.agent_selection = self.possible_agents[self.engine.mover(0)]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        cached = self._obs_cache.get(agent)
        if cached is not None:
            return cached
        obs = np.zeros(OBS_SIZE, dtype=np.float32)
        observe_kernel(self.engine.state, 0, self._seat[agent], obs)
        live = (agent == self.agent_selection and agent in self.terminations
                and not (self.terminations[agent] or self.truncations[agent]))
        mask = (self.engine.legal_mask()[0] if live
                else np.zeros(S.NUM_ACTIONS, dtype=bool)).astype(np.int8)
        out = {"observation": obs, "action_mask": mask}
        self._obs_cache[agent] = out
        return out

    def _as_action(self, agent: str, action: Any) -> int:
        if isinstance(action, np.ndarray) and action.shape in ((), (1,)) and np.issubdtype(
                action.dtype, np.integer):
            return int(action.reshape(-1)[0])
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise TypeError(f"{agent}: action must be an int in 0..244, got {action!r}")
        return int(action)

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        action = self._as_action(agent, action)
        try:
            info = self.engine.step_single(action)
        except ValueError:
            legal = self.engine.legal_actions(0)
            raise ValueError(
                f"illegal action {action} ({action_str(action)}) for {agent}; legal actions: "
                f"{legal} ({', '.join(action_str(a) for a in legal)})") from None
        self.last_step_info = info
        self._cumulative_rewards[agent] = 0.0
        self.infos[agent] = {}
        self._obs_cache = {}
        if info.round_end_at(0):
            self._round_end(info)
        elif any(self.rewards.values()):
            self.rewards = dict.fromkeys(self.agents, 0.0)
        self.agent_selection = self.possible_agents[self.engine.mover(0)]
        if self.render_mode == "human":
            self.render()

    def _round_end(self, info: Any) -> None:
        """Pay the round, fill the infos, end or truncate the episode."""
        r = seat_rewards(info, self.reward_mode)[0]
        self.rewards = {a: float(r[i]) for i, a in enumerate(self.agents)}
        self._accumulate_rewards()
        self.rounds_played += 1
        points, scores = round_infos(info)
        for a in self.agents:
            self.infos[a] = {"round_points": points[0].tolist(), "scores": scores[0].tolist()}
        if info.game_end[0]:
            self.terminations = dict.fromkeys(self.agents, True)
        elif self.max_rounds is not None and self.rounds_played >= self.max_rounds:
            self.truncations = dict.fromkeys(self.agents, True)

    def svg(self) -> str:
        """The table as an SVG picture, from the mover's view (notebooks:
        ``IPython.display.SVG(env.unwrapped.svg())``)."""
        from pasur_env.core.drawing import to_svg
        from pasur_env.rummy.drawing import rummy_table_scene

        return to_svg(rummy_table_scene(self.engine, 0, self._seat[self.agent_selection]))

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode=")
            return None
        if self.render_mode == "rgb_array":  # the same drawing as svg(), as pixels
            from pasur_env.core.drawing import to_rgb
            from pasur_env.rummy.drawing import rummy_table_scene

            return to_rgb(rummy_table_scene(self.engine, 0, self._seat[self.agent_selection]))
        text = self.engine.render(0, viewer=self._seat[self.agent_selection])
        if self.engine.phase[0] == S.DONE:
            text += "\ngame over"
        if self.render_mode == "human":
            print(text + "\n")
            return None
        return text

    def close(self) -> None:
        pass
