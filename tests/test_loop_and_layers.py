"""The one play loop, subset steps of the engine, and the layers (the game never
imports its players)."""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
from pathlib import Path, PurePath

import numpy as np
import pytest

from agents import make_agent
from pasur_env import Engine, GameView, RandomPolicy, as_opponents, as_policy
from pasur_env.core.loop import DecisionClock, decide, play
from pasur_env.pasur import kernels as K


def test_step_on_some_games_leaves_the_others_alone() -> None:
    eng = Engine(6, seed=3, parallel=False)
    twin = eng.copy()
    games = np.array([1, 4])
    acts = eng.random_actions(np.random.default_rng(0))[games]
    info = eng.step(acts, games=games)
    assert info.actor.shape == (2,)
    untouched = [0, 2, 3, 5]
    assert np.array_equal(eng.state[untouched], twin.state[untouched])
    twin.step(acts, games=games)
    assert np.array_equal(eng.state, twin.state)
    assert np.array_equal(eng.legal_mask(games), eng.legal_mask()[games])
    for bad in ([4, 1], [1, 1], [6], [-1]):
        with pytest.raises(ValueError, match="ascending distinct indices"):
            eng.step(np.zeros(len(bad), dtype=np.int64), games=bad)
    legal = eng.random_actions(np.random.default_rng(1))[games]
    with pytest.raises(ValueError, match="illegal action 103 .* in game 4"):
        eng.step(np.array([legal[0], 103]), games=games)
    assert np.array_equal(eng.state, twin.state)  # an illegal step changes nothing


def test_play_stops_at_unplayed_seats_and_counts_decisions() -> None:
    eng = Engine(8, seed=1, episode="round", auto_reset=False)
    seat_policy = np.zeros((8, 2), dtype=np.int64)
    seat_policy[:, 1] = -1  # seat 1 is "the learner": the loop stops there
    clock = DecisionClock()
    play(eng, [make_agent("greedy")], seat_policy, clock=clock)
    assert (eng.current_player == 1).all() and (eng.phase != K.DONE).all()
    assert clock.decisions[0] >= 8 and clock.per_decision(0) > 0
    # both seats played: every round ends, and each policy is asked once per iteration
    calls = []

    class Counting(RandomPolicy):
        def act(self, obs, mask, view):
            calls.append(len(view.games))
            return super().act(obs, mask, view)

    eng = Engine(8, seed=1, episode="round", auto_reset=False)
    play(eng, [Counting(seed=0), make_agent("heuristic")], np.tile([0, 1], (8, 1)))
    assert (eng.phase == K.DONE).all() and sum(calls) >= 8 * 24


def test_decide_checks_every_action() -> None:
    class Cheater(RandomPolicy):
        name = "cheater"

        def act(self, obs, mask, view):
            return np.full(len(view.games), 103, dtype=np.int64)

    eng = Engine(4, seed=0)
    before = eng.state.copy()
    with pytest.raises(ValueError, match=r"agent 'cheater' chose illegal action 103 \(TAKE KS\) "
                       r"in game 0; legal actions: \["):
        decide(eng, np.arange(4), [Cheater()], np.zeros(4, dtype=np.int64))
    assert np.array_equal(eng.state, before)


def test_opponents_are_objects_names_are_refused() -> None:
    assert as_policy(make_agent("greedy")).name == "greedy"
    fn = as_policy(lambda obs, mask: int(np.flatnonzero(mask)[0]))
    eng = Engine(2, seed=0)
    obs = np.zeros((2, 1), dtype=np.float32)
    assert fn.act(obs, eng.legal_mask(), GameView.all(eng)).shape == (2,)
    with pytest.raises(TypeError, match=r"agents.make_agent\('heuristic'\)"):
        as_policy("heuristic")
    with pytest.raises(TypeError, match="Policy protocol"):
        as_opponents(3.5)
    assert len(as_opponents(RandomPolicy())) == 1


def test_the_game_imports_none_of_its_players() -> None:
    """Importing the whole game package loads neither agents nor train (the lint's layer
    contract checks the source; this checks the running interpreter)."""
    vec = ", pasur_env.pasur.vector_env" if importlib.util.find_spec("stable_baselines3") else ""
    code = (
        f"import sys, pasur_env{vec}, pasur_env.core.loop; "
        "bad = [m for m in sys.modules if m.split('.')[0] in ('agents', 'train')]; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# ---- games are plug-ins: no shared module names a game ---------------------------------------
# The rule: a shared module (any module of pasur_env, agents and train that is not a game's
# own: outside the game's packages, such as pasur_env/rummy/ and agents/pasur/, and not
# named for it, such as rummy_terminal.py or pasur_v0.py) never uses a game id as a
# string constant to decide something: in a comparison or membership test (``game ==
# "pasur"``, ``game in ("pasur", ...)``), as a key of a dict literal (``{"pasur": ...}``),
# as a subscript (``names["pasur"]``, ``Literal["pasur", ...]``) or as a ``case``
# pattern. It asks the game's row instead (pasur_env.games, agents.games,
# train.move_net.games). A game id as a default (``game: str = "pasur"``,
# ``DEFAULT_GAME = "pasur"``), as a keyword argument (``evaluate(..., game="pasur")`` in
# a Pasur-only pipeline) or in text is not a decision and is allowed.
ROOT = Path(__file__).resolve().parents[1]


def _own_names() -> set[str]:
    """The names that make a module a game's own: the game ids and the packages the
    games' rows point at (``pasur``, ``rummy``)."""
    from pasur_env.games import GAMES

    names = set(GAMES)
    for info in GAMES.values():
        names.add(info.engine_path.partition(":")[0].split(".")[-2])
    return names


def _is_own(rel: PurePath, own: set[str]) -> bool:
    return (any(part in own for part in rel.parts[:-1])
            or any(name in rel.stem for name in own))


def game_id_decisions(source: str, ids: set[str]) -> list[tuple[int, str]]:
    """``(line, id)`` of every game id in ``source`` used to decide (the rule above)."""
    def consts(node: ast.AST | None) -> list[ast.Constant]:
        if isinstance(node, ast.Constant) and node.value in ids:
            return [node]
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return [c for elt in node.elts for c in consts(elt)]
        return []

    found: list[ast.Constant] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            for operand in (node.left, *node.comparators):
                found += consts(operand)
        elif isinstance(node, ast.Dict):
            for key in node.keys:
                found += consts(key)
        elif isinstance(node, ast.Subscript):
            found += consts(node.slice)
        elif isinstance(node, ast.MatchValue):
            found += consts(node.value)
    return sorted((c.lineno, c.value) for c in found)


def test_no_shared_module_decides_by_a_game_id() -> None:
    from pasur_env.games import GAMES

    ids, own = set(GAMES), _own_names()
    found = []
    for pkg in ("pasur_env", "agents", "train"):
        for path in sorted((ROOT / pkg).rglob("*.py")):
            rel = path.relative_to(ROOT)
            if _is_own(rel, own):
                continue
            for line, gid in game_id_decisions(path.read_text(encoding="utf-8"), ids):
                found.append(f"{rel}:{line}: {gid!r}")
    assert not found, "shared modules decide by a game id (ask the game's row):\n" + \
        "\n".join(found)


@pytest.mark.parametrize(("source", "decides"), [
    ('if game == "pasur": pass', True),
    ('x = 1 if g != "persian_rummy" else 2', True),
    ('ok = game in ("pasur", "persian_rummy")', True),
    ('TABLES = {"pasur": 1}', True),
    ('names = NAMES["pasur"]', True),
    ('g: Literal["pasur", "persian_rummy"]', True),
    ('match game:\n    case "pasur":\n        pass', True),
    ('def f(game: str = "pasur") -> None: pass', False),
    ('evaluate(a, b, game="pasur")', False),
    ('DEFAULT_GAME = "pasur"', False),
    ('"""Pasur and persian_rummy: the games."""', False),
])
def test_the_game_id_rule_can_fail(source: str, decides: bool) -> None:
    assert bool(game_id_decisions(source, {"pasur", "persian_rummy"})) is decides


def test_the_own_modules_of_a_game_are_told_from_shared_ones() -> None:
    own = _own_names()
    assert {"pasur", "persian_rummy", "rummy"} <= own
    for rel in ("pasur_env/rummy/engine.py", "agents/pasur/game.py", "pasur_env/pasur_v0.py",
                "agents/apps/rummy_terminal.py", "train/move_net/pasur.py"):
        assert _is_own(PurePath(rel), own), rel
    for rel in ("pasur_env/games.py", "agents/evaluation/match.py", "agents/apps/cli.py",
                "train/move_net/pipeline.py", "pasur_env/core/record.py"):
        assert not _is_own(PurePath(rel), own), rel
