"""The import-linter contracts can fail: an import that crosses a layer breaks `make lint`.

Each test copies the three packages and ``pyproject.toml`` to a temporary folder, adds one
forbidden import to one module, and runs ``lint-imports`` there: it must name the broken
contract. The unmodified copy must keep every contract (the same check as ``make lint``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT = Path(sys.executable).with_name("lint-imports")

pytestmark = pytest.mark.skipif(not LINT.exists(), reason="import-linter is in the dev extra")


def _lint(tree: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(tree))
    return subprocess.run([str(LINT), "--no-cache"], cwd=tree, env=env, text=True,
                          capture_output=True, timeout=300)


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dst = tmp_path_factory.mktemp("tree")
    for pkg in ("pasur_env", "agents", "train"):
        shutil.copytree(ROOT / pkg, dst / pkg,
                        ignore=shutil.ignore_patterns("__pycache__", "*.npz", "*.zip", "static"))
    shutil.copy(ROOT / "pyproject.toml", dst / "pyproject.toml")
    return dst


def _broken(stdout: str) -> list[str]:
    """The names of the contracts lint-imports reports broken."""
    return [line.rsplit(" BROKEN", 1)[0] for line in stdout.splitlines()
            if line.endswith(" BROKEN")]


def test_the_tree_keeps_every_contract(tree: Path) -> None:
    out = _lint(tree)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "0 broken" in out.stdout


@pytest.mark.parametrize(
    ("module", "line", "contract"),
    [
        ("pasur_env.pasur.cards", "import pasur_env.rummy.cards",
         "the two games import each other nowhere"),
        ("pasur_env.rummy.rules", "import pasur_env.pasur.rules",
         "the two games import each other nowhere"),
        ("pasur_env.core.loop", "import pasur_env.pasur.engine",
         "pasur_env.core is game-agnostic"),
        ("agents.rummy.greedy", "import agents.pasur.greedy",
         "the players of the two games import each other nowhere"),
        ("agents.pasur.greedy", "import agents.evaluation.stats",
         "players import neither evaluation nor apps"),
        ("pasur_env.pasur.engine", "import agents.registry",
         "the game never imports its players"),
    ],
)
def test_a_forbidden_import_breaks_its_contract(tree: Path, module: str, line: str,
                                               contract: str) -> None:
    path = tree / (module.replace(".", "/") + ".py")
    original = path.read_text()
    path.write_text(original + f"\n{line}  # added by the test\n")
    try:
        out = _lint(tree)
    finally:
        path.write_text(original)
    assert out.returncode != 0, out.stdout
    broken = _broken(out.stdout)
    assert any(contract in name for name in broken), out.stdout
