"""Baseline agents: legality, greedy choices in scripted positions, information hiding,
capture plans and the registry."""

from __future__ import annotations

import numpy as np
import pytest

from agents import AGENT_NAMES, make_agent, register, register_loader
from agents import registry as reg
from agents.pasur.greedy import GreedyAgent
from agents.pasur.heuristic import (
    HeuristicAgent,
    best_of_draw_weights,
    club_value,
    hand_size,
    heuristic_params,
    leftover_value,
    move_gain,
    rank_set,
    reply_threat,
)
from agents.pasur.ismcts import ISMCTSAgent, canonical_infoset
from pasur_env import Engine, GameView, Policy, Position, RandomPolicy, parse_card, parse_cards
from pasur_env.core.loop import DecisionClock, play
from pasur_env.pasur import kernels as K
from pasur_env.pasur.cards import mask_of
from pasur_env.pasur.moves import determinize

C = parse_card

VARIANTS = [
    pytest.param({"num_players": 2}, id="P2"),
    pytest.param({"num_players": 3}, id="P3"),
    pytest.param({"num_players": 4}, id="P4"),
    pytest.param({"num_players": 2, "open_hand": True}, id="P2-open"),
    pytest.param({"num_players": 3, "club_tie": "third", "jack_sur": "lone_jack"}, id="P3-flags"),
    pytest.param({"preset": "cfr_paper"}, id="cfr"),
]


def small_agents(seed: int = 0) -> list[Policy]:
    return [
        RandomPolicy(seed=seed),
        GreedyAgent(),
        HeuristicAgent(),
        ISMCTSAgent(seed=seed, budget=8, parallel=False),
    ]


def position(hands: list[str], table: str, *, stock_size: int = 8, dealer: int = 1, **kw):
    """A complete position; unnamed cards fill the stock, then side 0's pile."""
    named = [c for h in hands for c in parse_cards(h)] + parse_cards(table)
    rest = [c for c in range(52) if c not in named]
    P = len(hands)
    sides = 2 if P == 4 else P
    piles: list[list[int]] = [[] for _ in range(sides)]
    piles[0] = rest[stock_size:]
    return Position(
        hands=[parse_cards(h) for h in hands],
        table=parse_cards(table),
        stock=rest[:stock_size],
        piles=piles,
        dealer=dealer,
        **kw,
    )


def play_rounds(agent: Policy, flags: dict, games: int, seed: int) -> int:
    """Let ``agent`` play every seat of ``games`` one-round games through the play loop
    (which checks every action against the mask); return #decisions."""
    eng = Engine(games, seed=seed, episode="round", auto_reset=False, **flags)
    clock = DecisionClock()
    play(eng, [agent], np.zeros((games, eng.num_players), dtype=np.int64), clock=clock)
    assert (eng.phase == K.DONE).all()
    return clock.decisions[0]


# ---- legality ------------------------------------------------------------------------
@pytest.mark.parametrize("flags", VARIANTS)
def test_agents_play_legal_moves(flags):
    for k, agent in enumerate(small_agents(seed=7)):
        games = 4 if isinstance(agent, ISMCTSAgent) else 24
        assert play_rounds(agent, flags, games, seed=11 + k) >= 48 * games


def test_agents_on_random_mid_round_states():
    """Random positions, CAPTURE phases included, several sizes of batch."""
    rng = np.random.default_rng(5)
    for P in (2, 3, 4):
        eng = Engine(40, seed=P, episode="round", num_players=P)
        for steps in (3, 17, 31):
            eng.playout(steps, seed=steps)
            mask = eng.legal_mask()
            assert (eng.phase == K.CAPTURE).any() or steps == 3
            for agent in small_agents(seed=int(rng.integers(100))):
                games = rng.permutation(eng.num_games)[: int(rng.integers(1, 9))]
                out = agent.act(None, mask[games], GameView(eng, games))
                assert mask[games, out].all(), agent.name


# ---- greedy in scripted positions ----------------------------------------------------
def greedy_moves(eng: Engine, game: int = 0) -> list[int]:
    """The greedy agent's actions until its turn ends."""
    agent = GreedyAgent()
    seat = int(eng.current_player[game])
    acts = []
    while True:
        a = int(agent.act(None, eng.legal_mask()[[game]], GameView(eng, [game]))[0])
        acts.append(a)
        eng.step(np.array([a]))
        if eng.phase[game] == K.PLAY or eng.current_player[game] != seat:
            return acts


def test_greedy_prefers_a_sur_to_two_points():
    # AD takes 9H + AS: a sur with two aces (7); 2C takes 9H (2 points)
    eng = Engine.from_positions([position(["AD 2C KH KS", "3D 4D 5D 6D"], "9H AS")])
    assert greedy_moves(eng) == [C("AD")]
    assert eng.surs[0, 0] == 1


def test_greedy_prefers_ten_of_diamonds_to_an_ace():
    # AC takes 10D (4 points), 10S takes AH (1 point)
    eng = Engine.from_positions([position(["AC 10S KD 3H", "3D 4D 5D 6D"], "10D AH QS")])
    assert greedy_moves(eng) == [C("AC")]
    assert (eng.piles[0, 0] >> C("10D")) & 1


def test_greedy_completes_a_multi_step_capture():
    # 5D takes 6: {2C,4H} {2C,4D} {2S,4H} {2S,4D}; the ones with 2C win; first is 2C+4D
    eng = Engine.from_positions([position(["5D KH KS QH", "3D 7S 8S 9S"], "2C 4H 2S 4D")])
    acts = greedy_moves(eng)
    assert acts == [C("5D"), 52 + C("2C"), 52 + C("4D")]
    assert eng.table[0] == (1 << C("4H")) | (1 << C("2S"))
    assert eng.current_player[0] == 1


def test_greedy_lays_the_least_valuable_card():
    eng = Engine.from_positions([position(["AS 2C 9D 10H", "3D 7S 8S 9S"], "KH QS")])
    assert greedy_moves(eng) == [C("10H")]


def test_greedy_prefers_more_clubs_then_more_cards():
    # 8D: {3C} or {3H}; same points, 3C has a club
    eng = Engine.from_positions([position(["8D KH KS QH", "3D 7S 8S 9S"], "3C 3H")])
    assert greedy_moves(eng) == [C("8D"), 52 + C("3C")]


# ---- the heuristic's building blocks --------------------------------------------------
def test_club_value():
    assert club_value(7, 0, 6, 7.0) == 7.0
    assert club_value(0, 7, 6, 7.0) == -7.0
    assert club_value(3, 3, 7, 7.0) == 0.0
    assert 0.0 < club_value(4, 3, 6, 7.0) < 7.0


def test_heuristic_rules_one_by_one():
    """Each rule of the heuristic is a compiled function that can be checked alone."""
    hp = heuristic_params()
    eng = Engine.from_positions([position(["AD 2C KH KS", "3D 4D 5D 6D"], "9H AS")])
    st, params = eng.state, eng.params
    sur = int(params[K.P_SUR_POINTS])
    # a capture that clears the table: two aces and a sur (award 0: no club value)
    gain, a, r, t2 = move_gain(st, 0, params, hp, C("AD"), mask_of(["9H", "AS"]),
                               0, 0, 13, 0.0, 0.0, False)
    assert (gain, t2) == (2.0 + sur, 0)
    # a lay wins nothing and grows the table
    gain, a, r, t2 = move_gain(st, 0, params, hp, C("KH"), 0, 0, 0, 13, 0.0, 0.0, False)
    assert gain == 0.0 and t2 == mask_of(["9H", "AS", "KH"])
    # the last move of a round: leftovers (A + 10D = 4 points) to whoever captured last
    assert leftover_value(mask_of(["AS", "10D"]), 0, 0, 0, 0.0, 0.0, True) == 4.0
    assert leftover_value(mask_of(["AS", "10D"]), 0, 0, 0, 0.0, 0.0, False) == -4.0
    # the best of m cards drawn from n: a distribution, decreasing with the rank
    w = np.zeros(53)
    best_of_draw_weights(10, 3, w)
    assert abs(w.sum() - 1.0) < 1e-12 and (np.diff(w[:10]) <= 0).all()
    assert rank_set(mask_of(["AS", "AD", "KC"])) == (1 << 0) | (1 << 12)


def test_heuristic_reply_threat_is_the_chance_of_a_king():
    """A lone king on the table: the threat is sur_points times the chance that the
    next player's m unknown cards include one of the k unseen kings."""
    from math import comb

    named = parse_cards("2C 3C 4D 5D KH")
    stock = parse_cards("KC KD KS 6D 7D 8D 9D 10D")
    rest = [c for c in range(52) if c not in named + stock]
    eng = Engine.from_positions([Position(hands=[parse_cards("2C 3C"), parse_cards("4D 5D")],
                                          table=parse_cards("KH"), stock=stock,
                                          piles=[rest, []], dealer=1)])
    st, params = eng.state, eng.params
    seat = int(st[0, K.MOVER])
    unseen = int(K.hidden_from(st, 0, seat, False))
    n, kings = bin(unseen).count("1"), bin(unseen & (0xF << 48)).count("1")
    m = 2  # the next player's hand
    w = np.zeros(53)
    best_of_draw_weights(n, m, w)
    buf = (np.zeros((13, 2)), np.zeros(13, dtype=np.bool_), np.empty(256, dtype=np.int64),
           np.empty(53), np.empty(256, dtype=np.int64))
    threat = reply_threat(st[0:1].copy(), params, mask_of(["KH"]), np.zeros(15),
                          rank_set(unseen), unseen, -1, m, w, buf)
    want = int(params[K.P_SUR_POINTS]) * (1 - comb(n - kings, m) / comb(n, m))
    assert kings == 3 and abs(threat - want) < 1e-9


def test_hand_size_matches_engine():
    for P in (2, 3, 4):
        eng = Engine(16, seed=P, episode="round", num_players=P)
        for steps in range(0, 40, 5):
            eng.playout(5, seed=steps)
            for b in range(eng.num_games):
                for seat in range(P):
                    want = bin(int(eng.hands[b, seat])).count("1")
                    assert hand_size(eng.state, b, seat, P) == want


def test_heuristic_avoids_leaving_a_sur():
    # no capture: greedy lays 4S (non-club), which leaves 5H + 4S for any two (all four
    # are unseen, in the stock) to sur; the heuristic lays KC instead
    pos = position(["4S KC", "4D 9D"], "5H", dealer=1)
    for agent, want in ((GreedyAgent(), "4S"), (HeuristicAgent(), "KC")):
        eng = Engine.from_positions([pos])
        assert agent.act(None, eng.legal_mask(), GameView.all(eng))[0] == C(want)


# ---- information hiding ---------------------------------------------------------------
def _info_set_pairs(flags: dict, n: int, seed: int):
    """(engine, game, twin engine): the twin re-deals every card hidden from the mover."""
    eng = Engine(n, seed=seed, episode="round", **flags)
    eng.playout(seed % 23 + 3, seed=seed)
    for g in range(n):
        seat = int(eng.current_player[g])
        twin = determinize(eng, g, 1, seat=seat, seed=seed * 1000 + g)
        yield eng, g, twin


@pytest.mark.parametrize("flags", VARIANTS[:4])
def test_decisions_depend_only_on_the_information_set(flags):
    moved = 0
    for eng, g, twin in _info_set_pairs(flags, 12, seed=3):
        seat = int(eng.current_player[g])
        other = [p for p in range(eng.num_players) if p != seat]
        moved += int(any(eng.hands[g, p] != twin.hands[0, p] for p in other))
        assert eng.hands[g, seat] == twin.hands[0, seat]
        mask = eng.legal_mask()[[g]]
        assert (mask == twin.legal_mask()).all()
        for agent in (GreedyAgent(), HeuristicAgent(), ISMCTSAgent(budget=16, parallel=False)):
            agent.reset(42)
            a = agent.act(None, mask, GameView(eng, [g]))
            agent.reset(42)
            b = agent.act(None, mask, GameView(twin, [0]))
            assert a[0] == b[0], (agent.name, flags, g)
    assert moved > 0  # the twins really differ in hidden cards


def test_canonical_infoset_ignores_hidden_arrangement():
    for flags in ({"num_players": 2, "open_hand": True}, {"num_players": 4}):
        for eng, g, twin in _info_set_pairs(flags, 6, seed=9):
            seat = int(eng.current_player[g])
            a = np.empty((1, K.NCOL), dtype=np.int64)
            b = np.empty((1, K.NCOL), dtype=np.int64)
            canonical_infoset(eng.state, g, seat, eng.rules.open_hand, a)
            canonical_infoset(twin.state, 0, seat, eng.rules.open_hand, b)
            keep = np.ones(K.NCOL, dtype=bool)
            keep[K.DECK : K.STOCK_POS] = False  # cards dealt earlier: never read in a round
            assert (a[0, keep] == b[0, keep]).all()
            assert K.hidden_from(a, 0, seat, eng.rules.open_hand) == K.hidden_from(
                eng.state, g, seat, eng.rules.open_hand
            )


# ---- ISMCTS ---------------------------------------------------------------------------
def test_ismcts_completes_its_planned_capture():
    eng = Engine.from_positions([position(["5D KH KS QH", "3D 7S 8S 9S"], "2C 4H 2S 4D")])
    agent = ISMCTSAgent(seed=0, budget=40, parallel=False)
    before = int(eng.table[0])
    acts = []
    while True:
        a = int(agent.act(None, eng.legal_mask(), GameView.all(eng))[0])
        acts.append(a)
        if len(acts) == 1:
            assert a == C("5D") and len(agent._plans) == 1
            plan = next(iter(agent._plans.values()))
        eng.step(np.array([a]))
        if eng.current_player[0] != 0:
            break
    assert acts[1:] == [
        52 + c for c in sorted(np.flatnonzero([(plan >> i) & 1 for i in range(52)]))
    ]
    assert int(eng.table[0]) == before & ~plan
    assert not agent._plans


def test_ismcts_prefers_the_sur():
    eng = Engine.from_positions([position(["AD 2C KH KS", "3D 4D 5D 6D"], "9H AS")])
    a = ISMCTSAgent(seed=1, budget=60, parallel=False)
    assert a.act(None, eng.legal_mask(), GameView.all(eng))[0] == C("AD")


# ---- registry -------------------------------------------------------------------------
def test_registry_builds_agents():
    assert AGENT_NAMES[:4] == ["random", "greedy", "heuristic", "ismcts"]
    assert isinstance(make_agent("random", seed=1), RandomPolicy)
    assert isinstance(make_agent("Greedy"), GreedyAgent)
    assert make_agent("heuristic", threat_weight=1.5).hp[0] == 1.5
    ag = make_agent("ismcts", budget=33, seed=2)
    assert isinstance(ag, ISMCTSAgent) and ag.budget == 33
    assert make_agent(ag) is ag


def test_registry_errors(monkeypatch):
    monkeypatch.setitem(reg._LOADERS, "pasur", [])  # no model loader registered (by other modules)
    with pytest.raises(ValueError, match="known agents: random, greedy, heuristic, ismcts"):
        make_agent("minimax")
    with pytest.raises(ValueError, match="unknown agent"):
        make_agent("runs/model.zip")
    with pytest.raises(TypeError):
        make_agent("greedy", budget=3)
    with pytest.raises(TypeError):
        make_agent("heuristic", nonsense=1.0)
    with pytest.raises(ValueError):
        make_agent("ismcts", budget=0)
    with pytest.raises(TypeError):
        make_agent(3)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        make_agent(GreedyAgent(), budget=2)
    with pytest.raises(ValueError, match="already registered"):
        register("greedy", GreedyAgent)


def test_register_and_loader_hooks(monkeypatch):
    loaded = []

    def load(path, seed=None, **kw):
        loaded.append((path, seed, kw))
        return RandomPolicy(seed=seed)

    monkeypatch.setitem(reg._LOADERS, "pasur", [])  # isolate from loaders other modules add
    try:
        register("my-random", lambda seed=None: RandomPolicy(seed=seed))
        assert isinstance(make_agent("my-random", seed=3), RandomPolicy)
        assert "my-random" in AGENT_NAMES
        register_loader(lambda spec: spec.endswith(".zip"), load)
        assert isinstance(make_agent("runs/best.zip", seed=5, device="cpu"), RandomPolicy)
        assert loaded == [("runs/best.zip", 5, {"device": "cpu"})]
    finally:
        reg._FACTORIES["pasur"].pop("my-random", None)
        if "my-random" in AGENT_NAMES:
            AGENT_NAMES.remove("my-random")


def test_random_agent_is_seeded_and_uniform():
    mask = np.zeros((4000, 104), dtype=bool)
    mask[:, [3, 7, 60]] = True
    eng = Engine(1, seed=0)
    view = GameView(eng, np.zeros(4000, dtype=np.int64))
    a = RandomPolicy(seed=1).act(None, mask, view)
    b = RandomPolicy(seed=1).act(None, mask, view)
    assert (a == b).all() and set(np.unique(a)) == {3, 7, 60}
    counts = np.bincount(a, minlength=104)[[3, 7, 60]]
    assert counts.min() > 1200


def test_the_move_toolkit_is_public_and_says_what_each_function_returns() -> None:
    """``agents.pasur.moves`` is the toolkit an agent writer builds on: every name it
    exports imports, and every function says what it gives back."""
    from agents.pasur import moves

    assert moves.__doc__ and "full move" in moves.__doc__
    for name in moves.__all__:
        obj = getattr(moves, name)
        if callable(obj):
            doc = getattr(obj, "__doc__", None) or getattr(obj, "py_func", obj).__doc__
            assert doc and len(doc.split()) >= 8, f"agents.pasur.moves.{name} has no docstring"
