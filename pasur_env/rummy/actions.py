"""Readable names of the Persian Rummy action ids (``docs/persian_rummy.md`` §8)."""

from __future__ import annotations

from pasur_env.rummy.cards import card_code, parse_card
from pasur_env.rummy.kernels import state as S

__all__ = ["action_str", "parse_action"]


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


def parse_action(text: str | int) -> int:
    """The id of an action written as :func:`action_str` writes it (``"PICK 5S"``) or an id.

    Scripted games and tests read like the rules this way; a bad text raises
    ``ValueError`` naming it.
    """
    if isinstance(text, (int,)) and not isinstance(text, bool):
        return int(text)
    words = str(text).strip().upper().split()
    simple = {"DRAW_STOCK": S.DRAW_STOCK, "PASS": S.PASS, "MELD": S.MELD_ACTION}
    if len(words) == 1 and words[0] in simple:
        return simple[words[0]]
    offsets = {"TAKE": S.TAKE0, "PICK": S.PICK0, "LAY_OFF": S.LAYOFF0, "DISCARD": S.DISCARD0}
    if len(words) == 2 and words[0] in offsets:
        return offsets[words[0]] + parse_card(words[1])
    if len(words) == 2 and words[0] == "TARGET" and words[1].isdigit() and int(words[1]) < 18:
        return S.TARGET0 + int(words[1])
    raise ValueError(f"unknown action {text!r}: expected DRAW_STOCK, TAKE c, PASS, PICK c, "
                     "MELD, LAY_OFF c, TARGET m or DISCARD c")
