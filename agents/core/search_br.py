"""A search best response to a frozen agent: determinized rollouts against the agent itself.

A best response to an agent knows how the agent plays. This one asks it: at each of its
decisions (seat ``s`` of game ``g``), for every legal action ``a``,

1. ``particles`` positions consistent with what ``s`` has seen are drawn (the cards
   ``s`` cannot see dealt again, :meth:`~pasur_env.core.batch_engine.BatchEngine.determinize`);
2. in each of them ``a`` is played and the round is played out, the frozen agent at
   its own seats and the *continuation* (by default the agent too) at the exploiter's;
3. the action with the best mean of ``its side's round points - the mean of the other
   sides'`` is played (common random numbers: every action meets the same positions;
   ties go to the lowest action id).

It is one step of policy improvement over the continuation, computed against the true
agent rather than a model of it: with exact values it would gain at least what the
continuation gains. Its values are means over ``particles`` positions, and on a long
round the best mean is often noise: measured on the full Pasur game, 16 positions
played worse than the agent's own moves. ``margin`` guards against that: the
continuation's own move is kept unless the best action beats it by more than ``margin``
standard errors of their paired difference over the positions.

**What the agent's plays reveal.** Plain determinization deals the hidden cards
uniformly, as if the agent's plays said nothing about its hand. With ``posterior`` (the
default) the positions are a particle filter over the deal: after each decision the
exploiter keeps its ``pool`` positions with its own action applied, and at its next
decision lets the agent play on in each of them until ``s`` moves again. A position is
kept only if ``s``'s observation and legal actions there are the real ones: the agent
played, with the hand that position gives it, what it played in the real game. That is
rejection sampling from the posterior under the agent's own policy, for any agent,
deterministic or not, with no model of it. The survivors are copied back to the
pool's size (each as often, a particle filter's resampling): against a stochastic
agent the copies of a position are replayed apart, and without it the chain thinned to
a few positions within a round (on ``small`` against ``ismcts``, 20,000 rounds: 83% of
the exact gain with the copies, 70% without). When no position survives (a new deal
shows cards no position dealt; the agent played something none of them predicted),
the pool is dealt again uniformly. The agent's plays *before* the exploiter's first
decision of a round filter too: a game it has not met yet is remembered as it stands
when the exploiter first sees it waiting at another seat (a batched loop asks the
exploiter while the games where it plays second wait for the agent's first move).
Measured on ``mini``, this is what the search missed as second player against the
networks: without it the second seat's first decision dealt the agent's hand as if
its first play said nothing. The filter needs the exploiter's side to be one seat: a
partner's moves in between are not the exploiter's to replay, so with teams (Persian
Rummy) every decision deals afresh.

**Planning its own later moves.** With ``depth`` N > 1 the exploiter's next N - 1
decisions in each position are searched too (every legal action, the agent replying)
before the continuation takes over. A plan must be one the exploiter could play: the
positions where it has made the same moves and sees the same thing choose one action
together, the best in sum over them, so no choice reads a card it cannot see. On a
known position this is the perfect-information best response; on ``mini`` and
``small`` it did not change the gain measurably (docs/exploitability.md).

Every call runs the agent on all the rollouts of the batch at once: the cost of a
decision is about ``particles x legal actions`` rollouts of the rest of the round, each
step one batched call of the agent. ``pasur best-response AGENT --method search`` plays
it against the agent on fresh duplicate deals; its gain is a lower bound on the agent's
exploitability (docs/exploitability.md, with the exact best responses of the small
variants).
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from agents.core.base import Agent
from agents.core.search import check_budget
from pasur_env.core.loop import play
from pasur_env.core.policy import GameView, Policy, check_actions

__all__ = ["SearchBestResponse", "DEFAULT_PARTICLES", "check_margin"]

#: positions per candidate action (the measured default, docs/exploitability.md)
DEFAULT_PARTICLES = 64
#: particles the filter keeps per decision, as a multiple of ``particles``
POOL_FACTOR = 4
#: about how many positions one batch of a plan (``depth`` > 1) holds at its widest
PLAN_ROWS = 20_000


def _alone(sides: np.ndarray) -> np.ndarray:
    """Which seats are a side by themselves (``sides``: a side per seat): the seats whose
    decisions between two of its own no partner makes (the filter and a plan need them)."""
    return np.bincount(sides)[sides] == 1


def check_margin(margin: Any, name: str = "margin") -> float:
    """A finite number >= 0 (standard errors), or ``ValueError`` naming it."""
    if isinstance(margin, bool) or not isinstance(margin, (int, float, np.floating)) \
            or not 0 <= margin < float("inf"):
        raise ValueError(f"{name} must be a number >= 0, got {margin!r}")
    return float(margin)


class SearchBestResponse(Agent):
    """Determinized rollouts against a frozen agent (module docstring).

    Args:
        target: the frozen agent (a policy of the game being played).
        particles: positions per candidate action.
        continuation: who plays the exploiter's seats in the rollouts (default: ``target``).
        posterior: filter the positions by the agent's plays (default) or deal them
            uniformly at every decision.
        pool: positions the filter keeps (default ``POOL_FACTOR x particles``).
        margin: play the continuation's own move unless the search's best beats it by
            more than this many standard errors (0: always the search's best).
        depth: the exploiter's own decisions the search plans (1: this one, then the
            continuation); needs the exploiter's side to be one seat.
        seed: seeds the determinizations and the resampling.
    """

    def __init__(self, target: Policy, particles: int = DEFAULT_PARTICLES, *,
                 continuation: Policy | None = None, posterior: bool = True,
                 pool: int | None = None, margin: float = 0.0, depth: int = 1,
                 seed: int | None = None) -> None:
        self.target = target
        self.continuation = continuation if continuation is not None else target
        self.particles = check_budget(particles, "particles")
        self.pool = check_budget(pool if pool is not None else POOL_FACTOR * self.particles,
                                 "pool")
        self.posterior = bool(posterior)
        self.margin = check_margin(margin)
        self.depth = check_budget(depth, "depth")
        self.name = f"search-br({getattr(target, 'name', 'agent')})"
        for attr in ("game_ids", "player_counts"):  # it plays where its agent plays
            setattr(self, attr, getattr(target, attr, None))
        #: decisions by how their positions were drawn, and the positions kept
        self.stats = {"decisions": 0, "filtered": 0, "kept": 0}
        #: (id(engine), game, seat) -> (weakref to the engine, positions)
        self._memory: dict[tuple[int, int, int], tuple[Any, np.ndarray]] = {}
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        """Reseed the draws; forget the positions of the games played so far."""
        super().reset(seed)
        self._memory.clear()
        for who in (self.target, self.continuation):
            who.reset(None if seed is None else int(self.rng.integers(2**31)))

    def act(self, obs: np.ndarray | None, mask: np.ndarray, view: GameView) -> np.ndarray:
        eng, games = view.engine, view.games
        if self.depth > 1 and not _alone(eng.seat_sides).all():
            raise ValueError(f"depth {self.depth} needs the exploiter's side to be one seat; "
                             "in this game a side has several (use depth 1)")
        self._forget_dead()
        if self.posterior:
            self._watch(eng, games)
        parts = [np.arange(len(games))]
        if self.depth > 1:  # a plan multiplies the positions at every level: bound the memory
            rows = np.cumsum(mask.sum(axis=1) * self.particles * self.depth ** 2)
            parts = np.split(parts[0], np.searchsorted(
                rows, np.arange(PLAN_ROWS, rows[-1], PLAN_ROWS), side="right"))
        choice = np.concatenate([self._decide(mask[p], GameView(eng, games[p]))
                                 for p in parts if len(p)])
        self.stats["decisions"] += len(games)
        return choice

    def _decide(self, mask: np.ndarray, view: GameView) -> np.ndarray:
        """The search's actions for the decisions of ``view`` (the body of :meth:`act`)."""
        eng, games, seats = view.engine, view.games, view.seats
        pools = self._positions(eng, games, seats)
        picked = [p[self.rng.choice(len(p), self.particles, replace=len(p) < self.particles)]
                  for p in pools]
        counts = mask.sum(axis=1) * self.particles
        sim = eng.take(np.repeat(games, counts))
        sim.state[:] = np.concatenate([np.tile(rows, (int(m.sum()), 1))
                                       for rows, m in zip(picked, mask, strict=True)])
        acts = np.concatenate([np.repeat(np.flatnonzero(m), self.particles) for m in mask])
        paths = np.arange(len(acts)) // self.particles  # the decision and its first action
        values = self._values(sim, acts, np.repeat(seats, counts), paths, self.depth)
        choice = self._choose(values.reshape(-1, self.particles), mask, view)
        if self.posterior:
            self._remember(eng, games, seats, pools, choice)
        return choice

    def _choose(self, values: np.ndarray, mask: np.ndarray, view: GameView) -> np.ndarray:
        """Each decision's action from its rows of ``values`` (legal action x position):
        the best mean; with ``margin`` > 0, the continuation's own move unless the best
        beats it by more than ``margin`` standard errors of their paired difference."""
        own = None
        if self.margin > 0:
            obs = (view.engine.observe(view.games, view.seats)
                   if self.continuation.needs_observation else None)
            own = check_actions(self.continuation.act(obs, mask, view), mask,
                                f"continuation {self.continuation.name!r}")
        choice = np.empty(len(mask), dtype=np.int64)
        at = 0
        for i, m in enumerate(mask):
            legal = np.flatnonzero(m)
            block = values[at:at + len(legal)]
            best = int(np.argmax(block.mean(axis=1)))
            choice[i] = legal[best]
            if own is not None and legal[best] != own[i]:
                diff = block[best] - block[int(np.searchsorted(legal, own[i]))]
                se = diff.std(ddof=1) / np.sqrt(len(diff)) if len(diff) > 1 else np.inf
                if not diff.mean() > self.margin * se:
                    choice[i] = own[i]
            at += len(legal)
        return choice

    # ---- the positions ---------------------------------------------------------------------
    def _positions(self, eng: Any, games: np.ndarray, seats: np.ndarray) -> list[np.ndarray]:
        """For each decision, ``pool`` state rows consistent with what its seat has seen:
        the filter's survivors copied to the pool's size (each as often, to one copy;
        the resampling of the module docstring) when some survive, else a fresh uniform
        pool."""
        pools: list[np.ndarray | None] = [None] * len(games)
        if self.posterior:
            for i, rows in self._filtered(eng, games, seats).items():
                self.stats["filtered"] += 1
                self.stats["kept"] += len(rows)
                if len(rows) < self.pool:  # back to the pool's size, each as often (+-1)
                    rows = rows[np.resize(self.rng.permutation(len(rows)), self.pool)]
                pools[i] = rows
        for i, rows in enumerate(pools):
            if rows is None:
                seed = int(self.rng.integers(2**63 - 1))
                pools[i] = eng.determinize(int(games[i]), self.pool, int(seats[i]), seed).state
        return pools  # type: ignore[return-value]

    def _filtered(self, eng: Any, games: np.ndarray, seats: np.ndarray
                  ) -> dict[int, np.ndarray]:
        """The remembered positions of each decision's game after the agent played on in
        them (one batched play), those where the seat sees what it sees in the real game;
        by decision, for the decisions where some survive."""
        sides = eng.seat_sides
        single = _alone(sides)
        old = {i: e[1] for i, (g, s) in enumerate(zip(games, seats, strict=True))
               if (e := self._memory.get((id(eng), int(g), int(s)))) is not None
               and e[0]() is eng and single[s]}
        if not old:
            return {}
        owner = np.concatenate([np.full(len(r), i) for i, r in old.items()])
        part = eng.take(games[owner])
        part.state[:] = np.concatenate(list(old.values()))
        who = np.where(sides[None, :] == sides[seats[owner]][:, None], -1, 0)  # stop at ours
        live = ~part.done
        play(part, [self.target], who, active=live,
             on_step=lambda gs, info: live.__setitem__(gs[info.round_end], False))
        ok = np.flatnonzero(live & (part.current_player == seats[owner]))
        real_obs = eng.observe(games, seats)
        real_mask = eng.legal_mask(games)
        same = ((part.observe(ok, seats[owner[ok]]) == real_obs[owner[ok]]).all(axis=1)
                & (part.legal_mask(ok) == real_mask[owner[ok]]).all(axis=1))
        kept = ok[same]
        return {i: part.state[kept[owner[kept] == i]] for i in np.unique(owner[kept]).tolist()}

    def _remember(self, eng: Any, games: np.ndarray, seats: np.ndarray,
                  pools: list[np.ndarray], choice: np.ndarray) -> None:
        """Keep each game's positions with the chosen action played, for the filter."""
        sizes = [len(rows) for rows in pools]
        part = eng.take(np.repeat(games, sizes))
        part.state[:] = np.concatenate(pools)
        part.step(np.repeat(choice, sizes))
        ref = weakref.ref(eng)
        at = 0
        for g, s, n in zip(games, seats, sizes, strict=True):
            self._memory[(id(eng), int(g), int(s))] = (ref, part.state[at:at + n].copy())
            at += n

    def _watch(self, eng: Any, games: np.ndarray) -> None:
        """Remember positions of the engine's games this exploiter has not met, as they
        stand now, for each seat that could be its own (a one-seat side not to move):
        the agent's plays before the exploiter's first decision in such a game then
        filter them too. A batched loop asks the exploiter while the games it plays
        second still wait for the agent's first move; a position remembered for a seat
        that is not the exploiter's is never read."""
        seats = np.flatnonzero(_alone(eng.seat_sides))
        met = {k[1] for k in self._memory if k[0] == id(eng)}
        ref = weakref.ref(eng)
        for g in np.setdiff1d(np.flatnonzero(~eng.done), games).tolist():
            if g in met:
                continue
            for s in seats[seats != eng.current_player[g]].tolist():
                seed = int(self.rng.integers(2**63 - 1))
                self._memory[(id(eng), g, s)] = (ref, eng.determinize(g, self.pool, s,
                                                                       seed).state)

    def _forget_dead(self) -> None:
        """Drop the positions of engines that no longer exist."""
        for key in [k for k, v in self._memory.items() if v[0]() is None]:
            del self._memory[key]

    # ---- the rollouts ----------------------------------------------------------------------
    def _values(self, sim: Any, acts: np.ndarray, seats: np.ndarray, paths: np.ndarray,
                depth: int) -> np.ndarray:
        """Each game's value for ``seats``' side after ``acts``: with ``depth`` 1 the
        continuation plays the exploiter's later moves; else its next ``depth - 1``
        decisions are planned (:meth:`_plan`) and the continuation plays the rest."""
        if depth <= 1:
            return self._play_on(sim, acts, seats, stop_at_mine=False)[0]
        values, live = self._play_on(sim, acts, seats, stop_at_mine=True)
        rows = np.flatnonzero(live)
        if rows.size:
            values[rows] = self._plan(sim.take(rows), seats[rows], paths[rows], depth - 1)
        return values

    def _plan(self, sub: Any, seats: np.ndarray, paths: np.ndarray, depth: int) -> np.ndarray:
        """Values of ``sub``'s games, each at a decision of ``seats``, when every action is
        tried and each information set plays its best: the positions that share the
        exploiter's path so far (``paths``: its earlier actions, what it saw) and what its
        seat sees now choose one action together, the one with the best sum over them."""
        mask = sub.legal_mask()
        seen = np.ascontiguousarray(sub.observe(None, seats))
        key = np.concatenate([paths.astype(np.int64)[:, None].view(np.uint8),
                              seen.view(np.uint8), mask.view(np.uint8)], axis=1)
        group = np.unique(key, axis=0, return_inverse=True)[1].reshape(-1)
        row, act = np.nonzero(mask)  # every legal action of every position
        step = np.unique(group[row] * mask.shape[1] + act, return_inverse=True)[1].reshape(-1)
        child = self._values(sub.take(row), act, seats[row], step, depth)
        total = np.full((int(group.max()) + 1, mask.shape[1]), -np.inf)
        total[group[row], act] = 0.0
        np.add.at(total, (group[row], act), child)
        best = np.argmax(total, axis=1)  # ties: the lowest action id
        chosen = act == best[group[row]]
        out = np.empty(len(seats))
        out[row[chosen]] = child[chosen]
        return out

    def _play_on(self, sim: Any, acts: np.ndarray, seats: np.ndarray, *,
                 stop_at_mine: bool) -> tuple[np.ndarray, np.ndarray]:
        """Play ``acts`` in ``sim``'s games, then on: the agent at its seats and at the
        exploiter's the continuation (to the round's end) or, with ``stop_at_mine``, a
        stop. Each game's value for ``seats``' side (valid where its round ended), and
        which rounds go on."""
        n = sim.num_games
        sides = sim.seat_sides
        mine = sides[None, :] == sides[seats][:, None]  # (n, P) the exploiter's seats
        points = np.zeros((n, int(sides.max()) + 1))
        live = np.ones(n, dtype=bool)

        def book(games: np.ndarray, info: Any) -> None:
            rows = np.flatnonzero(info.round_end)
            points[games[rows]] = info.round_points[rows]
            live[games[rows]] = False

        book(np.arange(n), sim.step(acts))
        play(sim, [self.target, self.continuation], np.where(mine, -1 if stop_at_mine else 1, 0),
             active=live, on_step=book)
        own = sides[seats]
        ours = points[np.arange(n), own]
        others = (points.sum(axis=1) - ours) / max(1, points.shape[1] - 1)
        return ours - others, live
