"""Readable names of the Persian Rummy action ids (``docs/persian_rummy.md`` §8)."""

from __future__ import annotations

from .cards import card_code
from .kernels import state as S

__all__ = ["action_str"]


def action_str(action: int) -> str:
    """``"DRAW_STOCK"``, ``"TAKE 7H"``, ``"PICK JK1"``, ``"TARGET 2"`` ..."""
    a = int(action)
    if a == S.DRAW_STOCK:
        return "DRAW_STOCK"
    if a == S.PASS:
        return "PASS"
    if a == S.MELD_ACTION:
        return "MELD"
    for lo, hi, name in (
        (S.TAKE0, S.PASS, "TAKE"), (S.PICK0, S.MELD_ACTION, "PICK"),
        (S.LAYOFF0, S.TARGET0, "LAY_OFF"), (S.DISCARD0, S.NUM_ACTIONS, "DISCARD"),
    ):
        if lo <= a < hi:
            return f"{name} {card_code(a - lo)}"
    if S.TARGET0 <= a < S.DISCARD0:
        return f"TARGET {a - S.TARGET0}"
    return f"<invalid action {a}>"
