"""Pasur's learner games: :class:`pasur_env.core.learner_games.LearnerGames` over the
Pasur :class:`~pasur_env.Engine`, with opponents drawn from an opponent source.

Shared by :class:`pasur_env.PasurSingleAgentEnv` (B = 1) and
:class:`pasur_env.PasurVecEnv`. Every seat but the learner's is played by one opponent,
which each game draws (with the game's generator) from an
:class:`~pasur_env.core.policy.OpponentSource` when it starts an episode; the source
hears the learner's result of every finished episode (self-play pools). Rewards are
those of :func:`pasur_env.core.rewards.seat_rewards` over Pasur's sides.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pasur_env.core import learner_games as core
from pasur_env.core.policy import OpponentSource
from pasur_env.pasur.engine import Engine, action_str
from pasur_env.pasur.rewards import seat_sides
from pasur_env.pasur.rules import Rules

__all__ = ["LearnerGames"]

#: reset options the training envs understand
RESET_OPTIONS = core.RESET_OPTIONS


class LearnerGames(core.LearnerGames):
    """B Pasur games in one engine, each with a learner seat and an opponent.

    Args:
        num_games: B.
        rules: the :class:`~pasur_env.Rules`.
        episode, reward, max_rounds: as in the envs.
        learner_seat: a seat, or ``"random"`` (drawn per game and episode from the
            game's generator).
        opponents: an :class:`~pasur_env.core.policy.OpponentSource`; each game draws its
            opponent from it (with the game's generator) when it starts an episode.
        parallel: passed to the :class:`Engine`.
    """

    action_str = staticmethod(action_str)
    #: Pasur's opponents play on to the learner's next decision after a truncation
    stop_at_truncation = False

    def __init__(
        self,
        num_games: int,
        rules: Rules,
        episode: str,
        reward: str,
        max_rounds: int | None,
        learner_seat: int | str,
        opponents: OpponentSource,
        parallel: bool | None = None,
    ) -> None:
        if len(opponents) == 0:
            raise ValueError("the opponent pool is empty")
        engine = Engine(int(num_games), rules=rules, episode=episode, auto_reset=False,
                        parallel=parallel)
        super().__init__(engine, seat_sides(rules), rules.num_sides, reward, max_rounds,
                         learner_seat)
        self.rules = rules
        self.episode = episode
        self.pool = opponents
        #: opponent of each game: its source's id and name, and its policy's index in
        #: ``_policies``
        self.entry_id = np.zeros(self.num_games, dtype=np.int64)
        self.entry_name: list[str] = [""] * self.num_games
        self._slot_of: dict[int, int] = {}

    # ---- the game's parts of LearnerGames --------------------------------------------------
    def _deal(
        self, games: np.ndarray, seeds: list[int | None], options: list[dict[str, Any]]
    ) -> None:
        """New games in ``games``: shuffled from their streams, or seeded / given decks."""
        eng = self.engine
        plain, special = [], []
        for k, g in enumerate(games.tolist()):
            opts = options[k]
            if seeds[k] is None and opts.get("deck") is None and opts.get("dealer") is None:
                plain.append(g)
            else:
                special.append(k)
        if len(plain) == self.num_games:
            eng.reset()
        elif plain:
            sub = eng.take(plain)
            sub.reset()
            eng.state[plain] = sub.state
        for k in special:
            g = int(games[k])
            sub = eng.take([g])
            sub.reset(seed=seeds[k], deck=options[k].get("deck"), dealer=options[k].get("dealer"))
            eng.state[g] = sub.state[0]

    def _seat_players(self, g: int) -> None:
        """Game ``g`` draws its opponent from the source; it plays every other seat."""
        self._assign_opponent(g, self.pool.sample(self.rngs[g]))

    def _assign_opponent(self, g: int, entry: Any) -> None:
        """Seat ``entry`` (drawn from the source) at every seat of game ``g`` but the learner's."""
        policy = entry.policy
        slot = self._slot_of.get(id(policy))
        if slot is None or self._policies[slot] is not policy:
            if len(self._policies) > 4 * max(len(self.pool), 8):
                self._compact_slots()
            slot = len(self._policies)
            self._policies.append(policy)
            self._slot_of[id(policy)] = slot
        self.seat_policy[g] = slot
        self.seat_policy[g, self.seat[g]] = -1
        self.entry_id[g] = entry.id
        self.entry_name[g] = entry.name

    def _compact_slots(self) -> None:
        """Forget policies no game uses any more (removed snapshots)."""
        used = sorted(set(self.seat_policy[self.seat_policy >= 0].tolist()))
        policies = [self._policies[s] for s in used]
        remap = np.full(len(self._policies) + 1, -1, dtype=np.int64)
        remap[used] = np.arange(len(used))
        self.seat_policy = remap[self.seat_policy]  # -1 stays -1 (the last entry)
        self._policies = policies
        self._slot_of = {id(p): i for i, p in enumerate(policies)}

    def _episode_ended(self, games: np.ndarray, winner: np.ndarray) -> None:
        """The source hears the learner's result: 1 win, 0.5 tie, 0 loss."""
        mine = self.sides[self.seat[games]]
        result = np.where(winner == mine, 1.0, np.where(winner < 0, 0.5, 0.0))
        for g, res in zip(games.tolist(), result.tolist(), strict=True):
            self.pool.record(int(self.entry_id[g]), res)

    def reset_players(self, seed: int) -> None:
        self.pool.reset(seed)

    def reset_info(self, g: int) -> dict[str, Any]:
        return {"learner_seat": int(self.seat[g]), "opponent": self.entry_name[g]}
