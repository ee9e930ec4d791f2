"""The exact last deal (agents/pasur/endgame.py): its values equal a plain minimax written here
over the engine's public API (single actions, no pruning, no move ordering), under
variant rules too; it acts only where every card is known; net-ismcts plays its move."""

from __future__ import annotations

import numpy as np
import pytest

from agents.pasur.endgame import endgame_values
from agents.pasur.move_net import MoveNet
from agents.pasur.move_net.features import candidate_moves
from agents.pasur.move_net.search import NetSearchAgent
from pasur_env import Engine
from pasur_env.core.policy import GameView
from pasur_env.pasur import kernels as K
from pasur_env.pasur.observation import encode, observation_size
from pasur_env.pasur.rules import make_rules


def _last_deal_position(seed: int, turns_left: int, **rules: object) -> Engine:
    """A 2-player round played at random into its last deal, ``turns_left`` moves (or
    fewer: a capture may be pending) before its end; a one-game engine."""
    rng = np.random.default_rng(seed)
    eng = Engine(1, seed=seed, episode="round", auto_reset=False, **rules)
    while not (eng.state[0, K.STOCK_POS] >= 52
               and eng.state[0, K.TURN] >= K.TURNS_PER_ROUND - turns_left):
        eng.step(eng.random_actions(rng))
    return eng


def _minimax(eng: Engine, root: int) -> float:
    """Round points of ``root`` minus the other seat's, both playing their best: every
    legal action tried, each on a copy of the engine."""
    vals = []
    for a in eng.legal_actions(0):
        child = eng.copy()
        info = child.step(np.array([a]))
        if info.round_end[0]:
            pts = info.round_points[0]
            vals.append(float(pts[root] - pts[1 - root]))
        else:
            vals.append(_minimax(child, root))
    return max(vals) if eng.state[0, K.MOVER] == root else min(vals)


def _move_value(eng: Engine, card: int, capt: int, root: int) -> float:
    """The plain minimax value of full move ``(card, capt)`` (its actions, then minimax)."""
    child = eng.copy()
    acts = [card] if child.state[0, K.PHASE] == K.PLAY else []
    acts += [K.TAKE_OFFSET + t for t in range(52) if (capt >> t) & 1]
    for a in acts:
        if child.state[0, K.PHASE] == K.DONE or child.state[0, K.MOVER] != root:
            break
        if a >= K.TAKE_OFFSET and (child.state[0, K.SELECTION] >> (a - K.TAKE_OFFSET)) & 1:
            continue  # already taken (a CAPTURE decision's earlier steps)
        if a not in child.legal_actions(0):
            break  # a one-step capture took the whole set at once
        info = child.step(np.array([a]))
        if info.round_end[0]:
            pts = info.round_points[0]
            return float(pts[root] - pts[1 - root])
    return _minimax(child, root)


@pytest.mark.parametrize(
    "rules",
    [
        {},
        {"sur_points": 10, "clubs_rule": "per_club"},
        {"jack_sur": "lone_jack", "sur_cancel": False},
        {"open_hand": True, "clubs_points": 3},
    ],
)
def test_exact_values_equal_a_plain_minimax(rules: dict) -> None:
    distinct = 0
    for seed in range(16):
        eng = _last_deal_position(seed, 3 + seed % 5, **rules)
        games = np.zeros(1, dtype=np.int64)
        offsets, cards, capts, _ = candidate_moves(eng, games)
        solved, values = endgame_values(eng, games, offsets)
        assert solved[0]
        root = int(eng.state[0, K.MOVER])
        want = [_move_value(eng, int(c), int(k), root) for c, k in zip(cards, capts, strict=True)]
        np.testing.assert_allclose(values, want, err_msg=f"seed {seed}")
        distinct += len(set(want)) > 1
    assert distinct >= 2  # positions where the choice matters were checked


def test_exact_values_read_nothing_hidden_and_leave_the_game_as_it_was() -> None:
    eng = _last_deal_position(7, 6)
    before = eng.state.copy()
    games = np.zeros(1, dtype=np.int64)
    offsets = candidate_moves(eng, games)[0]
    _, values = endgame_values(eng, games, offsets)
    assert (eng.state == before).all()
    # the opponent's dealing order (which its seat alone knows) does not matter
    opp = 1 - int(eng.state[0, K.MOVER])
    cols = K.ORDER + 4 * opp + np.arange(4)
    eng.state[0, cols] = eng.state[0, cols[::-1]]
    np.testing.assert_allclose(endgame_values(eng, games, offsets)[1], values)


def test_only_last_deals_of_two_players_are_solved() -> None:
    rng = np.random.default_rng(0)
    eng = Engine(1, seed=0, episode="round", auto_reset=False)
    for _ in range(10):
        eng.step(eng.random_actions(rng))
    games = np.zeros(1, dtype=np.int64)
    solved, values = endgame_values(eng, games, candidate_moves(eng, games)[0])
    assert not solved[0] and np.isnan(values).all()
    eng3 = Engine(1, seed=0, episode="round", auto_reset=False, num_players=3)
    while eng3.state[0, K.STOCK_POS] < 52:
        eng3.step(eng3.random_actions(rng))
    solved, _ = endgame_values(eng3, games, candidate_moves(eng3, games)[0])
    assert not solved[0]


def test_net_ismcts_plays_the_exact_move_in_the_last_deal() -> None:
    net = MoveNet.init(observation_size(make_rules()), 16, 8, seed=0, num_players=2)
    for seed in range(4):
        eng = _last_deal_position(10 + seed, 6)
        while eng.state[0, K.PHASE] != K.PLAY:
            eng.step(eng.random_actions(np.random.default_rng(seed)))
        games = np.zeros(1, dtype=np.int64)
        offsets, cards, capts, _ = candidate_moves(eng, games)
        _, values = endgame_values(eng, games, offsets)
        best = np.flatnonzero(values == values.max())
        obs = encode(eng, games, eng.state[games, K.MOVER])
        agent = NetSearchAgent(model=net, budget=8, seed=0)
        act = agent.act(obs, eng.legal_mask(games), GameView(eng, games))[0]
        assert act in {int(cards[b]) for b in best}
    with pytest.raises(ValueError, match="solve_last_deal"):
        NetSearchAgent(model=net, solve_last_deal="yes")


def _mixed_positions(n: int) -> Engine:
    """An engine of ``2n`` 2-player games at PLAY decisions with a choice: ``n`` in a
    round's last deal (the stock empty), ``n`` before it."""
    src = Engine(128, seed=3, episode="round", auto_reset=False)
    last: list[np.ndarray] = []
    early: list[np.ndarray] = []
    for step in range(300):
        st = src.state
        for b in range(st.shape[0]):
            if st[b, K.PHASE] == K.PLAY and len(src.legal_actions(b)) > 1:
                (last if st[b, K.STOCK_POS] >= 52 else early).append(st[b].copy())
        if min(len(last), len(early)) >= n:
            break
        src.playout(1, seed=step)
    eng = Engine(2 * n, seed=0, episode="round", auto_reset=False)
    eng.state[:] = np.array(last[:n] + early[:n])
    return eng


@pytest.mark.parametrize("endgame", [True, False])
def test_the_labeller_labels_the_last_deal_exactly_when_asked(endgame: bool) -> None:
    """With ``endgame`` the labels of a last deal's decisions are the exact minimax values
    and the others the search's as before; without it every label is the search's,
    which in a last deal differ from the exact ones (the heuristic's continuation)."""
    from agents.pasur.ismcts import WHOLE_ROLLOUT, search_values
    from train.move_net.data import SearchLabeler

    eng = _mixed_positions(8)
    games = np.arange(16)
    offsets = candidate_moves(eng, games)[0]
    solved, exact = endgame_values(eng, games, offsets)
    np.testing.assert_array_equal(solved, np.arange(16) < 8)
    seeds = np.random.default_rng(7).integers(0, 2**63 - 1, size=16, dtype=np.int64)
    searched = search_values(eng, games, offsets, seeds, budget=24, plies=WHOLE_ROLLOUT,
                             horizon=1)
    labeler = SearchLabeler(24, seed=7, plies=None, horizon=1, endgame=endgame)
    labeler.act(encode(eng), eng.legal_mask(), GameView.all(eng))
    data = labeler.take()
    assert len(data) == 16
    last = slice(0, int(offsets[8]))
    want = np.where(np.repeat(solved, np.diff(offsets)), exact, searched) if endgame else searched
    np.testing.assert_array_equal(data.values, want.astype(np.float32))
    assert not np.allclose(searched[last], exact[last])  # the search errs in a last deal


def test_net_solves_the_last_deal_when_asked() -> None:
    """``NetAgent(solve_last_deal=True)`` plays a minimax move of a last deal, and
    ``action_probs`` says so at any temperature; before the last deal it is the network."""
    from agents.pasur.move_net import NetAgent

    net = MoveNet.init(observation_size(make_rules()), 16, 8, seed=0, num_players=2)
    eng = _mixed_positions(6)
    games = np.arange(12)
    offsets, cards, _, _ = candidate_moves(eng, games)
    _, values = endgame_values(eng, games, offsets)
    obs, mask, view = encode(eng), eng.legal_mask(), GameView.all(eng)
    plain = NetAgent(model=net).act(obs, mask, view)
    for temperature in (0.0, 1.0):
        agent = NetAgent(model=net, solve_last_deal=True, temperature=temperature, seed=0)
        acts = agent.act(obs, mask, view)
        probs = agent.action_probs(obs, mask, view)
        for i in range(6):
            v = values[offsets[i]:offsets[i + 1]]
            best = {int(c) for c in cards[offsets[i]:offsets[i + 1]][v == v.max()]}
            assert acts[i] in best
            assert set(np.flatnonzero(probs[i] > 1e-9).tolist()) <= best
        if temperature == 0.0:
            np.testing.assert_array_equal(acts[6:], plain[6:])
    with pytest.raises(ValueError, match="solve_last_deal"):
        NetAgent(model=net, solve_last_deal="yes")


def _before_last_deal(seed: int) -> Engine:
    """A 2-player round played at random to a PLAY decision with a choice in the deal
    before its last (one deal left in the stock), ``seed % 4`` turns or more into it; a
    one-game engine."""
    rng = np.random.default_rng(seed)
    eng = Engine(1, seed=seed, episode="round", auto_reset=False)
    while not (eng.state[0, K.STOCK_POS] == 44 and eng.state[0, K.PHASE] == K.PLAY
               and eng.state[0, K.TURN] >= 32 + seed % 4 and len(eng.legal_actions(0)) > 1):
        assert eng.state[0, K.STOCK_POS] < 52, "no such decision in this round"
        eng.step(eng.random_actions(rng))
    return eng


def _heuristic_then_minimax(eng: Engine, card: int, capt: int, root: int) -> float:
    """Full move ``(card, capt)``, then the rollouts' heuristic at both seats until the
    last deal is dealt, then the plain minimax above: the value an exact-leaf rollout
    must give in the true position."""
    from agents.pasur.heuristic import heuristic_action, heuristic_params
    from agents.pasur.moves import MOVE_BUF, ROW0, round_params

    child = eng.copy()
    acts = [card] + [K.TAKE_OFFSET + t for t in range(52) if (capt >> t) & 1]
    for a in acts:
        if child.state[0, K.MOVER] != root or a not in child.legal_actions(0):
            break  # the move is complete (a one-step capture took the whole set)
        child.step(np.array([a]))
    rparams, hp = round_params(child), heuristic_params()
    bufs = (np.empty(MOVE_BUF, np.int64), np.empty(MOVE_BUF, np.int64),
            np.empty(MOVE_BUF, np.float64))
    while not (child.state[0, K.STOCK_POS] >= 52 and child.state[0, K.PHASE] == K.PLAY):
        a = heuristic_action(child.state, ROW0, rparams, False, hp, *bufs)
        child.step(np.array([a]))
    return _minimax(child, root)


def test_rollouts_reaching_the_last_deal_take_its_exact_value() -> None:
    """``exact_last_deal``: in the true position (``oracle_values``) a move's value is the
    heuristic's play to the last deal, then that deal's minimax value (reproduced with
    the engine's public API); in a last deal the search's values are the exact ones."""
    from agents.pasur.ismcts import WHOLE_ROLLOUT, oracle_values, search_values

    differ = 0
    for seed in range(6):
        eng = _before_last_deal(seed)
        games = np.zeros(1, dtype=np.int64)
        offsets, cards, capts, _ = candidate_moves(eng, games)
        root = int(eng.state[0, K.MOVER])
        got = oracle_values(eng, games, offsets, plies=WHOLE_ROLLOUT, exact_last_deal=True)
        want = [_heuristic_then_minimax(eng, int(c), int(k), root)
                for c, k in zip(cards, capts, strict=True)]
        np.testing.assert_allclose(got, want, err_msg=f"seed {seed}")
        played = oracle_values(eng, games, offsets, plies=WHOLE_ROLLOUT)
        differ += not np.allclose(got, played)
    assert differ >= 1  # the heuristic's play of the last deal is not best play
    eng = _mixed_positions(6)
    games = np.arange(6)  # decisions in a last deal
    offsets = candidate_moves(eng, games)[0]
    _, exact = endgame_values(eng, games, offsets)
    seeds = np.arange(6, dtype=np.int64)
    searched = search_values(eng, games, offsets, seeds, budget=24, plies=WHOLE_ROLLOUT,
                             exact_last_deal=True)
    np.testing.assert_allclose(searched, exact)


def test_ismcts_with_exact_leaves_plays_the_labellers_policy() -> None:
    """``ismcts:exact_leaves=true,horizon=1`` plays the moves the labeller of the same
    budget and seed would (its best label); in a last deal it plays a minimax move."""
    from agents.pasur.ismcts import ISMCTSAgent
    from train.move_net.data import SearchLabeler

    eng = Engine(6, seed=0, episode="round", auto_reset=False)
    eng.state[:] = np.concatenate([_before_last_deal(s).state for s in range(6)])
    obs, mask, view = encode(eng), eng.legal_mask(), GameView.all(eng)
    labeller = SearchLabeler(24, seed=7, plies=None, horizon=1, exact_leaves=True)
    agent = ISMCTSAgent(seed=7, budget=24, plies=None, horizon=1, exact_leaves=True)
    acts = agent.act(None, mask, view)
    np.testing.assert_array_equal(acts, labeller.act(obs, mask, view))
    cut = ISMCTSAgent(seed=7, budget=24, plies=None, horizon=1).act(None, mask, view)
    assert (cut != acts).any()  # without exact leaves the search plays otherwise here
    eng = _mixed_positions(6)
    games = np.arange(6)  # decisions in a last deal
    offsets, cards, _, _ = candidate_moves(eng, games)
    _, values = endgame_values(eng, games, offsets)
    acts = ISMCTSAgent(seed=0, budget=8, exact_leaves=True).act(
        None, eng.legal_mask(games), GameView(eng, games))
    for i in range(6):
        v = values[offsets[i]:offsets[i + 1]]
        assert acts[i] in {int(c) for c in cards[offsets[i]:offsets[i + 1]][v == v.max()]}
    plain = ISMCTSAgent(seed=0, budget=8).act(None, eng.legal_mask(games), GameView(eng, games))
    assert (plain != acts).any()  # the heuristic's rollouts miss best play here
    with pytest.raises(ValueError, match="exact_leaves"):
        ISMCTSAgent(exact_leaves="yes")


@pytest.mark.parametrize("exact_leaves", [True, False])
def test_the_labeller_takes_the_last_deals_value_at_its_rollouts_ends(exact_leaves) -> None:
    """``SearchLabeler(exact_leaves=True)``: the labels of decisions in the deal before the
    last are the search's values with exact leaves; without it, the horizon's values.
    The oracle labeller's too (its values in the true position)."""
    from agents.pasur.ismcts import WHOLE_ROLLOUT, oracle_values, search_values
    from train.move_net.data import SearchLabeler

    eng = Engine(6, seed=0, episode="round", auto_reset=False)
    eng.state[:] = np.concatenate([_before_last_deal(s).state for s in range(6)])
    games = np.arange(6)
    offsets = candidate_moves(eng, games)[0]
    seeds = np.random.default_rng(7).integers(0, 2**63 - 1, size=6, dtype=np.int64)
    want = search_values(eng, games, offsets, seeds, budget=24, plies=WHOLE_ROLLOUT,
                         horizon=1, exact_last_deal=exact_leaves)
    other = search_values(eng, games, offsets, seeds, budget=24, plies=WHOLE_ROLLOUT,
                          horizon=1, exact_last_deal=not exact_leaves)
    labeler = SearchLabeler(24, seed=7, plies=None, horizon=1, endgame=True,
                            exact_leaves=exact_leaves)
    labeler.act(encode(eng), eng.legal_mask(), GameView.all(eng))
    data = labeler.take()
    np.testing.assert_array_equal(data.values, want.astype(np.float32))
    assert not np.allclose(want, other)
    oracle = SearchLabeler(24, seed=7, plies=None, horizon=1, oracle=True,
                           exact_leaves=exact_leaves)
    oracle.act(encode(eng), eng.legal_mask(), GameView.all(eng))
    truth = oracle_values(eng, games, offsets, plies=WHOLE_ROLLOUT, horizon=1,
                          exact_last_deal=exact_leaves)
    np.testing.assert_array_equal(oracle.take().values, truth.astype(np.float32))
