"""The Persian Rummy engine's fast structures equal their plain definitions.

The engine answers its meld and legality questions bit-parallel (the place layout of
runs, a table meld's extension mask, every first pick or discard-pile draw at once,
the k-th legal action without a mask row). Each is checked here against the slow,
obvious form: a loop over ranks, the list of every meld, one card at a time.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from pasur_env.core.bits import nth_lowest
from pasur_env.rummy import RummyEngine
from pasur_env.rummy import kernels as K
from pasur_env.rummy.cards import RUN_POS
from pasur_env.rummy.kernels.legal import (
    first_picks,
    layoff_cards,
    layoff_count,
    legal_sets,
    nth_legal,
    pick_cards,
    pick_ok,
    take_cards,
    take_ok,
)
from pasur_env.rummy.kernels.melds import (
    can_complete,
    card_at,
    extends,
    from_places,
    is_meld,
    meld_ext,
    meld_partners,
    run_places,
    to_places,
)
from pasur_env.rummy.kernels.playout import pick_legal


def _card(suit: int, place: int) -> int:
    """The card of ``suit`` at run ``place``, read off RUN_POS."""
    return next(c for c in range(52) if c % 4 == suit and RUN_POS[c] == place)


def _all_melds() -> list[int]:
    """Every meld by the rules' words: 3-4 of a rank, 3-4 jokers, 3+ places of a suit."""
    out = []
    for cards in [list(range(4 * r, 4 * r + 4)) for r in range(13)] + [[52, 53, 54, 55]]:
        for k in (3, 4):
            out += [sum(1 << c for c in combo) for combo in itertools.combinations(cards, k)]
    for s in range(4):
        for lo in range(13):
            for hi in range(lo + 2, 13):
                out.append(sum(1 << _card(s, p) for p in range(lo, hi + 1)))
    return out


MELDS = _all_melds()
MELD_ARRAY = np.array(MELDS, dtype=np.int64)


def _random_masks(rng: np.random.Generator, n: int) -> list[int]:
    """Card sets of mixed density, half of them crowded into one suit's run places."""
    out = []
    for _ in range(n):
        dens = int(rng.integers(1, 4))
        m = int(np.bitwise_and.reduce(rng.integers(0, 1 << 56, dens, dtype=np.int64)))
        if rng.random() < 0.5:
            s, lo = int(rng.integers(4)), int(rng.integers(13))
            m |= sum(1 << _card(s, p) for p in range(lo, min(13, lo + 5)) if rng.random() < 0.8)
        out.append(m)
    return out


def test_run_places_and_card_at_agree_with_run_pos():
    rng = np.random.default_rng(0)
    for m in _random_masks(rng, 2000):
        for s in range(4):
            slow = sum(1 << int(RUN_POS[c]) for c in range(52) if c % 4 == s and (m >> c) & 1)
            assert run_places(m, s) == slow
        ordinary = m & ((1 << 52) - 1)
        assert from_places(to_places(m)) == ordinary
        assert to_places(m) == sum(1 << (4 * int(RUN_POS[c]) + c % 4)
                                   for c in range(52) if (m >> c) & 1)
    for s in range(4):
        for p in range(13):
            assert card_at(s, p) == _card(s, p)


def test_is_meld_is_membership_in_the_list_of_melds():
    members = set(MELDS)
    for m in MELDS:
        assert is_meld(m)
    rng = np.random.default_rng(1)
    for m in _random_masks(rng, 5000):
        assert is_meld(m) == (m in members)


def test_meld_extension_mask_is_every_card_that_extends():
    for m in MELDS:
        assert meld_ext(m) == sum(1 << c for c in range(56) if not (m >> c) & 1 and extends(m, c))


def test_can_complete_and_meld_partners_against_the_list_of_melds():
    rng = np.random.default_rng(2)
    for avail in _random_masks(rng, 1500):
        q = 0
        for c in rng.integers(0, 56, int(rng.integers(1, 4))):
            q |= 1 << int(c)
        a = q | avail
        expect = bool((((MELD_ARRAY & q) == q) & ((MELD_ARRAY & ~a) == 0)).any())
        assert can_complete(q, avail) == expect
        partners = meld_partners(avail)
        for c in range(56):
            inside = (avail >> c) & 1
            assert (partners >> c) & 1 == (0 if inside else can_complete(1 << c, avail))


def test_first_picks_is_pick_ok_card_by_card():
    rng = np.random.default_rng(3)
    st = np.zeros((1, K.NCOL), dtype=np.int64)
    st[0, K.PHASE], st[0, K.TARGET], st[0, K.PENDING] = K.MELDING, -1, -1
    for hand in _random_masks(rng, 3000):
        st[0, K.HAND] = hand
        assert first_picks(hand) == sum(1 << c for c in range(56) if pick_ok(st, 0, c))


def _random_states(n_steps: int = 150, batch: int = 64) -> list[np.ndarray]:
    """States met in random play (every phase, picks under way, targets, full piles)."""
    eng = RummyEngine(batch, seed=5, episode="round")
    rng = np.random.default_rng(6)
    out = []
    for _ in range(n_steps):
        out.append(eng.state.copy())
        eng.step(eng.random_actions(rng))
    return out


@pytest.fixture(scope="module")
def states() -> list[np.ndarray]:
    return _random_states()


def test_legal_sets_are_the_predicates_card_by_card(states):
    for st in states[::3]:
        for b in range(st.shape[0]):
            sp, takes, picks, layoffs, targets, discards = legal_sets(st, b)
            ph = st[b, K.PHASE]
            if ph == K.DRAW:
                assert takes == take_cards(st, b)
                assert takes == sum(1 << c for c in range(56) if take_ok(st, b, c))
            if ph == K.MELDING:
                assert picks == pick_cards(st, b)
                assert picks == sum(1 << c for c in range(56) if pick_ok(st, b, c))
                hand, t = int(st[b, K.HAND + st[b, K.MOVER]]), int(st[b, K.TARGET])
                allowed = 0 if st[b, K.PICKED] else (hand if t < 0 else hand & (1 << t))
                expect = sum(1 << c for c in range(56)
                             if (allowed >> c) & 1 and layoff_count(st, b, c) > 0)
                assert layoffs == layoff_cards(st, b) == expect


def test_mask_is_legal_and_nth_legal_agree(states):
    """The mask row, the one-action check of the step and the k-th action draw are the
    same legal set (and the draw is the mask-row pick at every quantile)."""
    row = np.zeros(K.NUM_ACTIONS, dtype=np.bool_)
    for st in states[::5]:
        for b in range(0, st.shape[0], 2):
            K.fill_mask(st, b, row)
            for a in range(K.NUM_ACTIONS):
                assert K.is_legal(st, b, a) == row[a]
            for u in (0.0, 0.13, 0.5, 0.77, 0.999999):
                assert nth_legal(st, b, u) == pick_legal(row, u)


def test_nth_lowest():
    m = 0b1011_0100
    assert [nth_lowest(m, k) for k in range(4)] == [2, 4, 5, 7]
    assert nth_lowest(1 << 55, 0) == 55
