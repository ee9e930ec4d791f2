"""Serial and multi-threaded builds of a batched kernel, chosen by batch size.

Kernels that loop over games with ``prange`` are compiled serial (``prange`` runs as
``range``); :class:`BatchKernel` compiles a multi-threaded twin the first time a batch
is large enough to pay for the threads. Each kernel names its own threshold: a
cheap kernel (one engine step) needs hundreds of games to gain from threads, a costly
one (a search per decision) gains from two. Batch kernels release the GIL
(``nogil=True``), so a server can run one game's search in a worker thread while its
event loop serves other players.
"""

from __future__ import annotations

import types
from typing import Any

import numba

#: batch size from which the engines' multi-threaded kernels are used (when threads > 1)
PARALLEL_MIN_BATCH = 512


def parallel_twin(dispatcher: Any) -> Any:
    """Compile a second, multi-threaded copy of a kernel written with ``prange``.

    The copy gets its own qualified name so numba's on-disk cache keeps both builds.
    """
    f = dispatcher.py_func
    g = types.FunctionType(f.__code__, f.__globals__, f.__name__ + "_par", f.__defaults__)
    g.__qualname__ = f.__qualname__ + "_par"
    g.__module__ = f.__module__
    return numba.njit(cache=True, parallel=True, nogil=True)(g)


class BatchKernel:
    """A ``prange`` kernel and its multi-threaded twin (built on first use).

    Args:
        serial: the kernel, compiled with ``parallel=False``.
        min_batch: the batch size from which the twin is used (when numba has more
            than one thread).
    """

    def __init__(self, serial: Any, min_batch: int) -> None:
        self.serial = serial
        self.min_batch = int(min_batch)
        self._parallel: Any = None

    def build(self, parallel: bool) -> Any:
        """The serial kernel, or the multi-threaded twin."""
        if not parallel:
            return self.serial
        if self._parallel is None:
            self._parallel = parallel_twin(self.serial)
        return self._parallel

    def wants_parallel(self, n: int) -> bool:
        """Whether a batch of ``n`` is large enough for threads."""
        return n >= self.min_batch and numba.get_num_threads() > 1

    def for_batch(self, n: int, parallel: bool | None = None) -> Any:
        """The build for a batch of ``n`` (``parallel`` forces one when not None)."""
        return self.build(self.wants_parallel(n) if parallel is None else bool(parallel))
