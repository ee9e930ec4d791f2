"""``pasur doctor``: what is installed, where it was imported from, where the cache is.

The distribution installs three top-level packages, ``pasur_env``, ``agents`` and
``train``. Other distributions install packages by those names too (the PyPI
``agents`` and ``train``, openai-agents' ``agents``), and a user's own ``agents/``
folder or ``train.py`` in the current folder comes first on ``sys.path``: any of them
silently replaces ours. The report says where each of the three comes from and
warns when ``agents`` or ``train`` is not the one installed next to ``pasur_env``.
"""

from __future__ import annotations

import importlib.machinery
import importlib.metadata as metadata
import importlib.util
import os
import platform
import sys
from pathlib import Path

import pasur_env
from pasur_env.core.cache import cache_info, folder_size

__all__ = ["doctor_report", "foreign_packages", "package_origin"]

#: (distribution, shown as) whose versions are reported; the core first
CORE = (("numpy", "numpy"), ("numba", "numba"), ("gymnasium", "gymnasium"),
        ("pettingzoo", "pettingzoo"))
OPTIONAL = (("torch", "torch"), ("stable-baselines3", "stable-baselines3"),
            ("sb3-contrib", "sb3-contrib"), ("fastapi", "fastapi"), ("uvicorn", "uvicorn"),
            ("ray", "ray"), ("open_spiel", "open_spiel"))
#: the top-level packages of the distribution
PACKAGES = ("pasur_env", "agents", "train")
DIST = "pasur-env"


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def package_origin(name: str) -> Path | None:
    """The folder package ``name`` is (or would be) imported from, without importing it."""
    module = sys.modules.get(name)
    origin = getattr(module, "__file__", None)
    if origin is None:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            return None
        origin = spec.origin if spec is not None else None
        if origin is None and spec is not None and spec.submodule_search_locations:
            return Path(list(spec.submodule_search_locations)[0]).resolve()
    return Path(origin).resolve().parent if origin else None


def _dist_folders() -> dict[str, Path]:
    """Where the installed pasur-env put each of its packages (empty for an editable
    install or a source checkout, whose files the metadata does not list)."""
    try:
        files = metadata.distribution(DIST).files or []
    except metadata.PackageNotFoundError:
        return {}
    dist = metadata.distribution(DIST)
    return {f.parts[0]: Path(str(dist.locate_file(f))).resolve().parent
            for f in files if len(f.parts) == 2 and f.parts[1] == "__init__.py"}


def _shadow_here(name: str) -> Path | None:
    """A module or package ``name`` in the current folder: what ``python script.py``
    or ``python -m`` run here would import instead (``pasur`` itself is unaffected)."""
    spec = importlib.machinery.PathFinder.find_spec(name, [os.getcwd()])
    if spec is None:
        return None
    return Path(spec.origin or os.getcwd()).resolve()


def foreign_packages() -> list[str]:
    """Warnings: ``agents`` or ``train`` imported from elsewhere than pasur-env's, shadowed
    by a file or folder in the current folder, or also provided by another distribution."""
    warnings = []
    home = package_origin("pasur_env")
    installed = _dist_folders()
    for name in PACKAGES[1:]:
        where = package_origin(name)
        expected = (installed.get(name) or (home.parent / name if home else None))
        expected = expected.resolve() if expected is not None else None
        here = _shadow_here(name)
        if where is None:
            warnings.append(f"`{name}` cannot be imported (expected in {expected})")
        elif expected is not None and where != expected:
            warnings.append(f"`{name}` is imported from {where}, not pasur-env's {expected}: "
                            f"a folder or another distribution named `{name}` shadows it")
        elif here is not None and expected is not None and not here.is_relative_to(expected):
            warnings.append(f"{here} shadows pasur-env's `{name}` for scripts run in this "
                            "folder (python script.py, python -m); rename it or run elsewhere")
    owners = metadata.packages_distributions()
    for name in PACKAGES[1:]:
        others = sorted({d for d in owners.get(name, []) if d.lower().replace("_", "-") != DIST})
        if others:
            warnings.append(f"`{name}` is also installed by {', '.join(others)}: the files "
                            "of one overwrite the other's; use a virtual environment of its own")
    return warnings


def doctor_report() -> tuple[list[str], list[str]]:
    """The report's lines and its warnings (also among the lines)."""
    lines = [f"pasur-env {pasur_env.__version__} (installed metadata: {_version(DIST)})",
             f"python {platform.python_version()} ({sys.executable})"]
    lines += [f"{shown} {_version(dist)}" for dist, shown in CORE]
    lines += [f"{shown} {_version(dist)} (optional)" for dist, shown in OPTIONAL]
    for name in PACKAGES:
        lines.append(f"{name} imported from {package_origin(name) or 'nowhere (not found)'}")
    info = cache_info()
    if info.path is None:
        lines.append("kernel cache: none (kernels compile in every process)")
    else:
        n, size = folder_size(info.path)
        lines.append(f"kernel cache: {info.path} ({info.source}; {n} files, "
                     f"{size / 1e6:.1f} MB); move it with NUMBA_CACHE_DIR, clear it by "
                     "deleting the folder")
    warnings = ([info.warning] if info.warning else []) + foreign_packages()
    lines += [f"WARNING: {w}" for w in warnings]
    return lines, warnings
