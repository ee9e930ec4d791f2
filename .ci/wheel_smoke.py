"""Use an installed pasur-env as a researcher would, from a folder outside the repository.

`make test-wheel` (.ci/test_wheel.sh) copies this file into an empty temporary folder and
runs it there with the python of a fresh venv that holds the built wheel. It first proves
that ``pasur_env``, ``agents`` and ``train`` come from that venv's site-packages and that
no folder of the repository is on ``sys.path``, then runs what the README promises:

- ``core``: ``pasur doctor``, the README's python quick starts, both PettingZoo
  ``api_test``s and ``pasur eval greedy random`` (a core install: no extras);
- ``full`` (the ``train`` and ``web`` extras) adds ``pasur serve`` answering ``GET /``, a
  tiny training run of the main pipeline (``python -m train.move_net --config tiny``) and
  the commands of docs/your_agent.md on the agents of ``examples/`` (:func:`example_commands`;
  ``tests/test_examples.py`` runs the same list against the development install).

Each check prints one ``smoke:`` line; the first failure ends the run with exit code 1.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import sysconfig
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

T0 = time.monotonic()


def log(msg: str) -> None:
    """One ``smoke:`` line with the seconds since the start (the CI log quotes these)."""
    print(f"smoke: [{time.monotonic() - T0:6.1f}s] {msg}", flush=True)


def check(name: str, fn: Callable[[], str | None]) -> None:
    """Run one check, log ``ok``/``FAILED`` with its time, and exit 1 on a failure."""
    start = time.monotonic()
    try:
        detail = fn()
    except Exception as e:  # any failure is reported, then fatal
        log(f"FAILED {name}: {type(e).__name__}: {e}")
        raise SystemExit(1) from e
    log(f"ok   {name} ({time.monotonic() - start:.1f}s){': ' + detail if detail else ''}")


def installed_not_repo(repo: Path) -> str:
    """The three packages come from site-packages, and no repository folder is on sys.path."""
    import agents
    import pasur_env
    import train

    site = Path(sysconfig.get_paths()["purelib"]).resolve()
    where = []
    for mod in (pasur_env, agents, train):
        path = Path(mod.__file__).resolve()
        if site not in path.parents:
            raise AssertionError(f"{mod.__name__} imported from {path}, not from {site}")
        where.append(f"{mod.__name__}={path.relative_to(site)}")
    repo = repo.resolve()
    for entry in ["", *sys.path]:
        p = Path(entry or os.getcwd()).resolve()
        if p == repo or repo in p.parents:
            raise AssertionError(f"{p} (inside the repository) is on sys.path")
    return f"cwd={os.getcwd()}, site-packages={site}, " + ", ".join(where)


def readme_blocks(readme: Path) -> list[tuple[int, str]]:
    """The README's fenced python blocks, each with the line it starts on."""
    text = readme.read_text()
    return [(text[: m.start()].count("\n") + 2, m.group(1))
            for m in re.finditer(r"```python\n(.*?)```", text, flags=re.S)]


def run_readme(readme: Path) -> str:
    """Execute every python block of the README, each in a fresh namespace."""
    blocks = readme_blocks(readme)
    if not blocks:
        raise AssertionError(f"no python blocks in {readme}")
    for line, code in blocks:
        start = time.monotonic()
        exec(compile(code, f"{readme.name}:{line}", "exec"), {"__name__": "__readme__"})
        log(f"     README block at line {line} ran ({time.monotonic() - start:.1f}s)")
    return f"{len(blocks)} python blocks"


def api_tests() -> str:
    """PettingZoo's ``api_test`` on both games' AEC envs."""
    from pettingzoo.test import api_test

    from pasur_env import pasur_v0, persian_rummy_v0

    api_test(pasur_v0.env(), num_cycles=200)
    api_test(persian_rummy_v0.env(), num_cycles=200)
    return "pasur_v0, persian_rummy_v0"


def script(name: str) -> str:
    """A console script of this venv (next to its python)."""
    return str(Path(sys.executable).parent / name)


def run_cli(args: list[str], timeout: float) -> str:
    """Run a command, fail on a non-zero exit, return its last output line."""
    r = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise AssertionError(f"{' '.join(args)} exited {r.returncode}:\n{r.stdout}{r.stderr}")
    lines = [ln for ln in r.stdout.splitlines() if ln.strip()]
    return lines[-1].strip() if lines else "(no output)"


def doctor() -> str:
    """``pasur doctor`` runs, finds the three packages in site-packages, and warns of nothing."""
    r = subprocess.run([script("pasur"), "doctor"], capture_output=True, text=True, timeout=300)
    out = r.stdout + r.stderr
    if r.returncode != 0 or "warn" in out.lower():
        raise AssertionError(f"pasur doctor exited {r.returncode}:\n{out}")
    site = str(Path(sysconfig.get_paths()["purelib"]).resolve())
    for pkg in ("pasur_env", "agents", "train"):
        line = next((ln for ln in out.splitlines() if ln.startswith(f"{pkg} imported from")), "")
        if site not in line:
            raise AssertionError(f"pasur doctor: {line or pkg + ' not reported'} (not {site})")
    return next((ln for ln in out.splitlines() if ln.startswith("kernel cache")), "")


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def pasur_serving(args: Sequence[str] = (), cwd: Path | None = None,
                  timeout: float = 120.0) -> Iterator[str]:
    """``pasur serve ARGS`` (run in ``cwd``) on a free loopback port: its URL once
    ``GET /`` answers; the server is stopped on leaving."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    proc = subprocess.Popen([script("pasur"), "serve", "--host", "127.0.0.1", "--port",
                             str(port), *args], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                raise AssertionError(f"pasur serve exited {proc.returncode}:\n"
                                     f"{proc.stdout.read() if proc.stdout else ''}")
            try:
                with urllib.request.urlopen(url, timeout=5):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise AssertionError(f"pasur serve did not answer {url} within "
                                         f"{timeout:.0f}s") from None
                time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def serve_answers(timeout: float = 120.0) -> str:
    """Start ``pasur serve`` on a free loopback port, check that ``GET /`` answers with
    the page, stop it."""
    with pasur_serving(timeout=timeout) as url, urllib.request.urlopen(url, timeout=5) as r:
        body = r.read().decode("utf-8", "replace")
        if r.status != 200 or "<html" not in body.lower():
            raise AssertionError(f"GET / gave {r.status}, {len(body)} bytes")
        return f"GET {url} -> {r.status}, {len(body)} bytes of HTML"


def tiny_training() -> str:
    """The main training pipeline at its tiny size; it must write its report."""
    with tempfile.TemporaryDirectory() as runs:
        last = run_cli([sys.executable, "-m", "train.move_net", "--config", "tiny", "--name",
                        "smoke", "--out", runs], timeout=900)
        report = Path(runs) / "smoke" / "report.md"
        if not report.is_file():
            raise AssertionError(f"no {report} after the run")
        return f"train.move_net --config tiny wrote report.md; last line: {last}"


# ---- the guide's examples (docs/your_agent.md) -------------------------------------------
#: rounds of each example match: enough to play every seating, a few seconds each
EXAMPLE_ROUNDS = 20


def install_package(pkg: Path, site: Path) -> None:
    """``pip install --no-deps --no-build-isolation --target site`` of a copy of ``pkg``
    (the copy keeps pip's build folders out of the source folder)."""
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / pkg.name
        shutil.copytree(pkg, src, ignore=shutil.ignore_patterns("build", "*.egg-info"))
        run_cli([sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                 "--no-deps", "--no-build-isolation", "--target", str(site), str(src)], 300)


def example_commands(examples: Path, site: Path) -> list[tuple[str, list[str], Path | None]]:
    """The guide's commands: a name, the ``pasur`` arguments (each writes JSON to stdout)
    and the folder to put on ``PYTHONPATH`` (None: none). ``site`` holds the installed
    example package (:func:`install_package`)."""
    mine = f"{examples.resolve() / 'my_agent.py'}:MostCards"
    batched = f"{examples.resolve() / 'batched_agent.py'}:BatchedMostCards"
    rummy = f"{examples.resolve() / 'rummy_agent.py'}:MeldFirst"
    rounds = ["--rounds", str(EXAMPLE_ROUNDS), "--json", "-"]
    return [
        ("eval path/my_agent.py:MostCards greedy", ["eval", mine, "greedy", *rounds], None),
        ("eval my_agent:MostCards (PYTHONPATH) random",
         ["eval", "my_agent:MostCards", "random", *rounds], examples),
        ("eval batched_agent.py:BatchedMostCards greedy", ["eval", batched, "greedy", *rounds],
         None),
        ("tournament of both and greedy", ["tournament", mine, batched, "greedy", *rounds], None),
        ("exploitability of MostCards on mini",
         ["exploitability", mine, "--preset", "mini", "--json", "-"], None),
        ("eval --game persian_rummy rummy_agent.py:MeldFirst random",
         ["eval", "--game", "persian_rummy", rummy, "random", "--rounds", "4", "--json", "-"],
         None),
        ("eval mostpoints (an installed entry point) greedy",
         ["eval", "mostpoints", "greedy", *rounds], site),
    ]


def run_example(args: list[str], pythonpath: Path | None) -> dict:
    """Run one example command with ``pasur``; fail on a non-zero exit; its JSON."""
    env = dict(os.environ)
    if pythonpath is not None:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(pythonpath),
                                                        env.get("PYTHONPATH")) if p)
    r = subprocess.run([script("pasur"), *args], capture_output=True, text=True, env=env,
                       timeout=900)
    if r.returncode != 0:
        raise AssertionError(f"pasur {' '.join(args)} exited {r.returncode}:\n{r.stderr}")
    return json.loads(r.stdout)


def example_summary(data: dict) -> str:
    """One line of an example's JSON: a match's mean, a ladder, or a NashConv."""
    if "nash_conv" in data:
        return f"NashConv {data['nash_conv']:.4f}"
    if "ladder" in data:
        return f"{len(data['ladder'])} agents ranked over {len(data['matches'])} matches"
    return f"{data['rounds']} rounds, mean point diff {data['mean_point_diff']:+.2f}"


def run_examples(examples: Path) -> None:
    """Install the example package into a temporary folder and run every example command."""
    with tempfile.TemporaryDirectory() as site:
        check("install examples/my_agents_pkg (pip --target)",
              lambda: install_package(examples / "my_agents_pkg", Path(site)))
        for name, args, path in example_commands(examples, Path(site)):
            check(f"example: {name}", lambda a=args, p=path: example_summary(run_example(a, p)))


def main(argv: list[str] | None = None) -> int:
    """Run the checks of one install kind; exit 0 only when all pass."""
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("kind", choices=["core", "full"])
    p.add_argument("--repo", type=Path, required=True, help="the repository (must not be used)")
    p.add_argument("--readme", type=Path, required=True, help="the README to run")
    p.add_argument("--examples", type=Path, help="a copy of examples/ (full: run the guide's)")
    args = p.parse_args(argv)
    log(f"python {sys.version.split()[0]} at {sys.executable}, {args.kind} install")
    check("imported from site-packages, repository not on sys.path",
          lambda: installed_not_repo(args.repo))
    check("pasur doctor", doctor)
    check("README quick starts", lambda: run_readme(args.readme))
    check("PettingZoo api_test, both games", api_tests)
    check("pasur eval greedy random --rounds 20",
          lambda: run_cli([script("pasur"), "eval", "greedy", "random", "--rounds", "20"], 600))
    if args.kind == "full":
        check("pasur serve answers GET /", serve_answers)
        check("tiny training run", tiny_training)
        if args.examples is not None:
            run_examples(args.examples)
    log(f"all {args.kind} checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
