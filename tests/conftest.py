"""Shared test settings."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True, scope="session")
def _one_torch_thread():
    """Tiny networks on a shared 2-core box: torch's thread pool costs far more than it gives."""
    try:
        import torch
    except ImportError:  # the core install has no torch
        yield
        return
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)
