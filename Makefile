# Two entry points: `make play` and `make test`. Both create .venv if missing.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
ARGS   ?=

.PHONY: play test install install-dev clean

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

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev

play: $(VENV)/.installed
	$(BIN)/liars-dice play $(ARGS)

# mypy --strict over the modules listed in pyproject.toml [tool.mypy] (all of
# src/ once clean), then the tests, the doctests of src/ and the README's
# examples (pyproject.toml [tool.pytest.ini_options]).
test: $(VENV)/.installed-dev
	$(BIN)/python -m mypy
	$(BIN)/python -m pytest $(ARGS)

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info
