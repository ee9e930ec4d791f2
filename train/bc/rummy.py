"""Behaviour cloning data for Persian Rummy: a teacher's decisions on the batched engine.

The teacher (``greedy`` or ``rollout``, :mod:`agents.rummy`) plays one-round deals
in every seat (or in all but one seat, played by the random agent, in a fraction
``vs_random`` of the deals, so the student also sees the loose tables weak players
leave). Every teacher decision is recorded as (the mover's observation, its legal
mask, the teacher's action, the mover's team's final round-point difference), in the
:class:`train.bc.clone.Demonstrations` layout, so :func:`train.bc.clone.pretrain` fits a
MaskablePPO policy to it unchanged. The deals are played by the project's one
play loop of both games (:func:`pasur_env.core.loop.play`); a recording wrapper around
the teacher sees exactly what the teacher is asked, so no loop is duplicated here.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents import make_agent
from pasur_env.core.loop import play
from pasur_env.core.policy import GameView, Policy, check_actions
from pasur_env.rummy import RummyEngine
from train.bc.clone import Demonstrations

__all__ = ["collect_rummy", "RecordingPolicy"]

TEACHER, WEAK = 0, 1  # policy indices of the play loop


class RecordingPolicy:
    """Wraps a policy and keeps every decision it is asked for (obs, mask, action).

    ``needs_observation`` is True so the loop encodes the mover's observation (the
    student's input) even for teachers that read the engine directly.
    """

    needs_observation = True

    def __init__(self, teacher: Policy) -> None:
        self.teacher = teacher
        self.name = getattr(teacher, "name", "teacher")
        self.game_ids = getattr(teacher, "game_ids", None)  # what the teacher plays
        self.games: list[np.ndarray] = []
        self.seats: list[np.ndarray] = []
        self.obs: list[np.ndarray] = []
        self.masks: list[np.ndarray] = []
        self.actions: list[np.ndarray] = []

    def reset(self, seed: int | None = None) -> None:
        self.teacher.reset(seed)

    def act(self, obs: np.ndarray | None, mask: np.ndarray, view: GameView) -> np.ndarray:
        acts = check_actions(self.teacher.act(obs, mask, view), np.asarray(mask),
                             f"agent {self.name!r}")  # the teacher's, checked uncoerced
        assert obs is not None
        self.games.append(view.games.copy())
        self.seats.append(view.engine.current_player[view.games].copy())
        self.obs.append(obs.astype(np.float16))  # values in [-1, 1]: half the memory
        self.masks.append(np.asarray(mask, dtype=bool).copy())
        self.actions.append(acts.copy())
        return acts


def _play_chunk(teacher: Policy, weak: Policy, n: int, seed: int, vs_random: float,
                rng: np.random.Generator, flags: dict[str, Any]) -> Demonstrations:
    """``n`` one-round deals of ``teacher`` (one seat random in a fraction ``vs_random``)."""
    eng = RummyEngine(n, seed=seed, episode="round", auto_reset=False, **flags)
    weak_seat = np.where(rng.random(n) < vs_random, rng.integers(0, 4, n), -1)
    seat_policy = np.where(np.arange(4)[None, :] == weak_seat[:, None], WEAK, TEACHER)
    rec = RecordingPolicy(teacher)
    final = np.zeros((n, 2), dtype=np.float32)  # each team's round-point difference

    def book(games: np.ndarray, info: Any) -> None:
        ended = np.flatnonzero(info.round_end)
        pts = info.round_points[ended].astype(np.float32)
        final[games[ended]] = pts - pts[:, ::-1]

    play(eng, [rec, weak], seat_policy, on_step=book)  # type: ignore[list-item]
    games, seats = np.concatenate(rec.games), np.concatenate(rec.seats)
    return Demonstrations(np.concatenate(rec.obs), np.concatenate(rec.masks),
                          np.concatenate(rec.actions), final[games, seats % 2])


def collect_rummy(teacher: str, rounds: int, seed: int, batch: int = 1024,
                  vs_random: float = 0.0, **flags: Any) -> Demonstrations:
    """Play ``rounds`` one-round deals of ``teacher`` and record its every decision."""
    if not 0.0 <= vs_random <= 1.0:
        raise ValueError(f"vs_random must lie in [0, 1], got {vs_random!r}")
    policy = make_agent(teacher, game="persian_rummy", seed=seed)
    weak = make_agent("random", game="persian_rummy", seed=seed + 1)
    rng = np.random.default_rng(seed)
    parts = []
    for k, start in enumerate(range(0, rounds, batch)):
        n = min(batch, rounds - start)
        parts.append(_play_chunk(policy, weak, n, seed + k, vs_random, rng, flags))
    return Demonstrations.concat(parts)
