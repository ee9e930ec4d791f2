# pasur_env developer tasks. `make test` builds .venv on first use.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip
PIP_INSTALL := $(PIP) install --disable-pip-version-check -c constraints.txt
PYTEST_JOBS ?= 2

.PHONY: venv test lint demo bench train train-long clean

venv: $(VENV)/.installed-dev

# The interpreter stands for "the venv exists"; order-only below, so its timestamp
# never triggers a reinstall.
$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(PIP) install --disable-pip-version-check --upgrade pip

# Stamps: reinstall only when the project metadata or the pins change.
$(VENV)/.installed-dev: pyproject.toml constraints.txt | $(BIN)/python
	$(PIP_INSTALL) -e ".[dev,train]"
	touch $@

$(VENV)/.installed-bench: pyproject.toml constraints.txt | $(BIN)/python
	$(PIP_INSTALL) -e ".[dev,bench]"
	touch $@

# pytest exits 5 when it collected no tests: make that a failure with a clear message.
test: venv
	@rc=0; $(BIN)/python -m pytest -n $(PYTEST_JOBS) --nbmake tests notebooks || rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "ERROR: pytest collected no tests (exit code 5)" >&2; fi; \
	exit $$rc

# ruff, then the layer contract of pyproject.toml (an upward import fails here)
lint: venv
	$(BIN)/ruff check .
	$(BIN)/lint-imports

demo: venv
	$(BIN)/pasur demo

# The main job: train a 2-player agent by self-play (about 16 min on 2 cores), evaluate it
# against random, greedy and heuristic, and write runs/$(RUN)/report.md with plots.
RUN ?= ppo
train: venv
	$(BIN)/python -m train.ppo --name $(RUN) $(TRAIN_ARGS)

# The longer configuration (about 41 min on 2 cores): the shipped `ppo` agent.
# Export it for shipping: python -m train.export runs/ppo_long/model.zip agents/pretrained/ppo_2p.zip
train-long: venv
	$(BIN)/python -m train.ppo --config long --name $(RUN)_long $(TRAIN_ARGS)

bench: venv $(VENV)/.installed-bench
	$(BIN)/python benchmarks/bench_engine.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis build dist *.egg-info
