"""Every seat of B games at once: the batched environment for self-play and multi-agent learning.

:class:`AllSeatsEnv` holds one batched engine of B games of any game of the table
(:data:`pasur_env.games.GAMES`) and hands the caller, at every step, the decision of
each game's current seat, whoever that is: its observation from that seat's view and
its legal mask, and every seat's reward. One policy (self-play) or one policy per
seat picks the actions; the env never plays a seat itself. It is pgx's ``step`` for
these games: numpy arrays in, numpy arrays out, no Python loop over games on the hot
path (one engine step, one batched encoder call, one mask kernel call per step).

Its options are those of the game's PettingZoo AEC env (``pasur_v0.env(...)``,
``persian_rummy_v0.env(...)``), checked by that env (one validation, the same
defaults: ``episode="game"``, ``reward="win"`` unless a preset says otherwise), and its
rewards are that env's (:func:`pasur_env.core.rewards.seat_rewards`, over the seats'
sides the AEC env declares): game ``i`` plays and pays exactly as the AEC env does on
the same deal and the same actions. The game is read from the game table, so a game
plugged in from elsewhere gets this env too.

Auto-reset convention (the same-step convention of Stable-Baselines3 and Gymnasium's
``AutoresetMode.SAME_STEP``): the step that ends a game (``terminated`` or
``truncated``) returns that game's rewards in ``rewards`` and its terminal observation
from every seat in ``info["final_obs"]`` (rows marked by ``info["_final_obs"]``), and
already the new game's first decision in ``obs``, ``mask`` and ``seat``. So every row
the env returns is a live decision with at least one legal action.

Deals: ``reset(seed)`` seeds the engine, so game ``i`` deals as game ``i`` of
``Engine(B).reset(seed)``, whatever ``B`` (with ``B = 1`` as the AEC env's
``reset(seed=seed)``; game ``i`` as an AEC env whose engine got
``seed_streams(seed, i)`` before ``reset()``); a game that ends deals its next game
from its own stream, as the AEC env's next ``reset()`` would.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from pasur_env.core.args import action_array, check_int
from pasur_env.core.options import check_num_envs, check_seed
from pasur_env.core.rewards import round_infos, seat_rewards
from pasur_env.games import DEFAULT_GAME, GameInfo, game_info

__all__ = ["AllSeatsEnv"]

#: the illegal games an error message lists at most
_SHOWN = 8


class AllSeatsEnv:
    """B games of one card game, every seat's decisions and rewards as numpy arrays.

    Args:
        game: a game id of :data:`pasur_env.games.GAMES` (``"pasur"``,
            ``"persian_rummy"``).
        num_envs: B, the number of games stepped together.
        players: the number of seats P (one of the game's seat counts; None: its default).
        reward: ``"win"``, ``"points"`` or ``"diff"``, as in the AEC env.
        episode: ``"game"`` or ``"round"``, as in the AEC env.
        max_rounds: truncate a game after this many rounds (None: no limit).
        parallel: the engine's multi-threaded kernels (None: from 512 games).
        **options: the AEC env's other options (rule flags, ``preset``).

    Spaces (N the observation width, A the number of actions, P seats):

    * ``single_observation_space``: the AEC env's ``Box(low, high, (N,), float32)``;
      ``observation_space`` the batch of them, ``(B, N)``.
    * ``single_action_space``: ``Discrete(A)``; ``action_space``:
      ``MultiDiscrete([A] * B)``, one action per game, for the game's current seat.
    * masks: bool ``(B, A)``, the legal actions of each game's current seat (never empty).
    * seats: int64 ``(B,)``, the seat to move in each game, ``0..P-1``.
    * rewards: float32 ``(B, P)``, what every seat earned in the step (nonzero only at
      round ends, as in the AEC env).

    Raises:
        ValueError: an unknown game, a seat count the game is not played with, or
            an option the AEC env refuses (``TypeError`` for an unknown keyword).
    """

    def __init__(self, game: str = DEFAULT_GAME, num_envs: int = 16, players: int | None = None,
                 *, reward: str | None = None, episode: str | None = None,
                 max_rounds: int | None = None, parallel: bool | None = None,
                 **options: Any) -> None:
        info = game_info(game)
        num_envs = check_num_envs(num_envs)
        options = {**options, **_players_option(info, players)}
        modes = {"reward": reward, "episode": episode, "max_rounds": max_rounds}
        options.update({k: v for k, v in modes.items() if v is not None})
        # the AEC env checks every option, and declares the seats' sides and spaces
        aec = info.aec_env_module().raw_env(**options)
        one = aec.engine
        self.game = info.id
        self.reward_mode: str = aec.reward_mode
        self.max_rounds: int | None = aec.max_rounds
        self.rules, self.episode = one.rules, one.episode
        self.engine = type(one)(num_envs, rules=one.rules, episode=one.episode,
                                auto_reset=False, parallel=parallel)
        self.num_envs = num_envs
        self.num_players = int(one.num_players)
        self.num_actions = int(one.num_actions)
        self.sides = np.asarray(aec.seat_sides, dtype=np.int64)
        self.num_sides = int(one.rules.num_sides)
        box = aec.observation_space(aec.possible_agents[0])["observation"]
        self.obs_size = int(box.shape[0])
        self.single_observation_space = box
        self.single_action_space = spaces.Discrete(self.num_actions)
        self.observation_space = spaces.Box(
            float(box.low.min()), float(box.high.max()), (num_envs, self.obs_size), np.float32)
        self.action_space = spaces.MultiDiscrete(np.full(num_envs, self.num_actions))
        #: rounds played in each game's current episode (for ``max_rounds``)
        self.rounds = np.zeros(num_envs, dtype=np.int64)
        self._mask: np.ndarray | None = None  # legal masks of the current decisions
        self._seats = np.arange(self.num_players, dtype=np.int64)
        self._no_final_obs = np.zeros((num_envs, self.num_players, self.obs_size), np.float32)
        self._no_final_obs.flags.writeable = False

    # ---- episodes ---------------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                      dict[str, Any]]:
        """Deal a new game in every slot: ``(obs (B, N), mask (B, A), seat (B,), info)``.

        ``seed`` (an int >= 0, or None to go on from the games' streams) seeds the
        deals: game ``i`` deals as game ``i`` of the engine's ``reset(seed)``. ``info``
        is empty. A bad seed raises before anything changes.
        """
        self.engine.reset(seed=check_seed(seed))
        self.rounds[:] = 0
        obs, mask, seat = self._decisions()
        return obs, mask, seat, {}

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                          np.ndarray, np.ndarray, dict[str, Any]]:
        """Apply one action in every game, for its current seat.

        Args:
            actions: int ``(B,)``, a legal action of each game's current seat.

        Returns:
            ``(obs, mask, seat, rewards, terminated, truncated, info)``: the next
            decisions (``(B, N)`` float32, ``(B, A)`` bool, ``(B,)`` int64; for a game
            that ended, the first decision of its next game), every seat's reward
            ``(B, P)`` float32, and ``(B,)`` bool episode ends. ``info`` holds
            ``round_end`` ``(B,)`` bool, ``round_points`` and ``scores`` ``(B, P)``
            (each seat's side's points in the round that ended, and its game score;
            zeros where no round ended), ``final_obs`` ``(B, P, N)`` (the terminal
            observation of every seat of each game that ended, zeros elsewhere; a
            read-only array of zeros when none ended) and ``_final_obs`` ``(B,)``
            bool (the games that ended).

        Raises:
            TypeError: actions that are not integers. ValueError: a wrong shape or an
            illegal action, naming the games: nothing has moved.
        """
        if self._mask is None:
            raise RuntimeError("step() before reset(): call reset() first")
        acts = action_array(actions, self.num_envs, self.num_actions, who="all seats", low=0)
        eng = self.engine
        try:
            info = eng.step(acts)  # the engine's check: nothing moves if one is illegal
        except ValueError:
            raise self._illegal(acts) from None
        round_end = info.round_end
        B, P = self.num_envs, self.num_players
        if info.any_round_end:  # rewards, points and scores change only at round ends
            rewards = seat_rewards(info, self.sides, self.num_sides, self.reward_mode)
            points, scores = round_infos(info, self.sides)
            points = np.where(round_end[:, None], points, 0)
            scores = np.where(round_end[:, None], scores, 0)
            self.rounds += round_end
        else:
            rewards = np.zeros((B, P), dtype=np.float32)
            points, scores = np.zeros((B, P), dtype=np.int64), np.zeros((B, P), dtype=np.int64)
        terminated = info.game_end.copy()
        truncated = np.zeros_like(terminated)
        if self.max_rounds is not None:
            truncated = round_end & ~terminated & (self.rounds >= self.max_rounds)
        ended = terminated | truncated
        final_obs = self._no_final_obs  # read-only zeros: no game ended
        if ended.any():
            games = np.flatnonzero(ended)
            final_obs = np.zeros((B, P, self.obs_size), np.float32)
            final_obs[games] = self._all_views(games)
            eng.reset_games(ended)
            self.rounds[games] = 0
        obs, mask, seat = self._decisions()
        out = {"round_end": round_end, "round_points": points, "scores": scores,
               "final_obs": final_obs, "_final_obs": ended}
        return obs, mask, seat, rewards, terminated, truncated, out

    # ---- reading ----------------------------------------------------------------------------
    def _decisions(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every game's current decision: its mover's observation, legal mask and seat."""
        eng = self.engine
        self._mask = eng.legal_mask()
        return eng.observe(), self._mask.copy(), eng.current_player.copy()

    def _all_views(self, games: np.ndarray) -> np.ndarray:
        """The observations of every seat of ``games``: float32 (n, P, N)."""
        P = self.num_players
        views = self.engine.observe(np.repeat(games, P), np.tile(self._seats, games.size))
        return views.reshape(games.size, P, self.obs_size)

    def observe(self, seats: Any) -> np.ndarray:
        """Each game's observation from ``seats`` (one seat, or one per game): (B, N),
        for a seat's view when it is not to move (a value function per seat)."""
        if self._mask is None:
            raise RuntimeError("observe() before reset(): call reset() first")
        seats = np.broadcast_to(np.asarray(seats), (self.num_envs,))
        if seats.dtype.kind not in "iu":
            raise TypeError(f"seats must be integer seats, got {seats.dtype}")
        return self.engine.observe(None, np.ascontiguousarray(seats, dtype=np.int64))

    def action_masks(self) -> np.ndarray:
        """(B, A) bool: the legal actions of each game's current seat (a copy)."""
        if self._mask is None:
            raise RuntimeError("action_masks() before reset(): call reset() first")
        return self._mask.copy()

    @property
    def current_seat(self) -> np.ndarray:
        """(B,) int64: the seat to move in each game (a copy)."""
        return self.engine.current_player.copy()

    def render(self, game: int = 0, viewer: int | None = None) -> str:
        """Game ``game`` as text, from ``viewer``'s seat (None: the seat to move)."""
        game = check_int(game, "game", 0, self.num_envs - 1)
        seat = self.engine.mover(game) if viewer is None else viewer
        return self.engine.render(game, viewer=seat)

    def close(self) -> None:
        """Nothing to release (the games are arrays); here for the usual env protocol."""

    # ---- checks ------------------------------------------------------------------------------
    def _illegal(self, acts: np.ndarray) -> ValueError:
        """The error of a step the engine refused (nothing moved): the games with an
        illegal action and, for the first, its seat and legal actions."""
        mask = self._mask
        assert mask is not None
        ok = (acts >= 0) & (acts < self.num_actions)
        ok[ok] = mask[np.flatnonzero(ok), acts[ok]]
        bad = np.flatnonzero(~ok)
        g = int(bad[0])
        a, legal = int(acts[g]), np.flatnonzero(mask[g]).tolist()
        name = self.engine.action_str
        shown = bad[:_SHOWN].tolist()
        more = f" and {bad.size - _SHOWN} more" if bad.size > _SHOWN else ""
        what = f"{a} ({name(a)})" if 0 <= a < self.num_actions else f"{a} (no action id)"
        return ValueError(
            f"illegal action(s) in game(s) {shown}{more}: game {g} (player_"
            f"{int(self.engine.current_player[g])}) got {what}; its legal actions: {legal} "
            f"({', '.join(name(x) for x in legal)}); nothing was played")

    def __repr__(self) -> str:
        return (f"AllSeatsEnv(game={self.game!r}, num_envs={self.num_envs}, "
                f"players={self.num_players}, reward={self.reward_mode!r}, "
                f"episode={self.episode!r}, max_rounds={self.max_rounds})")


def _players_option(info: GameInfo, players: int | None) -> dict[str, Any]:
    """The engine keyword giving ``players`` seats ({} for the game's default), after
    checking that the game is played by that many."""
    if players is None:
        return {}
    if isinstance(players, bool) or not isinstance(players, (int, np.integer)):
        raise TypeError(f"players must be an int, got {players!r}")
    if int(players) not in info.players:
        raise ValueError(f"{info.title} is played by {', '.join(map(str, info.players))} "
                         f"players, got players={players}")
    return {info.players_flag: int(players)} if info.players_flag is not None else {}
