"""The one home of argument checks: integers, seeds, seats, dealers, flags, decks, games.

Both games' engines (:class:`pasur_env.Engine`, :class:`pasur_env.rummy.RummyEngine`),
their rules and their deck parsers check what they are given here, so the same bad
input raises the same exception with the same words in either game. The rules:

* an integer argument is a Python ``int`` or a numpy integer, never a ``bool`` nor a
  float (``TypeError``), and a value out of its range is a ``ValueError`` naming the
  range (also for values too large for the int64 state, which would otherwise wrap);
* a seed is ``None`` or an integer in ``0..2**64 - 1`` (:data:`SEED_MAX`: the 64 bits
  that seed the streams; every table of the web server takes the same range);
* a deck is an *ordered* sequence: a set's order follows ``PYTHONHASHSEED``, so the
  same seed and "deck" would deal differently in each process;
* game indices are integers, ascending and distinct, in range;
* an unknown name (a game, an agent, a preset, a rule flag, a command-line flag) is
  named with the closest known one: :func:`did_you_mean`.

The checks of the per-step path (:func:`game_indices`, :func:`action_array`) are O(1)
Python plus vectorised numpy, so a large batch pays nothing per game.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

__all__ = [
    "INT64_MAX", "INT64_MIN", "SEED_MAX", "BRIEF_CHARS", "FlagTypeError", "brief", "is_int",
    "check_int", "check_bool", "check_optional_bool",
    "check_seed", "check_game", "check_seat", "check_dealer", "check_instance",
    "check_deck_sequence", "game_indices", "action_array", "take_indices", "read_indices",
    "seat_array", "did_you_mean",
]

#: the largest value an int64 state column (or rule parameter) holds
INT64_MAX = int(np.iinfo(np.int64).max)
INT64_MIN = int(np.iinfo(np.int64).min)
#: the largest seed: seeds are 64 bits (the web server draws 64 fresh bits for a game
#: started without one)
SEED_MAX = 2**64 - 1
#: how many characters of a value a message shows at most
BRIEF_CHARS = 40


class FlagTypeError(TypeError, ValueError):
    """A rule flag of the wrong type: a ``TypeError``, and also the ``ValueError`` that
    every bad rule flag has always raised (so ``except ValueError`` keeps catching it)."""


def did_you_mean(words: Any, choices: Iterable[Any]) -> str:
    """`` (did you mean 'budget'?)`` when an unknown name is close to a known one
    (difflib), else ``""``: every "unknown ..." message puts it after the name, so a
    typo is answered with its fix rather than only a list to search.

    ``words`` is one name or several (``(did you mean 'a' for 'x', 'b' for 'y'?)``).
    """
    names = [str(c) for c in choices]
    several = isinstance(words, (list, tuple, set, frozenset))
    fixes = []
    for word in sorted(map(str, words)) if several else [str(words)]:
        close = difflib.get_close_matches(word, names, n=1, cutoff=0.6)
        if close and close[0] != word:
            fixes.append(f"{close[0]!r}" + (f" for {word!r}" if several and len(words) > 1
                                            else ""))
    return f" (did you mean {', '.join(fixes)}?)" if fixes else ""


def brief(value: Any, limit: int = BRIEF_CHARS) -> str:
    """``repr(value)`` cut to ``limit`` characters (with an ellipsis), for messages that
    name a bad value: a 200 KB string sent to the server is not echoed back whole."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 1] + "\u2026"


def is_int(value: Any) -> bool:
    """Whether ``value`` is an integer argument: an int or numpy integer, not a bool."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _int_words(low: int | None, high: int | None) -> str:
    """How a message names the integers in ``low..high``."""
    if high is None or high == INT64_MAX:
        if low == 0:
            return "a non-negative int"
        if low == 1:
            return "a positive int"
        return "an int" if low is None else f"an int >= {low}"
    return f"an int in {'' if low is None else low}..{high}"


def check_int(value: Any, name: str, low: int | None = None, high: int | None = INT64_MAX,
              *, type_error: type[Exception] = TypeError) -> int:
    """``value`` as a Python int after the integer rule (bounds inclusive).

    Raises ``type_error`` (``TypeError``; rule flags use :class:`FlagTypeError`) for a
    bool, float or other non-integer, and ``ValueError`` naming the range otherwise.
    """
    if type(value) is not int and not is_int(value):  # the common case first: a plain int
        raise type_error(f"{name} must be {_int_words(low, high)}, got {value!r}")
    if (low is not None and value < low) or (high is not None and value > high):
        if low is not None and value < low and high in (None, INT64_MAX):
            raise ValueError(f"{name} must be >= {low}, got {value!r}")
        raise ValueError(f"{name} must be in {'' if low is None else low}..{high}, got {value!r}")
    return int(value)


def check_bool(value: Any, name: str, *, type_error: type[Exception] = TypeError) -> bool:
    """``value`` as a bool: only ``True``/``False`` (or a numpy bool) are switches."""
    if not isinstance(value, (bool, np.bool_)):
        raise type_error(f"{name} must be True or False, got {value!r}")
    return bool(value)


def check_optional_bool(value: Any, name: str) -> bool | None:
    """``value`` as None or a bool (a switch with an automatic default)."""
    if value is None:
        return None
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be None, True or False, got {value!r}")
    return bool(value)


def check_seed(seed: Any) -> int | None:
    """``seed`` as an int (or None) after the one seed rule of the project.

    Raises ``TypeError`` for anything but None or an integer (bools included), and
    ``ValueError`` for one outside ``0..SEED_MAX``: the streams are derived from 64
    non-negative bits, the same for both games' engines and every table of the web
    server. A numpy integer is a seed like the int of the same value.
    """
    if seed is None:
        return None
    if not is_int(seed):
        raise TypeError(f"seed must be a non-negative int or None, got {type(seed).__name__}")
    if not 0 <= seed <= SEED_MAX:
        raise ValueError(f"seed must be a non-negative int or None, at most 2**64 - 1, "
                         f"got {brief(int(seed))}")
    return int(seed)


def check_game(game: Any, num_games: int) -> int:
    """A single game index: an integer in ``0..num_games - 1`` (no negative indexing)."""
    if type(game) is int and 0 <= game < num_games:  # the per-step case, kept cheap
        return game
    return check_int(game, "game", 0, num_games - 1)


def check_seat(seat: Any, num_players: int, name: str = "seat") -> int:
    """A seat: an integer in ``0..num_players - 1`` (``name`` says which seat it is)."""
    seats = f"{'' if name == 'seat' else 'a seat '}in 0..{num_players - 1}"
    if not is_int(seat):
        raise TypeError(f"{name} must be an int {seats}, got {seat!r}")
    if not 0 <= seat < num_players:
        raise ValueError(f"{name} must be {seats}, got {seat!r}")
    return int(seat)


def check_dealer(dealer: Any, num_players: int, num_games: int | None = None) -> Any:
    """The dealer of a deal: one seat (an int), or with ``num_games`` one seat per game
    (an integer array of shape (num_games,) is also accepted; returned as int64)."""
    if num_games is None or np.ndim(dealer) == 0:
        if isinstance(dealer, np.ndarray):
            dealer = dealer.item() if dealer.dtype.kind in "iu" else dealer
        return check_seat(dealer, num_players, "dealer")
    dealers = np.asarray(dealer)
    if dealers.dtype.kind not in "iu":
        raise TypeError(f"dealer must be a seat (int) or one seat per game, got {dealer!r}")
    try:
        dealers = np.broadcast_to(dealers, (num_games,))
    except ValueError:
        raise ValueError(f"dealer must be one seat or {num_games} seats, got shape "
                         f"{dealers.shape}") from None
    if dealers.min() < 0 or dealers.max() > num_players - 1:
        raise ValueError(f"dealer must be a seat in 0..{num_players - 1}, got {dealer!r}")
    return dealers.astype(np.int64)


def check_instance(value: Any, cls: type, name: str) -> Any:
    """``value`` if it is None or a ``cls`` object (``TypeError`` otherwise)."""
    if value is not None and not isinstance(value, cls):
        raise TypeError(f"{name} must be a {cls.__name__} object or None, got "
                        f"{type(value).__name__}")
    return value


def check_deck_sequence(deck: Any) -> list[Any]:
    """The cards of a deck order as a list (index 0 = top), whatever ordered form it has.

    A deck is a list, tuple or other sequence, a numpy array, or one string of codes
    (spaces or commas between them). A set, dict or iterator is a ``TypeError``: their
    order is not the caller's (a set's follows ``PYTHONHASHSEED``).
    """
    if isinstance(deck, str):
        return deck.replace(",", " ").split()
    if isinstance(deck, np.ndarray):
        return [c.item() if isinstance(c, np.generic) else c for c in deck.ravel()]
    if not isinstance(deck, Sequence):
        raise TypeError("a deck must be an ordered sequence (list, tuple, numpy array or a "
                        f"string of codes), got {type(deck).__name__}")
    return [c.item() if isinstance(c, np.generic) else c for c in deck]


def _integer_indices(games: Any) -> tuple[np.ndarray, np.ndarray]:
    """``games`` as an array and as flat int64 indices; ``TypeError`` unless integers."""
    arr = np.asarray(games)
    if arr.dtype.kind not in "iu" and arr.size:
        raise TypeError(f"games must be integer game indices, got dtype {arr.dtype}")
    return arr, np.ascontiguousarray(arr, dtype=np.int64).reshape(-1)


def game_indices(games: Any, all_games: np.ndarray) -> np.ndarray:
    """``games`` as ascending, distinct, in-range int64 indices (None: ``all_games``)."""
    if games is None:
        return all_games
    n = all_games.shape[0]
    arr, idx = _integer_indices(games)
    if idx.size and (idx[0] < 0 or idx[-1] >= n or (np.diff(idx) <= 0).any()):
        raise ValueError(f"games must be ascending distinct indices in 0..{n - 1}")
    return idx


def read_indices(games: Any, all_games: np.ndarray) -> np.ndarray:
    """Games to read (observations): None is ``all_games``; else integers in range, in any
    order, repeats allowed, as int64. The compiled readers index the state without bounds
    checks, so an index out of range would read (or crash on) memory outside it."""
    if games is None:
        return all_games
    n = all_games.shape[0]
    arr, idx = _integer_indices(games)
    if idx.size and (idx.min() < 0 or idx.max() >= n or (arr.dtype.kind == "u"
                                                          and arr.max() > INT64_MAX)):
        raise ValueError(f"games must be indices in 0..{n - 1}, got {games!r}")
    return idx


def seat_array(seats: Any, num_players: int) -> Any:
    """Observer seats (one or an array), unchanged, after the checks: integers in
    ``0..num_players - 1`` (the readers take them as column offsets, unchecked)."""
    arr = np.asarray(seats)
    if arr.dtype.kind not in "iu" and arr.size:
        raise TypeError(f"seats must be integer seats, got {seats!r}")
    if arr.size and (arr.min() < 0 or arr.max() > num_players - 1):
        raise ValueError(f"observer seats must be in 0..{num_players - 1}, got {seats!r}")
    return seats


def _action_range_error(acts: np.ndarray, num_actions: int | None, who: str | None,
                        low: int) -> ValueError:
    """The error for actions no int64 holds, naming the action and the range of ids."""
    big = next(int(a) for a in acts.reshape(-1) if not INT64_MIN <= int(a) <= INT64_MAX)
    ids = f"{low}..{num_actions - 1}" if num_actions is not None else "int64"
    prefix = "" if who is None else f"{who}: "
    return ValueError(f"{prefix}action {big} is out of range: actions are ids {ids}")


def _described(value: Any) -> str:
    """A short description of a value that is not integer actions (never the whole of a
    large input)."""
    if isinstance(value, np.ndarray):
        return f"an array of dtype {value.dtype} and shape {value.shape}"
    text = repr(value)
    text = text if len(text) <= 60 else text[:57] + "..."
    return f"{text} ({type(value).__name__})"


def action_array(actions: Any, n: int, num_actions: int | None = None, *,
                 who: str | None = None, low: int = -1) -> np.ndarray:
    """``actions`` as an (n,) int64 array (a scalar is accepted for one game): the one
    check of actions' types, for the engines, the envs' learners and every policy.

    Integers only: ``TypeError`` for None, bools, floats (even whole ones: a float
    action is a bug upstream), strings and objects; ``ValueError`` for a wrong shape
    or a value no int64 holds (which would wrap around into another action). ``who``
    names the one acting in the messages; ``low`` is the first valid id (-1 for the
    engines, whose games waiting in the DONE phase take -1).
    """
    if type(actions) is np.ndarray and actions.dtype == np.int64 and actions.shape == (n,):
        return actions  # the per-step case: nothing to convert
    subject = ("actions" if n != 1 else "action") if who is None else (
        f"{who}: {'actions' if n != 1 else 'action'}")
    if isinstance(actions, (list, tuple)) and any(
            isinstance(a, (bool, np.bool_)) for a in actions):
        raise TypeError(f"{subject} must be ints, not bools, got {_described(actions)}")
    acts = np.asarray(actions)
    if acts.dtype.kind not in "iu":
        if acts.dtype == object and acts.size and all(is_int(a) for a in acts.reshape(-1)) \
                and any(not INT64_MIN <= int(a) <= INT64_MAX for a in acts.reshape(-1)):
            raise _action_range_error(acts, num_actions, who, low)  # ints too large
        kind = "an int" if n == 1 and acts.ndim == 0 else "an integer array"
        raise TypeError(f"{subject} must be {kind}, got {_described(actions)}")
    if acts.shape != (n,):
        if n == 1 and acts.shape == ():
            acts = acts.reshape(1)
        else:
            raise ValueError(f"{subject} must have shape ({n},), got {acts.shape}")
    if acts.dtype == np.uint64 and acts.size and acts.max() > INT64_MAX:
        raise _action_range_error(acts, num_actions, who, low)
    return acts.astype(np.int64, copy=False)


def take_indices(indices: Any, num_games: int) -> np.ndarray:
    """Indices for ``take()``: at least one, each an integer in range (repeats allowed)."""
    arr = np.asarray(indices)
    if arr.size == 0:
        raise ValueError("take() needs at least one game index")
    if arr.dtype.kind not in "iu":
        raise TypeError(f"game indices must be integers, got dtype {arr.dtype}")
    if arr.min() < 0 or arr.max() >= num_games:
        raise ValueError(f"game indices must be in 0..{num_games - 1}")
    return arr.astype(np.int64).reshape(-1)
