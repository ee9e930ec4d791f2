"""The documents stay true to the tree: every module is on the architecture map, the
README stays a short user's page whose Python blocks run as written, no document cites
an issue or "this machine", and the README's links lead to files.

Modules are matched by dotted name (``pasur_env.pasur.engine``; a package by its own
name), written in backquotes as the first cell of a table row of docs/architecture.md.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("pasur_env", "agents", "train")
ARCHITECTURE = ROOT / "docs" / "architecture.md"
README = ROOT / "README.md"
README_MAX_CHARS = 10_000
#: what no document may say: an issue number (the reader has no tracker) or "this machine"
CITATION = re.compile(r"\b[Ii]ssue[- ]?#?[0-9]+|#[0-9]+\b|this machine")
#: the documents a reader sees
DOCS = [README, *sorted((ROOT / "docs").glob("*.md")), ROOT / "agents" / "pretrained" / "README.md"]
#: the first cell of a table row: | `dotted.name` |
MAP_ROW = re.compile(r"^\|\s*`([A-Za-z_][\w.]*)`\s*\|", re.M)
#: a Markdown link [text](target); targets with a scheme or a lone anchor are not files
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def modules_in_tree(root: Path = ROOT) -> set[str]:
    """The dotted names of every module under the three packages (a file walk)."""
    names = set()
    for package in PACKAGES:
        for path in (root / package).rglob("*.py"):
            parts = path.relative_to(root).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            names.add(".".join(parts))
    return names


def modules_on_map(text: str) -> set[str]:
    """The dotted names in the first column of the architecture tables."""
    return {name for name in MAP_ROW.findall(text) if name.split(".")[0] in PACKAGES}


def citations(text: str) -> list[str]:
    """The lines of ``text`` that cite an issue or "this machine"."""
    return [line for line in text.splitlines() if CITATION.search(line)]


def broken_links(text: str, base: Path) -> list[str]:
    """The link targets of ``text`` that are not files or folders under ``base``."""
    broken = []
    for target in LINK.findall(text):
        if re.match(r"^[a-z]+:", target) or target.startswith("#"):
            continue
        path = target.split("#", 1)[0]
        if not (base / path).exists():
            broken.append(target)
    return broken


def test_every_module_is_on_the_architecture_map():
    missing = sorted(modules_in_tree() - modules_on_map(ARCHITECTURE.read_text()))
    assert not missing, (
        "modules missing from docs/architecture.md (add a row `| `name` | its job |` to "
        "its folder's table): " + ", ".join(missing)
    )


def test_the_architecture_map_names_only_modules():
    gone = sorted(modules_on_map(ARCHITECTURE.read_text()) - modules_in_tree())
    assert not gone, "docs/architecture.md lists modules that do not exist: " + ", ".join(gone)


def test_readme_is_short():
    size = len(README.read_text())
    assert size <= README_MAX_CHARS, (
        f"README.md has {size} characters, more than {README_MAX_CHARS}: "
        "move figures to docs/results.md and method to docs/"
    )


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_document_cites_an_issue_or_this_machine(doc):
    found = citations(doc.read_text())
    assert not found, f"{doc.relative_to(ROOT)} cites an issue or 'this machine': {found}"


@pytest.mark.parametrize("doc", [README, *sorted((ROOT / "docs").glob("*.md"))],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_links_resolve_to_files(doc):
    broken = broken_links(doc.read_text(), doc.parent)
    assert not broken, f"{doc.relative_to(ROOT)} links to missing files: {broken}"


def test_readme_python_blocks_run():
    """Each Python block of the README runs as written, and what its comments say of the
    Gymnasium env holds: the mask is ``info["action_mask"]`` and ``env.action_masks()``."""
    import gymnasium
    import numpy as np

    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert len(blocks) >= 3
    gym_blocks = 0
    for k, block in enumerate(blocks):
        ns: dict = {}
        exec(compile(block, f"README.md, Python block {k + 1}", "exec"), ns)  # noqa: S102
        env = ns.get("env")
        if isinstance(env, gymnasium.Env):
            gym_blocks += 1
            obs, info = env.reset(seed=0)
            legal = env.unwrapped.games.learner_masks()[0]
            assert legal.any() and np.array_equal(env.action_masks(), legal)
            assert np.array_equal(info["action_mask"], legal)
    assert gym_blocks >= 1


def test_the_checks_can_fail(tmp_path):
    """Each check finds what it is there to find (so a passing run means something)."""
    (tmp_path / "pasur_env" / "core").mkdir(parents=True)
    (tmp_path / "pasur_env" / "__init__.py").write_text("")
    (tmp_path / "pasur_env" / "core" / "new.py").write_text("")
    for package in PACKAGES[1:]:
        (tmp_path / package).mkdir()
    tree = modules_in_tree(tmp_path)
    assert tree == {"pasur_env", "pasur_env.core.new"}
    assert tree - modules_on_map("| `pasur_env` | the package |\n") == {"pasur_env.core.new"}
    assert citations("as measured on this machine\nsee issue 10\nfixed in #12\nrules §4") == [
        "as measured on this machine", "see issue 10", "fixed in #12"]
    assert broken_links("[a](missing.md) [b](https://x.org) [c](#top)", tmp_path) == ["missing.md"]
