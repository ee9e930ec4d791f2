"""OpenSpiel's search bots as agents of either game: ``openspiel:mcts``, ``openspiel:ismcts``.

Each decision is searched in the game's OpenSpiel game (:mod:`pasur_env.openspiel`,
one round per episode, paid by the round point difference) from a state built from
what the mover sees: :meth:`~pasur_env.core.openspiel_game.EngineGame.state_at` deals
the cards hidden from it anew (the game's determinization, which depends only on the
mover's information and the agent's seed), and leaves the stock to chance nodes.

* ``openspiel:mcts`` is OpenSpiel's MCTS (``open_spiel.python.algorithms.mcts``): a
  *perfect-information* search, here of the one sampled deal (it sees that deal's
  hidden cards as if they were the real ones);
* ``openspiel:ismcts`` is OpenSpiel's information-set MCTS
  (``open_spiel.python.algorithms.ismcts``): it resamples the hidden cards every
  simulation (``resample_from_infostate``, seeded by the agent).

Both are OpenSpiel's *Python* implementations: with the open_spiel 2.0.2 wheel the
C++ ``pyspiel.MCTSBot`` and ``pyspiel.ISMCTSBot`` end the process with a segmentation
fault on a game registered from Python, so they are not used.

Options (``openspiel:ismcts:simulations=200,max_time=0.5``): ``simulations`` (per
decision; with ``max_time`` the cap), ``uct_c``, ``rollouts`` (random rollouts per
leaf evaluation), ``max_time`` (seconds per decision, ismcts only: the search stops
after the first simulation that ends past it), ``world_samples`` (ismcts: at most so
many resampled deals per decision, -1 = a new one every simulation).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from agents.core.base import Agent
from pasur_env.core.args import check_int
from pasur_env.core.extras import missing_extra
from pasur_env.core.policy import GameView

__all__ = ["OpenSpielBotAgent", "BOTS", "PREFIX"]

PREFIX = "openspiel:"
#: the bots an ``openspiel:BOT`` spec may name
BOTS = ("mcts", "ismcts")


class _OutOfTime(Exception):
    """The time budget of a decision is spent (ends the IS-MCTS loop early)."""


def _modules() -> tuple[Any, Any, Any, Any]:
    """pyspiel, OpenSpiel's mcts and ismcts modules, and pasur_env.openspiel."""
    try:
        import pyspiel
        from open_spiel.python.algorithms import ismcts, mcts

        import pasur_env.openspiel as games
    except ModuleNotFoundError as error:
        raise missing_extra("the openspiel agents", "openspiel", error) from error
    return pyspiel, mcts, ismcts, games


def _timed_ismcts(ismcts: Any) -> type:
    """OpenSpiel's Python ISMCTSBot with a time budget per search (None: no limit)."""

    class TimedISMCTSBot(ismcts.ISMCTSBot):
        max_time: float | None = None

        def run_search(self, state: Any) -> Any:
            self._deadline = (float("inf") if self.max_time is None
                              else time.perf_counter() + self.max_time)
            try:
                return super().run_search(state)
            except _OutOfTime:
                return self.get_final_policy(state, self._root_node)

        def sample_root_state(self, state: Any) -> Any:
            root = getattr(self, "_root_node", None)
            if (time.perf_counter() > self._deadline and root is not None
                    and root.total_visits > 0):
                raise _OutOfTime
            return super().sample_root_state(state)

    return TimedISMCTSBot


class OpenSpielBotAgent(Agent):
    """An OpenSpiel search bot acting for a batch of games, one game at a time.

    Args:
        bot: ``"mcts"`` or ``"ismcts"`` (module docstring).
        seed: seeds the determinizations and the bots' random choices.
        simulations: simulations per decision (the cap when ``max_time`` is given).
        uct_c: the UCT exploration constant.
        rollouts: random rollouts per leaf evaluation.
        max_time: seconds per decision (ismcts only), None for no limit.
        world_samples: ismcts: resampled deals kept per decision (-1: unlimited).
    """

    #: both games: it searches the OpenSpiel game of whichever engine it is given
    game_ids = None

    def __init__(self, bot: str = "ismcts", *, seed: int | None = None,
                 simulations: int = 100, uct_c: float = 2.0, rollouts: int = 1,
                 max_time: float | None = None, world_samples: int = -1) -> None:
        if bot not in BOTS:
            raise ValueError(f"unknown OpenSpiel bot {bot!r}; choose one of {', '.join(BOTS)}")
        self.bot = bot
        self.name = PREFIX + bot
        self.simulations = check_int(simulations, "simulations", 1)
        self.rollouts = check_int(rollouts, "rollouts", 1)
        self.world_samples = check_int(world_samples, "world_samples", -1)
        if isinstance(uct_c, bool) or not isinstance(uct_c, (int, float)) or uct_c < 0:
            raise ValueError(f"uct_c must be a non-negative number, got {uct_c!r}")
        self.uct_c = float(uct_c)
        if max_time is not None:
            if isinstance(max_time, bool) or not isinstance(max_time, (int, float)) \
                    or max_time <= 0:
                raise ValueError(f"max_time must be a positive number of seconds, "
                                 f"got {max_time!r}")
            if bot != "ismcts":
                raise ValueError("max_time is an option of openspiel:ismcts only")
        self.max_time = None if max_time is None else float(max_time)
        self._pyspiel, self._mcts, self._ismcts, self._games = _modules()
        self._ismcts_class = _timed_ismcts(self._ismcts)
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(seed)

    def _bot(self, game: Any, seed: int) -> Any:
        """A fresh bot for one decision, all its randomness from ``seed``."""
        random_state = np.random.RandomState(seed % 2**32)
        evaluator = self._mcts.RandomRolloutEvaluator(self.rollouts, random_state)
        if self.bot == "mcts":
            return self._mcts.MCTSBot(game, self.uct_c, self.simulations, evaluator,
                                      random_state=random_state, solve=False)
        bot = self._ismcts_class(game, evaluator, self.uct_c, self.simulations,
                                 max_world_samples=self.world_samples,
                                 random_state=random_state)
        bot.max_time = self.max_time
        sampler = np.random.default_rng(seed)
        bot.set_resampler(lambda state, player: state.resample_from_infostate(
            player, sampler.random))
        return bot

    def act(self, obs: np.ndarray | None, mask: np.ndarray, view: GameView) -> np.ndarray:
        game = self._games.game_for_engine(view.engine)
        out = np.empty(view.games.shape[0], dtype=np.int64)
        for i, g in enumerate(view.games):
            seed = int(self._rng.integers(2**62))
            legal = np.flatnonzero(mask[i])
            if legal.size == 1:
                out[i] = legal[0]
                continue
            seat = int(view.engine.current_player[g])
            state = game.state_at(view.engine.state[g], seat, seed)
            out[i] = int(self._bot(game, seed).step(state))
        return out
