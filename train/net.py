"""``python -m train.net``: the old name of ``python -m train.move_net``, kept for one
release. It prints one line saying so and runs the pipeline with the same arguments
(:mod:`train.move_net.pipeline`)."""

from __future__ import annotations

import sys
from pathlib import Path

#: the line printed on stderr
DEPRECATION = ("python -m train.net is deprecated and will be removed: "
               "use python -m train.move_net (the same arguments)")


def main(argv: list[str] | None = None) -> Path:
    """Warn in one line, then run ``python -m train.move_net`` with ``argv``."""
    print(DEPRECATION, file=sys.stderr)
    from train.move_net.pipeline import main as run

    return run(argv)


if __name__ == "__main__":
    main()
