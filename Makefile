# pasur_env developer tasks. `make test` builds .venv on first use.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip
PIP_INSTALL := $(PIP) install --disable-pip-version-check -c constraints.txt
PYTEST_JOBS ?= 2

.PHONY: venv test lint demo bench clean

venv: $(VENV)/.installed-dev

# The interpreter stands for "the venv exists"; order-only below, so its timestamp
# never triggers a reinstall.
$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(PIP) install --disable-pip-version-check --upgrade pip

# Stamps: reinstall only when the project metadata or the pins change.
$(VENV)/.installed-dev: pyproject.toml constraints.txt | $(BIN)/python
	$(PIP_INSTALL) -e ".[dev]"
	touch $@

$(VENV)/.installed-bench: pyproject.toml constraints.txt | $(BIN)/python
	$(PIP_INSTALL) -e ".[dev,bench]"
	touch $@

# pytest exits 5 when it collected no tests: make that a failure with a clear message.
test: venv
	@rc=0; $(BIN)/python -m pytest -n $(PYTEST_JOBS) tests || rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "ERROR: pytest collected no tests (exit code 5)" >&2; fi; \
	exit $$rc

lint: venv
	$(BIN)/ruff check .

demo: venv
	$(BIN)/python -m pasur_env.demo

bench: venv $(VENV)/.installed-bench
	$(BIN)/python benchmarks/bench_engine.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis build dist *.egg-info
