"""Where numba keeps the compiled kernels: a writable folder outside the installed package.

Every kernel is compiled with ``cache=True``. Left alone, numba writes its cache next to
the source files (``site-packages/pasur_env/.../__pycache__``), falls back to its own
per-user folder, and raises ``RuntimeError: cannot cache function ... no locator
available`` when neither is writable (containers, cluster jobs with a read-only home),
so ``import pasur_env`` itself failed there. Files written inside the package also
outlive ``pip uninstall`` and make the package an empty namespace package.

:func:`configure_cache` runs once, first thing in ``import pasur_env`` (before any
kernel is defined: numba picks a kernel's cache folder when it is decorated). It
chooses, in order:

1. ``NUMBA_CACHE_DIR`` when the user set it (and it is writable);
2. ``$XDG_CACHE_HOME/pasur_env/<version>/numba-<v>-py<X.Y>/src-<stamp>`` (``~/.cache``
   when ``XDG_CACHE_HOME`` is unset): per user, per pasur_env, numba and Python version,
   so a new version never reads code compiled by an old one, and per *source stamp*
   (:func:`source_stamp`): numba checks a cached kernel against its own file only, so a
   kernel that calls a function of another module keeps the old callee's code after
   that module changes (an edited checkout, a pull, a merge) and runs stale rules; the
   stamp changes with any source file of the packages, and a changed tree compiles
   into a new folder;
3. the same path under the temporary folder, with one warning saying how to keep
   the cache (set ``NUMBA_CACHE_DIR``);
4. no cache at all (kernels compile in every process), with one warning.

It sets ``numba.config.CACHE_DIR`` and ``NUMBA_CACHE_DIR`` in ``os.environ`` (numba
re-reads the environment before each compilation, and worker processes inherit it),
and ``PASUR_ENV_AUTO_CACHE_DIR`` to the same folder: a child process (perhaps another
Python or version) that inherits both knows the folder was chosen, not set by the
user, and chooses its own.
:func:`cache_info` says what was chosen; ``pasur doctor`` prints it.
"""

from __future__ import annotations

import os
import stat
import sys
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path

import numba

__all__ = ["CacheInfo", "cache_info", "configure_cache", "cache_subdir", "find_cache_dir",
           "folder_size", "source_stamp", "writable_dir"]

#: the packages whose kernels share the cache (those present next to ``pasur_env``)
PACKAGES = ("pasur_env", "agents", "train")

#: how the cache folder was chosen (``CacheInfo.source``)
SOURCES = ("NUMBA_CACHE_DIR", "user", "temp", "none")
#: the environment variable naming a NUMBA_CACHE_DIR this module chose (not the user)
AUTO_ENV = "PASUR_ENV_AUTO_CACHE_DIR"


@dataclass(frozen=True)
class CacheInfo:
    """The cache in use.

    Attributes:
        path: the folder numba writes the compiled kernels to (None: no cache).
        source: ``NUMBA_CACHE_DIR`` (set by the user), ``user`` (the per-user cache
            folder), ``temp`` (the temporary folder) or ``none``.
        warning: what was said when falling back (empty when nothing was).
    """

    path: Path | None
    source: str
    warning: str = ""

    @property
    def enabled(self) -> bool:
        """Whether compiled kernels are kept between processes."""
        return self.path is not None


_INFO: CacheInfo | None = None


def source_stamp(roots: list[Path] | None = None) -> str:
    """A short digest of every ``.py`` file under ``roots`` (path, size and modification
    time; default: the :data:`PACKAGES` installed next to this one). Stat calls only, a
    millisecond or two for the project's few hundred files."""
    import hashlib

    if roots is None:
        top = Path(__file__).resolve().parents[2]
        roots = [top / name for name in PACKAGES if (top / name / "__init__.py").is_file()]
    digest = hashlib.blake2b(digest_size=6)
    for root in roots:
        for folder, dirs, files in sorted(os.walk(root)):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(f for f in files if f.endswith(".py")):
                path = os.path.join(folder, name)
                st = os.stat(path)
                digest.update(f"{path}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def cache_subdir(version: str, stamp: str | None = None) -> Path:
    """The version-specific part of the cache path:
    ``pasur_env/<version>/numba-<v>-py<X.Y>/src-<stamp>`` (``stamp``: :func:`source_stamp`)."""
    py = f"{sys.version_info[0]}.{sys.version_info[1]}"
    stamp = source_stamp() if stamp is None else stamp
    return Path("pasur_env") / version / f"numba-{numba.__version__}-py{py}" / f"src-{stamp}"


def writable_dir(path: Path, private: bool = False) -> bool:
    """Make ``path`` (and its parents) and check a file can be written in it.

    ``private``: the folder sits in a shared place (the temporary folder), so it must
    belong to this user and be writable by nobody else (a cache holds code to run).
    """
    try:
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
        if private and hasattr(os, "getuid"):
            st = path.stat()
            if st.st_uid != os.getuid() or st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
                return False
        tempfile.TemporaryFile(dir=path).close()
    except OSError:
        return False
    return True


def _user_cache_root() -> Path | None:
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg:
        return Path(xdg)
    try:
        return Path.home() / ".cache"
    except (RuntimeError, KeyError):  # no home directory to be found
        return None


def find_cache_dir(version: str) -> CacheInfo:
    """Choose the cache folder (see the module docstring); creates it, changes nothing else."""
    explicit = os.environ.get("NUMBA_CACHE_DIR", "")
    if explicit and explicit == os.environ.get(AUTO_ENV):  # chosen by a parent process
        explicit = ""
    skipped = ""
    if explicit:
        if writable_dir(Path(explicit)):
            return CacheInfo(Path(explicit), "NUMBA_CACHE_DIR")
        skipped = f"NUMBA_CACHE_DIR={explicit!r} is not writable; "
    sub = cache_subdir(version)
    root = _user_cache_root()
    if root is not None and writable_dir(root / sub):
        if skipped:
            return CacheInfo(root / sub, "user", skipped + f"caching in {root / sub}")
        return CacheInfo(root / sub, "user")
    user = f"{root / sub}" if root is not None else "the per-user cache folder (no home)"
    temp = _temp_cache(sub)
    if temp is not None:
        return CacheInfo(temp, "temp", skipped + (
            f"pasur_env: {user} is not writable; compiled kernels are cached in {temp} "
            "(the temporary folder). Set NUMBA_CACHE_DIR to a writable folder to keep them."))
    return CacheInfo(None, "none", skipped + (
        f"pasur_env: no writable cache folder ({user}, nor the temporary folder); kernels "
        "are compiled in every process. Set NUMBA_CACHE_DIR to a writable folder."))


def _temp_cache(sub: Path) -> Path | None:
    """``<tmp>/pasur_env-cache-<uid>/<sub>`` (kept between processes) when it is this
    user's alone, else a fresh private folder, else None."""
    try:
        top = Path(tempfile.gettempdir()) / f"pasur_env-cache-{_user_id()}"
        if writable_dir(top, private=True) and writable_dir(top / sub):
            return top / sub
        fresh = Path(tempfile.mkdtemp(prefix="pasur_env-cache-")) / sub
        return fresh if writable_dir(fresh) else None
    except OSError:  # no usable temporary folder at all
        return None


def _user_id() -> str:
    return str(os.getuid()) if hasattr(os, "getuid") else os.environ.get("USERNAME", "user")


def configure_cache(version: str) -> CacheInfo:
    """Choose the cache folder once per process and point numba at it (warns on fallback)."""
    global _INFO
    if _INFO is not None:
        return _INFO
    info = find_cache_dir(version)
    if info.path is not None:
        numba.config.CACHE_DIR = str(info.path)
        os.environ["NUMBA_CACHE_DIR"] = str(info.path)
        if info.source != "NUMBA_CACHE_DIR":
            os.environ[AUTO_ENV] = str(info.path)
    if info.warning:
        warnings.warn(info.warning, RuntimeWarning, stacklevel=2)
    _INFO = info
    return info


def cache_info() -> CacheInfo:
    """The cache chosen at import (``CacheInfo(None, "none")`` before it was)."""
    return _INFO if _INFO is not None else CacheInfo(None, "none")


def folder_size(path: Path) -> tuple[int, int]:
    """The number of files under ``path`` and their bytes (``(0, 0)`` when it is not a
    folder): what the kernel cache (``pasur doctor``) or a run's data takes on disk."""
    files = [p for p in Path(path).rglob("*") if p.is_file()] if Path(path).is_dir() else []
    return len(files), sum(p.stat().st_size for p in files)
