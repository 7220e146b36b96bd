# The front door. Every target sets up its own virtual environment on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
DEPS_STAMP := $(VENV)/.deps-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)
BUF_VERSION := 1.75.0
BUF := tools/buf-$(BUF_VERSION)/node_modules/.bin/buf

.PHONY: sandbox node-runtime demo test test-suite check lint typecheck proto goldens screenshots bench bench-smoke chaos install up clean sdk sdk-python sdk-node breaking docs compiled clean-compiled engines-build

$(DEPS_STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev,openspiel]'
	@rm -f $(VENV)/.deps-* && touch $@

install: $(DEPS_STAMP) sandbox node-runtime engines-build  ## create .venv and install Arena with its dev tools (COMPILE=0: engines in pure Python)

# The engines' rule modules compiled in place with mypyc when a C compiler is present, rebuilt
# whenever an engine source changes (build_compiled.py); pure Python otherwise, or with COMPILE=0.
COMPILE ?= 1
ENGINE_SOURCES := $(shell find engines -name '*.py')
COMPILE_ATTEMPT := build/mypyc/.attempted
ifeq ($(COMPILE),0)
engines-build: $(DEPS_STAMP)
	@test ! -e engines/.compiled.json || $(BIN)/python build_compiled.py --clean
else
engines-build: $(COMPILE_ATTEMPT)
endif

$(COMPILE_ATTEMPT): $(DEPS_STAMP) $(ENGINE_SOURCES) build_compiled.py
	$(BIN)/python build_compiled.py --if-possible
	@mkdir -p $(dir $@) && touch $@

sandbox:  ## install bubblewrap for hosted bots when missing (root + apt-get); else say so
	@command -v bwrap >/dev/null || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    { apt-get install -y -q bubblewrap >/dev/null 2>&1 || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q bubblewrap >/dev/null; }; } || echo "note: apt-get could not install bubblewrap; hosted bots will be refused (docs/operations.md)"; \
	  else echo "note: bwrap missing; hosted bots will be refused until bubblewrap is installed (docs/operations.md)"; fi; }

node-runtime:  ## install sdk/node's dependencies, the arena-bot package runners give Node bots
	@test -d sdk/node/node_modules/@grpc/grpc-js || { \
	  if command -v npm >/dev/null; then \
	    (cd sdk/node && npm ci --omit=dev --no-fund --no-audit --loglevel=error >/dev/null) || echo "note: npm ci in sdk/node failed; hosted Node bots will not find arena-bot (docs/operations.md)"; \
	  else echo "note: npm missing; hosted Node bots will not find arena-bot unless they upload it (docs/operations.md)"; fi; }

demo: install  ## the whole job on embedded services
	$(BIN)/arena demo

up: install  ## start the services and keep them running, for your own bots
	$(BIN)/arena up

test: check test-suite  ## lint, type-check and run every test (in parallel, one worker per core)

test-suite: install  ## every test, without the lint and type checks
	$(BIN)/python -m pytest -n auto --dist worksteal --durations=25

check: lint typecheck breaking  ## ruff, mypy --strict on engines/, arena/, workers/, buf breaking

$(BUF):  # buf from its npm package (which ships the binary), into the ignored tools/
	npm install --no-fund --no-audit --prefix tools/buf-$(BUF_VERSION) @bufbuild/buf@$(BUF_VERSION)

breaking: $(BUF)  ## buf breaking: proto/ against the last release (tests/fixtures/proto-v1/)
	$(BUF) breaking proto --against tests/fixtures/proto-v1

lint: install
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .

typecheck: install  ## mypy --strict on engines/, arena/, workers/ (pyproject skips generated arena/v1)
	$(BIN)/mypy --strict engines arena workers

proto: install  ## regenerate the Python code of proto/ into arena/v1/
	$(BIN)/python -m arena.protocol.protogen

sdk: sdk-python sdk-node  ## build the bot SDKs into dist/

sdk-python: install  ## build the arena-sdk wheel (sdk/python/) into dist/
	$(BIN)/python sdk/python/build_wheel.py dist

sdk-node:  ## pack the arena-bot npm package (sdk/node/) into dist/ (npm ci: node_modules is ignored)
	mkdir -p dist
	cd sdk/node && npm ci --no-fund --no-audit && npm pack --pack-destination ../../dist

SDK_MODULES := arena.sdk arena.sdk.client arena.sdk.addresses arena.sdk.stream arena.sdk.bots arena.sdk.bots.base \
	arena.sdk.bots.hart arena.sdk.bots.crossing arena.sdk.bots.crossing_reading arena.sdk.bots.loyang \
	engines.json_value

docs: install  ## API references of the SDKs into build/docs/ (pdoc, TypeDoc), links checked
	rm -rf build/docs
	$(BIN)/pdoc -o build/docs/python $(SDK_MODULES)
	cd sdk/node && npm ci --no-fund --no-audit && npm run docs -- --out ../../build/docs/node
	$(BIN)/python sdk/check_links.py build/docs/python build/docs/node

goldens: install  ## regenerate the golden playthroughs under tests/goldens/ (format: tests/golden.py)
	$(BIN)/python -m tests.golden

screenshots: install  ## regenerate the README's screenshots (docs/screenshots/) in Chromium
	SCREENSHOTS_FOR_README=1 $(BIN)/python -m pytest -q -n 0 tests/web/test_browser.py

bench: install  ## engine, referee and tournament benchmarks
	$(BIN)/python -m pip install -q -e '.[bench]'
	$(BIN)/python bench/engines.py
	$(BIN)/python bench/referee.py
	$(BIN)/python bench/tournament.py
	$(BIN)/python bench/web.py
	$(BIN)/python bench/runner.py

MINUTES ?= 10
SEED ?= 1
ALERT_WAIT ?= 0
CHAOS_ARGS ?=
chaos: install  ## a chaos soak: the whole arena under seeded faults, then its invariants (MINUTES=10 SEED=1 ALERT_WAIT=0 CHAOS_ARGS="--keep ...")
	$(BIN)/python bench/chaos.py --minutes $(MINUTES) --seed $(SEED) --alert-wait $(ALERT_WAIT) $(CHAOS_ARGS)

bench-smoke: install  ## CI: 16 referee matches over the wire; prints the CPU breakdown, fails only on a crash or a replay mismatch
	$(BIN)/python bench/referee.py --matches 16 --rounds 1

compiled: $(DEPS_STAMP)  ## compile the engines' rule modules in place with mypyc now, failing loudly (install does it when it can; bench/README.md)
	$(BIN)/python build_compiled.py
	@mkdir -p $(dir $(COMPILE_ATTEMPT)) && touch $(COMPILE_ATTEMPT)

clean-compiled:  ## remove the compiled engine modules: pure Python until the next install (COMPILE=0 keeps it so)
	$(PYTHON) build_compiled.py --clean

clean: clean-compiled
	rm -rf $(VENV) build dist *.egg-info .mypy_cache .pytest_cache .ruff_cache
