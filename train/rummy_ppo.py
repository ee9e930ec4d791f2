"""Deprecated, kept for one release: ``python -m train.rummy_ppo ARGS`` runs
``python -m train.ppo --game persian_rummy ARGS`` (:mod:`train.ppo`, the one MaskablePPO
pipeline of every game) after a one-line warning on stderr."""

from __future__ import annotations

import os
import sys
from pathlib import Path

#: the one line said on stderr
WARNING = "train.rummy_ppo is deprecated; use python -m train.ppo --game persian_rummy"


def main(argv: list[str] | None = None) -> Path:
    """Warn, then run :func:`train.ppo.main` on ``--game persian_rummy`` and ``argv``."""
    from train.ppo import main as ppo_main

    print(WARNING, file=sys.stderr)
    return ppo_main(["--game", "persian_rummy", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
