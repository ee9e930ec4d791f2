"""``pasur warmup`` compiles what every command uses: after it, on a fresh kernel cache,
no ``pasur`` command compiles a kernel (one that does says "compiling kernels" on
stderr, :func:`pasur_env.core.compile.compile_progress`).

Bounded in time: Pasur with the ``greedy`` agent, tiny sizes, and one numba thread with
``--serial-only`` (the multi-threaded twins are compiled from the serial builds' own
signatures, :func:`pasur_env.core.compile.warm_parallel_twins`, so what the serial
builds cover they cover too). Still a few minutes of compiling: marked ``slow``; it
runs in ``make test``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_no_command_compiles_after_warmup(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PASUR_ENV_AUTO_CACHE_DIR"}
    env.update(NUMBA_CACHE_DIR=str(tmp_path / "cache"), NUMBA_NUM_THREADS="1",
               PYTHONPATH=str(ROOT))

    def pasur(*argv: str, stdin: str = "") -> subprocess.CompletedProcess:
        res = subprocess.run([sys.executable, "-m", "agents.apps.cli", *argv], cwd=tmp_path,
                             env=env, input=stdin, capture_output=True, text=True, timeout=1200)
        assert res.returncode == 0, (argv, res.stderr)
        return res

    warm = pasur("warmup", "greedy", "--game", "pasur", "--serial-only", "--progress")
    assert "compiled" in warm.stderr and "records and replay" in warm.stderr, warm.stderr
    games = tmp_path / "games"
    commands: list[tuple[tuple[str, ...], str]] = [
        (("eval", "greedy", "random", "--rounds", "4", "--batch", "8", "--save-games",
          str(games)), ""),
        (("tournament", "greedy", "random", "--rounds", "4", "--batch", "8"), ""),
        (("demo", "greedy", "--episode", "round"), ""),
        (("play", "greedy", "--episode", "round"), "1\n" * 300),
        (("exploitability", "greedy", "--preset", "mini"), ""),
        (("agents",), ""),
    ]
    for argv, stdin in commands:
        res = pasur(*argv, stdin=stdin)
        assert "compiling kernels" not in res.stderr, (argv, res.stderr)
    record = next(games.glob("*.jsonl"))
    res = pasur("replay", str(record), "--all")
    assert "compiling kernels" not in res.stderr, res.stderr
