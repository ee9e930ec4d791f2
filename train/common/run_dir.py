"""Where a training run writes: ``<out>/<name>/`` with its settings in ``config.json``."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

__all__ = ["run_dir_of", "start_run_dir"]


def run_dir_of(args: Any) -> Path:
    """``<args.out>/<args.name>`` (not created)."""
    return Path(args.out) / args.name


def start_run_dir(args: Any, fresh: bool = False) -> Path:
    """Create the run's folder and write ``config.json`` (the dataclass of settings).

    ``fresh``: refuse (exit with a message) a folder that already holds files unless
    ``args.resume``, for pipelines whose outputs would mix with an old run's.
    """
    run_dir = run_dir_of(args)
    if fresh and not args.resume and run_dir.exists() and any(run_dir.iterdir()):
        raise SystemExit(f"{run_dir} exists: pass --resume to continue it or pick another --name")
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.json").write_text(json.dumps(asdict(args), indent=2))
    return run_dir
