"""The guide's examples (docs/your_agent.md, examples/) run as a user runs them.

From a temporary folder outside the repository, through the ``pasur`` command: a
Pasur agent from its file and as ``module:Class`` on ``PYTHONPATH``, the batched agent,
a tournament of both, the exact exploitability on ``mini``, the Persian Rummy agent,
and an agent of the example package installed by pip into a temporary folder (its
``pasur_env.agents`` entry point). The commands are ``.ci/wheel_smoke.py``'s
(:func:`example_commands`), which CI runs again against the installed wheel. In
process: the batched agent chooses what the one-decision-at-a-time agent chooses.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from agents import make_agent
from pasur_env import GameView
from pasur_env.pasur.engine import Engine

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


def _smoke():
    """``.ci/wheel_smoke.py`` as a module (it is a script, not a package module)."""
    path = ROOT / ".ci" / "wheel_smoke.py"
    spec = importlib.util.spec_from_file_location("wheel_smoke", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("wheel_smoke", mod)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example package, installed with pip into a temporary folder."""
    target = tmp_path_factory.mktemp("site")
    _smoke().install_package(EXAMPLES / "my_agents_pkg", target)
    return target


NAMES = ["eval path/my_agent.py:MostCards greedy", "eval my_agent:MostCards (PYTHONPATH) random",
         "eval batched_agent.py:BatchedMostCards greedy", "tournament of both and greedy",
         "exploitability of MostCards on mini",
         "eval --game persian_rummy rummy_agent.py:MeldFirst random",
         "eval mostpoints (an installed entry point) greedy"]


def test_the_smoke_runs_every_example_command(tmp_path: Path) -> None:
    assert [name for name, _, _ in _smoke().example_commands(EXAMPLES, tmp_path)] == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_example_command_runs_outside_the_repository(name: str, site: Path, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    smoke = _smoke()
    args, path = next((a, p) for n, a, p in smoke.example_commands(EXAMPLES, site) if n == name)
    monkeypatch.chdir(tmp_path)
    data = smoke.run_example(args, path)
    assert smoke.example_summary(data)
    if "rounds" in data:  # a match: the example agent played all its rounds as player A
        assert data["rounds"] == (4 if "persian_rummy" in args else smoke.EXAMPLE_ROUNDS)
        assert data["a"] == args[args.index("--game") + 2 if "--game" in args else 1]
        origin = "entry point my-agents 0.1" if path == site else "spec"
        assert data["provenance"]["a"]["origin"] == origin
    elif "ladder" in data:
        assert len(data["ladder"]) == 3
    else:
        assert data["nash_conv"] > 0


def test_the_batched_agent_chooses_what_most_cards_chooses() -> None:
    mine = make_agent(f"{EXAMPLES / 'my_agent.py'}:MostCards")
    batched = make_agent(f"{EXAMPLES / 'batched_agent.py'}:BatchedMostCards")
    eng = Engine(num_games=64, seed=3)
    rng = np.random.default_rng(0)
    decisions = 0
    for _ in range(80):  # random play, so that positions vary (mid-capture ones included)
        mask = eng.legal_mask()
        live = np.flatnonzero(mask.any(axis=1))
        if live.size == 0:
            break
        view = GameView(eng, live)
        np.testing.assert_array_equal(mine.act(None, mask[live], view),
                                      batched.act(None, mask[live], view))
        decisions += live.size
        eng.step([rng.choice(np.flatnonzero(mask[g])) for g in live], games=live)
    assert decisions > 2000


def test_the_guide_quotes_the_example_files_as_they_are() -> None:
    guide = (ROOT / "docs" / "your_agent.md").read_text(encoding="utf-8")
    quoted = dict(re.findall(r"```python\n# (examples/\S+)\n(.*?)```", guide, flags=re.S))
    assert sorted(quoted) == ["examples/batched_agent.py", "examples/my_agent.py",
                              "examples/rummy_agent.py"]
    for path, text in quoted.items():
        assert text == (ROOT / path).read_text(encoding="utf-8"), f"{path} differs from the guide"
