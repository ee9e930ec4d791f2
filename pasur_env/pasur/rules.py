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

from pasur_env.core.args import (
    FlagTypeError,
    check_bool,
    check_deck_sequence,
    check_instance,
    check_int,
    did_you_mean,
)
from pasur_env.pasur.cards import (
    JACK_BITS,
    KING_BITS,
    NUM_CARDS,
    QUEEN_BITS,
    card_code,
    parse_card,
)

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
        cards: the deck of a small variant: card ids or codes (kept as a sorted tuple of
            ids); ``None`` (or all 52) is the full deck. Action ids and observations stay
            the full game's, so agents play a variant unchanged.
        hand_size: cards dealt to each seat per deal (1..4).
        table_size: cards dealt face up on the first table (0..4).
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
    cards: tuple[int, ...] | None = None
    hand_size: int = 4
    table_size: int = 4
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
        # a frozen dataclass: the normal form of the deck is stored through object
        object.__setattr__(self, "cards", _deck_cards(self.cards))
        check_int(self.hand_size, "hand_size", 1, 4, type_error=FlagTypeError)
        check_int(self.table_size, "table_size", 0, 4, type_error=FlagTypeError)
        _check_deal_sizes(self)

    @property
    def num_sides(self) -> int:
        """Number of scoring sides: 2 teams for 4 players, otherwise one per seat."""
        return 2 if self.num_players == 4 else self.num_players

    def side_of(self, seat: int) -> int:
        """Side (team or single seat) that owns ``seat``'s captures."""
        return seat % 2 if self.num_players == 4 else seat

    @property
    def deck_cards(self) -> tuple[int, ...]:
        """The ids of the cards in play, ascending (all 52 for the full game)."""
        return tuple(range(NUM_CARDS)) if self.cards is None else self.cards

    @property
    def deck_size(self) -> int:
        """Number of cards in play."""
        return len(self.deck_cards)

    @property
    def deck_mask(self) -> int:
        """The cards in play as a 52-bit set."""
        return sum(1 << c for c in self.deck_cards)

    @property
    def deals_per_round(self) -> int:
        """Deals of hands in one round (6 for the full game with 2 players)."""
        return (self.deck_size - self.table_size) // (self.num_players * self.hand_size)

    @property
    def turns_per_round(self) -> int:
        """Turns (cards played) in one round: every card dealt to a hand (48 in full)."""
        return self.deck_size - self.table_size

    def flags(self) -> dict[str, Any]:
        """The rule flags as plain JSON values (records, reports): the deck as codes; the
        variant flags only when set, so the full game's records read as they always did."""
        out = {name: getattr(self, name) for name in RULE_FLAGS}
        for name in _VARIANT_FLAGS:
            if out[name] == _VARIANT_DEFAULTS[name]:
                del out[name]
        if self.cards is not None:
            out["cards"] = [card_code(c) for c in self.cards]
        return out

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
                self.hand_size,
                self.table_size,
                self.deck_mask,
            ],
            dtype=np.int64,
        )


def _deck_cards(cards: Any) -> tuple[int, ...] | None:
    """The ``cards`` flag in normal form: a sorted tuple of distinct ids, ``None`` for
    the full deck (so a variant listing all 52 cards is the full game)."""
    if cards is None:
        return None
    try:
        seq = check_deck_sequence(cards)
    except TypeError:
        if not isinstance(cards, (set, frozenset)):  # a set of cards is fine: order is ours
            raise FlagTypeError(f"cards must be a sequence of card ids or codes, "
                                f"got {type(cards).__name__}") from None
        seq = list(cards)
    ids = [parse_card(c) for c in seq]
    dupes = sorted({card_code(c) for c in ids if ids.count(c) > 1})
    if dupes:
        raise ValueError(f"cards lists duplicate cards {dupes}")
    return None if len(ids) == NUM_CARDS else tuple(sorted(ids))


def _first_table_possible(r: Rules) -> bool:
    """Whether some first table passes the initial-table check (§3) with ``r``'s deck:
    else dealing would redeal for ever."""
    mask = r.deck_mask
    jacks = bin(mask & JACK_BITS).count("1")
    others = r.deck_size - jacks
    if r.initial_jacks == "redeal":
        return others >= r.table_size
    queens, kings = bin(mask & QUEEN_BITS).count("1"), bin(mask & KING_BITS).count("1")
    return others - max(0, queens - 2) - max(0, kings - 2) >= r.table_size


def _check_deal_sizes(r: Rules) -> None:
    """The deck must split into the first table and whole deals of hands (§3)."""
    per_deal = r.num_players * r.hand_size
    dealt = r.deck_size - r.table_size
    if dealt < per_deal or dealt % per_deal:
        raise ValueError(
            f"a deck of {r.deck_size} cards with a first table of {r.table_size} does not "
            f"split into whole deals of {r.hand_size} cards to each of {r.num_players} seats "
            f"(deck size - table_size must be a positive multiple of {per_deal})"
        )
    if dealt // per_deal > MAX_DEALS:
        raise ValueError(f"a round of {dealt // per_deal} deals is too long: at most "
                         f"{MAX_DEALS} (the full game's, the size of the observed deal index)")
    if not _first_table_possible(r):
        raise ValueError(f"no first table of {r.table_size} cards from this deck passes the "
                         f"initial-table check (initial_jacks={r.initial_jacks!r})")
    jacks = bin(r.deck_mask & JACK_BITS).count("1")
    stock = dealt - per_deal
    if r.initial_jacks == "bury" and r.table_size and jacks and stock < jacks:
        raise ValueError(
            f"initial_jacks='bury' puts a jack of the first table back in the stock, which "
            f"needs a stock of at least {jacks} cards (the deck's jacks) after the first "
            f"deal, got {stock}; use initial_jacks='redeal'"
        )


#: deals in a round at most: the full game's 6 (the observation's one-hot deal index)
MAX_DEALS = 6

RULE_FLAGS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(Rules) if f.name != "preset")
#: the flags of the small variants and their full-game values
_VARIANT_DEFAULTS: dict[str, Any] = {"cards": None, "hand_size": 4, "table_size": 4}
_VARIANT_FLAGS = tuple(_VARIANT_DEFAULTS)

#: presets: rule flags, and the environment defaults that go with them
PRESETS: dict[str, dict[str, Any]] = {
    "classic": {},
    "cfr_paper": {"initial_jacks": "redeal", "sur_cancel": False},
    # small variants keeping Pasur's mechanics (docs/rules.md, "Small variants"): two
    # deals, so a sur can happen in the first; one jack, a queen pair, numeral pairs
    # summing to 11, 10D and 2C, an odd number of clubs (no tie for the majority)
    "mini": {"cards": ("AC", "2C", "5C", "6H", "9D", "10D", "JS", "QH", "QS"),
             "hand_size": 2, "table_size": 1, "initial_jacks": "redeal"},
    # small: sized for an exact solve in minutes on 2 cores (6.0M histories; 11 cards
    # with a table of 3 made 20.8M, 6 GB to enumerate)
    "small": {"cards": ("AC", "2C", "3C", "5C", "8C", "9D", "10D", "JS", "QH", "QS"),
              "hand_size": 2, "table_size": 2, "initial_jacks": "redeal"},
}
#: environment options implied by a preset (episode length and payoff)
PRESET_ENV_DEFAULTS: dict[str, dict[str, str]] = {
    "classic": {},
    "cfr_paper": {"episode": "round", "reward": "diff"},
    "mini": {"episode": "round", "reward": "diff"},
    "small": {"episode": "round", "reward": "diff"},
}


def check_flags(flags: dict[str, Any]) -> None:
    """Raise ``TypeError`` for any keyword that is not a rule flag."""
    unknown = sorted(set(flags) - set(RULE_FLAGS))
    if unknown:
        raise TypeError(f"unknown rule flag(s) {unknown}{did_you_mean(unknown, RULE_FLAGS)}; "
                        f"known flags: {list(RULE_FLAGS)}")


def make_rules(preset: str | None = None, rules: Rules | None = None, **flags: Any) -> Rules:
    """Build :class:`Rules` from a preset name and/or a ``Rules`` object plus flag overrides.

    ``make_rules("cfr_paper", num_players=3)`` starts from the preset and overrides.
    Unknown presets raise ``ValueError``; unknown flags raise ``TypeError``.
    """
    check_flags(flags)
    check_instance(rules, Rules, "rules")
    if preset is not None:
        if preset not in PRESETS:
            raise ValueError(f"unknown preset {preset!r}{did_you_mean(preset, PRESETS)}; "
                             f"known presets: {sorted(PRESETS)}")
        if rules is not None:
            raise TypeError("pass either preset= or rules=, not both")
        base = Rules(**PRESETS[preset], preset=preset)
        return dataclasses.replace(base, **flags) if flags else base
    if rules is None:
        return Rules(**flags, preset="classic" if not flags else "custom")
    return rules.replace(**flags) if flags else rules
