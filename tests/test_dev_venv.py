"""The development venv's recipe: what ``make venv`` installs (the Makefile's extras and
dependency groups, pyproject.toml) and that constraints.txt pins it.

Read statically, so these hold in any venv: the multi-agent examples' libraries must be
installed by ``make venv`` itself (``make test`` then runs tests/test_marl.py instead of
skipping it), and each requirement of what it installs must have a pin in constraints.txt
that satisfies the requirement (``make lint`` checks the installed venv's names, not the
specifiers)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

tomllib = pytest.importorskip("tomllib")  # Python 3.11+

ROOT = Path(__file__).resolve().parent.parent
MARL_LIBRARIES = {"tianshou", "torchrl", "tensordict"}


def dev_install_args(makefile: str) -> list[str]:
    """The arguments of the pip install in the recipe of ``$(VENV)/.installed-dev``."""
    text = makefile.replace("\\\n", " ")
    m = re.search(r"^\$\(VENV\)/\.installed-dev:.*\n\t\$\(PIP_INSTALL\) (.*)$", text,
                  re.MULTILINE)
    assert m, "the Makefile has no $(VENV)/.installed-dev recipe installing with $(PIP_INSTALL)"
    return m.group(1).split()


def installed_requirements(args: list[str], pyproject: dict) -> list[Requirement]:
    """The requirements that ``pip install ARGS`` installs from pyproject.toml: the
    project's dependencies, the named extras and the ``--group`` dependency groups (with
    their ``include-group`` entries)."""
    groups = pyproject["dependency-groups"]

    def group(name: str) -> list[str]:
        out = []
        for item in groups[name]:
            out += group(item["include-group"]) if isinstance(item, dict) else [item]
        return out

    project = pyproject["project"]
    reqs = list(project["dependencies"])
    for arg in args:
        m = re.fullmatch(r"""["']?\.\[([^\]]+)\]["']?""", arg)
        if m:
            for extra in m.group(1).split(","):
                reqs += project["optional-dependencies"][extra.strip()]
    reqs += [r for i, a in enumerate(args[:-1]) if a == "--group" for r in group(args[i + 1])]
    return [Requirement(r) for r in reqs]


def pins(constraints: str) -> dict[str, str]:
    """Canonical name -> pinned version of each ``name==version`` line."""
    out = {}
    for line in constraints.splitlines():
        text = line.split("#", 1)[0].strip()
        if "==" in text:
            name, version = text.split("==", 1)
            out[canonicalize_name(name)] = version.strip()
    return out


def _dev_requirements() -> list[Requirement]:
    args = dev_install_args((ROOT / "Makefile").read_text())
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return installed_requirements(args, pyproject)


def test_make_venv_installs_the_multi_agent_libraries():
    """Tianshou and TorchRL are installed by ``make venv`` (so ``make test`` runs
    tests/test_marl.py), not left to a venv of their own."""
    names = {canonicalize_name(r.name) for r in _dev_requirements()}
    assert MARL_LIBRARIES <= names, f"make venv does not install {MARL_LIBRARIES - names}"


def test_constraints_pin_what_make_venv_installs_within_its_specifiers():
    pinned = pins((ROOT / "constraints.txt").read_text())
    bad = []
    for req in _dev_requirements():
        if req.marker is not None and not req.marker.evaluate():
            continue
        version = pinned.get(canonicalize_name(req.name))
        if version is None or not req.specifier.contains(version, prereleases=True):
            bad.append(f"{req} (constraints.txt: {version})")
    assert not bad, f"constraints.txt does not satisfy: {bad}"


def test_the_helpers_can_fail():
    """The parsers see a missing group, a missing pin and a pin outside a specifier."""
    makefile = ("$(VENV)/.installed-dev: pyproject.toml | x\n"
                "\t$(PIP_INSTALL) -e \".[train]\" --group dev \\\n\t  --group marl\n")
    pyproject = {"project": {"dependencies": ["numpy>=1.25"],
                             "optional-dependencies": {"train": ["torch>=2.3"]}},
                 "dependency-groups": {"dev": ["pytest>=8"],
                                       "marl": [{"include-group": "dev"}, "tianshou>=2"]}}
    args = dev_install_args(makefile)
    names = [r.name for r in installed_requirements(args, pyproject)]
    assert names == ["numpy", "torch", "pytest", "pytest", "tianshou"]
    assert "tianshou" not in [r.name for r in installed_requirements(args[:-2], pyproject)]
    assert pins("# c\nTorch_RL==0.14.1  # why\nfoo>=1\n") == {"torch-rl": "0.14.1"}
    assert not Requirement("tianshou>=2.0.1").specifier.contains("2.0.0")
