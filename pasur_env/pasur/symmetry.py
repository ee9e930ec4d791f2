"""Card relabellings that leave the game unchanged: symmetries a learner may use.

Pasur's rules read a card's *rank* (captures: numerals summing to 11, jacks, kings,
queens; points: aces, jacks) and its *suit* only for clubs (the clubs award, 2♣) and
for 10♦. No rule flag reads more. So a relabelling that, rank by rank, permutes the
diamonds, hearts and spades among themselves, keeping 10♦ where it is, maps every
position to an equivalent one: the same legal moves (relabelled), the same points,
the same value for every seat. There are ``6**12 * 2`` (about 4.4e9) of them. A small
variant (``Rules.cards``) also reads which cards are in play: its symmetries exchange
cards in play only among themselves (pass ``rules``).

A network that reads cards as one-hot planes does not know this: it has to learn
"7♥ on the table" and "7♠ on the table" separately. Training on randomly relabelled
copies of each position (:mod:`train.move_net.fit`) teaches it the symmetry and multiplies
the data by a large factor at no labelling cost; on the project's 2-player data it
took the network from +0.85 to +1.01 points/round against the heuristic with the same
labels and fit, +1.19 with more epochs and a cross-entropy term (README, *Training*).

* :func:`random_card_permutations` draws relabellings (``perm[c]`` = new id of card c);
* :func:`permute_states` relabels engine rows (hands, table, piles, deal orders, the
  deck, the pending card, the selection);
* :func:`observation_permutation` gives the column index that relabels an encoded
  observation: ``encode(permute_states(s, p)) == encode(s)[:, observation_permutation(
  rules, p)]`` (tested).
"""

from __future__ import annotations

import numpy as np

from pasur_env.core.symmetry import plane_permutation, relabel_states
from pasur_env.pasur import kernels as K
from pasur_env.pasur.cards import NUM_CARDS, RANK_OF, SUIT_OF, SUITS, TEN_DIAMONDS
from pasur_env.pasur.observation import observation_layout, observation_size
from pasur_env.pasur.rules import Rules

__all__ = [
    "random_card_permutations",
    "permute_states",
    "observation_permutation",
    "plane_permutation",
    "CARD_PLANE_FIELDS",
]

#: the observation fields made of 52-card planes (every other field is a scalar)
CARD_PLANE_FIELDS = ("hand", "table", "pile", "unseen", "pending", "selection", "faceup",
                     "moves")

_IDS = np.arange(NUM_CARDS, dtype=np.int64)
_CLUB = SUIT_OF == SUITS.index("C")
#: per rank, the card ids that may be exchanged: the non-club suits, 10♦ excepted
_GROUPS = [_IDS[(RANK_OF == r) & ~_CLUB & (_IDS != TEN_DIAMONDS)] for r in range(13)]
_MASK_COLS = [K.HAND + p for p in range(4)] + [K.TABLE, K.SELECTION] + [
    K.PILE + s for s in range(3)
] + [K.PLAYED + p for p in range(4)]
_ID_COLS = np.r_[K.ORDER:K.ORDER + 16, K.DECK:K.DECK + 52, K.PENDING]


def _groups(rules: Rules | None) -> list[np.ndarray]:
    """The exchangeable groups of ``rules``: a variant splits each into the cards in play
    and the others."""
    if rules is None or rules.cards is None:
        return _GROUPS
    deck = np.isin(_IDS, rules.deck_cards)
    return [g[deck[g] == k] for g in _GROUPS for k in (True, False)]


def random_card_permutations(rng: np.random.Generator, n: int,
                             rules: Rules | None = None) -> np.ndarray:
    """``n`` random symmetries of the rules as int64 ``(n, 52)``: row ``k`` maps card
    ``c`` to ``perm[k, c]`` (same rank; clubs and 10♦ fixed; with a small variant's
    ``rules``, the cards in play among themselves)."""
    perms = np.tile(_IDS, (n, 1))
    for ids in _groups(rules):
        order = np.argsort(rng.random((n, ids.size)), axis=1)
        perms[:, ids] = ids[order]
    return perms


def _check_perm(perm: np.ndarray, rules: Rules | None = None) -> np.ndarray:
    perm = np.asarray(perm)
    if perm.shape != (NUM_CARDS,) or not np.array_equal(np.sort(perm), _IDS):
        raise ValueError(f"perm must be a permutation of the 52 card ids, got shape "
                         f"{perm.shape}")
    if not np.array_equal(RANK_OF[perm], RANK_OF) or not np.array_equal(_CLUB[perm], _CLUB) \
            or perm[TEN_DIAMONDS] != TEN_DIAMONDS:
        raise ValueError("perm is not a symmetry of the rules: it must keep every card's "
                         "rank, the clubs and 10♦")
    if rules is not None and rules.cards is not None \
            and sorted(perm[list(rules.cards)].tolist()) != list(rules.cards):
        raise ValueError("perm is not a symmetry of the variant: it must map the cards in "
                         "play (Rules.cards) among themselves")
    return perm.astype(np.int64)


def permute_states(states: np.ndarray, perm: np.ndarray) -> np.ndarray:
    """A copy of engine rows ``states`` (n, NCOL) with every card relabelled by ``perm``."""
    return relabel_states(states, _check_perm(perm), _MASK_COLS, _ID_COLS)


def observation_permutation(rules: Rules, perm: np.ndarray) -> np.ndarray:
    """Column index that relabels an observation of ``rules`` by card permutation
    ``perm`` (see the module docstring)."""
    perm = _check_perm(perm, rules)
    layout = observation_layout(rules)
    offsets = [o + 52 * k for name in CARD_PLANE_FIELDS
               for o, size in [layout[name]] for k in range(size // 52)]
    return plane_permutation(observation_size(rules), offsets, perm)
