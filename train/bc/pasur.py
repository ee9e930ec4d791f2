"""Behaviour cloning data for Pasur: a teacher's decisions on the batched engine.

The teacher (by default the ``heuristic`` agent) plays rounds against itself; every
decision is recorded as (the mover's observation, its legal mask, the teacher's action,
the mover's final round result) in the :class:`train.bc.clone.Demonstrations` layout
that :func:`train.bc.clone.pretrain` fits.
"""

from __future__ import annotations

import numpy as np

from agents import make_agent
from pasur_env import Engine, GameView
from pasur_env.core.loop import play
from pasur_env.pasur.observation import encode
from pasur_env.pasur.rewards import seat_rewards
from train.bc.clone import Demonstrations

__all__ = ["collect"]

TEACHER, WEAK = 0, 1  # policy indices in the play loop


class _Recorder:
    """Keeps the teacher's decisions of one batch of rounds (the play loop's hooks)."""

    def __init__(self, engine: Engine, num_players: int) -> None:
        self.engine = engine
        self.games, self.seats, self.obs, self.masks, self.actions = [], [], [], [], []
        self.final = np.zeros((engine.num_games, num_players), dtype=np.float32)

    def decisions(self, k: int, view: GameView, obs: np.ndarray | None, mask: np.ndarray,
                  actions: np.ndarray) -> None:
        if k != TEACHER:
            return
        self.games.append(view.games)
        self.seats.append(view.seats)
        self.obs.append(obs if obs is not None else encode(self.engine, view.games, view.seats))
        self.masks.append(mask)
        self.actions.append(actions.copy())

    def step(self, games: np.ndarray, info) -> None:  # noqa: ANN001 - a StepInfo
        ended = np.flatnonzero(info.round_end)
        if ended.size:
            self.final[games[ended]] = seat_rewards(info, self.engine.rules, "diff")[ended]

    def demonstrations(self) -> Demonstrations:
        games, seats = np.concatenate(self.games), np.concatenate(self.seats)
        return Demonstrations(
            np.concatenate(self.obs).astype(np.float16),  # half the memory
            np.concatenate(self.masks), np.concatenate(self.actions), self.final[games, seats],
        )


def collect(teacher: str, rounds: int, seed: int, batch: int = 2048,
            num_players: int = 2, vs_random: float = 0.0) -> Demonstrations:
    """Play ``rounds`` rounds of ``teacher`` and record every decision the teacher makes.

    In a fraction ``vs_random`` of the rounds one seat (chosen at random) is played by
    the uniformly random agent and its decisions are not recorded: the student then
    also sees the positions a weak opponent leads to (loose tables, early surs), which
    self-play of a careful teacher rarely reaches. ``returns`` holds, for each decision,
    the mover's side's round-point difference (the ``diff`` reward) of its round. The
    rounds are played by the one play loop (:func:`pasur_env.core.loop.play`).
    """
    if not 0.0 <= vs_random <= 1.0:
        raise ValueError(f"vs_random must lie in [0, 1], got {vs_random!r}")
    policies = [make_agent(teacher, seed=seed), make_agent("random", seed=seed + 1)]
    rng = np.random.default_rng(seed)
    parts: list[Demonstrations] = []
    done_rounds = 0
    chunk_seed = seed
    while done_rounds < rounds:
        n = min(batch, rounds - done_rounds)
        eng = Engine(n, seed=chunk_seed, episode="round", auto_reset=False,
                     num_players=num_players)
        chunk_seed += 1
        # the seat the random agent plays in each game, -1 where the teacher plays all
        weak_seat = np.where(rng.random(n) < vs_random, rng.integers(0, num_players, n), -1)
        seat_policy = np.where(np.arange(num_players)[None, :] == weak_seat[:, None],
                               WEAK, TEACHER)
        rec = _Recorder(eng, num_players)
        play(eng, policies, seat_policy, on_step=rec.step, on_decisions=rec.decisions)
        parts.append(rec.demonstrations())
        done_rounds += n
    return Demonstrations.concat(parts)
