"""OpenSpiel's exact algorithms on the OpenSpiel games: finite trees, the redeal dealt as
a conditioned chance distribution, and agreement with the project's exact solver.

* every chance outcome leads forward: a walk of the whole tree of tiny decks of the
  small presets, and of every chance outcome met along playouts of the presets and of
  Persian Rummy, finds no chance node that returns to one of its ancestors;
* with ``initial_jacks="redeal"`` the first deals have the probabilities of the repeated
  redeal (an enumeration of the deck orders through the engine, the rejected mass summed
  as the geometric series of the redeals);
* OpenSpiel's ``exploitability.nash_conv``, ``best_response.BestResponsePolicy`` and
  ``cfr.CFRPlusSolver`` on ``python_pasur`` with jacks, queens and kings in the deck give
  the numbers of :mod:`agents.evaluation.exploitability` and :mod:`agents.pasur.solver`.

Skipped only when the ``openspiel`` extra is missing (``make test-openspiel`` fails then).
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from fractions import Fraction

import numpy as np
import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason="the openspiel extra is not installed: pip install 'pasur-env[openspiel]'"
)

from open_spiel.python import policy as os_policy  # noqa: E402
from open_spiel.python.algorithms import best_response, cfr, exploitability  # noqa: E402

from agents.evaluation.exploitability import exploitability as project_exploitability  # noqa: E402
from agents.evaluation.exploitability import variant_engine, variant_tree  # noqa: E402
from agents.pasur import solver as S  # noqa: E402
from agents.registry import build_agent  # noqa: E402
from pasur_env.openspiel import AgentPolicy, load_game  # noqa: E402

#: tiny decks of the redeal presets, a jack, a queen and a king in each (hands of 1 and
#: 2, tables of 1 and 2): (preset, flags). With hands of one card no player ever has a
#: choice (NashConv 0), but the values and best-response values still mean something.
DECKS = [
    pytest.param("mini", {"cards": "AC 5C JS QH KH", "hand_size": 1, "table_size": 1},
                 id="5cards-h1-t1"),
    pytest.param("mini", {"cards": "AC 10D JS QH KS", "hand_size": 2, "table_size": 1},
                 id="5cards-h2-t1"),
    pytest.param("mini", {"cards": "2C 9D JS QH KS", "hand_size": 2, "table_size": 1},
                 id="5cards-h2-t1-b"),
    pytest.param("cfr_paper", {"cards": "AC 9D 10D JS QH KS", "hand_size": 2,
                               "table_size": 2}, id="6cards-h2-t2"),
    pytest.param("small", {"cards": "2C 9D 10D JS QS KC", "hand_size": 1, "table_size": 2},
                 id="6cards-h1-t2"),
]
#: CFR+ iterations per deck of :data:`DECKS` (OpenSpiel's Python CFR walks the tree
#: through the engine: 0.4 to 7 s an iteration on these decks)
CFR_ITERATIONS = {"5cards-h1-t1": 20, "5cards-h2-t1": 25, "5cards-h2-t1-b": 25,
                  "6cards-h2-t2": 2}
#: the deck of the report of the loop: "deal JS" led back to the root
LOOP_DECK = {"cards": "AC 5C 6H JS KH", "hand_size": 1, "table_size": 1}
TOL = 1e-9


def _project_flags(flags: dict) -> dict:
    """The rule flags of a deck for the project's exact solver (its cards as a tuple)."""
    return {**flags, "cards": tuple(flags["cards"].split())}


# ---- every chance outcome leads forward --------------------------------------------------
def _node_key(state) -> tuple:
    """What a node is, its history aside: the stage, the queued chance nodes, the cards
    fixed in their deck slots and (once dealt) the engine's row without the
    placeholders of the slots not fixed."""
    deck = state.deck
    fixed = tuple((i, int(c)) for i, c in enumerate(deck) if state.revealed >> int(c) & 1)
    row = b""
    if state.dealt:
        spec = state.get_game().spec
        r = state.engine.state[0].copy()
        r[spec.deck_column:spec.deck_column + spec.num_cards] = -1
        row = r.tobytes()
    return state.stage, tuple(state.queue), fixed, state.dealt, row


def _walk(state, path: set, through_players: bool, counts: dict) -> None:
    """Depth first over every chance outcome (and every player action when
    ``through_players``); a node equal to one of its ancestors fails."""
    if state.is_terminal():
        counts["terminal"] += 1
        return
    key = _node_key(state)
    assert key not in path, f"a node returns to its ancestor: history {state.history()}"
    if state.is_chance_node():
        counts["chance"] += 1
        probs = [p for _, p in state.chance_outcomes()]
        assert abs(sum(probs) - 1) < 1e-12
        moves = [o for o, _ in state.chance_outcomes()]
    elif through_players:
        moves = state.legal_actions()
    else:
        return
    path.add(key)
    for move in moves:
        _walk(state.child(move), path, through_players, counts)
    path.discard(key)


@pytest.mark.parametrize(("preset", "flags"), [
    pytest.param("mini", LOOP_DECK, id="mini-loop-deck"),
    *DECKS,
])
def test_the_whole_tree_of_a_redeal_deck_is_finite(preset, flags):
    """Every node of the game, chance and players: none returns to an ancestor (on a
    table chance node of a jack the redeal used to start again at the root)."""
    counts: dict = defaultdict(int)
    _walk(load_game("pasur", preset=preset, **flags).new_initial_state(), set(), True, counts)
    assert counts["chance"] > 0 and counts["terminal"] > 0


def test_every_first_deal_of_mini_leads_forward():
    """Every chance outcome of the first deal of ``mini`` (nine cards, the first table
    one card, two hands of two): no chance node returns to an ancestor."""
    counts: dict = defaultdict(int)
    _walk(load_game("pasur", preset="mini").new_initial_state(), set(), False, counts)
    # 8 table cards (not the jack), then 8 * 7 * 6 * 5 orders of the hands
    assert counts["chance"] == 1 + 8 * (1 + 8 + 8 * 7 + 8 * 7 * 6)


@pytest.mark.parametrize(("game_id", "params"), [
    ("pasur", {"preset": "mini"}), ("pasur", {"preset": "small"}),
    ("pasur", {"preset": "cfr_paper"}), ("persian_rummy", {}),
])
def test_every_chance_outcome_along_playouts_leads_forward(game_id, params):
    """Along random playouts, every outcome of every chance node met leads to a node
    that none of its ancestors equals, with more cards fixed than before."""
    game = load_game(game_id, **params)
    rng = np.random.default_rng(0)
    for _ in range(2):
        state, path = game.new_initial_state(), set()
        while not state.is_terminal():
            path.add(_node_key(state))
            if state.is_chance_node():
                outcomes = [o for o, _ in state.chance_outcomes()]
                for o in outcomes:
                    child = state.child(o)
                    assert _node_key(child) not in path, f"{state.history()} + {o}"
                    assert bin(child.revealed).count("1") > bin(state.revealed).count("1")
                state.apply_action(outcomes[int(rng.integers(len(outcomes)))])
            else:
                legal = state.legal_actions()
                state.apply_action(legal[int(rng.integers(len(legal)))])


# ---- the conditioned distribution is the repeated redeal's ---------------------------------
def _first_deal(engine, g: int = 0) -> tuple[int, int, int]:
    return int(engine.hands[g, 0]), int(engine.hands[g, 1]), int(engine.table[g])


def _openspiel_first_deals(game) -> dict[tuple[int, int, int], float]:
    """The probability of every first deal (hands, table) in the OpenSpiel game: every
    chance outcome up to the first player decision."""
    out: dict = defaultdict(float)
    stack = [(game.new_initial_state(), 1.0)]
    while stack:
        state, p = stack.pop()
        if not state.is_chance_node():
            out[_first_deal(state.engine)] += p
            continue
        stack.extend((state.child(o), p * q) for o, q in state.chance_outcomes())
    return out


def _redeal_first_deals(preset: str, flags: dict) -> dict[tuple[int, int, int], Fraction]:
    """The probability of every first deal when the engine deals every order of the
    deck and a refused first table is dealt again from a fresh shuffle: each order has
    1/n!, an accepted deal d sums its orders' mass q(d), and with r the mass refused the
    deal is d after k redeals with r**k q(d), which sums to q(d) / (1 - r)."""
    engine = variant_engine(preset, **flags)
    cards = engine.rules.deck_cards
    h, t = engine.rules.hand_size, engine.rules.table_size
    orders = list(itertools.permutations(cards))
    mass = Fraction(1, len(orders))
    accepted: dict = defaultdict(Fraction)
    refused = Fraction(0)
    for order in orders:
        engine.reset(deck=list(order))
        table = sum(1 << c for c in order[2 * h: 2 * h + t])  # where the engine deals it
        if int(engine.table[0]) == table:
            accepted[_first_deal(engine)] += mass
        else:  # the engine redealt from its own shuffle: this order is refused
            refused += mass
    assert refused > 0  # the decks hold a jack
    return {d: q / (1 - refused) for d, q in accepted.items()}


@pytest.mark.parametrize(("preset", "flags"), DECKS)
def test_first_deals_have_the_repeated_redeal_probabilities(preset, flags):
    ours = _openspiel_first_deals(load_game("pasur", preset=preset, **flags))
    theirs = _redeal_first_deals(preset, _project_flags(flags))
    assert set(ours) == set(theirs)
    for deal, p in theirs.items():
        assert ours[deal] == pytest.approx(float(p), abs=1e-14)


# ---- OpenSpiel's exact algorithms agree with the project's ---------------------------------
@pytest.mark.parametrize(("preset", "flags"), DECKS[:4])
@pytest.mark.parametrize("agent", ["random", "greedy"])
def test_nash_conv_and_best_responses_agree(preset, flags, agent):
    game = load_game("pasur", preset=preset, **flags)
    ours = project_exploitability(agent, preset=preset, **_project_flags(flags))
    policy = (os_policy.UniformRandomPolicy(game) if agent == "random"
              else AgentPolicy(game, build_agent(agent, seed=0)))
    assert exploitability.nash_conv(game, policy) == pytest.approx(ours.nash_conv, abs=TOL)
    for player in (0, 1):
        br = best_response.BestResponsePolicy(game, player, policy)
        assert br.value(game.new_initial_state()) == pytest.approx(
            ours.best_response[player], abs=TOL)


@pytest.mark.parametrize(("preset", "flags"), DECKS[:4])
def test_cfr_plus_agrees(preset, flags, request):
    """CFR+ of OpenSpiel and of the project, the same iterations: the average policies
    have the same NashConv (both alternate updates and average linearly)."""
    iterations = CFR_ITERATIONS[request.node.callspec.id]
    game = load_game("pasur", preset=preset, **flags)
    theirs = cfr.CFRPlusSolver(game)
    for _ in range(iterations):
        theirs.evaluate_and_update_policy()
    _, tree = variant_tree(preset, **_project_flags(flags))
    ours = S.CFRPlus(tree)
    ours.run(iterations)
    expected = ours.nash_conv()["nash_conv"]
    assert exploitability.nash_conv(game, theirs.average_policy()) == pytest.approx(
        expected, abs=TOL)
    assert expected <= S.nash_conv(tree, S.uniform_policy(tree))["nash_conv"] + TOL
