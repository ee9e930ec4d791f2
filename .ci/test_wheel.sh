#!/usr/bin/env bash
# The wheel and sdist as a user gets them (`make test-wheel`; CI runs it):
#   1. build the sdist, and the wheel from that sdist (python -m build), then twine check;
#   2. a fresh venv with the wheel and its [train,web] extras under constraints.txt, and
#      .ci/wheel_smoke.py full, run from an empty folder outside the repository (with a copy
#      of examples/: the guide's agents and their package, installed there by pip);
#   3. the sdist's tests, unpacked next to no source package (only the wheel can be
#      imported): all collect, a subset runs;
#   4. the core install (no extras) on Python 3.10 (at the lowest pins) and 3.13 (at
#      constraints.txt) where pyenv has them: fresh venv, wheel, .ci/wheel_smoke.py core.
# Usage: bash .ci/test_wheel.sh BUILD_PYTHON   (a python with `build` and `twine`:
# the dist dependency group). PY: the python for the venvs (python3).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo=$(pwd)
build_py=${1:?usage: test_wheel.sh BUILD_PYTHON}
py=${PY:-python3}
pip_q=(--disable-pip-version-check -q --progress-bar off)
pyenv_root=${PYENV_ROOT:-$HOME/.pyenv}
sdist_tests=(tests/test_engine_api.py tests/test_aec_env.py tests/test_rummy_envs.py
             tests/test_cli.py tests/test_web.py tests/test_benchmarks.py tests/test_compat.py)

work=$(mktemp -d /tmp/pasur-wheel.XXXXXX)
trap 'rm -rf "$work"' EXIT
start=$SECONDS
say() { echo "== wheel [$((SECONDS - start))s] $*"; }

# fresh_venv PYTHON DIR: a new venv at DIR with a current pip (for --group and -c).
fresh_venv() {
    "$1" -m venv "$2"
    "$2/bin/python" -m pip install "${pip_q[@]}" --upgrade pip
}

# smoke VENV KIND: run the smoke script with VENV's python from an empty folder in /tmp.
smoke() {
    local dir
    dir=$(mktemp -d "$work/outside.XXXXXX")
    cp -r .ci/wheel_smoke.py README.md examples "$dir/"
    (cd "$dir" && "$1/bin/python" wheel_smoke.py "$2" --repo "$repo" --readme README.md \
        --examples examples)
}

say "1. build sdist and wheel with $("$build_py" -m build --version)"
"$build_py" -m build --outdir "$work/dist" . >"$work/build.log" 2>&1 \
    || { cat "$work/build.log"; exit 1; }
sdist=$(ls "$work"/dist/*.tar.gz)
wheel=$(ls "$work"/dist/*.whl)
say "built $(basename "$sdist") ($(du -k "$sdist" | cut -f1) KiB), $(basename "$wheel") ($(du -k "$wheel" | cut -f1) KiB)"
"$build_py" -m twine check --strict "$work"/dist/*

say "2. fresh venv, wheel[train,web] under constraints.txt"
fresh_venv "$py" "$work/venv"
"$work/venv/bin/python" -m pip install "${pip_q[@]}" -c constraints.txt "$wheel[train,web]" \
    pytest pytest-xdist hypothesis httpx setuptools
"$work/venv/bin/python" .ci/check_constraints.py --python "$work/venv/bin/python" constraints.txt
smoke "$work/venv" full

say "3. the sdist's tests against the installed wheel"
mkdir "$work/sdist" && tar -xzf "$sdist" -C "$work/sdist" --strip-components=1
missing=$(cd "$work/sdist" && for f in tests/conftest.py tests/data benchmarks docs README.md; do
    [ -e "$f" ] || echo "$f"; done)
[ -z "$missing" ] || { echo "ERROR: the sdist lacks: $missing" >&2; exit 1; }
# No source package next to the tests: `python -m pytest` puts the folder on sys.path
# (tests import each other as `tests.X`), and only the wheel's packages are there to import.
rm -rf "$work/sdist/pasur_env" "$work/sdist/agents" "$work/sdist/train"
(
    cd "$work/sdist"
    "$work/venv/bin/python" -m pytest -p no:cacheprovider -W ignore --collect-only -q tests \
        >"$work/collect.log" 2>&1 || { cat "$work/collect.log"; exit 1; }
    say "the sdist's tests collect: $(awk -F': ' '/^tests\/.*: [0-9]+$/ {n += $2; f++}
        END {print n " tests in " f " files"}' "$work/collect.log"), no error"
    "$work/venv/bin/python" -m pytest -p no:cacheprovider -W ignore -n 2 -rs "${sdist_tests[@]}" \
        | tail -3
)
say "the sdist's tests ran: ${sdist_tests[*]}"

say "4. core install (no extras) on other Pythons"
for spec in 3.10:constraints-lowest-core.txt 3.13:constraints.txt; do
    ver=${spec%%:*} pins=${spec#*:}
    interp=$(ls -d "$pyenv_root"/versions/"$ver".*/bin/python"$ver" 2>/dev/null | sort -V | tail -1)
    if [ -z "$interp" ]; then
        say "Python $ver: no interpreter under $pyenv_root/versions, skipped"
        continue
    fi
    say "Python $ver ($interp): fresh venv, wheel under $pins"
    fresh_venv "$interp" "$work/venv$ver"
    "$work/venv$ver/bin/python" -m pip install "${pip_q[@]}" -c "$pins" "$wheel"
    say "Python $ver resolved: $("$work/venv$ver/bin/python" -m pip freeze \
        | grep -iE '^(numpy|numba|gymnasium|pettingzoo|pillow)==' | tr '\n' ' ')"
    smoke "$work/venv$ver" core
done
say "wheel and sdist OK"
