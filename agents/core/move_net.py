"""The move-scoring network of either game, as numpy: ``Q(s, m)`` for every candidate
move ``m`` (a game's subclass says its move-row width and game id).

The first layer is split in two: the decision's observation ``s`` goes through
``W_obs`` once per decision, each move's features ``m`` (:mod:`agents.pasur.move_net.features`,
:mod:`agents.rummy.move_net.features`) through ``W_move`` once per move, and their sum feeds
a small MLP that outputs the move's value: the expected round-point difference (own
side minus the others' mean) after playing it.

Inference is plain numpy (float32 matrix products), so the ``net`` agent needs no
torch; :mod:`train.move_net` fits the same parameters with torch and saves them here as an
``.npz`` file with a JSON header of metadata (game, observation size, players, move-row
width, how it was made), which :meth:`MoveNetBase.check` compares with the game it is
asked to play. One implementation for both games: a game's class
(``agents.pasur.move_net.MoveNet``, ``agents.rummy.move_net.RummyMoveNet``) sets only
:attr:`MoveNetBase.GAME` and :attr:`MoveNetBase.MOVE_WIDTH`.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

__all__ = ["MoveNetBase", "PARAM_NAMES", "best_moves", "move_probs", "choose_moves",
           "action_probs", "check_temperature"]

def best_moves(q: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Row of the best move of each decision (the first one among equals)."""
    counts = np.diff(offsets)
    top = np.maximum.reduceat(q, offsets[:-1])
    hit = np.flatnonzero(q >= np.repeat(top, counts))
    return hit[np.searchsorted(hit, offsets[:-1])]


def check_temperature(temperature: float, who: str = "net") -> float:
    """``temperature`` as a float >= 0 (a ``ValueError`` in the agent's words otherwise)."""
    try:
        t = float(temperature)
    except (TypeError, ValueError):
        raise ValueError(f"{who}: temperature must be a number >= 0, "
                         f"got {temperature!r}") from None
    if not np.isfinite(t) or t < 0:
        raise ValueError(f"{who}: temperature must be a number >= 0, got {temperature!r}")
    return t


def move_probs(q: np.ndarray, offsets: np.ndarray, temperature: float) -> np.ndarray:
    """Probability of each move row: a softmax of ``q / temperature`` within each
    decision (rows ``offsets[i]:offsets[i + 1]``). Temperature 0 puts all of a
    decision's mass on :func:`best_moves`, the network's usual play.

    Why a temperature: a network that always plays its best-scored move is a pure
    policy, and in a game of hidden cards a pure policy tells an opponent its hand;
    a softmax of the values (a quantal response) mixes moves of nearly equal value and
    leaves clear choices alone. The values are in points of the round, so the
    temperature is in points too.
    """
    q = np.asarray(q, dtype=np.float64)
    out = np.zeros(q.shape[0], dtype=np.float64)
    if temperature <= 0:
        out[best_moves(q, offsets)] = 1.0
        return out
    counts = np.diff(offsets)
    top = np.maximum.reduceat(q, offsets[:-1])
    e = np.exp((q - np.repeat(top, counts)) / temperature)
    return e / np.repeat(np.add.reduceat(e, offsets[:-1]), counts)


def action_probs(q: np.ndarray, offsets: np.ndarray, actions: np.ndarray,
                 temperature: float, shape: tuple[int, int]) -> np.ndarray:
    """``shape`` = ``(decisions, num_actions)``: each action's probability, the summed
    :func:`move_probs` of the move rows whose action due now is ``actions[row]`` (a
    move of several actions counts for its first)."""
    rows = np.repeat(np.arange(offsets.size - 1), np.diff(offsets))
    out = np.zeros(shape, dtype=np.float64)
    np.add.at(out, (rows, actions), move_probs(q, offsets, temperature))
    return out


def choose_moves(q: np.ndarray, offsets: np.ndarray, temperature: float,
                 rng: np.random.Generator) -> np.ndarray:
    """Row of the move each decision plays: :func:`best_moves` at temperature 0, else one
    drawn from :func:`move_probs` with ``rng``."""
    if temperature <= 0:
        return best_moves(q, offsets)
    p = move_probs(q, offsets, temperature)
    cum = np.cumsum(p)
    before = np.concatenate([[0.0], cum])[offsets[:-1]]
    u = before + rng.random(offsets.size - 1) * (cum[offsets[1:] - 1] - before)
    rows = np.searchsorted(cum, u, side="right")
    return np.clip(rows, offsets[:-1], offsets[1:] - 1)


#: parameter arrays of a network, in order
PARAM_NAMES = ("w_obs", "w_move", "b1", "w2", "b2", "w_q", "b_q")


@dataclass
class MoveNetBase:
    """A move-scoring network (see the module docstring); a game's subclass sets
    :attr:`GAME` and :attr:`MOVE_WIDTH`.

    Attributes:
        params: the arrays of :data:`PARAM_NAMES` (float32).
        meta: ``obs_size``, ``num_players``, ``move_width`` and free-form provenance
            (config, seed, data, evaluation) written by the training script.
    """

    params: dict[str, np.ndarray]
    meta: dict[str, Any] = field(default_factory=dict)
    #: the game the class plays (files without a ``game`` entry are Pasur's)
    GAME: ClassVar[str] = ""
    #: the width of the move rows the game's features write
    MOVE_WIDTH: ClassVar[int] = 0

    @property
    def obs_size(self) -> int:
        return int(self.params["w_obs"].shape[0])

    @property
    def num_players(self) -> int:
        return int(self.meta.get("num_players", 2))

    def check(self, obs_size: int, num_players: int, name: str = "net") -> None:
        """Raise ``ValueError`` when the network was made for another game layout."""
        game = self.meta.get("game", "pasur")
        if game != self.GAME:
            raise ValueError(f"{name}: the network was trained for the game {game!r}, "
                             f"not {self.GAME!r}")
        if num_players != self.num_players:
            raise ValueError(
                f"{name}: the network was trained for {self.num_players} players, "
                f"the game has {num_players}"
            )
        if obs_size != self.obs_size:
            raise ValueError(
                f"{name}: the network expects observations of {self.obs_size} features, "
                f"this game encodes {obs_size} (another observation layout)"
            )
        if self.params["w_move"].shape[0] != self.MOVE_WIDTH:
            raise ValueError(
                f"{name}: the network expects move rows of {self.params['w_move'].shape[0]} "
                f"features, this version writes {self.MOVE_WIDTH}"
            )

    # ---- inference ------------------------------------------------------------------------
    def hidden(self, obs: np.ndarray, offsets: np.ndarray, feats: np.ndarray) -> np.ndarray:
        """The last hidden layer of every move (n_moves, H2)."""
        p = self.params
        counts = np.diff(offsets)
        h_obs = np.asarray(obs, dtype=np.float32) @ p["w_obs"]
        h = np.repeat(h_obs, counts, axis=0)
        h += feats @ p["w_move"]
        h += p["b1"]
        np.maximum(h, 0.0, out=h)
        h2 = h @ p["w2"]
        h2 += p["b2"]
        np.maximum(h2, 0.0, out=h2)
        return h2

    def q_values(self, obs: np.ndarray, offsets: np.ndarray, feats: np.ndarray) -> np.ndarray:
        """``Q(s, m)`` of every move: float32 (n_moves,); decision ``i`` owns the rows
        ``offsets[i]:offsets[i + 1]``."""
        return self.hidden(obs, offsets, feats) @ self.params["w_q"] + self.params["b_q"][0]

    # ---- files ----------------------------------------------------------------------------
    def save(self, path: str | Path) -> Path:
        """Write the parameters and the metadata to one ``.npz`` file."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        meta = dict(self.meta, obs_size=self.obs_size, move_width=self.MOVE_WIDTH,
                    game=self.GAME)
        arrays = {k: np.asarray(self.params[k], dtype=np.float32) for k in PARAM_NAMES}
        with open(path, "wb") as fh:
            np.savez_compressed(fh, meta=np.array(json.dumps(meta)), **arrays)
        return path

    @classmethod
    def shared(cls, path: str | Path) -> Any:
        """The network at ``path``, read once per process per file version (resolved
        path, modification time, size) and shared by every agent that plays it (it is
        read-only)."""
        real = Path(path).resolve()
        if not real.is_file():
            raise FileNotFoundError(f"no such network file: {str(path)!r}")
        st = real.stat()
        return _load_shared(cls, str(real), st.st_mtime_ns, st.st_size)

    @classmethod
    def load(cls, path: str | Path) -> Any:
        """Read a network written by :meth:`save` (no pickled code is loaded)."""
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"no such network file: {str(path)!r}")
        with np.load(path, allow_pickle=False) as data:
            missing = [k for k in (*PARAM_NAMES, "meta") if k not in data.files]
            if missing:
                raise ValueError(f"{path} is not a move network: it lacks {missing}")
            params = {k: np.ascontiguousarray(data[k], dtype=np.float32) for k in PARAM_NAMES}
            meta = json.loads(str(data["meta"]))
        return cls(params, meta)

    @classmethod
    def init(cls, obs_size: int, hidden: int, hidden2: int, seed: int = 0,
             **meta: Any) -> Any:
        """A randomly initialised network (He-scaled), for tests and as a starting point."""
        rng = np.random.default_rng(seed)

        def he(n_in: int, n_out: int) -> np.ndarray:
            return (rng.standard_normal((n_in, n_out)) * np.sqrt(2.0 / n_in)).astype(np.float32)

        z = lambda n: np.zeros(n, dtype=np.float32)  # noqa: E731
        params = {
            "w_obs": he(obs_size, hidden), "w_move": he(cls.MOVE_WIDTH, hidden), "b1": z(hidden),
            "w2": he(hidden, hidden2), "b2": z(hidden2), "w_q": he(hidden2, 1)[:, 0],
            "b_q": z(1),
        }  # fmt: skip
        return cls(params, {**meta, "game": cls.GAME})


@functools.lru_cache(maxsize=16)
def _load_shared(cls: type[MoveNetBase], path: str, mtime_ns: int, size: int) -> Any:
    return cls.load(path)
