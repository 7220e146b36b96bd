# The front door. Every target sets up its own virtual environment on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
DEPS_STAMP := $(VENV)/.deps-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: demo test check lint typecheck proto goldens bench install up clean

$(DEPS_STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	@rm -f $(VENV)/.deps-* && touch $@

install: $(DEPS_STAMP)  ## create .venv and install Arena with its dev tools

demo: install  ## the whole job on embedded services
	$(BIN)/arena demo

up: install  ## start the services and keep them running, for your own bots
	$(BIN)/arena up

test: check  ## lint, type-check and run every test (in parallel, one worker per core)
	$(BIN)/python -m pytest -n auto --dist worksteal --durations=25

check: lint typecheck  ## ruff format check, ruff lint, mypy --strict on engines/, arena/, workers/

lint: install
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .

typecheck: install  ## mypy --strict on engines/, arena/, workers/ (pyproject skips generated arena/v1)
	$(BIN)/mypy --strict engines arena workers

proto: install  ## regenerate the Python code of proto/ into arena/v1/
	$(BIN)/python -m arena.protocol.protogen

goldens: install  ## regenerate the golden playthroughs under tests/goldens/ (format: tests/golden.py)
	$(BIN)/python -m tests.golden

bench: install  ## engine, referee and tournament benchmarks
	$(BIN)/python -m pip install -q -e '.[bench]'
	$(BIN)/python bench/engines.py
	$(BIN)/python bench/referee.py
	$(BIN)/python bench/tournament.py
	$(BIN)/python bench/web.py

clean:
	rm -rf $(VENV) build *.egg-info .mypy_cache .pytest_cache .ruff_cache
