"""Where a training run writes: ``<runs_dir>/<name>/`` with its settings in ``config.json``."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any


def run_dir_of(args: Any) -> Path:
    """``<args.runs_dir>/<args.name>`` (not created)."""
    return Path(args.runs_dir) / args.name


def start_run_dir(args: Any) -> Path:
    """Create the run's folder and write ``config.json`` (the dataclass of settings)."""
    run_dir = run_dir_of(args)
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.json").write_text(json.dumps(asdict(args), indent=2))
    return run_dir
