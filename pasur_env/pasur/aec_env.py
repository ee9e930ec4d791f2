# noqa: D212, D415
"""
# Pasur (PettingZoo AEC)

| Import             | `from pasur_env import pasur_v0`                     |
|--------------------|------------------------------------------------------|
| Actions            | Discrete                                             |
| Parallel API       | No                                                   |
| Manual Control     | Yes (`pasur play`)                                   |
| Agents             | `agents = ['player_0', ..., 'player_{P-1}']`         |
| Agents             | 2, 3 or 4                                            |
| Action Shape       | (1,)                                                 |
| Action Values      | Discrete(104)                                        |
| Observation Shape  | (N,) with N = 957 (P=2), 1015 (P=3), 963 (P=4)      |
| Observation Values | [0, 1]                                               |

Pasur (Pasoor, Chahâr Barg) is the Persian fishing card game: play a card from hand
and take table cards with it (numerals summing to 11 with the played card, a jack
sweeps numerals and jacks, a king or queen takes one of its rank); clearing the
table is a *sur*. After the last deal, points are counted for clubs, 10♦, 2♣, aces,
jacks and surs; a game goes to 62. The rules are exactly those of
`docs/rules.md` (the project's normative rule text), computed by the batched
compiled engine (`pasur_env.Engine`); this env is a thin layer over one game of it.

### Arguments

`pasur_v0.env(num_players=2, preset=None, episode=None, reward=None, max_rounds=None,
render_mode=None, **rule_flags)`:

every rule flag of `pasur_env.Rules` (`num_players`, ... see `docs/rules.md` §11),
`preset`, `episode` (default `"game"`), `reward` (default `"win"`), `max_rounds` and
`render_mode` (`"ansi"`, `"human"`, `"rgb_array"`: a picture of the table as an
`(H, W, 3)` uint8 array, the drawing of the web page; `env.unwrapped.svg()` gives it as
SVG): each is described once, in the options table of
`docs/environment.md`. Unknown keywords raise `TypeError`; bad values raise
`ValueError`.

### Observation Space

A dict: `observation` is `Box(0, 1, (N,), float32)` written from the observing
seat (own hand, table, each side's pile, unseen cards, pending card and selection,
phase, clubs/surs/scores per side, deal index, stock size, hand sizes, relative
dealer and last capturer, opponents' face-up cards under `open_hand`; the exact
offsets are in `pasur_env.pasur.observation` and `docs/environment.md`). It never contains
another seat's hidden cards. `action_mask` is `Box(0, 1, (104,), int8)`: the legal
actions of the agent to move, all zeros for every other agent.

### Action Space

`Discrete(104)`: `0..51` = PLAY card id (`4 * rank + suit`, A♣ = 0 ... K♠ = 51),
`52..103` = TAKE table card id `a - 52`. A played card with several capture options
starts the CAPTURE phase: the same agent is selected again and takes the cards of
its chosen option one at a time in ascending id order (each option is exactly one
action sequence). A turn ends when the card is laid or a capture is complete.

### Rewards

Paid to every agent at the step that ends a round (and accumulated per PettingZoo
convention until the agent acts):

| `reward` | when | amount |
|---|---|---|
| `win` | game end, or round end if `episode="round"` | +1 winners, -1 others; 0 on a tie |
| `points` | each round end | the seat's side's round points |
| `diff` | each round end | side's round points minus the mean of the other sides' |

At the step that ends a round every agent's `info` holds `round_points` (list of P:
each seat's side's points that round) and `scores` (game score per seat after it).

### Episode End

`episode="game"`: when after a round some side has at least `target_score` and
strictly more than every other side (ties play on); `episode="round"`: after one
round. `max_rounds` truncates. `reset(seed, options={"deck": [52 codes, top first],
"dealer": d})` fixes the first deck and dealer; the same seed gives the same game.

### Version History

* v0: initial release (pasur_env 0.1.0). Before the first tagged release the `moves`
  block grew from 6 to 10 planes (reply lookahead): N 749 -> 957 for 2 players;
  a model trained on the 749-wide observation is refused with a ValueError naming both
  shapes.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from pasur_env.core.options import check_render_mode
from pasur_env.pasur import kernels as K
from pasur_env.pasur.drawing import table_scene, to_rgb, to_svg
from pasur_env.pasur.engine import Engine, action_str
from pasur_env.pasur.observation import observation_size, observe_one_kernel
from pasur_env.pasur.options import env_options
from pasur_env.pasur.rewards import round_infos, seat_rewards


def env(**kwargs: Any) -> AECEnv:
    """The Pasur AEC env in PettingZoo's standard wrappers.

    An illegal action ends the game with -1 for the offender (TerminateIllegalWrapper),
    out-of-range actions are asserted, and the call order is enforced.
    """
    e: AECEnv = raw_env(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


class raw_env(AECEnv, EzPickle):
    """Pasur as a PettingZoo AEC env over a one-game :class:`pasur_env.Engine`."""

    metadata = {
        "name": "pasur_v0",
        "render_modes": ["ansi", "human", "rgb_array"],
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        preset: str | None = None,
        episode: str | None = None,
        reward: str | None = None,
        max_rounds: int | None = None,
        render_mode: str | None = None,
        **rule_flags: Any,
    ) -> None:
        EzPickle.__init__(
            self,
            preset=preset,
            episode=episode,
            reward=reward,
            max_rounds=max_rounds,
            render_mode=render_mode,
            **rule_flags,
        )
        super().__init__()
        self.rules, self.episode, self.reward_mode, max_rounds = env_options(
            preset, episode, reward, max_rounds, rule_flags
        )
        check_render_mode(render_mode, self.metadata["render_modes"])
        self.max_rounds = max_rounds
        self.render_mode = render_mode
        #: seat whose view `render` shows; None = the agent to move
        self.viewer: int | None = None
        #: the engine's report (:class:`pasur_env.StepInfo`) of the latest step
        self.last_step_info = None
        P = self.rules.num_players
        self.possible_agents = [f"player_{i}" for i in range(P)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        n_obs = observation_size(self.rules)
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, 1.0, (n_obs,), np.float32),
                    "action_mask": spaces.Box(0, 1, (K.NUM_ACTIONS,), np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(K.NUM_ACTIONS) for a in self.possible_agents}
        self.engine = Engine(
            1, rules=self.rules, episode=self.episode, auto_reset=False, parallel=False
        )
        self._n_obs = n_obs
        # the compiled observer's fixed arguments (see observe)
        r = self.rules
        self._obs_args = (P, r.num_sides, r.open_hand, float(r.target_score))

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ---- episode ----------------------------------------------------------------
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
        self.agent_selection = self.possible_agents[int(self.engine.state[0, K.MOVER])]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        cached = self._obs_cache.get(agent)
        if cached is not None:
            return cached
        seat = self._seat[agent]
        # the mask is the engine's legal actions for the agent to move, zeros for others
        live = (
            agent == self.agent_selection
            and agent in self.terminations
            and not (self.terminations[agent] or self.truncations[agent])
        )
        obs = np.empty((1, self._n_obs), dtype=np.float32)  # fresh arrays: callers keep them
        mask = np.empty(K.NUM_ACTIONS, dtype=np.int8)
        eng = self.engine
        observe_one_kernel(eng.state, eng.params, seat, *self._obs_args, live, obs, mask)
        out = {"observation": obs[0], "action_mask": mask}
        self._obs_cache[agent] = out
        return out

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            if (
                isinstance(action, np.ndarray)
                and action.shape in ((), (1,))
                and np.issubdtype(action.dtype, np.integer)
            ):
                action = int(action.reshape(-1)[0])
            else:
                raise TypeError(f"{agent}: action must be an int in 0..103, got {action!r}")
        action = int(action)
        try:
            info = self.engine.step_single(action)
            self.last_step_info = info
        except ValueError:
            legal = self.engine.legal_actions(0)
            raise ValueError(
                f"illegal action {action} ({action_str(action)}) for {agent}; legal actions: "
                f"{legal} ({', '.join(action_str(a) for a in legal)})"
            ) from None
        self._cumulative_rewards[agent] = 0.0
        if self.infos[agent]:
            self.infos[agent] = {}
        self._obs_cache = {}
        if not info.round_end_at(0):  # rewards are only paid at round ends
            if any(self.rewards.values()):
                self.rewards = dict.fromkeys(self.agents, 0.0)
        else:
            r = seat_rewards(info, self.rules, self.reward_mode)[0]
            self.rewards = {a: float(r[i]) for i, a in enumerate(self.agents)}
            self._accumulate_rewards()
            self.rounds_played += 1
            points, scores = round_infos(info, self.rules)
            round_points, scores = points[0].tolist(), scores[0].tolist()
            for a in self.agents:
                self.infos[a] = {"round_points": round_points, "scores": scores}
            if info.game_end[0]:
                self.terminations = dict.fromkeys(self.agents, True)
            elif self.max_rounds is not None and self.rounds_played >= self.max_rounds:
                self.truncations = dict.fromkeys(self.agents, True)
        self.agent_selection = self.possible_agents[int(self.engine.state[0, K.MOVER])]
        if self.render_mode == "human":
            self.render()

    # ---- rendering -----------------------------------------------------------------
    def _viewer(self) -> int:
        return self.viewer if self.viewer is not None else self._seat[self.agent_selection]

    def svg(self) -> str:
        """The table as an SVG picture, from the same view as :meth:`render` (notebooks:
        ``IPython.display.SVG(env.unwrapped.svg())``)."""
        return to_svg(table_scene(self.engine, 0, viewer=self._viewer()))

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode=")
            return None
        viewer = self._viewer()
        if self.render_mode == "rgb_array":
            return to_rgb(table_scene(self.engine, 0, viewer=viewer))
        text = self.engine.render(0, viewer=viewer)
        if self.engine.phase[0] == K.DONE:
            text += "\ngame over"
        else:
            text = f"view of player_{viewer}\n" + text
        if self.render_mode == "human":
            print(text + "\n")
            return None
        return text

    def close(self) -> None:
        pass
