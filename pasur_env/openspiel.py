"""Both games as OpenSpiel games: importing this module registers ``python_pasur`` and
``python_persian_rummy`` with ``pyspiel`` (needs the ``openspiel`` extra).

::

    import pyspiel
    import pasur_env.openspiel  # noqa: F401 - registers the games

    game = pyspiel.load_game("python_pasur", {"players": 3})

The adapter is :mod:`pasur_env.core.openspiel_game`; each game's part is its
``openspiel_game`` module (docs/openspiel.md: parameters, chance model, tensors).
"""

from __future__ import annotations

from pasur_env.pasur.openspiel_game import SHORT_NAME as PASUR
from pasur_env.pasur.openspiel_game import PasurGame
from pasur_env.rummy.openspiel_game import SHORT_NAME as PERSIAN_RUMMY
from pasur_env.rummy.openspiel_game import RummyGame

__all__ = ["PASUR", "PERSIAN_RUMMY", "PasurGame", "RummyGame", "GAME_NAMES", "load_game"]

#: the registered OpenSpiel name of each of the project's games
GAME_NAMES: dict[str, str] = {"pasur": PASUR, "persian_rummy": PERSIAN_RUMMY}


def load_game(game: str = "pasur", **params: object) -> object:
    """``pyspiel.load_game`` of one of the project's games by its project id
    (``"pasur"``, ``"persian_rummy"``) with game parameters as keywords."""
    import pyspiel

    if game not in GAME_NAMES:
        raise ValueError(f"unknown game {game!r}: choose one of {', '.join(GAME_NAMES)}")
    return pyspiel.load_game(GAME_NAMES[game], dict(params))
