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
Another option, or a seed that is no int >= 0, raises before anything changes; if a
step raises once the game moved (a `human` render), every later call raises
`RuntimeError` until `reset()` (`docs/environment.md`, "When something fails").

### Version History

* v0: initial release.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from pasur_env.core.aec_env import CardGameAEC, wrap_env
from pasur_env.core.options import check_max_rounds, check_modes
from pasur_env.rummy import RummyEngine, action_str
from pasur_env.rummy.kernels import state as S
from pasur_env.rummy.observation import OBS_SIZE, observe_kernel
from pasur_env.rummy.rewards import SEAT_TEAM

__all__ = ["env", "raw_env"]


def env(**kwargs: Any) -> AECEnv:
    """The Persian Rummy AEC env in PettingZoo's standard wrappers (as ``pasur_v0``)."""
    return wrap_env(raw_env(**kwargs))


class raw_env(CardGameAEC, EzPickle):
    """Persian Rummy as a PettingZoo AEC env over a one-game :class:`RummyEngine` (the
    bookkeeping is :class:`pasur_env.core.aec_env.CardGameAEC`'s)."""

    metadata = {"name": "persian_rummy_v0", "render_modes": ["ansi", "human", "rgb_array"],
                "is_parallelizable": False, "render_fps": 1}
    action_str = staticmethod(action_str)

    def __init__(self, episode: str = "game", reward: str = "win",
                 max_rounds: int | None = None, render_mode: str | None = None,
                 **rule_flags: Any) -> None:
        EzPickle.__init__(self, episode=episode, reward=reward, max_rounds=max_rounds,
                          render_mode=render_mode, **rule_flags)
        super().__init__()
        check_modes(reward, episode)
        max_rounds = check_max_rounds(max_rounds)
        engine = RummyEngine(1, episode=episode, auto_reset=False, parallel=False,
                             **rule_flags)
        self.rules, self.episode = engine.rules, episode
        self._attach(engine, SEAT_TEAM, 2, reward, max_rounds, render_mode,
                     (-1.0, 1.0, OBS_SIZE), S.NUM_ACTIONS)

    def _observe_seat(self, seat: int, live: bool) -> tuple[np.ndarray, np.ndarray]:
        obs = np.zeros(OBS_SIZE, dtype=np.float32)
        observe_kernel(self.engine.state, 0, seat, obs)
        mask = (self.engine.legal_mask()[0] if live
                else np.zeros(S.NUM_ACTIONS, dtype=bool)).astype(np.int8)
        return obs, mask

    def _scene(self, viewer: int) -> Any:
        from pasur_env.rummy.drawing import rummy_table_scene

        return rummy_table_scene(self.engine, 0, viewer)
