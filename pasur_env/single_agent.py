"""Single-agent Gymnasium env: one learner seat against opponents, over the batched engine.

:class:`LearnerGames` is the part shared with :class:`pasur_env.vector_env.PasurVecEnv`:
B games of one :class:`~pasur_env.Engine` (``auto_reset=False``), a learner seat per
game, and opponents that move (batched, one ``act`` call per opponent agent per
inner iteration) until every game waits for the learner or has ended. Rewards are
the learner's seat's rewards of :func:`pasur_env.rewards.seat_rewards`, summed over
every engine step in between, so the learner is paid for rounds that end on an
opponent's move too. :class:`PasurSingleAgentEnv` is ``LearnerGames`` with B = 1.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle, seeding

from agents.base import GameView, check_actions

from .encoding import encode, observation_size
from .engine import Engine, action_str
from .opponents import OpponentPool
from .rewards import env_options, seat_rewards, seat_sides

__all__ = ["PasurSingleAgentEnv", "LearnerGames", "LegalActionSpace"]

_DONE = 2
NUM_ACTIONS = 104


def _env_options(
    preset: str | None,
    episode: str | None,
    reward: str | None,
    max_rounds: int | None,
    rule_flags: dict[str, Any],
) -> tuple[Any, str, str, int | None]:
    """The training envs' options: one-round episodes paid by point difference by default."""
    return env_options(preset, episode, reward, max_rounds, rule_flags, "round", "diff")


class LearnerGames:
    """B games in one engine, each with a learner seat and opponents that move in between.

    Invariant between calls: every game is at a decision of its learner seat, or has
    ended (``terminated`` / ``truncated``) and waits for :meth:`reset_games`.

    Args:
        num_games: B.
        rules: the :class:`~pasur_env.Rules`.
        episode, reward, max_rounds: as in the envs.
        learner_seat: a seat, or ``"random"`` (drawn per game and episode from the
            game's generator).
        opponents: an :class:`OpponentPool`; each game draws its opponent from it
            (with the game's generator) when it starts an episode.
        parallel: passed to the :class:`Engine`.
    """

    def __init__(
        self,
        num_games: int,
        rules: Any,
        episode: str,
        reward: str,
        max_rounds: int | None,
        learner_seat: int | str,
        opponents: OpponentPool,
        parallel: bool | None = None,
    ) -> None:
        P = rules.num_players
        if isinstance(learner_seat, str):
            if learner_seat != "random":
                raise ValueError(f"learner_seat must be a seat or 'random', got {learner_seat!r}")
        elif isinstance(learner_seat, bool) or not isinstance(learner_seat, (int, np.integer)):
            raise TypeError(f"learner_seat must be an int seat or 'random', got {learner_seat!r}")
        elif not 0 <= learner_seat < P:
            raise ValueError(f"learner_seat must be in 0..{P - 1}, got {learner_seat}")
        if len(opponents) == 0:
            raise ValueError("the opponent pool is empty")
        self.rules = rules
        self.episode = episode
        self.reward_mode = reward
        self.max_rounds = max_rounds
        self.learner_seat = learner_seat
        self.pool = opponents
        B = int(num_games)
        self.num_games = B
        self.engine = Engine(B, rules=rules, episode=episode, auto_reset=False, parallel=parallel)
        self.sides = seat_sides(rules)
        self.seat = np.zeros(B, dtype=np.int64)
        self.rngs: list[np.random.Generator] = [np.random.default_rng() for _ in range(B)]
        self.acc = np.zeros(B, dtype=np.float32)
        self.rounds = np.zeros(B, dtype=np.int64)
        self.terminated = np.zeros(B, dtype=np.bool_)
        self.truncated = np.zeros(B, dtype=np.bool_)
        #: games whose round ended since :meth:`clear_round_flags`, with that round's
        #: per-seat points and scores (lists of P, like the AEC env's infos)
        self.round_ended = np.zeros(B, dtype=np.bool_)
        self.round_points = np.zeros((B, P), dtype=np.int64)
        self.scores = np.zeros((B, P), dtype=np.int64)
        #: opponent of each game: pool entry id and index into ``_slot_agents``
        self.entry_id = np.zeros(B, dtype=np.int64)
        self.slot = np.zeros(B, dtype=np.int64)
        self.entry_name: list[str] = [""] * B
        self._slot_agents: list[Any] = []
        self._slot_of: dict[int, int] = {}
        self._all = np.arange(B, dtype=np.int64)
        self._masks: np.ndarray | None = None  # learner masks of the current state

    # ---- episodes ---------------------------------------------------------------------------
    def reset_games(
        self,
        games: np.ndarray,
        seeds: Sequence[int | None] | None = None,
        options: Sequence[dict[str, Any] | None] | None = None,
    ) -> None:
        """Start a new episode in ``games`` and advance each to its learner's first decision.

        ``seeds[k]`` (if not None) reseeds game ``games[k]`` exactly as
        ``Engine(1).reset(seed)`` would, and its generator (learner seat, opponent draw)
        with ``np_random(seed)``. ``options[k]`` may hold ``deck``, ``dealer`` (first
        round, as in the AEC env) and ``learner_seat``.
        """
        games = np.asarray(games, dtype=np.int64).reshape(-1)
        if games.size == 0:
            return
        n = len(games)
        seeds = list(seeds) if seeds is not None else [None] * n
        options = [dict(o or {}) for o in options] if options is not None else [{}] * n
        eng = self.engine
        plain, special = [], []
        for k, g in enumerate(games):
            opts = options[k]
            unknown = set(opts) - {"deck", "dealer", "learner_seat"}
            if unknown:
                gymnasium.logger.warn(f"ignoring unknown reset option(s) {sorted(unknown)}")
            if seeds[k] is None and opts.get("deck") is None and opts.get("dealer") is None:
                plain.append(int(g))
            else:
                special.append(k)
        if plain:
            if len(plain) == self.num_games:
                eng.reset()
            else:
                sub = eng.take(plain)
                sub.reset()
                eng.state[plain] = sub.state
        for k in special:
            g = int(games[k])
            sub = eng.take([g])
            sub.reset(seed=seeds[k], deck=options[k].get("deck"), dealer=options[k].get("dealer"))
            eng.state[g] = sub.state[0]
            if seeds[k] is not None:
                self.rngs[g] = seeding.np_random(int(seeds[k]))[0]
        P = self.rules.num_players
        for k, g in enumerate(games):
            rng = self.rngs[g]
            seat = options[k].get("learner_seat", self.learner_seat)
            if seat == "random":
                seat = int(rng.integers(P))
            elif isinstance(seat, bool) or not isinstance(seat, (int, np.integer)):
                raise TypeError(f"learner_seat must be an int seat or 'random', got {seat!r}")
            elif not 0 <= seat < P:
                raise ValueError(f"learner_seat must be in 0..{P - 1}, got {seat}")
            self.seat[g] = seat
            self._assign_opponent(int(g), self.pool.sample(rng))
        self.acc[games] = 0.0
        self.rounds[games] = 0
        self.terminated[games] = False
        self.truncated[games] = False
        self.round_ended[games] = False
        self._masks = None
        self.advance()

    def _assign_opponent(self, g: int, entry: Any) -> None:
        agent = entry.agent
        slot = self._slot_of.get(id(agent))
        if slot is None or self._slot_agents[slot] is not agent:
            if len(self._slot_agents) > 4 * max(len(self.pool), 8):
                self._compact_slots()
            slot = len(self._slot_agents)
            self._slot_agents.append(agent)
            self._slot_of[id(agent)] = slot
        self.slot[g] = slot
        self.entry_id[g] = entry.id
        self.entry_name[g] = entry.name

    def _compact_slots(self) -> None:
        """Forget agents no game uses any more (removed snapshots)."""
        used = sorted(set(self.slot.tolist()))
        agents = [self._slot_agents[s] for s in used]
        remap = np.zeros(len(self._slot_agents), dtype=np.int64)
        remap[used] = np.arange(len(used))
        self.slot = remap[self.slot]
        self._slot_agents = agents
        self._slot_of = {id(a): i for i, a in enumerate(agents)}

    @property
    def done(self) -> np.ndarray:
        return self.terminated | self.truncated

    # ---- moving ------------------------------------------------------------------------------
    def learner_masks(self) -> np.ndarray:
        """(B, 104) bool legal actions of the learners (all False in ended games).

        Cached until the games change: do not modify the returned array.
        """
        if self._masks is None:
            m = self.engine.legal_mask()
            m[self.done] = False
            self._masks = m
        return self._masks

    def check_learner_actions(self, actions: np.ndarray, masks: np.ndarray, who: str) -> None:
        """Raise ValueError naming the first illegal action and the legal ones."""
        ok = (actions >= 0) & (actions < NUM_ACTIONS)
        ok[ok] = masks[np.flatnonzero(ok), actions[ok]]
        if not ok.all():
            g = int(np.flatnonzero(~ok)[0])
            a = int(actions[g])
            legal = np.flatnonzero(masks[g]).tolist()
            where = f" in env {g}" if self.num_games > 1 else ""
            raise ValueError(
                f"illegal action {a} ({action_str(a)}){where} for the learner "
                f"(player_{int(self.seat[g])}); legal actions: {legal} "
                f"({', '.join(action_str(x) for x in legal)})"
            )

    def learner_step(self, actions: np.ndarray) -> None:
        """Apply the learners' actions in every game (all must be at learner decisions)."""
        self._masks = None
        info = self.engine.step(actions)
        self._account(self._all, info)

    def advance(self) -> None:
        """Let opponents move, batched, until every game waits for its learner or has ended."""
        eng = self.engine
        while True:
            mover = eng.current_player
            need = (eng.phase != _DONE) & (mover != self.seat) & ~self.done
            if not need.any():
                return
            idx = np.flatnonzero(need)
            masks = eng.legal_mask()
            acts = np.empty(len(idx), dtype=np.int64)
            slots = self.slot[idx]
            first = slots[0]
            groups = [first] if (slots == first).all() else np.unique(slots).tolist()
            for s in groups:
                pos = slice(None) if len(groups) == 1 else np.flatnonzero(slots == s)
                games = idx[pos]
                agent = self._slot_agents[s]
                m = masks[games]
                obs = encode(eng, games, mover[games]) if agent.needs_observation else None
                a = agent.act(obs, m, GameView(eng, games))
                acts[pos] = check_actions(a, m, getattr(agent, "name", repr(agent)))
            self._masks = None
            if len(idx) == self.num_games:
                info = eng.step(acts)
            else:
                sub = eng.take(idx)
                info = sub.step(acts)
                eng.state[idx] = sub.state
            self._account(idx, info)

    def _account(self, idx: np.ndarray, info: Any) -> None:
        """Book the learner's rewards, round results and episode ends of one engine step."""
        if not info.any_round_end:
            return
        rows = np.flatnonzero(info.round_end)
        g = idx[rows]
        r = seat_rewards(info, self.rules, self.reward_mode)
        self.acc[g] += r[rows, self.seat[g]]
        self.rounds[g] += 1
        self.round_ended[g] = True
        self.round_points[g] = info.round_points[rows][:, self.sides]
        self.scores[g] = info.scores[rows][:, self.sides]
        ended = info.game_end[rows]
        if ended.any():
            ge = g[ended]
            self.terminated[ge] = True
            winner = info.winner[rows][ended]
            mine = self.sides[self.seat[ge]]
            result = np.where(winner == mine, 1.0, np.where(winner < 0, 0.5, 0.0))
            for gg, res in zip(ge.tolist(), result.tolist(), strict=True):
                self.pool.record(int(self.entry_id[gg]), res)
        if self.max_rounds is not None:
            self.truncated[g] |= (self.rounds[g] >= self.max_rounds) & ~self.terminated[g]

    # ---- reading ---------------------------------------------------------------------------
    def observe(self, games: np.ndarray | None = None) -> np.ndarray:
        """The learners' observations of ``games`` (default all): (n, N) float32."""
        games = self._all if games is None else games
        return encode(self.engine, games, self.seat[games])

    def pop_rewards(self) -> np.ndarray:
        """The learners' rewards accumulated since the last call: (B,) float32."""
        r = self.acc.copy()
        self.acc[:] = 0.0
        return r

    def round_info(self, g: int) -> dict[str, Any]:
        """``round_points`` and ``scores`` (lists per seat) if game ``g``'s round ended."""
        if not self.round_ended[g]:
            return {}
        return {
            "round_points": self.round_points[g].tolist(),
            "scores": self.scores[g].tolist(),
        }


class LegalActionSpace(spaces.Discrete):
    """``Discrete(104)`` whose ``sample()`` draws among the env's currently legal actions.

    With an explicit ``mask`` or ``probability`` it behaves like ``Discrete``. Pickles
    as a plain ``Discrete(104)`` (saved models do not reference the env).
    """

    def __init__(self, env: PasurSingleAgentEnv, seed: int | None = None) -> None:
        super().__init__(NUM_ACTIONS, seed=seed)
        self._env_ref = weakref.ref(env)

    def sample(self, mask: Any = None, probability: Any = None) -> np.int64:
        env = self._env_ref() if mask is None and probability is None else None
        if env is not None and env._started:
            legal = env.action_masks()
            if legal.any():
                mask = legal.astype(np.int8)
        return super().sample(mask=mask, probability=probability)

    def __reduce__(self) -> tuple[Any, ...]:
        return (spaces.Discrete, (int(self.n),))

    def __deepcopy__(self, memo: dict[int, Any]) -> LegalActionSpace:
        import copy

        new = object.__new__(LegalActionSpace)
        for k, v in self.__dict__.items():
            new.__dict__[k] = v if k == "_env_ref" else copy.deepcopy(v, memo)
        return new


class PasurSingleAgentEnv(gymnasium.Env, EzPickle):
    """
    ## Description

    Pasur (Pasoor, Chahâr Barg), the Persian fishing card game, for one learning agent.
    The learner sits at one seat; every other seat is played by an opponent (an agent
    from ``agents/``, a callable, a loaded Stable-Baselines3 policy, or a self-play
    :class:`~pasur_env.opponents.OpponentPool`) that moves inside :meth:`step` until it
    is the learner's turn again or the episode ends. The rules are those of
    ``docs/rules.md``, computed by the batched engine (:class:`pasur_env.Engine`, one
    game, ``auto_reset=False``); this class holds no rule logic.

    ## Action Space

    ``Discrete(104)``: ``0..51`` play card id ``4 * rank + suit`` (A♣ = 0 ... K♠ = 51),
    ``52..103`` take table card ``a - 52`` while choosing a capture (a played card with
    several capture options is followed by the learner's TAKE actions, one table card
    at a time in ascending id order). Only legal actions may be played:
    :meth:`action_masks` gives them (for sb3-contrib's ``MaskablePPO``) and
    ``action_space.sample()`` draws among them. An illegal action raises
    ``ValueError`` naming it and the legal ones (``illegal_action="random"`` replaces
    it by a random legal action instead, and sets ``info["illegal_action"]``).

    ## Observation Space

    ``Box(0, 1, (N,), float32)``, the learner's own view (``pasur_env.encoding``;
    N = 957 for 2 players, 1015 for 3, 963 for 4): own hand, table, each side's pile,
    unseen cards, pending card and selection, phase, clubs/surs/scores per side, deal,
    stock, hand sizes, relative dealer and last capturer, and what each hand card can
    capture now. It never shows another
    seat's hidden cards. After the episode ends it is the learner's view of the final
    state.

    ## Rewards

    The learner's seat's reward, summed over its own action and the opponents' moves
    that follow (a round that ends on an opponent's move is paid in that step):

    | ``reward`` | when | amount |
    |---|---|---|
    | ``diff`` (default) | each round end | own side's round points minus the others' mean |
    | ``points`` | each round end | own side's round points |
    | ``win`` | episode end | +1 if the learner's side won, -1 if it lost, 0 on a tie |

    At a step in which a round ended, ``info`` holds ``round_points`` and ``scores``
    (lists of P: each seat's side's points that round and game score after it).

    ## Starting State

    A shuffled deal (seeded by ``reset(seed=...)``) with the learner to move: the
    opponents before it in turn order have already played.

    ## Episode End

    ``episode="round"`` (default): after one round (48 turns). ``episode="game"``:
    when a side has at least ``target_score`` and more than every other side.
    ``max_rounds`` truncates a game. ``reset(seed, options={"deck": [...],
    "dealer": d, "learner_seat": s})`` fixes the first deck, the dealer, the seat.

    ## Arguments

    ``gymnasium.make("pasur_env/Pasur-v0", opponent="greedy", learner_seat=0,
    preset=None, episode=None, reward=None, max_rounds=None, illegal_action="raise",
    render_mode=None, **rule_flags)``

    * ``opponent``: agent name or ``.zip`` path (``agents.registry.make_agent``), an
      ``Agent``, a callable ``(obs, mask) -> action``, an SB3 model or policy, or an
      ``OpponentPool`` (drawn per episode). Default ``"greedy"``.
    * ``learner_seat``: a seat ``0..P-1`` or ``"random"`` (seeded, per episode).
    * ``preset`` and every rule flag of :class:`pasur_env.Rules` (``num_players`` ...).
    * ``episode``: ``"round"`` (default) or ``"game"``; ``reward``: ``"diff"``
      (default), ``"points"`` or ``"win"``; ``max_rounds``: truncate after this many
      rounds.
    * ``illegal_action``: ``"raise"`` (default) or ``"random"``.
    * ``render_mode``: ``"ansi"`` or ``"human"`` (the learner's view).

    For a 4-player game the learner's partner is played by the opponent agent.

    ## Version History

    * v0: initial release (pasur_env 0.1.0)
    """

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 1}

    def __init__(
        self,
        opponent: Any = "greedy",
        learner_seat: int | str = 0,
        preset: str | None = None,
        episode: str | None = None,
        reward: str | None = None,
        max_rounds: int | None = None,
        illegal_action: str = "raise",
        render_mode: str | None = None,
        **rule_flags: Any,
    ) -> None:
        EzPickle.__init__(
            self,
            opponent=opponent,
            learner_seat=learner_seat,
            preset=preset,
            episode=episode,
            reward=reward,
            max_rounds=max_rounds,
            illegal_action=illegal_action,
            render_mode=render_mode,
            **rule_flags,
        )
        self.rules, self.episode, self.reward_mode, self.max_rounds = _env_options(
            preset, episode, reward, max_rounds, rule_flags
        )
        if illegal_action not in ("raise", "random"):
            raise ValueError(f"illegal_action must be 'raise' or 'random', got {illegal_action!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}"
            )
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        pool = opponent if isinstance(opponent, OpponentPool) else OpponentPool([opponent])
        self.opponents = pool
        self.games = LearnerGames(
            1, self.rules, self.episode, self.reward_mode, self.max_rounds, learner_seat, pool,
            parallel=False,
        )
        self.observation_space = spaces.Box(
            0.0, 1.0, (observation_size(self.rules),), np.float32
        )
        self.action_space = LegalActionSpace(self)
        self._started = False

    # ---- properties ----------------------------------------------------------------------
    @property
    def engine(self) -> Engine:
        """The one-game engine (read-only use)."""
        return self.games.engine

    @property
    def learner_seat(self) -> int:
        """The learner's seat in the current episode."""
        return int(self.games.seat[0])

    @property
    def opponent_name(self) -> str:
        return self.games.entry_name[0]

    # ---- gymnasium API --------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self.opponents.reset(seed)
            self.action_space.seed(seed)
        self.games.reset_games(np.zeros(1, dtype=np.int64), [seed], [options])
        self._started = True
        obs = self.games.observe()[0]
        if self.render_mode == "human":
            self.render()
        return obs, {"learner_seat": self.learner_seat, "opponent": self.opponent_name}

    def action_masks(self) -> np.ndarray:
        """(104,) bool legal actions of the learner (all False once the episode ended)."""
        if not self._started:
            raise RuntimeError("call reset() before action_masks()")
        return self.games.learner_masks()[0].copy()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if not self._started:
            raise RuntimeError("call reset() before step()")
        g = self.games
        if g.done[0]:
            raise RuntimeError("the episode has ended: call reset()")
        if isinstance(action, np.ndarray) and action.shape in ((), (1,)):
            action = action.reshape(-1)[0]
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise TypeError(f"action must be an int in 0..103, got {action!r}")
        acts = np.array([int(action)], dtype=np.int64)
        masks = g.learner_masks()
        info: dict[str, Any] = {}
        if self.illegal_action == "random" and not (
            0 <= acts[0] < NUM_ACTIONS and masks[0, acts[0]]
        ):
            info["illegal_action"] = int(acts[0])
            acts[0] = int(self.np_random.choice(np.flatnonzero(masks[0])))
        g.check_learner_actions(acts, masks, "learner")
        g.round_ended[:] = False
        g.learner_step(acts)
        g.advance()
        reward = float(g.pop_rewards()[0])
        info.update(g.round_info(0))
        obs = g.observe()[0]
        if self.render_mode == "human":
            self.render()
        return obs, reward, bool(g.terminated[0]), bool(g.truncated[0]), info

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode=")
            return None
        seat = self.learner_seat
        text = f"view of player_{seat} (learner)\n" + self.engine.render(0, viewer=seat)
        if self.games.done[0]:
            text += "\nepisode over"
        if self.render_mode == "human":
            print(text + "\n")
            return None
        return text

    def close(self) -> None:
        pass
