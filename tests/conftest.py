"""Shared test settings."""

from __future__ import annotations

import os
import pathlib
from collections.abc import Callable

import pytest

#: where Ray would leave state behind: its default session folder, its auth token, and
#: the temporary folders of ``agents.evaluation.distributed.ray_tmpdir``
_RAY_DIR = pathlib.Path("/tmp/ray")
_AUTH_TOKEN = pathlib.Path.home() / ".ray" / "auth_token"
_RAY_BEFORE = (_RAY_DIR.exists(), _AUTH_TOKEN.exists(),
               set(pathlib.Path("/tmp").glob("pasur-ray-*")))


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


@pytest.fixture(autouse=True, scope="session")
def _sb3_logs_in_pytest_tmp(tmp_path_factory: pytest.TempPathFactory):
    """Stable-Baselines3 gives every ``learn()`` without ``tensorboard_log`` a new folder
    ``/tmp/SB3-<time>``, which nothing removes; the tests' go to pytest's temporary
    folder (``SB3_LOGDIR``), which pytest prunes."""
    patch = pytest.MonkeyPatch()
    patch.setenv("SB3_LOGDIR", str(tmp_path_factory.mktemp("sb3")))
    yield
    patch.undo()


@pytest.fixture
def stray_ray_state() -> Callable[[], list[str]]:
    """What Ray left behind since the tests started (the Ray tests end by checking
    that it is nothing): /tmp/ray, an auth token, a session folder, ``RAY_TMPDIR``."""

    def stray() -> list[str]:
        out = []
        if not _RAY_BEFORE[0] and _RAY_DIR.exists():
            out.append(str(_RAY_DIR))
        if not _RAY_BEFORE[1] and _AUTH_TOKEN.exists():
            out.append(str(_AUTH_TOKEN))
        out += sorted(str(p) for p in set(pathlib.Path("/tmp").glob("pasur-ray-*"))
                      - _RAY_BEFORE[2])
        if os.environ.get("RAY_TMPDIR", "").startswith("/tmp/pasur-ray-"):
            out.append("RAY_TMPDIR=" + os.environ["RAY_TMPDIR"])
        return out

    return stray
