"""The agent-writing toolkits (``agents.pasur.toolkit``, ``agents.rummy.toolkit``) against
the engines.

For positions of both games reached by seeded random play, and every position inside
a decision (mid-capture: some TAKEs played; mid-meld: some cards picked), the
toolkit's options must be exactly the action sequences found by a depth-first search
over the engine's legal actions on copies of the game until the decision ends, and
playing each option's actions through the engine must reach what the option states
(the cards captured, points and sur; the meld, lay-off, discard or draw on the table).
Small agents written with the toolkits then play full matches through ``evaluate``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agents import Agent
from agents.core.toolkit import packed_rows
from agents.evaluation.match import evaluate
from agents.pasur import toolkit as PT
from agents.rummy import toolkit as RT
from pasur_env import Engine, GameView
from pasur_env.pasur import kernels as PK
from pasur_env.pasur.moves import move_options, move_to_actions
from pasur_env.rummy import RummyEngine
from pasur_env.rummy import kernels as RK
from pasur_env.rummy.cards import VALUE_OF as RUMMY_VALUE
from pasur_env.rummy.cards import cards_of as rummy_cards_of

ROOT = Path(__file__).resolve().parents[1]


# ---- the independent enumeration: depth-first over the engine's legal actions ----------
def search_leaves(eng: Any, goes_on: Any, prefix: tuple[int, ...] = (),
                  visit: Any = None) -> list[tuple[tuple[int, ...], Any, Any]]:
    """Every legal action sequence from game 0 of ``eng`` until the decision ends
    (``goes_on(after)`` false, or the round ended): ``(actions, engine after, info)``.
    ``visit(engine, actions so far)`` is called at every inner node too."""
    out = []
    for a in eng.legal_actions(0):
        nxt = eng.take([0])
        info = nxt.step(np.array([a], dtype=np.int64))
        seq = prefix + (a,)
        if info.round_end[0] or not goes_on(nxt):
            out.append((seq, nxt, info))
        else:
            if visit is not None:
                visit(nxt, seq)
            out.extend(search_leaves(nxt, goes_on, seq, visit))
    return out


def positions(make: Any, seeds: range, steps: int, every: int) -> Any:
    """One-game engines of the positions that seeded random play passes through."""
    for seed in seeds:
        eng = make(seed)
        rng = np.random.default_rng(seed)
        for t in range(steps):
            if t % every == 0:
                for g in range(eng.num_games):
                    if not eng.done[g]:
                        yield eng.take([g])
            eng.step(eng.random_actions(rng))


def randomly_played(eng: Any, steps: int) -> Any:
    """``eng`` after ``steps`` seeded random steps of every game."""
    rng = np.random.default_rng(steps)
    for _ in range(steps):
        eng.step(eng.random_actions(rng))
    return eng


# ---- Pasur ------------------------------------------------------------------------------
def pasur_in_capture(eng: Engine) -> bool:
    return bool(eng.state[0, PK.PHASE] == PK.CAPTURE)


def pasur_result(before: Engine, after: Engine) -> tuple[int, tuple[int, ...], int, bool]:
    """What the turn did, read from the state: the card played, the cards it captured,
    the points won at once and whether a sur was counted."""
    s0, s1 = before.state[0], after.state[0]
    piles0 = s0[PK.PILE:PK.PILE + PK.MAX_SIDES]
    piles1 = s1[PK.PILE:PK.PILE + PK.MAX_SIDES]
    won = int(np.bitwise_or.reduce(piles1 & ~piles0))
    card = int(s0[PK.PENDING]) if s0[PK.PHASE] == PK.CAPTURE else -1
    if card < 0:
        hands = s0[PK.HAND:PK.HAND + PK.MAX_SEATS] & ~s1[PK.HAND:PK.HAND + PK.MAX_SEATS]
        card = int(np.bitwise_or.reduce(hands)).bit_length() - 1
    captured = tuple(c for c in range(52) if (won >> c) & 1 and c != card)
    sur = int((s1[PK.SURS:PK.SURS + 3] - s0[PK.SURS:PK.SURS + 3]).sum()) > 0
    points = int(PK.card_points(won)) + (int(before.params[PK.P_SUR_POINTS]) if sur else 0)
    return card, captured, points, sur


def same_as_search(eng: Any, options: list[Any], goes_on: Any, check: Any) -> None:
    """The toolkit's ``options`` of game 0 are exactly the search's action sequences,
    each once, and ``check(option, after, info)`` holds for each one played."""
    leaves = search_leaves(eng, goes_on)
    assert sorted(o.actions for o in options) == sorted(seq for seq, _, _ in leaves)
    assert len({o.actions for o in options}) == len(options)
    by_actions = {o.actions: o for o in options}
    for seq, after, info in leaves:
        assert by_actions[seq].action == seq[0]
        check(by_actions[seq], after, info)


def check_pasur(eng: Engine, stats: dict[str, int]) -> None:
    """The toolkit's moves of game 0 equal the search's leaves, and each one's actions
    reach what it states."""
    def check(m: PT.Move, after: Engine, info: Any) -> None:
        if info.round_end[0]:  # the round's count moved the piles: only the actions hold
            stats["round_end"] += 1
            return
        card, captured, points, sur = pasur_result(eng, after)
        assert (m.card, m.captured, m.sur) == (card, captured, sur), str(m)
        assert m.points == points and m.is_capture == bool(captured)
        if captured:
            won = captured + (card,)
            assert m.clubs == sum(1 for c in won if c % 4 == 0)
        stats["sur"] += sur

    same_as_search(eng, PT.full_moves(eng, 0), pasur_in_capture, check)
    stats["positions"] += 1
    stats["mid_capture"] += bool(eng.state[0, PK.SELECTION])


def test_pasur_moves_equal_the_search_over_legal_actions() -> None:
    """Every position random play passes through, and every position inside a
    multi-step capture (each prefix of TAKEs, mid-capture)."""
    stats = {"positions": 0, "mid_capture": 0, "round_end": 0, "sur": 0}
    make = lambda s: Engine(8, seed=s, episode="round")  # noqa: E731
    for eng in positions(make, range(6), 200, 3):
        check_pasur(eng, stats)
        if pasur_in_capture(eng) or any(len(m.actions) > 2 for m in PT.full_moves(eng)):
            search_leaves(eng, pasur_in_capture, visit=lambda e, _: check_pasur(e, stats))
    assert stats["positions"] > 1000
    assert stats["mid_capture"] > 20 and stats["round_end"] > 10 and stats["sur"] > 5


def test_move_options_answer_at_every_decision_as_the_toolkit_does() -> None:
    """``pasur_env.pasur.moves.move_options`` and ``move_to_actions`` read the toolkit's
    one enumeration: the same moves and actions in the PLAY phase and mid-capture (it
    used to raise outside the PLAY phase), and nothing once the game is over."""
    seen = {"play": 0, "capture": 0, "taken": 0}

    def same(e: Engine, _: Any = None) -> None:
        moves = PT.full_moves(e)
        assert move_options(e, 0) == [(m.card, m.captured) for m in moves]
        for m in moves:
            assert move_to_actions(e, 0, m.card, m.captured) == list(m.actions)
        seen["capture" if pasur_in_capture(e) else "play"] += 1
        seen["taken"] += bool(e.state[0, PK.SELECTION])

    make = lambda s: Engine(4, seed=s, episode="round")  # noqa: E731
    for eng in positions(make, range(3), 200, 4):
        same(eng)
        if pasur_in_capture(eng) or any(len(m.actions) > 2 for m in PT.full_moves(eng)):
            search_leaves(eng, pasur_in_capture, visit=same)
    assert seen["play"] > 100 and seen["capture"] > 20 and seen["taken"] > 5, seen
    done = randomly_played(Engine(1, seed=0, episode="round", auto_reset=False), 200)
    assert done.done[0] and move_options(done, 0) == []


def test_pasur_moves_in_the_variants_and_with_more_players() -> None:
    stats = {"positions": 0, "mid_capture": 0, "round_end": 0, "sur": 0}
    for kw in ({"num_players": 3}, {"num_players": 4}, {"preset": "cfr_paper"}, {"preset": "mini"},
               {"preset": "small"},
               {"jack_sur": "lone_jack", "open_hand": True}):
        make = lambda s, kw=kw: Engine(4, seed=s, episode="round", **kw)  # noqa: E731
        for eng in positions(make, range(2), 150, 5):
            check_pasur(eng, stats)
    assert stats["positions"] > 300


def test_pasur_batch_arrays_match_the_lists() -> None:
    eng = randomly_played(Engine(16, seed=3), 40)
    view = GameView(eng, np.arange(0, 16, 2))
    lists = PT.moves_of_view(view)
    arr = PT.move_arrays(view, view.games)
    for i, g in enumerate(view.games):
        assert lists[i] == PT.full_moves(eng, int(g))
        lo, hi = arr["offsets"][i], arr["offsets"][i + 1]
        assert [m.card for m in lists[i]] == arr["card"][lo:hi].tolist()
    assert str(PT.Move(5, (), 0, False, 0, (5,))) == "lay 2D"


def test_pasur_toolkit_refuses_what_it_cannot_read() -> None:
    with pytest.raises(TypeError, match="Pasur toolkit reads a Pasur engine"):
        PT.full_moves(RummyEngine(1, seed=0))
    with pytest.raises(ValueError):
        PT.full_moves(Engine(2, seed=0), 5)
    done = randomly_played(Engine(1, seed=0, episode="round", auto_reset=False), 200)
    assert done.done[0]
    assert PT.full_moves(done) == []
    with pytest.raises(ValueError, match="no move"):
        PT.choose_actions(GameView.all(done), lambda moves: moves[0])


# ---- Persian Rummy ----------------------------------------------------------------------
def rummy_goes_on(eng: RummyEngine) -> bool:
    """A meld begun (cards picked) or a lay-off waiting for its meld: the option goes on."""
    return bool(eng.state[0, RK.PICKED]) or eng.state[0, RK.PHASE] == RK.CHOOSE


def rummy_check_result(o: RT.Option, before: RummyEngine, after: RummyEngine,
                       info: Any) -> None:
    """Playing option ``o`` did what it states (read from the engine's state and info)."""
    seat = before.mover(0)
    s0, s1 = before.state[0], after.state[0]
    hand0, hand1 = int(s0[RK.HAND + seat]), int(s1[RK.HAND + seat])
    if o.kind == "draw":
        assert s1[RK.STOCK_POS] == s0[RK.STOCK_POS] + 1 and bin(hand1 & ~hand0).count("1") == 1
    elif o.kind == "take":
        assert hand1 == hand0 | sum(1 << c for c in o.cards) and s1[RK.TARGET] == o.card
        assert o.cards == tuple(sorted(before.pile(0)[before.pile(0).index(o.card):]))
    elif o.kind == "pass":
        assert s1[RK.PASSES] == s0[RK.PASSES] + 1 or info.round_end[0]
    elif o.kind == "discard":
        assert after.pile(0)[-1] == o.card and o.value == RUMMY_VALUE[o.card]
    elif o.kind == "meld":
        assert after.melds(0) == before.melds(0) + [list(o.cards)]
    else:
        melds = before.melds(0)
        melds[o.meld] = sorted(melds[o.meld] + [o.card])
        assert after.melds(0) == melds and o.points == RUMMY_VALUE[o.card]
    if o.kind in ("meld", "layoff"):
        team = seat % 2
        credit = int(s1[RK.CREDIT + team]) & ~int(s0[RK.CREDIT + team])
        bonus = int(s1[RK.BONUS + team] - s0[RK.BONUS + team]) - (25 if o.goes_out else 0)
        assert sum(RUMMY_VALUE[c] for c in rummy_cards_of(credit)) + bonus == o.points
        assert o.goes_out == (int(info.went_out[0]) == seat)


def check_rummy(eng: RummyEngine, stats: dict[str, int]) -> None:
    def check(o: RT.Option, after: RummyEngine, info: Any) -> None:
        rummy_check_result(o, eng, after, info)
        stats[o.kind] += 1

    same_as_search(eng, RT.turn_options(eng, 0), rummy_goes_on, check)
    stats["positions"] += 1
    stats["mid_meld"] += bool(eng.state[0, RK.PICKED])
    stats["target"] += int(eng.state[0, RK.TARGET]) >= 0


def test_rummy_options_equal_the_search_over_legal_actions() -> None:
    """Every position random play passes through, and every position inside an option
    (mid-meld: each prefix of PICKs; a lay-off waiting for its TARGET)."""
    stats = dict.fromkeys(("positions", "mid_meld", "target", *RT.KINDS), 0)
    make = lambda s: RummyEngine(8, seed=s, episode="round", auto_reset=False)  # noqa: E731
    for eng in positions(make, range(6), 300, 3):
        check_rummy(eng, stats)
        if any(len(o.actions) > 1 for o in RT.turn_options(eng)):
            search_leaves(eng, rummy_goes_on, visit=lambda e, _: check_rummy(e, stats))
    assert stats["positions"] > 1000 and stats["mid_meld"] > 50 and stats["target"] > 20
    assert all(stats[k] > 0 for k in RT.KINDS), stats


def test_rummy_options_with_four_sets_single_and_discard_going_out() -> None:
    stats = dict.fromkeys(("positions", "mid_meld", "target", *RT.KINDS), 0)
    make = lambda s: RummyEngine(8, seed=s, episode="round", auto_reset=False,  # noqa: E731
                                 four_set_double=False, last_discard_goes_out=True)
    for eng in positions(make, range(10, 12), 200, 4):
        check_rummy(eng, stats)
    assert stats["positions"] > 300


def test_rummy_batch_arrays_match_the_lists() -> None:
    eng = randomly_played(RummyEngine(8, seed=5), 60)
    view = GameView.all(eng)
    lists = RT.options_of_view(view)
    arr = RT.option_arrays(eng, view.games)
    for i in range(8):
        assert lists[i] == RT.turn_options(eng, i)
        lo, hi = arr["offsets"][i], arr["offsets"][i + 1]
        assert [RT.KINDS[k] for k in arr["kind"][lo:hi]] == [o.kind for o in lists[i]]
    assert str(RT.Option("discard", (51,), 51, -1, 0, 10, False, (240,))) == "discard KS"


def test_rummy_toolkit_refuses_what_it_cannot_read() -> None:
    with pytest.raises(TypeError, match="Persian Rummy engine .RummyEngine"):
        RT.turn_options(Engine(1, seed=0))
    with pytest.raises(ValueError):
        RT.option_arrays(RummyEngine(1, seed=0), [1])


def test_packed_rows_grow_until_every_game_fits() -> None:
    """Games with more moves than the first buffers hold: the buffers double and the
    games already written stay as they were."""
    def fill(state: Any, games: np.ndarray, params: Any, start: int, offsets: np.ndarray,
             facts: np.ndarray, acts: np.ndarray) -> int:
        for i in range(start, games.shape[0]):
            o = offsets[i]
            if o + 40 > facts.shape[0]:
                return i
            facts[o:o + 40, 0] = i
            acts[o:o + 40, 0] = np.arange(40)
            offsets[i + 1] = o + 40
        return games.shape[0]

    offsets, facts, acts = packed_rows(fill, Engine(1), np.arange(10), 1, 40)
    assert offsets.tolist() == list(range(0, 401, 40))
    assert facts[:, 0].tolist() == [i for i in range(10) for _ in range(40)]
    assert (acts[:, 0] == np.tile(np.arange(40), 10)).all() and (acts[:, 1:] == -1).all()


# ---- small agents written with the toolkits play whole matches -----------------------
class MostCards(Agent):
    """Take the most cards (then the most points), else lay the lowest card."""

    name = "most-cards"
    game_ids = ("pasur",)

    def act(self, obs: np.ndarray | None, mask: np.ndarray, view: GameView) -> np.ndarray:
        return PT.choose_actions(
            view, lambda moves: max(moves, key=lambda m: (len(m.captured), m.points, -m.card)))


class MostPoints(Agent):
    """Take the discard pile when it can be melded (the fewest cards), else draw; meld or
    lay off the most points, else discard the most valuable card."""

    name = "most-points"
    game_ids = ("persian_rummy",)

    def act(self, obs: np.ndarray | None, mask: np.ndarray, view: GameView) -> np.ndarray:
        def choose(options: list[RT.Option]) -> RT.Option:
            draws = [o for o in options if o.kind in ("draw", "take", "pass")]
            if draws:
                return min(draws, key=lambda o: (o.kind != "take", len(o.cards)))
            return max(options, key=lambda o: (o.points, o.value if o.kind == "discard" else 0,
                                               -o.action))
        return RT.choose_actions(view, choose)


@pytest.mark.parametrize(("game", "agent"), [("pasur", MostCards()),
                                             ("persian_rummy", MostPoints())])
def test_toolkit_agents_play_legal_moves_through_evaluate(game: str, agent: Agent) -> None:
    """``evaluate`` checks every action an agent returns against the mask: 200 rounds
    without an error are 200 rounds of legal moves; and the agents beat random."""
    res = evaluate(agent, "random", rounds=200, seed=0, progress=False, game=game, batch=64)
    assert res.rounds >= 200
    assert res.mean_point_diff > 0


def test_the_guide_snippet_runs() -> None:
    """The example of docs/agents.md's toolkit section runs as written."""
    text = (ROOT / "docs" / "agents.md").read_text(encoding="utf-8")
    section = text.split("## Writing an agent: the toolkit", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    assert blocks
    for block in blocks:
        exec(compile(block, "docs/agents.md", "exec"), {})  # noqa: S102 - our own doc
