"""OpenSpiel games over the batched engines: the adapter both games share.

A game registered with ``pyspiel`` (``python_pasur``, ``python_persian_rummy``) is a
:class:`EngineGame` whose states (:class:`EngineState`) each hold an engine of one game
(``episode="round"``, no automatic reset) and step it: the rules exist once, in the
engine's kernels. What this module adds is what OpenSpiel asks for and the engines do
not have:

* **explicit chance**: the engine shuffles from its own random stream; here every
  card of the deck is a chance node instead, dealt into a *slot* of the engine's deck
  (its ``DECK`` columns) uniformly over the cards no chance node has fixed yet
  (``revealed``; a game whose rules condition a deal narrows them:
  :meth:`GameSpec.card_outcomes`), in the order the game needs them. Fixing card
  ``c`` at slot ``i`` swaps it with the unfixed card sitting there, so the engine's
  deck stays a permutation and the unfixed slots hold placeholders nobody sees. A game's
  :class:`GameSpec` queues the chance nodes of its deals and says when the engine may
  deal or step (Pasur: the initial-table check and the jack's burial; Persian Rummy:
  the card drawn from the stock);
* **returns**: the round point difference of the ``diff`` reward mode
  (:mod:`pasur_env.core.rewards`), zero-sum; one round (deal) is one episode;
* **observations** from the engine's encoder and renderer, and information states
  with perfect recall: the observation plus the public history (every action of the
  players, the public chance events such as a buried jack) and the seat's own private
  chance events;
* ``resample_from_infostate`` (for OpenSpiel's Python IS-MCTS) from a game's
  determinization.

``pyspiel`` is imported here, at the top: only :mod:`pasur_env.openspiel` and the
games' ``openspiel_game`` modules import this module, so the core install never needs
open_spiel (the ``openspiel`` extra installs it; a missing one is the one-line message
of :mod:`pasur_env.core.extras`).
"""

from __future__ import annotations

import abc
from typing import Any

import numpy as np

from pasur_env.core.extras import missing_extra

try:
    import pyspiel
except ModuleNotFoundError as _error:  # pragma: no cover - depends on the install
    raise missing_extra("the OpenSpiel games", "openspiel", _error) from _error

from open_spiel.python import policy as os_policy

from pasur_env.core import rewards as core_rewards
from pasur_env.core.policy import GameView, check_actions

__all__ = ["GameSpec", "EngineGame", "EngineState", "EngineObserver", "AgentPolicy",
           "register_game", "parse_params"]

#: the kind of the chance node that fixes one card of the deck (its argument: the slot)
CARD = "card"


def parse_params(defaults: dict[str, Any], given: dict[str, Any] | None) -> dict[str, Any]:
    """The game parameters: ``defaults`` overridden by ``given`` (OpenSpiel passes every
    value typed as in the specification; an unknown name is a ``ValueError``)."""
    given = dict(given or {})
    unknown = sorted(set(given) - set(defaults))
    if unknown:
        raise ValueError(f"unknown game parameter(s) {unknown}; known: {sorted(defaults)}")
    return {**defaults, **given}


class GameSpec(abc.ABC):
    """What a game gives the adapter: its engine, deck columns and deals.

    One instance per loaded game (its parameters fixed); states reach it through their
    game (``state.get_game().spec``), never store it (states are pickled to serialise).
    """

    short_name: str
    long_name: str
    #: OpenSpiel's parameter specification: every parameter with its default
    defaults: dict[str, Any]
    #: deck columns of the engine's state row and the number of cards
    deck_column: int
    stock_column: int
    num_cards: int
    #: a bound on the player actions of an episode (the history part of the tensors)
    max_player_actions: int

    def __init__(self, params: dict[str, Any]) -> None:
        self.params = parse_params(self.defaults, params)
        probe = self.new_engine()
        self.num_players = int(probe.num_players)
        self.num_actions = int(probe.num_actions)
        self.obs_size = int(probe.obs_size)
        #: the scoring side of every seat (rewards are paid to sides)
        self.sides = np.array([self.side_of(s) for s in range(self.num_players)],
                              dtype=np.int64)
        self.num_sides = int(probe.rules.num_sides)

    @abc.abstractmethod
    def new_engine(self) -> Any:
        """A one-game engine of these parameters (``episode="round"``, no auto reset)."""

    @abc.abstractmethod
    def side_of(self, seat: int) -> int:
        """The scoring side of ``seat``."""

    @abc.abstractmethod
    def game_info(self) -> pyspiel.GameInfo:
        """OpenSpiel's facts of the game (action counts, utility bounds, lengths)."""

    @abc.abstractmethod
    def begin(self, state: EngineState) -> None:
        """Queue the chance nodes of the first deal."""

    @abc.abstractmethod
    def chance_done(self, state: EngineState) -> None:
        """The queued chance nodes are all resolved: deal, check, or queue more."""

    def apply_chance(self, state: EngineState, kind: str, arg: int, outcome: int) -> None:
        """Resolve a chance node of a kind of the game's own (not :data:`CARD`)."""
        raise ValueError(f"{self.short_name} has no chance node of kind {kind!r}")

    def card_outcomes(self, state: EngineState, slot: int) -> list[int]:
        """The cards chance may fix at deck ``slot``, each equally likely: every card not
        fixed yet. A game whose rules condition a deal (Pasur's ``redeal`` of a first
        table with a jack) leaves out the cards the condition refuses, so that every
        chance outcome leads forward and the game tree is finite."""
        return state.unrevealed()

    def chance_string(self, kind: str, arg: int, outcome: int) -> str:
        """Readable form of a chance outcome."""
        return f"{kind} {arg}: {outcome}"

    def before_step(self, state: EngineState, action: int) -> bool:
        """Called before a player's action; True when it waits for chance nodes the
        spec has queued (the action is applied by :meth:`chance_done`)."""
        return False

    def after_step(self, state: EngineState, old_row: np.ndarray) -> None:  # noqa: B027
        """Called after an engine step (``old_row``: the state row before it)."""

    def deal_order(self, state: EngineState) -> list[int]:
        """The cards of the deck as the engine's ``reset(deck=...)`` takes them."""
        return state.deck.tolist()

    @abc.abstractmethod
    def determinize(self, state: EngineState, player: int, seed: int) -> np.ndarray:
        """An engine state row in which the cards ``player`` cannot see are re-dealt."""

    def resampled(self, state: EngineState, player: int, seed: int) -> tuple[np.ndarray, int]:
        """:meth:`determinize`'s row with its deck a permutation again, and the cards
        left unfixed (the stock's).

        A determinization moves cards between hands and the stock; the dealt part of
        the deck (before the stock, read by nothing after the deal) is rewritten as the
        other cards in ascending order, so that the chance nodes' swaps stay exact.
        """
        row = self.determinize(state, player, seed)
        top = self.deck_column + int(row[self.stock_column])
        stock = row[top:self.deck_column + self.num_cards]
        hidden = sum(1 << int(c) for c in stock)
        row[self.deck_column:top] = [c for c in range(self.num_cards) if not hidden >> c & 1]
        return row, hidden


class EngineState(pyspiel.State):
    """One game of an engine, as an OpenSpiel state (see the module docstring)."""

    def __init__(self, game: EngineGame) -> None:
        super().__init__(game)
        spec = game.spec
        self.engine = spec.new_engine()
        #: cards fixed by chance nodes (bits)
        self.revealed = 0
        #: chance nodes to resolve, in order: (kind, argument)
        self.queue: list[tuple[str, int]] = []
        #: every player action, in order: (seat, action) (all are public in both games)
        self.actions: list[tuple[int, int]] = []
        #: public chance events (e.g. a buried jack), and each seat's private ones
        self.public_events: list[str] = []
        self.private_events: list[list[str]] = [[] for _ in range(spec.num_players)]
        #: the engine holds a dealt game (False while the first deal is being drawn)
        self.dealt = False
        self.stage = ""
        #: the deck slot a deal in progress starts at
        self.deal_start = 0
        self.totals = np.zeros(spec.num_players, dtype=np.float64)
        spec.begin(self)

    # ---- chance ------------------------------------------------------------------------
    @property
    def deck(self) -> np.ndarray:
        """The engine's deck columns (a view: writing it changes the engine)."""
        spec = self.get_game().spec
        return self.engine.state[0, spec.deck_column:spec.deck_column + spec.num_cards]

    def unrevealed(self) -> list[int]:
        """The cards no chance node has fixed yet, ascending."""
        spec = self.get_game().spec
        return [c for c in range(spec.num_cards) if not self.revealed >> c & 1]

    def fix_card(self, slot: int, card: int) -> None:
        """Put ``card`` (unfixed) at deck ``slot`` (unfixed), swapping the placeholder."""
        deck = self.deck
        j = int(np.flatnonzero(deck == card)[0])
        deck[j], deck[slot] = deck[slot], card
        self.revealed |= 1 << card

    def slot_is_fixed(self, slot: int) -> bool:
        return bool(self.revealed >> int(self.deck[slot]) & 1)

    def queue_slots(self, slots: range) -> None:
        """Queue a card chance node for each slot of ``slots`` not fixed yet."""
        self.queue.extend((CARD, i) for i in slots if not self.slot_is_fixed(i))

    # ---- pyspiel API -------------------------------------------------------------------
    def current_player(self) -> int:
        if self.queue:
            return int(pyspiel.PlayerId.CHANCE)
        if self.dealt and self.engine.done[0]:
            return int(pyspiel.PlayerId.TERMINAL)
        return self.engine.mover(0)

    def is_terminal(self) -> bool:
        return not self.queue and self.dealt and bool(self.engine.done[0])

    def _legal_actions(self, player: int) -> list[int]:
        return self.engine.legal_actions(0)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        kind, arg = self.queue[0]
        outcomes = (self.get_game().spec.card_outcomes(self, arg) if kind == CARD
                    else list(range(arg)))
        p = 1.0 / len(outcomes)
        return [(o, p) for o in outcomes]

    def _apply_action(self, action: int) -> None:
        spec = self.get_game().spec
        if self.queue:
            kind, arg = self.queue[0]
            if kind == CARD and int(action) not in (outcomes := spec.card_outcomes(self, arg)):
                raise ValueError(f"card {int(action)} is not an outcome of the chance node "
                                 f"of deck slot {arg} (its outcomes: {outcomes})")
            self.queue.pop(0)
            if kind == CARD:
                self.fix_card(arg, int(action))
            else:
                spec.apply_chance(self, kind, arg, int(action))
            if not self.queue:
                spec.chance_done(self)
            return
        self.actions.append((self.engine.mover(0), int(action)))
        if not spec.before_step(self, int(action)):
            self.step_engine(int(action))

    def step_engine(self, action: int) -> None:
        """Step the engine, add the round's point differences, let the spec follow up."""
        spec = self.get_game().spec
        old = self.engine.state[0].copy()
        info = self.engine.step_single(action)
        if info.round_end_at(0):
            self.totals += core_rewards.seat_rewards(info, spec.sides, spec.num_sides,
                                                     "diff")[0]
        spec.after_step(self, old)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            kind, arg = self.queue[0] if self.queue else (CARD, -1)
            return self.get_game().spec.chance_string(kind, arg, int(action))
        return self.engine.action_str(int(action))

    def returns(self) -> list[float]:
        return self.totals.tolist()

    def rewards(self) -> list[float]:
        return (self.totals if self.is_terminal() else np.zeros_like(self.totals)).tolist()

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> EngineState:
        """A state of ``player_id``'s information state: the cards it cannot see re-dealt
        by the game's determinization (seeded by the sampler); the stock's cards unfixed
        again, so later deals stay chance nodes."""
        if self.queue or not self.dealt or self.is_terminal():
            return self.clone()
        spec = self.get_game().spec
        seed = int(probability_sampler() * 2**62)
        new = self.clone()
        new.engine.state[0], hidden = spec.resampled(self, int(player_id), seed)
        new.revealed = ((1 << spec.num_cards) - 1) & ~hidden
        for seat in range(spec.num_players):
            if seat != player_id:
                new.private_events[seat] = []  # they told of the cards re-dealt now
        return new

    def __str__(self) -> str:
        if not self.dealt:
            return f"dealing ({len(self.queue)} chance nodes queued)"
        return self.engine.render(0)


class EngineObserver:
    """Observations and information states of a game (OpenSpiel's PyObserver).

    The tensor is the engine's encoder (``engine.observe``) for the seat; the
    information-state tensor adds the public action history, one entry per player
    action (``(action + 1) / num_actions``, 0 after the end). The strings are the
    engine's text picture for the seat, and for the information state the public
    history, public chance events and the seat's private chance events.
    """

    def __init__(self, spec: GameSpec, perfect_recall: bool, max_actions: int,
                 private: bool = True) -> None:
        self.perfect_recall = perfect_recall
        #: the seat's own view (False: the public part only, no encoder observation)
        self.private = private
        self.max_actions = max_actions if perfect_recall else 0
        size = spec.obs_size if private else 0
        self.tensor = np.zeros(size + self.max_actions, np.float32)
        self.dict = {"observation": self.tensor[:size]} if private else {}
        if perfect_recall:
            self.dict["history"] = self.tensor[size:]
        self._num_actions = spec.num_actions

    def set_from(self, state: EngineState, player: int) -> None:
        self.tensor.fill(0)
        if self.private and state.dealt and not state.queue:
            state.engine.observe(games=[0], seats=[player], out=self.dict["observation"][None])
        if self.perfect_recall:
            hist = np.array([a for _, a in state.actions[: self.max_actions]], np.float32)
            self.dict["history"][: hist.size] = (hist + 1) / self._num_actions

    def string_from(self, state: EngineState, player: int) -> str:
        moves = " ".join(f"{s}:{a}" for s, a in state.actions)
        public = f"public chance: {' '.join(state.public_events)}\nactions: {moves}"
        if not self.private:
            return public
        text = (state.engine.render(0, viewer=player) if state.dealt and not state.queue
                else "dealing")
        if not self.perfect_recall:
            return f"p{player} {text}"
        private = " ".join(state.private_events[player])
        return f"p{player} {text}\nprivate chance: {private}\n{public}"


class EngineGame(pyspiel.Game):
    """An OpenSpiel game over an engine; a game module makes the subclass with its
    :class:`GameSpec` (``SPEC``) and registers it (:func:`register_game`)."""

    SPEC: type[GameSpec]
    GAME_TYPE: pyspiel.GameType

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        # only the parameters given: a flag left out keeps the preset's value
        self.spec = self.SPEC(dict(params or {}))
        super().__init__(self.GAME_TYPE, self.spec.game_info(), dict(params or {}))

    def new_initial_state(self) -> EngineState:
        return EngineState(self)

    def state_at(self, row: np.ndarray, seat: int, seed: int) -> EngineState:
        """A state at the engine position ``row`` (a state row of this game's engine)
        as ``seat`` sees it: the cards hidden from it dealt anew (the game's
        determinization, seeded), the stock's cards left to chance. No history: the
        information states of the search that starts here begin at this position."""
        state = self.new_initial_state()
        state.queue, state.stage, state.dealt = [], "play", True
        state.engine.state[0] = row
        state.engine.state[0], hidden = self.spec.resampled(state, int(seat), int(seed))
        state.revealed = ((1 << self.spec.num_cards) - 1) & ~hidden
        return state

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> EngineObserver:
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        private = (iig_obs_type is None
                   or iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER)
        return EngineObserver(self.spec, recall, self.spec.max_player_actions, private)


class AgentPolicy(os_policy.Policy):
    """A player of the project (any :class:`~pasur_env.core.policy.Policy`) as an
    OpenSpiel policy of an :class:`EngineGame`, for OpenSpiel's
    ``exploitability.nash_conv`` and ``best_response``: at every decision, the agent's
    action in the state's engine with probability 1. Exact for an agent whose action
    is a function of what the mover sees (``greedy``, ``heuristic``); a random agent is
    one sample per call (OpenSpiel's ``UniformRandomPolicy`` is the uniform one)."""

    def __init__(self, game: EngineGame, agent: Any) -> None:
        super().__init__(game, list(range(game.num_players())))
        self.agent = agent

    def action_probabilities(self, state: EngineState, player_id: int | None = None
                             ) -> dict[int, float]:
        legal = state.legal_actions()
        if len(legal) == 1:
            return {int(legal[0]): 1.0}
        engine = state.engine
        games = np.zeros(1, dtype=np.int64)
        mask = engine.legal_mask(games)
        obs = engine.observe(games) if getattr(self.agent, "needs_observation", False) else None
        action = check_actions(self.agent.act(obs, mask, GameView(engine, games)), mask,
                               getattr(self.agent, "name", "agent"))
        return {int(action[0]): 1.0}


def register_game(game_class: type[EngineGame], spec: type[GameSpec],
                  max_players: int, min_players: int) -> None:
    """Register ``game_class`` with pyspiel under ``spec.short_name`` (once)."""
    game_class.SPEC = spec
    game_class.GAME_TYPE = pyspiel.GameType(
        short_name=spec.short_name,
        long_name=spec.long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max_players,
        min_num_players=min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=dict(spec.defaults),
    )
    if spec.short_name not in pyspiel.registered_names():
        pyspiel.register_game(game_class.GAME_TYPE, game_class)
