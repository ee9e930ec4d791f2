"""Serial and multi-threaded builds of a batched kernel, chosen by batch size.

Kernels that loop over games with ``prange`` are compiled serial (``prange`` runs as
``range``); :class:`BatchKernel` compiles a multi-threaded twin the first time a batch
is large enough to pay for the threads. Each kernel names its own threshold: a
cheap kernel (one engine step) needs hundreds of games to gain from threads, a costly
one (a search per decision) gains from two. Batch kernels release the GIL
(``nogil=True``), so a server can run one game's search in a worker thread while its
event loop serves other players.

Every kernel of the project is decorated with this module's :func:`njit`: numba's, with
``cache=True`` kept only when :mod:`pasur_env.core.cache` found a writable cache folder
(else the kernels compile in every process rather than fail to import).
:func:`compile_progress` reports compilations as they happen (numba's event API fires
only on a cache miss, so a warm cache stays silent); ``pasur warmup`` and the first run
of ``pasur`` commands use it.
"""

from __future__ import annotations

import contextlib
import sys
import time
import types
import weakref
from collections.abc import Callable, Iterator
from typing import Any, TextIO

import numba
from numba.core import event

from pasur_env.core.cache import cache_info, configure_cache
from pasur_env.version import __version__

# Before any kernel is defined (numba picks a kernel's cache folder when it is
# decorated; every kernel module imports this one's njit first).
configure_cache(__version__)

#: batch size from which the engines' multi-threaded kernels are used (when threads > 1)
PARALLEL_MIN_BATCH = 512


def njit(*args: Any, **options: Any) -> Any:
    """``numba.njit``; ``cache=True`` is dropped when no writable cache folder exists."""
    if options.get("cache") and not cache_info().enabled:
        options["cache"] = False
    return numba.njit(*args, **options)


def parallel_twin(dispatcher: Any) -> Any:
    """Compile a second, multi-threaded copy of a kernel written with ``prange``.

    The copy gets its own qualified name so numba's on-disk cache keeps both builds.
    """
    f = dispatcher.py_func
    g = types.FunctionType(f.__code__, f.__globals__, f.__name__ + "_par", f.__defaults__)
    g.__qualname__ = f.__qualname__ + "_par"
    g.__module__ = f.__module__
    return njit(cache=True, parallel=True, nogil=True)(g)


class BatchKernel:
    """A ``prange`` kernel and its multi-threaded twin (built on first use).

    Args:
        serial: the kernel, compiled with ``parallel=False``.
        min_batch: the batch size from which the twin is used (when numba has more
            than one thread).
    """

    #: every batch kernel made so far (``pasur warmup`` compiles their twins)
    instances: weakref.WeakSet[BatchKernel] = weakref.WeakSet()

    def __init__(self, serial: Any, min_batch: int) -> None:
        self.serial = serial
        self.min_batch = int(min_batch)
        self._parallel: Any = None
        BatchKernel.instances.add(self)

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


def warm_parallel_twins() -> int:
    """Compile the multi-threaded twin of every batch kernel, for each signature its
    serial build was compiled for (run the serial kernels first); returns how many."""
    done = 0
    for kernel in list(BatchKernel.instances):
        twin = kernel.build(True)
        for sig in kernel.serial.signatures:
            twin.compile(sig)
            done += 1
    return done


class _CompileListener(event.Listener):
    """Counts numba compilations; calls ``on_first`` before the first, ``on_done`` after
    each outermost one (a kernel's callees compile inside it)."""

    def __init__(self, on_first: Callable[[], None], on_done: Callable[[str, float], None]):
        self.on_first, self.on_done = on_first, on_done
        self.depth, self.count, self.started, self.seconds = 0, 0, 0.0, 0.0

    def on_start(self, ev: event.Event) -> None:
        if self.count == 0 and self.depth == 0:
            self.on_first()
        if self.depth == 0:
            self.started = time.perf_counter()
        self.depth += 1
        self.count += 1

    def on_end(self, ev: event.Event) -> None:
        self.depth -= 1
        if self.depth == 0:
            name = getattr(ev.data["dispatcher"].py_func, "__name__", "kernel")
            seconds = time.perf_counter() - self.started
            self.seconds += seconds
            self.on_done(name, seconds)


@contextlib.contextmanager
def compile_progress(
    stream: TextIO | None = None, prefix: str = "pasur", verbose: bool = True,
    hint: str = "; `pasur warmup` compiles them all ahead",
) -> Iterator[_CompileListener]:
    """Say on ``stream`` (stderr) when kernels are being compiled, as it happens.

    Before the first compilation: one line saying it is the first run's cost (and
    ``hint``); after each kernel (with ``verbose``): its name and time; at the end: the
    total. A warm cache prints nothing. The listener is yielded (``.count``:
    compilations seen, a kernel's callees included; ``.seconds``: time compiling).
    """
    out = stream if stream is not None else sys.stderr

    def first() -> None:
        print(f"{prefix}: compiling kernels (first run only: from about 10 s to a minute "
              f"or two, by agent; cached in {cache_info().path or 'no folder'}{hint})",
              file=out, flush=True)

    def done(name: str, seconds: float) -> None:
        if verbose:
            print(f"{prefix}:   compiled {name} ({seconds:.1f} s)", file=out, flush=True)

    listener = _CompileListener(first, done)
    with event.install_listener("numba:compile", listener):
        yield listener
    if listener.count:
        kept = "cached for the next runs" if cache_info().enabled else "no cache folder"
        print(f"{prefix}: compiled {listener.count} kernels in {listener.seconds:.1f} s "
              f"({kept})", file=out, flush=True)
