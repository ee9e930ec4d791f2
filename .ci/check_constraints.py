"""Fail when a venv holds a package that its constraints file does not pin.

A constraints file only constrains what it names: a package the resolver adds later (a new
dependency of a new release) installs at whatever version is newest that day, and the pins
stop being reproducible without anyone noticing. This compares the names in ``pip freeze``
of an installed venv with the names in the constraints files (case, ``-``, ``_`` and ``.``
normalised as PEP 503 says) and lists every package the files miss.

    python .ci/check_constraints.py --python .venv/bin/python constraints.txt
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def normalise(name: str) -> str:
    """PEP 503 name: lower case, runs of ``-``, ``_`` and ``.`` as one ``-``."""
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_names(lines: list[str]) -> dict[str, str]:
    """Normalised name -> line for each requirement line (comments, options, blanks skipped)."""
    names = {}
    for line in lines:
        text = line.split("#", 1)[0].strip()
        if not text or text.startswith("-"):
            continue
        m = _NAME.match(text)
        if m:
            names[normalise(m.group(1))] = text
    return names


def frozen(python: str) -> list[str]:
    """``pip freeze`` of the venv of ``python``, without the project itself.

    The project is installed editable or from a local file (``name @ file://...``), which
    no constraints file pins. Plain ``pip freeze`` leaves out pip, setuptools and wheel:
    tools of the venv, not of the project.
    """
    out = subprocess.run(
        [python, "-m", "pip", "freeze", "--exclude-editable", "--disable-pip-version-check"],
        check=True, capture_output=True, text=True,
    ).stdout
    return [line for line in out.splitlines() if " @ " not in line]


def main(argv: list[str] | None = None) -> int:
    """Print the packages of the venv that no constraints file pins; exit 1 if any."""
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("--python", required=True, help="the venv's python")
    p.add_argument("constraints", nargs="+", type=Path, help="constraints files")
    args = p.parse_args(argv)
    pinned: dict[str, str] = {}
    for path in args.constraints:
        pinned.update(requirement_names(path.read_text().splitlines()))
    installed = requirement_names(frozen(args.python))
    missing = sorted(line for name, line in installed.items() if name not in pinned)
    files = " + ".join(str(c) for c in args.constraints)
    if missing:
        print(f"constraints INCOMPLETE: {len(missing)} of the {len(installed)} packages "
              f"installed by {args.python} are not pinned in {files}:", file=sys.stderr)
        for line in missing:
            print(f"  {line}", file=sys.stderr)
        print("add them (the file's header says how to regenerate it)", file=sys.stderr)
        return 1
    print(f"constraints complete: all {len(installed)} packages installed by {args.python} "
          f"are pinned in {files}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
