# pasur_env developer tasks. `make test` builds .venv on first use.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip
PIP_INSTALL := $(PIP) install --disable-pip-version-check -c constraints.txt
PYTEST_JOBS ?= 2

.PHONY: venv test lint demo bench train train-long train-ppo train-ppo-long serve chromium \
	test-browser test-openspiel rllib test-rllib train-rllib test-marl test-lowest \
	test-wheel dist clean ladder ladder-best-response

venv: $(VENV)/.installed-dev

# The interpreter stands for "the venv exists"; order-only below, so its timestamp
# never triggers a reinstall.
$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(PIP) install --disable-pip-version-check --upgrade pip

# Stamps: reinstall only when the project metadata or the pins change. The extras are the
# runtime ones; the tools and the multi-agent libraries (Tianshou, TorchRL) come from
# pyproject's dependency groups (pip >= 25.1).
$(VENV)/.installed-dev: pyproject.toml constraints.txt | $(BIN)/python
	$(PIP_INSTALL) -e ".[train,web,openspiel]" --group dev --group browser --group dist \
	  --group marl
	touch $@

$(VENV)/.installed-bench: pyproject.toml constraints.txt | $(BIN)/python
	$(PIP_INSTALL) -e . --group dev --group bench
	touch $@

# pytest exits 5 when it collected no tests: make that a failure with a clear message.
# The browser tests run when Chromium is installed; -rs prints why anything was skipped.
test: venv
	@rc=0; $(BIN)/python -m pytest -n $(PYTEST_JOBS) -rs --nbmake tests notebooks || rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "ERROR: pytest collected no tests (exit code 5)" >&2; fi; \
	exit $$rc

# ruff, the layer contract of pyproject.toml (an upward import fails here), then the pins:
# a package in .venv that constraints.txt does not name fails here.
lint: venv
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BIN)/python .ci/check_constraints.py --python $(BIN)/python constraints.txt

# The shipped reference ladders (docs/ladders/*.json, docs/leaderboard.md): every agent is
# added with `pasur ladder add`, so it plays only the members before it; the fast agents
# with more rounds, the slower ones with fewer (a prefix of the same deals). The kernels are
# compiled first so the times per decision hold no compilation.
LADDERS := docs/ladders
LADD := $(BIN)/pasur ladder add --no-progress
ladder: venv
	rm -f $(LADDERS)/pasur.json $(LADDERS)/persian_rummy.json
	$(BIN)/pasur warmup --no-progress --game pasur random greedy heuristic net ppo ismcts
	$(BIN)/pasur warmup --no-progress --game persian_rummy random greedy net rollout ismcts
	for a in random greedy heuristic; do \
	  $(LADD) $$a --ladder $(LADDERS)/pasur.json --rounds 2000 || exit 1; done
	for a in net ppo; do $(LADD) $$a --ladder $(LADDERS)/pasur.json --rounds 1000 || exit 1; done
	$(LADD) ismcts --ladder $(LADDERS)/pasur.json --rounds 400
	for a in random greedy; do \
	  $(LADD) $$a --game persian_rummy --ladder $(LADDERS)/persian_rummy.json --rounds 2000 \
	  || exit 1; done
	$(LADD) net --ladder $(LADDERS)/persian_rummy.json --rounds 400
	$(LADD) rollout --ladder $(LADDERS)/persian_rummy.json --rounds 200
	$(LADD) ismcts --ladder $(LADDERS)/persian_rummy.json --rounds 100
	$(BIN)/python -m agents.evaluation.ladder render docs/leaderboard.md

# The ladders' learned-best-response column (docs/exploitability.md): an exploiter of each
# member, from net's moves, 5 minutes of training each (about an hour for both ladders).
ladder-best-response: venv
	for g in pasur persian_rummy; do \
	  $(BIN)/pasur ladder best-response --ladder $(LADDERS)/$$g.json --teacher net --minutes 5 \
	  --no-progress || exit 1; done
	$(BIN)/python -m agents.evaluation.ladder render docs/leaderboard.md

demo: venv
	$(BIN)/pasur demo

# The main job: train the move-scoring network from search labels, evaluate it against
# every baseline, write runs/<run>/report.md. GAME picks the game and, from its plug-in
# (train/move_net/games.py NetGame `config`, `budget_min`), its configuration, run name
# and wall-time budget: Pasur's run `net` in 18 minutes, Persian Rummy's `rummy` (labels
# from the rollout agent's evaluation of every candidate, docs/persian_rummy.md) in 20.
# The budget (final evaluation included) sizes the run to the machine; RUN=name names
# the run, TRAIN_BUDGET=N gives another budget, TRAIN_BUDGET=0 does the fixed work of the
# configuration (docs/training.md).
GAME ?= pasur
train: venv
	$(BIN)/python -m train.move_net --game $(GAME) $(if $(RUN),--name $(RUN)) \
	  $(if $(TRAIN_BUDGET),--time-budget-min $(TRAIN_BUDGET),--game-budget) $(TRAIN_ARGS)

# PPO's runs are named after the game (the move network's run of Persian Rummy is `rummy`)
ifeq ($(GAME),persian_rummy)
PPO_RUN ?= rummy_ppo
else
PPO_RUN ?= ppo
endif

# The longer configuration (about 58 min on 2 cores): the shipped `net` agent.
# Ship it: cp runs/net_long/net.npz agents/pretrained/net_2p.npz
train-long: venv
	$(BIN)/python -m train.move_net --config long --name $(or $(RUN),net)_long $(TRAIN_ARGS)

# The MaskablePPO pipeline (behaviour cloning + self-play against an opponent pool) of
# GAME: Pasur's is the shipped `ppo` agent; `long` is a configuration of Pasur only.
train-ppo: venv
	$(BIN)/python -m train.ppo --game $(GAME) --name $(PPO_RUN) $(TRAIN_ARGS)

train-ppo-long: venv
	$(BIN)/python -m train.ppo --game $(GAME) --config long --name $(PPO_RUN)_long $(TRAIN_ARGS)

# The web table on http://127.0.0.1:$(PORT) (play in the browser against the agents).
PORT ?= 8000
# One BLAS thread: the networks' small products gain nothing from more, whose threads
# spin while the server's own wait for the cores (docs/web.md, Limits).
serve: venv
	$(BIN)/pasur serve --host 127.0.0.1 --port $(PORT)

# Debian's Chromium for the browser tests (Playwright cannot download its own browser).
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else echo "ERROR: install Debian's chromium package (apt-get install chromium)" >&2; exit 1; fi; }
	@chromium --version

# Only the browser tests, and a failure if any of them is skipped.
test-browser: venv chromium
	@out=$$($(BIN)/python -m pytest -rs -p no:cacheprovider tests/test_browser*.py 2>&1); rc=$$?; \
	echo "$$out"; \
	if echo "$$out" | grep -qiE "skipped|no tests ran"; then \
	  echo "ERROR: the browser tests did not all run" >&2; exit 1; fi; \
	exit $$rc

# $(call pytest_none_skipped,PYTHON,PYTEST ARGS,WHAT): run pytest, show its output, and
# fail when any test was skipped or none ran.
define pytest_none_skipped
	@out=$$($(1) -m pytest $(2) 2>&1); rc=$$?; \
	echo "$$out"; \
	if echo "$$out" | grep -qiE "skipped|no tests ran"; then \
	  echo "ERROR: $(3) did not all run" >&2; exit 1; fi; \
	exit $$rc
endef

# Only the OpenSpiel tests (the games, the playthroughs, the openspiel:BOT agents, OpenSpiel's
# exact algorithms against the project's solver), and a failure if any of them is skipped
# (they skip when the openspiel extra is missing).
test-openspiel: venv
	$(call pytest_none_skipped,$(BIN)/python,-rs -p no:cacheprovider -W ignore tests/test_openspiel.py tests/test_openspiel_exact.py tests/test_cfr.py::test_agrees_with_openspiel,the OpenSpiel tests)

# Ray RLlib in its own venv: ray[rllib] 2.60 pins gymnasium 1.2.2 (constraints-rllib.txt),
# the main venv keeps gymnasium 1.4.0 (constraints.txt).
RVENV := .venv-rllib
RBIN := $(RVENV)/bin
rllib: $(RVENV)/.installed-rllib

$(RBIN)/python:
	$(PY) -m venv $(RVENV)
	$(RBIN)/python -m pip install --disable-pip-version-check --upgrade pip

$(RVENV)/.installed-rllib: pyproject.toml constraints-rllib.txt | $(RBIN)/python
	$(RBIN)/python -m pip install --disable-pip-version-check -c constraints-rllib.txt \
	  "torch==2.13.0" -e ".[train,rllib]" --group dev
	$(RBIN)/python .ci/check_constraints.py --python $(RBIN)/python constraints-rllib.txt
	touch $@

# Only the Ray tests: RLlib (tiny runs, checkpoints as agents, a two-node local cluster)
# and the strong pipeline on Ray (sharded labelling, eval and tournament, a killed
# worker, a resumed driver); a failure if any is skipped. -s shows where the work ran.
test-rllib: rllib
	@out=$$($(RBIN)/python -m pytest -s -rs -p no:cacheprovider tests/test_rllib.py \
	  tests/test_ray_distributed.py 2>&1); rc=$$?; \
	echo "$$out" | grep -v -e "WARNING" -e "DeprecationWarning"; \
	if echo "$$out" | grep -qiE "skipped|no tests ran"; then \
	  echo "ERROR: the Ray tests did not all run" >&2; exit 1; fi; \
	exit $$rc

# RLlib PPO for 10 minutes on this machine (see docs/distributed.md for a cluster).
train-rllib: rllib
	$(RBIN)/python -m train.rllib_ppo --name rllib $(TRAIN_ARGS)

# Only the multi-agent tests (Tianshou and TorchRL on train/marl at tiny size, in .venv:
# the marl dependency group; `make test` runs them too), and a failure if any is skipped.
test-marl: venv
	$(call pytest_none_skipped,$(BIN)/python,-rs -p no:cacheprovider -W ignore tests/test_marl.py,the multi-agent tests)

# The lowest versions pyproject.toml allows, installed and tested: the train extra in
# .venv-lowest (constraints-lowest.txt), the core alone in .venv-lowest-core
# (constraints-lowest-core.txt: numpy 1.25, numba 0.59, which the train extra lifts).
# Engine, envs, PettingZoo/Gymnasium/SB3 API checks and the tiny training runs.
LVENV := .venv-lowest
LCVENV := .venv-lowest-core
LOWEST_TESTS := tests/test_engine_api.py tests/test_aec_env.py tests/test_rummy_envs.py \
	tests/test_single_agent_env.py tests/test_vector_env.py tests/test_env_atomic.py \
	tests/test_input_checks.py tests/test_compat.py tests/test_train.py
LOWEST_CORE_TESTS := tests/test_engine_api.py tests/test_aec_env.py tests/test_input_checks.py \
	tests/test_env_atomic.py tests/test_rules_scripted.py tests/test_rummy_rules.py
LOWEST_TOOLS := pytest pytest-xdist hypothesis

$(LVENV)/.installed: pyproject.toml constraints-lowest.txt
	rm -rf $(LVENV) && $(PY) -m venv $(LVENV)
	$(LVENV)/bin/python -m pip install --disable-pip-version-check -q --upgrade pip
	$(LVENV)/bin/python -m pip install --disable-pip-version-check -q -c constraints-lowest.txt \
	  -e ".[train]" $(LOWEST_TOOLS)
	$(LVENV)/bin/python .ci/check_constraints.py --python $(LVENV)/bin/python constraints-lowest.txt
	touch $@

$(LCVENV)/.installed: pyproject.toml constraints-lowest-core.txt
	rm -rf $(LCVENV) && $(PY) -m venv $(LCVENV)
	$(LCVENV)/bin/python -m pip install --disable-pip-version-check -q --upgrade pip
	$(LCVENV)/bin/python -m pip install --disable-pip-version-check -q \
	  -c constraints-lowest-core.txt -e . $(LOWEST_TOOLS)
	$(LCVENV)/bin/python .ci/check_constraints.py --python $(LCVENV)/bin/python \
	  constraints-lowest-core.txt
	touch $@

test-lowest: $(LVENV)/.installed $(LCVENV)/.installed
	@echo "== lowest versions, core: $$($(LCVENV)/bin/python -m pip freeze | grep -iE '^(numpy|numba|gymnasium|pettingzoo|pillow)==' | tr '\n' ' ')"
	$(LCVENV)/bin/python -m pytest -n $(PYTEST_JOBS) -p no:cacheprovider -W ignore $(LOWEST_CORE_TESTS)
	@echo "== lowest versions, train extra: $$($(LVENV)/bin/python -m pip freeze | grep -iE '^(numpy|numba|gymnasium|pettingzoo|torch|stable.baselines3|sb3.contrib|tyro|matplotlib)==' | tr '\n' ' ')"
	$(LVENV)/bin/python -m pytest -n $(PYTEST_JOBS) -p no:cacheprovider -W ignore $(LOWEST_TESTS)

# The wheel and sdist in dist/ (python -m build: the sdist, then the wheel from it), to
# install elsewhere: pip install 'dist/pasur_env-<version>-py3-none-any.whl[train,web]'.
dist: venv
	rm -rf dist
	$(BIN)/python -m build --outdir dist . >/dev/null
	@ls dist

# The wheel and sdist as a user gets them: build, twine check, install into fresh venvs and
# run .ci/wheel_smoke.py from a folder outside the repository (.ci/test_wheel.sh says more).
test-wheel: venv
	PY=$(PY) bash .ci/test_wheel.sh $(BIN)/python

bench: venv $(VENV)/.installed-bench
	$(BIN)/python benchmarks/bench_engine.py

clean:
	rm -rf $(VENV) $(RVENV) $(LVENV) $(LCVENV) .pytest_cache .ruff_cache .hypothesis build dist *.egg-info
