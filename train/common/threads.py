"""Thread pools held to one thread while training plays many small batches.

The training loops here (the move network's labelling, the learned best response) run
the engines' compiled kernels, small numpy networks among the opponents and a small
torch network, each call on tens to hundreds of decisions. At these sizes a thread pool
gains nothing, and its threads, spinning between calls, take the cores the kernels need.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from threadpoolctl import threadpool_limits

__all__ = ["one_blas_thread", "one_thread_each"]


def one_blas_thread() -> Any:
    """A context holding numpy's BLAS to one thread (threadpoolctl).

    The numpy networks among the labeller's opponents (the ``net`` of the second
    iteration on: :mod:`agents.core.move_net`) make many small matrix products, one per
    step of the play loop. On a BLAS thread pool each product wakes the pool's threads,
    which then spin waiting for the next one on the cores the engine's compiled kernels
    (the rollouts of the labels) need: Persian Rummy's labelling fell from about 600 to
    about 200 decisions per second once the network played, and went back to about 600
    on one BLAS thread (``benchmarks/bench_labelling.py``). The products gain nothing
    from threads at these sizes; ``pasur serve`` holds BLAS to one thread for the same
    reason."""
    return threadpool_limits(limits=1, user_api="blas")


@contextlib.contextmanager
def one_thread_each() -> Iterator[None]:
    """numba's kernels, torch and numpy's BLAS on one thread each (restored after): the
    learned best response asks the frozen agent for tens to hundreds of decisions at a
    time, so a pool's start-up and barriers cost more than they give (on a busy 2-core
    machine, a hundred times more for ``heuristic``'s kernels)."""
    import numba
    import torch

    threads = numba.get_num_threads(), torch.get_num_threads()
    numba.set_num_threads(1)
    torch.set_num_threads(1)
    try:
        with one_blas_thread():
            yield
    finally:
        numba.set_num_threads(threads[0])
        torch.set_num_threads(threads[1])
