"""``python -m agents``: the ``pasur`` command line (see :mod:`agents.apps.cli`)."""

import sys

from agents.apps.cli import main

sys.exit(main())
