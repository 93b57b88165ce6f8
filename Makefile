# Two entry points: `make play` and `make test`. Both create .venv if missing.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
ARGS   ?=

.PHONY: play test test-fast install install-dev install-rl clean

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null || \
		{ echo "liars-dice needs Python 3.11 or newer; '$(PYTHON)' is older or missing. Try: make PYTHON=python3.12 play"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Plain install: everything `play` and `replay` need.
# (A venv made before the distribution was renamed holds `liars-dice`: remove it first.)
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	-@$(BIN)/python -m pip uninstall --quiet -y liars-dice 2>/dev/null
	$(BIN)/python -m pip install --quiet -e .
	touch $@

# Development install: server, arena and test extras as well.
$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	-@$(BIN)/python -m pip uninstall --quiet -y liars-dice 2>/dev/null
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(VENV)/.installed $@

# The rl extra as well (examples/maskable_ppo.py and its test; .ci/run installs
# it): PyTorch's CPU build first, pinned, because an unpinned torch that
# sb3-contrib pulls in is a CUDA build of several GB on Linux. On CI's machines
# pip takes torch 2.13.0 (CPU, Python 3.11) from the local disk: the two steps
# took 47 s and 5 s in the shared venv, and about a minute in a fresh one.
TORCH ?= torch==2.13.0
$(VENV)/.installed-rl: pyproject.toml | $(VENV)/.installed-dev
	$(BIN)/python -m pip install --quiet '$(TORCH)'
	$(BIN)/python -m pip install --quiet -e '.[dev,rl]'
	touch $@

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev
install-rl: $(VENV)/.installed-rl

play: $(VENV)/.installed
	$(BIN)/liars-dice play $(ARGS)

# mypy --strict over the modules listed in pyproject.toml [tool.mypy] (all of
# src/ once clean), then the tests, the doctests of src/ and the README's
# examples (pyproject.toml [tool.pytest.ini_options]): the whole suite, the
# tests marked slow included (.ci/run runs this), in two runs: the unit and
# server tests on every core, then the browser tests and the slow ones (whole
# clusters of servers, databases stopped, Chromium) one at a time, since on
# two cores these time out when they share the machine with others.
# ARGS passes options on to both, e.g. make test ARGS=-x.
test: $(VENV)/.installed-dev
	$(BIN)/python -m mypy
	$(BIN)/python -m pytest -m 'not slow and not browser' $(ARGS)
	$(BIN)/python -m pytest -n 0 -m 'slow or browser' $(ARGS)

# The suite but for the tests marked slow (databases stopped and disks filled
# under a served game, OpenSpiel's CFR value, exports of the built-in game, the
# packaging build, the MaskablePPO example's training): for quick rounds while
# developing. `make test` (and so CI) runs them all.
test-fast: $(VENV)/.installed-dev
	$(BIN)/python -m mypy
	$(BIN)/python -m pytest -m 'not slow' $(ARGS)

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info
