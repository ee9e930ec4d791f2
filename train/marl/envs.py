"""The one place the examples make an AEC env from a game id (``pasur_env.games``)."""

from __future__ import annotations

import importlib
from typing import Any

from pasur_env.games import game_info


def aec_env(game: str, **options: Any) -> Any:
    """The wrapped AEC env of ``game`` (an id of ``pasur_env.games.GAMES``; anything
    else raises ``ValueError`` naming the games), built with ``options``."""
    return importlib.import_module(game_info(game).aec_module).env(**options)
