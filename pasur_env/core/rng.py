"""splitmix64 random streams: the one generator of both engines and the search agents.

Every game carries its own stream in its state row, so a game's
trajectory depends only on its own seed and actions, never on the batch size or on
the other games. Search agents and the random playout use the same generator for
streams of their own (:func:`splitmix_next`), so their numbers never disturb a deal.
"""

from __future__ import annotations

import numpy as np

from pasur_env.core.compile import njit

#: the splitmix64 increment (the golden ratio in 64 bits)
GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_TO_UNIT = 1.0 / 9007199254740992.0  # 2**-53


def stream_base(seed: int | None) -> np.uint64:
    """The 64-bit base of the per-game streams for ``seed`` (``None``: fresh entropy)."""
    return np.random.SeedSequence(seed).generate_state(1, np.uint64)[0]


@njit(cache=True, inline="always")
def mix64(z: np.uint64) -> np.uint64:
    """splitmix64's output function: a well-mixed 64-bit value from a counter state."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def splitmix_next(z: np.uint64) -> tuple[np.uint64, np.uint64]:
    """Advance a stream held in a local variable: ``(new state, random 64 bits)``."""
    z = z + GOLDEN
    return z, mix64(z)


@njit(cache=True, inline="always")
def unit_float(x: np.uint64) -> float:
    """A uniform float in [0, 1) from 64 random bits (the top 53)."""
    return np.float64(x >> np.uint64(11)) * _TO_UNIT


@njit(cache=True)
def seed_stream_column(st: np.ndarray, col: int, base: np.uint64, offset: int) -> None:
    """Give game ``b`` (row ``b`` of ``st``, column ``col``) the stream
    ``mix64(base + (offset + b) * GOLDEN)``: game ``b`` of an engine gets the same stream as
    game ``offset + b`` of a larger one, whatever the batch."""
    for b in range(st.shape[0]):
        st[b, col] = np.int64(mix64(base + np.uint64(offset + b) * GOLDEN))
