"""``python -m agents``: the ``pasur`` command line (see :mod:`agents.cli`)."""

import sys

from .cli import main

sys.exit(main())
