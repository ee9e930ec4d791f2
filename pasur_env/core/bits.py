"""Bit arithmetic on card sets (52 or 56 bits; compiled, inlined at every call site)."""

from __future__ import annotations

from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros

from pasur_env.core.compile import njit


@njit(cache=True, inline="always")
def popcount(x: int) -> int:
    """Number of set bits of a non-negative 64-bit mask (SWAR, no multiply)."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    x = x + (x >> 8)
    x = x + (x >> 16)
    x = x + (x >> 32)
    return x & 0x7F


@njit(cache=True, inline="always")
def lowest(x: int) -> int:
    """Id of the lowest card in a non-empty mask."""
    return trailing_zeros(x)


@njit(cache=True, inline="always")
def highest(x: int) -> int:
    """Id of the highest card in a non-empty mask."""
    return 63 - leading_zeros(x)


@njit(cache=True, inline="always")
def nth_lowest(x: int, k: int) -> int:
    """Id of the ``k``-th lowest card (0-based) in a mask of more than ``k`` cards: a
    uniformly random member of a legal set is ``nth_lowest(bits, floor(u * n))``."""
    for _ in range(k):
        x &= x - 1
    return trailing_zeros(x)
