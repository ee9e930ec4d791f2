"""Rule configuration: one frozen :class:`Rules` dataclass and named presets.

Every flag of ``docs/rules.md`` (§11) is a field here with the reference default, so a
``Rules()`` is the ``classic`` game. Values are checked when the object is made:
a wrong flag never reaches the engine, where it would silently change the game.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pasur_env.core.args import FlagTypeError, check_bool, check_instance, check_int

_CHOICES: dict[str, tuple[Any, ...]] = {
    "num_players": (2, 3, 4),
    "jack_sur": ("never", "lone_jack"),
    "initial_jacks": ("bury", "redeal"),
    "clubs_rule": ("most", "per_club"),
    "club_tie": ("nobody", "third"),
}
_BOOLS = ("sur_cancel", "sur_cutoff", "open_hand")
_NON_NEGATIVE_INTS = ("sur_points", "clubs_points")


@dataclass(frozen=True)
class Rules:
    """The rule flags of one Pasur game (defaults = the ``classic`` preset).

    Attributes:
        num_players: 2, 3 or 4 seats; 4 plays as two teams of partners (seats 0+2, 1+3).
        target_score: game ends after a round in which a side reaches it with strictly
            more than every other side.
        sur_points: points per sur.
        sur_cancel: between two sides only the difference of surs counts.
        sur_cutoff: a side at >= 80% of the target at the start of a round scores no
            sur points that round (its surs still cancel the other side's).
        jack_sur: ``"never"`` (a jack never makes a sur) or ``"lone_jack"`` (a jack
            taking a table that holds only one jack is a sur).
        initial_jacks: ``"bury"`` (pagat: one jack on the first table is replaced and
            put back in the stock; two jacks, three queens or three kings redeal) or
            ``"redeal"`` (any jack on the first table redeals).
        clubs_points: points for strictly most clubs.
        clubs_rule: ``"most"`` or ``"per_club"`` (1 point per club of the side with
            most clubs, at most 7).
        club_tie: ``"nobody"`` or ``"third"`` (3 players: when two tie for most clubs,
            the third scores the club points).
        open_hand: Pasur Ru Baaz (2 players): each player's earliest-dealt card still
            in hand is face up.
    """

    num_players: int = 2
    target_score: int = 62
    sur_points: int = 5
    sur_cancel: bool = True
    sur_cutoff: bool = False
    jack_sur: str = "never"
    initial_jacks: str = "bury"
    clubs_points: int = 7
    clubs_rule: str = "most"
    club_tie: str = "nobody"
    open_hand: bool = False
    preset: str = field(default="custom", compare=False)

    def __post_init__(self) -> None:
        for name, allowed in _CHOICES.items():
            value = getattr(self, name)
            if name == "num_players":
                check_int(value, name, type_error=FlagTypeError)
            if isinstance(value, (bool, np.bool_)) or value not in allowed:
                raise ValueError(f"{name} must be one of {allowed}, got {value!r}")
        for name in _BOOLS:
            check_bool(getattr(self, name), name, type_error=FlagTypeError)
        for name in _NON_NEGATIVE_INTS:
            check_int(getattr(self, name), name, 0, type_error=FlagTypeError)
        check_int(self.target_score, "target_score", 1, type_error=FlagTypeError)
        if self.club_tie == "third" and self.num_players != 3:
            raise ValueError(
                f"club_tie='third' needs num_players=3, got num_players={self.num_players}"
            )
        if self.open_hand and self.num_players != 2:
            raise ValueError(
                f"open_hand=True (Ru Baaz) needs num_players=2, got num_players={self.num_players}"
            )

    @property
    def num_sides(self) -> int:
        """Number of scoring sides: 2 teams for 4 players, otherwise one per seat."""
        return 2 if self.num_players == 4 else self.num_players

    def side_of(self, seat: int) -> int:
        """Side (team or single seat) that owns ``seat``'s captures."""
        return seat % 2 if self.num_players == 4 else seat

    def replace(self, **flags: Any) -> Rules:
        """A copy with some flags changed (validated like the constructor)."""
        check_flags(flags)
        return dataclasses.replace(self, preset="custom", **flags)

    def as_params(self, episode_round: bool = False) -> np.ndarray:
        """The flags as the int64 vector read by the compiled kernels (indices ``P_*`` of
        :mod:`pasur_env.pasur.kernels.state`)."""
        return np.array(
            [
                self.num_players,
                self.num_sides,
                self.target_score,
                self.sur_points,
                int(self.sur_cancel),
                int(self.sur_cutoff),
                _CHOICES["jack_sur"].index(self.jack_sur),
                _CHOICES["initial_jacks"].index(self.initial_jacks),
                self.clubs_points,
                _CHOICES["clubs_rule"].index(self.clubs_rule),
                _CHOICES["club_tie"].index(self.club_tie),
                int(episode_round),
            ],
            dtype=np.int64,
        )


RULE_FLAGS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(Rules) if f.name != "preset")

#: presets: rule flags, and the environment defaults that go with them
PRESETS: dict[str, dict[str, Any]] = {
    "classic": {},
    "cfr_paper": {"initial_jacks": "redeal", "sur_cancel": False},
}
#: environment options implied by a preset (episode length and payoff)
PRESET_ENV_DEFAULTS: dict[str, dict[str, str]] = {
    "classic": {},
    "cfr_paper": {"episode": "round", "reward": "diff"},
}


def check_flags(flags: dict[str, Any]) -> None:
    """Raise ``TypeError`` for any keyword that is not a rule flag."""
    unknown = sorted(set(flags) - set(RULE_FLAGS))
    if unknown:
        raise TypeError(f"unknown rule flag(s) {unknown}; known flags: {list(RULE_FLAGS)}")


def make_rules(preset: str | None = None, rules: Rules | None = None, **flags: Any) -> Rules:
    """Build :class:`Rules` from a preset name and/or a ``Rules`` object plus flag overrides.

    ``make_rules("cfr_paper", num_players=3)`` starts from the preset and overrides.
    Unknown presets raise ``ValueError``; unknown flags raise ``TypeError``.
    """
    check_flags(flags)
    check_instance(rules, Rules, "rules")
    if preset is not None:
        if preset not in PRESETS:
            raise ValueError(f"unknown preset {preset!r}; known presets: {sorted(PRESETS)}")
        if rules is not None:
            raise TypeError("pass either preset= or rules=, not both")
        base = Rules(**PRESETS[preset], preset=preset)
        return dataclasses.replace(base, **flags) if flags else base
    if rules is None:
        return Rules(**flags, preset="classic" if not flags else "custom")
    return rules.replace(**flags) if flags else rules
