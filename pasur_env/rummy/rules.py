"""The rule flags of Persian Rummy (``docs/persian_rummy.md`` §6-§7 and "Flags").

Where the source text is silent or ambiguous the default is the reading the docs
argue for; the other reading is a flag, so both games can be played and compared.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from pasur_env.core.args import FlagTypeError, check_bool, check_instance, check_int, did_you_mean
from pasur_env.rummy.kernels import state as S

__all__ = ["RummyRules", "make_rummy_rules"]


@dataclass(frozen=True)
class RummyRules:
    """Rule flags.

    Attributes:
        deals: deals in a game (the source plays two; default 2).
        four_set_double: a set of four laid down at once counts double (default True).
        last_discard_goes_out: emptying the hand by the discard also goes out, with
            the 25-point bonus (default False: the player plays on with no cards).
    """

    deals: int = 2
    four_set_double: bool = True
    last_discard_goes_out: bool = False

    def __post_init__(self) -> None:
        check_int(self.deals, "deals", 1, type_error=FlagTypeError)
        for name in ("four_set_double", "last_discard_goes_out"):
            check_bool(getattr(self, name), name, type_error=FlagTypeError)

    @property
    def num_players(self) -> int:
        """Seats at the table (always four: two teams of partners)."""
        return 4

    @property
    def num_sides(self) -> int:
        """Teams scoring (seats 0 and 2 against 1 and 3)."""
        return 2

    def as_params(self, episode_round: bool = False) -> np.ndarray:
        """The kernels' ``params`` vector (indices ``P_*`` of the state module)."""
        p = np.zeros(S.NPARAMS, dtype=np.int64)
        p[S.P_DEALS] = self.deals
        p[S.P_FOUR_DOUBLE] = int(self.four_set_double)
        p[S.P_DISCARD_OUT] = int(self.last_discard_goes_out)
        p[S.P_EPISODE_ROUND] = int(episode_round)
        return p

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def make_rummy_rules(rules: RummyRules | None = None, **flags: Any) -> RummyRules:
    """``rules`` with ``flags`` overriding it; an unknown flag raises ``TypeError``."""
    known = set(RummyRules.__dataclass_fields__)
    unknown = sorted(set(flags) - known)
    if unknown:
        raise TypeError(f"unknown Persian Rummy rule flag(s) {unknown}"
                        f"{did_you_mean(unknown, known)}; known: {sorted(known)}")
    base = asdict(rules) if check_instance(rules, RummyRules, "rules") is not None else {}
    base.update(flags)
    return RummyRules(**base)
