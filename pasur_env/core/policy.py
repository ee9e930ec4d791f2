"""What a player is to the environments: the :class:`Policy` protocol and its adapters.

The game never imports its players. An env, the play loop (:mod:`pasur_env.core.loop`) and
every tool that runs games talk to players through this small protocol:

* ``act(obs, mask, view) -> actions`` chooses one legal action for each of a *batch*
  of decisions: ``mask`` is ``(n, num_actions)`` bool of the game being played (104 in
  Pasur, 245 in Persian Rummy; row ``i`` belongs to ``view.games[i]``),
  ``obs`` the ``(n, N)`` encoded observations when ``needs_observation`` is true (else
  None), ``view`` a :class:`GameView` (the engine and the game indices);
* ``name`` (for messages and reports), ``needs_observation``, ``reset(seed)``.

A policy may also say what it can play, so that a table refuses it at once rather
than at its first move (:func:`check_policy_fits`; read with ``getattr``, so a policy
without them plays anything): ``game_ids`` (the ids of :data:`pasur_env.games.GAMES`
it plays; None: any game), ``player_counts`` (the seat counts it plays; None: any the
game has) and ``observation_size`` (the width of the observations it reads; None: it
reads none, or any). A stochastic policy may also say its probabilities,
``action_probs(obs, mask, view) -> (n, num_actions)`` (the exact exploitability of
small variants reads a mixed policy so, rather than by sampling ``act``).

A policy may read only what the mover of each game can see: its own hand, the
table, the piles, surs, scores, stock size, deal index, last capturer, the Ru Baaz
face-up cards, and the *set* of cards hidden from it (``kernels.hidden_from``); never
other hands or the stock order.

Anything else that plays is adapted here: a plain callable ``(obs, mask) -> action``
deciding one decision (:class:`CallablePolicy`). Named players (``"greedy"``,
``"heuristic"``, saved models) belong to the ``agents`` package, which builds them
(``agents.make_agent``); the envs take the objects it returns.

The training envs draw an opponent per episode from an :class:`OpponentSource` (a
self-play pool, say); :class:`FixedOpponent` is the source of one policy.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from pasur_env.core.args import action_array

if TYPE_CHECKING:
    from pasur_env.core.batch_engine import BatchEngine

__all__ = [
    "GameView",
    "Policy",
    "check_actions",
    "check_policy_fits",
    "refuse_other_game",
    "CallablePolicy",
    "RandomPolicy",
    "as_policy",
    "Opponent",
    "OpponentSource",
    "FixedOpponent",
    "as_opponents",
]


@dataclass
class GameView:
    """The games a policy acts for in one call: the engine and the game indices.

    Policies may read only what the mover can see (see the module docstring).
    """

    engine: BatchEngine  # a game's batched engine (Engine, RummyEngine)
    games: np.ndarray  # int64 indices into engine, one per decision requested

    def __post_init__(self) -> None:
        self.games = np.asarray(self.games, dtype=np.int64).reshape(-1)

    @property
    def seats(self) -> np.ndarray:
        """Seat to move in each requested game (n,)."""
        return self.engine.current_player[self.games]

    @classmethod
    def all(cls, engine: BatchEngine) -> GameView:
        """A view of every game of ``engine``."""
        return cls(engine, np.arange(engine.num_games, dtype=np.int64))


@runtime_checkable
class Policy(Protocol):
    """A player over batches of decisions (see the module docstring).

    ``mask`` is ``(n, num_actions)`` bool of the game being played: 104 action ids in
    Pasur, 245 in Persian Rummy (``view.engine.num_actions``).

    Optional attributes (not required by ``isinstance``; see the module docstring):
    ``game_ids: tuple[str, ...] | None``, ``player_counts: tuple[int, ...] | None``,
    ``observation_size: int | None``, all None (anything) when absent.
    """

    name: str
    needs_observation: bool

    def act(self, obs: np.ndarray | None, mask: np.ndarray, view: GameView) -> np.ndarray:
        """One legal action id per decision: int64 array (n,)."""
        ...

    def reset(self, seed: int | None = None) -> None:
        """Reseed the policy's random generator (no-op for deterministic policies)."""
        ...


def check_actions(
    actions: Any, mask: np.ndarray, who: str, *,
    action_str: Callable[[int], str] | None = None, where: Callable[[int], str] | None = None,
) -> np.ndarray:
    """``actions`` as an (n,) int64 array after checking that each is legal under ``mask``.

    The one check of what anyone chooses, the learner of an env or a policy, before
    an engine sees it: integers only (:func:`pasur_env.core.args.action_array`:
    ``TypeError`` for None, bools, floats, strings or objects, ``ValueError`` for a
    wrong shape), then each action in range and legal (``ValueError`` naming ``who``,
    the action and the legal ones; ``action_str`` names actions, ``where(i)`` says
    where decision ``i`` is, e.g. " in env 3"). Nothing has changed when it raises.
    """
    n, num = mask.shape
    acts = action_array(actions, n, num, who=who, low=0)
    ok = (acts >= 0) & (acts < num)
    ok[ok] = mask[np.flatnonzero(ok), acts[ok]]
    if not ok.all():
        i = int(np.flatnonzero(~ok)[0])
        a, legal = int(acts[i]), np.flatnonzero(mask[i]).tolist()
        place = where(i) if where is not None else f" for decision {i}"
        if action_str is None:
            raise ValueError(f"{who} chose illegal action {a}{place}; legal actions: {legal}")
        raise ValueError(
            f"{who} chose illegal action {a} ({action_str(a)}){place}; legal actions: "
            f"{legal} ({', '.join(action_str(x) for x in legal)})"
        )
    return acts


# ---- what a policy plays ------------------------------------------------------------------
def _declared(policy: Any, attr: str, of: type, who: str) -> tuple[Any, ...] | None:
    """``policy``'s optional declaration ``attr`` as a tuple (None: anything); a malformed
    one raises ``TypeError``."""
    value = getattr(policy, attr, None)
    if value is None:
        return None
    items = (value,) if isinstance(value, (str, int)) and not isinstance(value, bool) else value
    if not isinstance(items, (tuple, list, frozenset, set)) or not all(
            isinstance(v, of) and not isinstance(v, bool) for v in items):
        raise TypeError(f"{who}: {attr} must be None or a tuple of {of.__name__}, got {value!r}")
    return tuple(items)


def refuse_other_game(policy: Any, game: str, who: str) -> None:
    """``ValueError`` if ``policy`` declares games and ``game`` is not one of them: the
    part of :func:`check_policy_fits` the play loop repeats at each decision (cheap)."""
    games = _declared(policy, "game_ids", str, who)
    if games is not None and game not in games:
        raise ValueError(f"{who} plays {', '.join(games)}, not {game}")


def check_policy_fits(
    policy: Any, game: str, players: int | None = None,
    observation_size: int | None = None, *, role: str = "agent",
) -> Policy:
    """``policy`` if it can play a seat of ``game`` with ``players`` seats whose
    observations have ``observation_size`` features; else one error naming both.

    The one check every place that seats a policy makes when it is given one (the
    training envs, the evaluation, the tables): ``TypeError`` for an object that is no
    :class:`Policy` (or a malformed declaration), ``ValueError`` when the policy's
    ``game_ids``, ``player_counts`` or ``observation_size`` (see the module docstring)
    exclude this game: e.g. "opponent 'heuristic' plays pasur, not persian_rummy".
    An agent of another game would otherwise read this game's state with its own
    layout, in compiled code that does not check it. ``role`` says which seat it is.
    """
    if not isinstance(policy, Policy):
        raise TypeError(
            f"the {role} must follow the pasur_env.Policy protocol (act, name, "
            f"needs_observation, reset), got {type(policy).__name__}"
        )
    who = f"{role} {getattr(policy, 'name', type(policy).__name__)!r}"
    refuse_other_game(policy, game, who)
    counts = _declared(policy, "player_counts", int, who)
    if players is not None and counts is not None and players not in counts:
        plays = "/".join(str(p) for p in counts)
        raise ValueError(f"{who} plays {plays}-player {game}, not {players}-player")
    size = _declared(policy, "observation_size", int, who)
    if observation_size is not None and size is not None and observation_size not in size:
        seats = "" if players is None else f"{players}-player "
        raise ValueError(
            f"{who} reads {size[0]} observation features; this {seats}{game} game "
            f"encodes {observation_size} (a model of another game or table size)"
        )
    return policy


class CallablePolicy:
    """A policy from a function ``fn(obs, mask) -> action`` deciding one decision at a time.

    ``obs`` is the mover's (N,) float32 observation, ``mask`` its (num_actions,) bool legal
    actions. The function is called once per decision of a batch.
    """

    needs_observation = True
    #: what it plays is unknown: anything (see the module docstring)
    game_ids: tuple[str, ...] | None = None

    def __init__(self, fn: Callable[[np.ndarray, np.ndarray], Any], name: str | None = None):
        if not callable(fn):
            raise TypeError(f"expected a callable (obs, mask) -> action, got {fn!r}")
        self.fn = fn
        self.name = name or getattr(fn, "__name__", "callable")

    def reset(self, seed: int | None = None) -> None:
        pass

    def act(self, obs: np.ndarray | None, mask: np.ndarray, view: GameView) -> np.ndarray:
        assert obs is not None
        who = f"agent {self.name!r}"
        # each answer checked as it is (no int(): a float or None is refused, not coerced)
        acts = np.array([action_array(self.fn(obs[i], mask[i]), 1, mask.shape[1], who=who,
                                      low=0)[0] for i in range(len(mask))], dtype=np.int64)
        return check_actions(acts, mask, who)

    def __repr__(self) -> str:
        return f"CallablePolicy(name={self.name!r})"


class RandomPolicy:
    """Uniformly random legal play (seeded numpy Generator): the envs' default opponent
    and the ``random`` agent."""

    name = "random"
    needs_observation = False
    #: every game: it reads only the legal mask
    game_ids: tuple[str, ...] | None = None

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, obs: np.ndarray | None, mask: np.ndarray, view: GameView) -> np.ndarray:
        mask = np.asarray(mask, dtype=np.bool_)
        counts = mask.sum(axis=1)
        if (counts == 0).any():
            i = int(np.flatnonzero(counts == 0)[0])
            raise ValueError(f"decision {i} has no legal action")
        k = np.minimum((self.rng.random(len(mask)) * counts).astype(np.int64), counts - 1)
        # index of the k-th legal action: first column where the running count exceeds k
        return np.argmax(np.cumsum(mask, axis=1) > k[:, None], axis=1).astype(np.int64)

    def __repr__(self) -> str:
        return "RandomPolicy()"


def as_policy(obj: Any) -> Policy:
    """``obj`` if it follows :class:`Policy`; a :class:`CallablePolicy` for a callable.

    Anything else raises ``TypeError`` saying what is accepted; agent names are not
    resolved here (the game does not know its players): ``agents.make_agent(name)``
    builds them.
    """
    if isinstance(obj, Policy):
        return obj
    if isinstance(obj, str):
        raise TypeError(
            f"opponent {obj!r} is a name: build it with the agents package, e.g. "
            f"agents.make_agent({obj!r}), and pass the agent"
        )
    if callable(obj):
        return CallablePolicy(obj)
    hint = (
        " (an SB3 model: wrap it with agents.PolicyAgent(model))"
        if hasattr(obj, "predict")
        else ""
    )
    raise TypeError(
        "an opponent must follow the pasur_env.Policy protocol (act, name, "
        "needs_observation, reset), be a callable (obs, mask) -> action, or be an "
        f"OpponentSource; got {type(obj).__name__}{hint}"
    )


# ---- opponents of the training envs ------------------------------------------------------
@dataclass
class Opponent:
    """One opponent an :class:`OpponentSource` hands out: its policy, name and id."""

    policy: Policy
    name: str
    id: int = 0


@runtime_checkable
class OpponentSource(Protocol):
    """Where a training env's games get their opponents (one draw per game and episode).

    ``sample(rng)`` returns an object with ``policy``, ``name`` and ``id`` (an
    :class:`Opponent`); ``record(id, result)`` receives the learner's result in each
    finished episode against it (1 win, 0.5 tie, 0 loss); ``reset(seed)`` reseeds
    the policies. ``agents.OpponentPool`` is the self-play implementation.
    """

    def sample(self, rng: np.random.Generator) -> Any: ...

    def record(self, opponent_id: int, result: float) -> None: ...

    def reset(self, seed: int | None = None) -> None: ...

    def __len__(self) -> int: ...


class FixedOpponent:
    """The :class:`OpponentSource` of one policy: every game plays against it."""

    def __init__(self, policy: Policy) -> None:
        self.opponent = Opponent(policy, getattr(policy, "name", repr(policy)), 0)

    def sample(self, rng: np.random.Generator) -> Opponent:
        return self.opponent

    def record(self, opponent_id: int, result: float) -> None:
        pass

    def reset(self, seed: int | None = None) -> None:
        self.opponent.policy.reset(seed)

    def __len__(self) -> int:
        return 1

    def __repr__(self) -> str:
        return f"FixedOpponent({self.opponent.name!r})"


def as_opponents(obj: Any) -> OpponentSource:
    """An :class:`OpponentSource` as is; anything :func:`as_policy` takes as one opponent."""
    if isinstance(obj, OpponentSource):
        return obj
    return FixedOpponent(as_policy(obj))
