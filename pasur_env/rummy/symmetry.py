"""Card relabellings that leave Persian Rummy unchanged: symmetries a learner may use.

The rules (``docs/persian_rummy.md``) read a card's *rank* (sets, values, the order of
a run) and whether two cards share a suit (runs), never *which* suit it is; the four
jokers are alike in every rule. So exchanging the suits (one permutation of the four,
applied to every rank) and the jokers among themselves maps every position to an
equivalent one: the same legal plays (relabelled), the same points, the same value
for every seat. There are ``4! * 4! = 576`` of them.

One thing is not relabelled: the single PICK actions. The cards of a meld are picked in
ascending card id, so which card may be picked first or next reads the ids; the meld
built is relabelled (its picks re-sorted), every other action is relabelled as it is
(tested: ``tests/test_rummy_symmetry.py``).

The move network reads cards as one-hot planes; fitting it on randomly relabelled
copies of each decision (:mod:`train.move_net.fit`, ``augment``) teaches it that "7♥"
and "7♠" play alike instead of learning each card apart, at no labelling cost.

* :func:`random_card_permutations` draws relabellings (``perm[c]`` = new id of card c);
* :func:`permute_states` relabels engine rows (hands, the cards taken, the deal order,
  the discard pile, the melds and their credit, the picked cards, target and pending);
* :func:`observation_permutation` gives the column index that relabels an observation:
  ``observe(permute_states(s, p)) == observe(s)[:, observation_permutation(p)]``.
"""

from __future__ import annotations

import numpy as np

from pasur_env.core.symmetry import plane_permutation, relabel_states
from pasur_env.rummy.cards import NUM_CARDS
from pasur_env.rummy.kernels import state as S
from pasur_env.rummy.observation import O_PHASE, OBS_SIZE

__all__ = ["random_card_permutations", "permute_states", "observation_permutation",
           "check_permutation"]

_IDS = np.arange(NUM_CARDS, dtype=np.int64)
_MASK_COLS = np.r_[S.HAND:S.HAND + 4, S.TAKEN:S.TAKEN + 4, S.MELD:S.MELD + S.MAX_MELDS,
                   S.CREDIT:S.CREDIT + 2, S.PICKED]
_ID_COLS = np.r_[S.DECK:S.DECK + NUM_CARDS, S.PILE:S.PILE + NUM_CARDS, S.TARGET, S.PENDING]
#: the observation is 56-card planes up to the phase block, scalars after it
_PLANES = list(range(0, O_PHASE, NUM_CARDS))


def random_card_permutations(rng: np.random.Generator, n: int) -> np.ndarray:
    """``n`` random symmetries as int64 ``(n, 56)``: row ``k`` maps card ``c`` to
    ``perm[k, c]`` (one suit permutation for every rank, the jokers among themselves)."""
    suits = np.argsort(rng.random((n, 4)), axis=1)
    jokers = np.argsort(rng.random((n, 4)), axis=1)
    ordinary = 4 * (_IDS[None, :52] // 4) + suits[:, _IDS[:52] % 4]
    return np.concatenate([ordinary, 52 + jokers], axis=1).astype(np.int64)


def check_permutation(perm: np.ndarray) -> np.ndarray:
    """``perm`` as int64 if it is a symmetry of the rules, else a ``ValueError``."""
    perm = np.asarray(perm)
    if perm.shape != (NUM_CARDS,) or not np.array_equal(np.sort(perm), _IDS):
        raise ValueError(f"perm must be a permutation of the 56 card ids, got shape "
                         f"{perm.shape}")
    perm = perm.astype(np.int64)
    suit_map = perm[:52] % 4
    if (not np.array_equal(perm[:52] // 4, _IDS[:52] // 4) or perm[52:].min() < 52
            or not (suit_map.reshape(13, 4) == suit_map[:4]).all()):
        raise ValueError("perm is not a symmetry of the rules: it must keep every card's "
                         "rank, move all ranks' suits alike and the jokers among themselves")
    return perm


def permute_states(states: np.ndarray, perm: np.ndarray) -> np.ndarray:
    """A copy of engine rows ``states`` (n, NCOL) with every card relabelled by ``perm``."""
    return relabel_states(states, check_permutation(perm), _MASK_COLS, _ID_COLS)


def observation_permutation(perm: np.ndarray) -> np.ndarray:
    """Column index that relabels an observation by card permutation ``perm`` (see the
    module docstring)."""
    return plane_permutation(OBS_SIZE, _PLANES, check_permutation(perm))
