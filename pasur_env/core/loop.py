"""The one batched play loop of both games: masks -> policies act -> actions checked -> steps.

Everything that lets policies play games on a batched engine (Pasur's or Persian
Rummy's: the loop reads only ``legal_mask``, ``step``, ``observe``, ``current_player``
and ``done``) goes through here:
the duplicate-deal evaluation, the training envs' opponents, behaviour-cloning data
collection, terminal play and the tests. Who plays is a table ``seat_policy`` of
shape ``(B, P)``: entry ``[g, s]`` is the index (into ``policies``) of the policy that
plays seat ``s`` of game ``g``, or ``-1`` for a seat the loop does not play (the
learner's, a human's): the loop stops at that seat's decisions.

Each iteration asks every policy *once* for all the decisions it has to make
(observations are encoded only for policies that need them), checks every action
with the learner's check (integers, in range, legal) and steps exactly the games
that moved. A policy that raises, or returns anything but legal integer actions,
stops the iteration before any game of it moved; the engine also reads
``GAME_ID`` and ``action_str`` when it has them (the game a policy must play, and
the names of actions in messages).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pasur_env.core.policy import GameView, Policy, check_actions, refuse_other_game

__all__ = ["DecisionClock", "decide", "play", "DecisionHook", "StepHook"]

#: called after the policy ``k`` chose ``actions`` for ``view.games`` (before the step);
#: ``obs`` is None unless that policy needed observations
DecisionHook = Callable[[int, GameView, "np.ndarray | None", np.ndarray, np.ndarray], None]
#: called after each step with the games that moved and the engine's report (rows follow
#: the games)
StepHook = Callable[[np.ndarray, Any], None]


@dataclass
class DecisionClock:
    """Time spent inside each policy's ``act`` and the decisions it made."""

    seconds: list[float] = field(default_factory=list)
    decisions: list[int] = field(default_factory=list)

    def add(self, k: int, seconds: float, decisions: int) -> None:
        while len(self.seconds) <= k:
            self.seconds.append(0.0)
            self.decisions.append(0)
        self.seconds[k] += seconds
        self.decisions[k] += decisions

    def per_decision(self, k: int) -> float:
        """Mean seconds per decision of policy ``k`` (nan before its first decision)."""
        if k >= len(self.decisions) or not self.decisions[k]:
            return float("nan")
        return self.seconds[k] / self.decisions[k]


def decide(
    engine: Any,
    games: np.ndarray,
    policies: Sequence[Policy],
    who: np.ndarray,
    *,
    clock: DecisionClock | None = None,
    on_decisions: DecisionHook | None = None,
) -> np.ndarray:
    """One checked action for each game of ``games``, by ``policies[who[i]]`` for game i.

    ``games`` are ascending indices of games whose mover is to act. Each policy is
    called once with all of its decisions, in increasing policy index. A policy of
    another game is refused before it reads the engine (its compiled code would read
    this game's state with its own layout), and every action it returns goes through
    :func:`~pasur_env.core.policy.check_actions`, the learner's check, before any
    engine sees it. ``on_decisions`` hears the decisions once every policy has chosen
    (a policy raising leaves no decision half-reported).
    """
    masks = engine.legal_mask(games)
    actions = np.empty(games.shape[0], dtype=np.int64)
    ks = [int(who[0])] if (who == who[0]).all() else np.unique(who).tolist()
    game = getattr(engine, "GAME_ID", None)
    action_str = getattr(engine, "action_str", None)
    heard = []
    for k in ks:
        pos = slice(None) if len(ks) == 1 else np.flatnonzero(who == k)
        policy = policies[k]
        name = f"agent {policy.name!r}"
        if game is not None:
            refuse_other_game(policy, game, name)
        view = GameView(engine, games[pos])
        mask = masks[pos]
        obs = engine.observe(view.games, view.seats) if policy.needs_observation else None
        t0 = time.perf_counter()
        chosen = policy.act(obs, mask, view)
        if clock is not None:
            clock.add(k, time.perf_counter() - t0, view.games.shape[0])
        actions[pos] = check_actions(chosen, mask, name, action_str=action_str,
                                     where=lambda i, g=view.games: f" in game {int(g[i])}")
        if on_decisions is not None:
            heard.append((k, view, obs, mask, pos))
    for k, view, obs, mask, pos in heard:
        on_decisions(k, view, obs, mask, actions[pos])  # type: ignore[misc]
    return actions


def play(
    engine: Any,
    policies: Sequence[Policy],
    seat_policy: np.ndarray,
    *,
    active: np.ndarray | None = None,
    on_step: StepHook | None = None,
    on_decisions: DecisionHook | None = None,
    clock: DecisionClock | None = None,
) -> None:
    """Play until every game has ended (DONE) or waits for a seat with no policy.

    Args:
        engine: the games (``auto_reset=False`` so that ended games stop).
        policies: the players.
        seat_policy: (B, P) int: the policy index of each seat of each game, -1 = stop
            there. Read at every iteration, so a caller may change it between calls.
        active: (B,) bool: only these games are played (default: all).
        on_step: called after each engine step.
        on_decisions: called after each policy's batch of decisions (see
            :data:`DecisionHook`).
        clock: accumulates each policy's thinking time.
    """
    rows = np.arange(engine.num_games)
    seat_policy = np.asarray(seat_policy)
    while True:
        who = seat_policy[rows, engine.current_player]
        need = ~engine.done & (who >= 0)
        if active is not None:
            need &= active
        if not need.any():
            return
        games = np.flatnonzero(need)
        actions = decide(
            engine, games, policies, who[games], clock=clock, on_decisions=on_decisions
        )
        info = engine.step(actions, games=None if games.shape[0] == engine.num_games else games)
        if on_step is not None:
            on_step(games, info)
