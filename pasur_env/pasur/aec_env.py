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
round. `max_rounds` truncates. `reset(seed, options={"deck": [52 codes (a small variant,
`preset="mini"`: its cards), top first], "dealer": d})` fixes the first deck and dealer;
the same seed gives the same game.
Another option, or a seed that is no int >= 0, raises before anything changes; if a
step raises once the game moved (a `human` render), every later call raises
`RuntimeError` until `reset()` (`docs/environment.md`, "When something fails").

### Version History

* v0: initial release (pasur_env 0.1.0). Before the first tagged release the `moves`
  block grew from 6 to 10 planes (reply lookahead): N 749 -> 957 for 2 players;
  a model trained on the 749-wide observation is refused with a ValueError naming both
  shapes.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from pasur_env.core.aec_env import CardGameAEC, wrap_env
from pasur_env.pasur import kernels as K
from pasur_env.pasur.drawing import table_scene
from pasur_env.pasur.engine import Engine, action_str
from pasur_env.pasur.observation import observation_size, observe_one_kernel
from pasur_env.pasur.options import env_options
from pasur_env.pasur.rewards import seat_sides


def env(**kwargs: Any) -> AECEnv:
    """The Pasur AEC env in PettingZoo's standard wrappers
    (:func:`pasur_env.core.aec_env.wrap_env`).

    An illegal action ends the game with -1 for the offender (TerminateIllegalWrapper),
    an action that is no int in ``0..103`` raises ``TypeError`` / ``ValueError``, and
    the call order is enforced.
    """
    return wrap_env(raw_env(**kwargs))


class raw_env(CardGameAEC, EzPickle):
    """Pasur as a PettingZoo AEC env over a one-game :class:`pasur_env.Engine` (the
    bookkeeping is :class:`pasur_env.core.aec_env.CardGameAEC`'s)."""

    metadata = {
        "name": "pasur_v0",
        "render_modes": ["ansi", "human", "rgb_array"],
        "is_parallelizable": False,
        "render_fps": 1,
    }
    action_str = staticmethod(action_str)

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
        self.rules, self.episode, reward, max_rounds = env_options(
            preset, episode, reward, max_rounds, rule_flags
        )
        r = self.rules
        engine = Engine(1, rules=r, episode=self.episode, auto_reset=False, parallel=False)
        self._n_obs = observation_size(r)
        self._attach(engine, seat_sides(r), r.num_sides, reward, max_rounds, render_mode,
                     (0.0, 1.0, self._n_obs), K.NUM_ACTIONS)
        # the compiled observer's fixed arguments (see _observe_seat)
        self._obs_args = (r.num_players, r.num_sides, r.open_hand, float(r.target_score))

    def _observe_seat(self, seat: int, live: bool) -> tuple[np.ndarray, np.ndarray]:
        obs = np.empty((1, self._n_obs), dtype=np.float32)  # fresh arrays: callers keep them
        mask = np.empty(K.NUM_ACTIONS, dtype=np.int8)
        eng = self.engine
        observe_one_kernel(eng.state, eng.params, seat, *self._obs_args, live, obs, mask)
        return obs[0], mask

    def _scene(self, viewer: int) -> Any:
        return table_scene(self.engine, 0, viewer=viewer)
