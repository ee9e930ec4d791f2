"""What the players of every game share, and nothing of any one game.

:mod:`agents.core.base` (the ``Agent`` base class), :mod:`agents.core.search` (budgets,
seeds and tree bookkeeping of the search agents) and :mod:`agents.core.move_net` (the
numpy move-scoring network a game subclasses). This package imports neither game's
players nor the evaluation nor the apps (an import-linter contract keeps it so), so a
new game's agents build on it alone.
"""
