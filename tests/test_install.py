"""Installed use: the kernel cache, missing extras, ``pasur doctor`` and ``pasur warmup``.

Most cases run a fresh interpreter (the cache folder is chosen once, at import; a
missing module must be missing before anything imports it). Modules are made
missing with a ``sitecustomize`` that sets ``sys.modules[name] = None``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from pasur_env.core import cache as cache_mod
from pasur_env.core.extras import MissingExtraError, as_missing_extra, missing_extra

ROOT = Path(__file__).resolve().parents[1]
BLOCKER = "import os, sys\nfor m in os.environ.get('BLOCK', '').split(','):\n    if m:\n" \
          "        sys.modules[m] = None\n"


def _run(args: list[str], tmp: Path, block: str = "", cwd: Path = ROOT,
         env: dict[str, str] | None = None, pythonpath: str | None = None,
         ) -> subprocess.CompletedProcess:
    """``python args`` with ``block``'s modules missing and the repo on the path."""
    site = tmp / "site"
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(BLOCKER)
    full = {**os.environ, "BLOCK": block, "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONPATH": os.pathsep.join([str(site), pythonpath or str(ROOT)]), **(env or {})}
    return subprocess.run([sys.executable, *args], cwd=cwd, env=full, capture_output=True,
                          text=True, timeout=300)


def _cli(tmp: Path, *argv: str, block: str = "", cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """The ``pasur`` console script: its folder, not the current one, is on sys.path."""
    runner = tmp / "bin" / "pasur_cli.py"
    runner.parent.mkdir(exist_ok=True)
    runner.write_text("import sys\nfrom agents.apps.cli import main\nsys.exit(main())\n")
    return _run([str(runner), *argv], tmp, block=block, cwd=cwd)


def _one_line_error(res: subprocess.CompletedProcess, extra: str) -> None:
    assert "Traceback" not in res.stderr, res.stderr
    lines = [x for x in res.stderr.splitlines() if "error:" in x]
    assert len(lines) == 1 and f"pip install 'pasur-env[{extra}]'" in lines[0], res.stderr


# -- the kernel cache ---------------------------------------------------------------------

def test_import_with_read_only_package_and_home(tmp_path) -> None:
    """No writable folder next to the package nor under $HOME: the import still works,
    with one warning, and the kernels are cached under the temporary folder."""
    pkg = tmp_path / "ro"
    shutil.copytree(ROOT / "pasur_env", pkg / "pasur_env",
                    ignore=shutil.ignore_patterns("__pycache__"))
    for d in [pkg, *pkg.rglob("*")]:
        if d.is_dir():
            (d / "__pycache__").write_text("")  # numba cannot make its folder here (even root)
    (tmp_path / "afile").write_text("")
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    env = {"HOME": str(tmp_path / "afile" / "home"), "TMPDIR": str(tmpdir)}
    env = {**{k: v for k, v in os.environ.items()
              if k not in ("XDG_CACHE_HOME", "NUMBA_CACHE_DIR")}, **env}
    code = ("import warnings; warnings.simplefilter('default')\n"
            "import pasur_env\nfrom pasur_env.core.cache import cache_info\n"
            "from pasur_env.core.bits import popcount\n"
            "print(cache_info().source, cache_info().path, popcount(7))")
    for p in [pkg, *pkg.rglob("*")]:
        p.chmod(p.stat().st_mode & ~0o222)
    try:
        full = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                              text=True, timeout=300,
                              env={**env, "PYTHONPATH": str(pkg), "PYTHONDONTWRITEBYTECODE": "1"})
    finally:
        for p in [pkg, *pkg.rglob("*")]:
            p.chmod(p.stat().st_mode | 0o200)
    assert full.returncode == 0, full.stderr
    assert full.stderr.count("RuntimeWarning") == 1 and "NUMBA_CACHE_DIR" in full.stderr
    source, path, count = full.stdout.split()
    assert source == "temp" and Path(path).is_relative_to(tmpdir) and count == "3"
    assert not [p for p in pkg.rglob("*") if p.suffix in (".nbi", ".nbc")]


def test_cache_respects_numba_cache_dir(tmp_path) -> None:
    code = ("import numba, pasur_env\nfrom pasur_env.core.cache import cache_info\n"
            "from pasur_env.core.bits import popcount\n"
            "print(cache_info().source, numba.config.CACHE_DIR, popcount.stats.cache_path)")
    res = _run(["-c", code], tmp_path, env={"NUMBA_CACHE_DIR": str(tmp_path / "nc")})
    assert res.returncode == 0, res.stderr
    source, config_dir, kernel_dir = res.stdout.split()
    assert source == "NUMBA_CACHE_DIR" and config_dir == str(tmp_path / "nc")
    assert Path(kernel_dir).is_relative_to(tmp_path / "nc")


def test_a_changed_source_file_changes_the_cache_folder(tmp_path) -> None:
    """numba checks a cached kernel against its own file only: a kernel whose callee in
    another module changed would run the old callee. Any change of a source file (its
    size or modification time) gives a new stamp, so a new cache folder."""
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "a.py").write_text("x = 1\n")
    (pkg / "sub" / "b.py").write_text("y = 2\n")
    (pkg / "notes.txt").write_text("not source")
    first = cache_mod.source_stamp([pkg])
    assert first == cache_mod.source_stamp([pkg]) and len(first) == 12
    (pkg / "notes.txt").write_text("still not source")
    assert cache_mod.source_stamp([pkg]) == first
    (pkg / "sub" / "b.py").write_text("y = 3\n")
    os.utime(pkg / "sub" / "b.py", ns=(1, 1))
    second = cache_mod.source_stamp([pkg])
    assert second != first
    (pkg / "sub" / "b.py").write_text("y = 33\n")  # a new size
    os.utime(pkg / "sub" / "b.py", ns=(1, 1))
    assert cache_mod.source_stamp([pkg]) != second
    assert cache_mod.cache_subdir("9.9", "abc").parts[3] == "src-abc"


def test_cache_folder_choice(tmp_path, monkeypatch) -> None:
    """The order: NUMBA_CACHE_DIR, the per-user folder (named after the versions), the
    temporary folder, none; an unwritable NUMBA_CACHE_DIR is said and skipped."""
    blocked = tmp_path / "afile"
    blocked.write_text("")
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(blocked / "x"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    info = cache_mod.find_cache_dir("9.9")
    sub = cache_mod.cache_subdir("9.9")
    assert info.source == "user" and info.path == tmp_path / "xdg" / sub
    assert "not writable" in info.warning and sub.parts[:2] == ("pasur_env", "9.9")
    assert sub.parts[2] == f"numba-{cache_mod.numba.__version__}-py{sys.version_info[0]}." \
                           f"{sys.version_info[1]}"
    assert sub.parts[3] == f"src-{cache_mod.source_stamp()}"
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    assert cache_mod.find_cache_dir("9.9").warning == ""
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked / "xdg"))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "t"))
    info = cache_mod.find_cache_dir("9.9")
    assert info.source == "temp" and info.path.is_relative_to(tmp_path / "t")
    assert "NUMBA_CACHE_DIR" in info.warning
    monkeypatch.setattr(tempfile, "tempdir", str(blocked / "t"))
    info = cache_mod.find_cache_dir("9.9")
    assert info.source == "none" and info.path is None and not info.enabled


def test_no_cache_folder_compiles_without_caching(monkeypatch) -> None:
    from pasur_env.core.compile import njit

    monkeypatch.setattr(cache_mod, "_INFO", cache_mod.CacheInfo(None, "none"))

    def inc(x: int) -> int:
        return x + 1

    kernel = njit(cache=True)(inc)
    assert kernel(1) == 2 and type(kernel._cache).__name__ == "NullCache"


# -- missing extras -----------------------------------------------------------------------

def test_missing_extra_message() -> None:
    err = missing_extra("pasur serve", "web", ModuleNotFoundError("x", name="uvicorn"))
    assert isinstance(err, ImportError) and isinstance(err, MissingExtraError)
    assert str(err) == ("the web extra is needed for pasur serve: pip install "
                        "'pasur-env[web]' (missing module: uvicorn)")
    assert "pasur-env[train]" in str(as_missing_extra(ModuleNotFoundError(name="tyro"), "x"))
    assert as_missing_extra(ModuleNotFoundError(name="agents.nope"), "x") is None
    assert as_missing_extra(ValueError("x"), "x") is None


@pytest.mark.parametrize("argv,block,extra", [
    (["eval", "ppo", "greedy", "--rounds", "2"], "torch,stable_baselines3,sb3_contrib", "train"),
    (["eval", "rllib:runs/none", "greedy", "--rounds", "2"], "ray", "rllib"),
    (["serve"], "fastapi,uvicorn", "web"),
])
def test_cli_names_the_missing_extra(tmp_path, argv, block, extra) -> None:
    res = _cli(tmp_path, *argv, block=block)
    assert res.returncode == 2
    _one_line_error(res, extra)


def test_vector_env_names_the_train_extra(tmp_path) -> None:
    code = ("try:\n    from pasur_env import PasurVecEnv\nexcept ImportError as e:\n"
            "    print(type(e).__name__, e)")
    res = _run(["-c", code], tmp_path, block="stable_baselines3")
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("MissingExtraError") and "pasur-env[train]" in res.stdout


def test_training_script_names_the_train_extra(tmp_path) -> None:
    res = _run(["-m", "train.move_net", "--help"], tmp_path, block="tyro")
    assert res.returncode == 1
    _one_line_error(res, "train")


# -- pasur doctor and pasur warmup --------------------------------------------------------

def test_doctor_reports(tmp_path) -> None:
    res = _cli(tmp_path, "doctor", cwd=tmp_path)
    assert res.returncode == 0, res.stdout + res.stderr
    for name in ("pasur_env", "agents", "train"):
        assert f"{name} imported from {ROOT / name}" in res.stdout
    assert "kernel cache: " in res.stdout and "numba " in res.stdout
    assert "WARNING" not in res.stdout


@pytest.mark.parametrize("shadow", ["agents/__init__.py", "train.py"])
def test_doctor_warns_of_a_shadowing_agents_or_train(tmp_path, shadow) -> None:
    here = tmp_path / "project"
    (here / shadow).parent.mkdir(parents=True, exist_ok=True)
    (here / shadow).write_text("")
    res = _cli(tmp_path, "doctor", cwd=here)
    assert res.returncode == 1
    name = shadow.split("/")[0].removesuffix(".py")
    warning = [x for x in res.stdout.splitlines() if x.startswith("WARNING")]
    assert len(warning) == 1 and f"`{name}`" in warning[0] and str(here) in warning[0]


def test_doctor_warns_when_agents_comes_from_elsewhere(tmp_path) -> None:
    """A fake ``agents`` first on sys.path (after the doctor was imported)."""
    fake = tmp_path / "fake" / "agents"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("")
    code = ("import sys\nfrom agents.apps.doctor import doctor_report\n"
            f"sys.path.insert(0, {str(fake.parent)!r})\n"
            "for m in [m for m in sys.modules if m == 'agents' or m.startswith('agents.')]:\n"
            "    del sys.modules[m]\n"
            "import agents\nlines, warnings = doctor_report()\nprint('\\n'.join(warnings))")
    res = _run(["-c", code], tmp_path, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert str(fake) in res.stdout and "shadows it" in res.stdout


def test_compile_progress_says_when_it_compiles(tmp_path) -> None:
    """A cold cache: the compilation is announced on stderr; a warm one is silent."""
    (tmp_path / "mod").mkdir()
    (tmp_path / "mod" / "tiny_kernel.py").write_text(
        "from pasur_env.core.compile import njit\n\n@njit(cache=True)\n"
        "def tiny(x):\n    return x + 1\n")
    code = ("import sys\nsys.path.insert(0, sys.argv[1])\n"
            "from pasur_env.core.compile import compile_progress\nimport tiny_kernel\n"
            "from pasur_env.core.compile import BatchKernel, warm_parallel_twins\n"
            "with compile_progress(prefix='t'):\n    print(tiny_kernel.tiny(1))\n"
            "    k = BatchKernel(tiny_kernel.tiny, 1)\n    warm_parallel_twins()\n"
            "    assert k.build(True).signatures == tiny_kernel.tiny.signatures")
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    cold = _run(["-c", code, str(tmp_path / "mod")], tmp_path, env=env)
    assert cold.returncode == 0 and cold.stdout == "2\n", cold.stderr
    assert "t: compiling kernels (first run only" in cold.stderr
    assert "t: compiled 2 kernels" in cold.stderr  # the kernel and its parallel twin
    warm = _run(["-c", code, str(tmp_path / "mod")], tmp_path, env=env)
    assert warm.stdout == "2\n" and "compil" not in warm.stderr


def test_warmup_runs_every_step(tmp_path) -> None:
    code = ("import sys\nfrom agents.apps.warmup import warmup\n"
            "warmup(['persian_rummy'], agents=['greedy'], parallel=False, out=sys.stdout)")
    res = _run(["-c", code], tmp_path)
    assert res.returncode == 0, res.stderr
    for step in ("PettingZoo env", "Gymnasium env", "vector env", "agent greedy"):
        assert f"pasur warmup: persian_rummy: {step} (" in res.stdout
    assert "done in" in res.stdout


def test_a_chosen_cache_folder_is_not_taken_for_the_users(tmp_path, monkeypatch) -> None:
    """A child process inheriting the folder its parent chose chooses its own."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "parent"))
    monkeypatch.setenv(cache_mod.AUTO_ENV, str(tmp_path / "parent"))
    info = cache_mod.find_cache_dir("9.9")
    assert info.source == "user" and info.path.is_relative_to(tmp_path / "xdg")


def test_tournament_plot_names_the_extra_before_playing(tmp_path) -> None:
    res = _cli(tmp_path, "tournament", "random", "greedy", "--rounds", "2", "--plot",
               str(tmp_path / "x.png"), "--no-progress", block="matplotlib")
    assert res.returncode == 2 and res.stdout == ""
    _one_line_error(res, "train")
