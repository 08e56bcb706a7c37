# Every target's `## ` comment is its line in `make help`.

SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help
.DELETE_ON_ERROR:
MAKEFLAGS += --no-builtin-rules

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
LOCK := requirements/lock.txt
BOT_PYTHON := $(VENV)/bot-python
BOT_REQUIREMENTS := requirements/bot-python.txt
PIP := $(BIN)/python -m pip --quiet
PYTEST_ARGS ?=
LOCK_ARGS ?=

.PHONY: help system setup up down compiled test lint fmt bench loadtest demo lock clean proto proto-check

help: ## List every target with what it does
	@echo "Usage: make <target>"
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_-]+:.*## / {printf "  %-9s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

setup: $(STAMP) $(BOT_PYTHON)/.installed ## Create .venv/ with the locked dependencies and the project installed editable

# The Python bots' own packages (numpy …), not the platform's: pinned with hashes, wheels
# only, into .venv/bot-python/, which the bot sandbox mounts read-only at /pylib.
$(BOT_PYTHON)/.installed: $(BOT_REQUIREMENTS) | $(STAMP)
	rm -rf $(BOT_PYTHON)
	$(PIP) install --require-hashes --no-deps --only-binary :all: --target $(BOT_PYTHON) \
		-r $(BOT_REQUIREMENTS)
	touch $@

# The bot sandbox needs bubblewrap and libseccomp (its seccomp filter), the replay
# viewer's browser test Chromium (Debian packages); installed when we may (root with
# apt-get), else said.
# The bots' toolchains are Debian's (heights_runner/runtimes.py names the packages; the
# sandbox looks for them on /usr/bin only): nodejs, a JDK, g++ and rustc.
SYSTEM_PACKAGES := bubblewrap libseccomp2 chromium nodejs openjdk-17-jdk-headless g++ rustc
system: ## Install the system packages the project needs (bubblewrap, libseccomp2, chromium, bot toolchains)
	@missing=""; command -v bwrap >/dev/null || missing="bubblewrap"; \
	/sbin/ldconfig -p 2>/dev/null | grep -q 'libseccomp\.so\.2 ' || missing="$$missing libseccomp2"; \
	command -v chromium >/dev/null || missing="$$missing chromium"; \
	for tool in node:nodejs javac:openjdk-17-jdk-headless g++:g++ rustc:rustc; do \
		[ -x "/usr/bin/$${tool%%:*}" ] || missing="$$missing $${tool#*:}"; \
	done; \
	[ -z "$$missing" ] && exit 0; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		apt-get install -y -q $$missing >/dev/null \
		|| { apt-get update -q >/dev/null && apt-get install -y -q $$missing >/dev/null; }; \
	else \
		echo "warning: missing system packages ($$missing) cannot be installed here;" \
			"untrusted bots are refused without bubblewrap and libseccomp," \
			"and bots in a language whose toolchain is missing cannot run" >&2; \
	fi

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
		|| { echo "Python >= 3.11 is needed; set PYTHON=/path/to/python3.11" >&2; exit 1; }
	$(PYTHON) -m venv $(VENV)

# Rebuilt only when pyproject.toml or the lock changes, so `make setup` is cheap otherwise.
# pip goes first, on its own (its pin and hashes cut out of the lock), so the locked pip
# installs the rest.
$(STAMP): pyproject.toml $(LOCK) | $(BIN)/python
	@$(MAKE) --no-print-directory system
	sed -n '/^pip==/,/[^\\]$$/p' $(LOCK) | $(PIP) install --require-hashes -r /dev/stdin
	$(PIP) install --require-hashes -r $(LOCK)
	HEIGHTS_PURE_PYTHON=1 $(PIP) install --no-deps --no-build-isolation -e .
	touch $@

# The rules core compiled with mypyc (setup.py), installed beside the sources: code run
# with PYTHONPATH=$(COMPILED) imports the compiled engine instead of the editable one.
COMPILED := build/compiled
ENGINE_SOURCES := $(wildcard services/engine/heights_rules/*.py services/engine/heights_rules/data/*.json)
compiled: $(COMPILED)/.built ## Build the mypyc-compiled engine into build/compiled/

# Every file of the packages at any depth (migrations, templates, static files, protos):
# `make demo` and `make up` run this build, so an edit anywhere must rebuild it.
PACKAGE_FILES := $(shell find services/*/heights_* platform/heights_platform -type f \
	-not -path '*/__pycache__/*' 2>/dev/null)
$(COMPILED)/.built: $(STAMP) setup.py pyproject.toml $(ENGINE_SOURCES) $(PACKAGE_FILES)
	rm -rf $(COMPILED)
	$(PIP) install --no-deps --no-build-isolation --target $(COMPILED) .
	touch $@

# The suite runs on the pure-Python engine; then the golden playthroughs, the
# determinism tests and the bots' tests run again on the compiled build, which must play
# the same games.
test: setup compiled ## Run the tests (pytest on 2 workers; PYTEST_ARGS=... to add options)
	$(BIN)/pytest -n 2 $(PYTEST_ARGS)
	PYTHONPATH=$(COMPILED) HEIGHTS_EXPECT_COMPILED=1 $(BIN)/pytest -n 2 -p no:cacheprovider \
		tests/rules/test_compiled.py tests/rules/test_golden.py tests/rules/test_determinism.py \
		tests/bots tests/engine/test_relayed_games.py

lint: setup ## Check lint, formatting, types and layers (ruff, mypy --strict, lint-imports)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(MAKE) --no-print-directory proto-check

# The engine contract: buf lint, buf breaking against main (once main has protos/), and
# the generated Python must match what `make proto` would write.
BUF := $(abspath $(BIN))/buf
proto-check: setup
	cd protos && $(BUF) lint
	@if git cat-file -e main:protos/buf.yaml 2>/dev/null; then \
		echo "buf breaking against main"; \
		cd protos && $(BUF) breaking --against '../.git#branch=main,subdir=protos'; \
	else echo "buf breaking: skipped, main has no protos/ yet"; fi
	$(BIN)/python protos/generate.py --check

proto: setup ## Generate the engine contract's Python (protos/ -> heights_engine/proto/)
	$(BIN)/python protos/generate.py

fmt: setup ## Apply ruff's fixes, then format the code
	$(BIN)/ruff check --fix --exit-zero .
	$(BIN)/ruff format .

bench: compiled ## Run the benchmarks: engine (one core), then matches through the whole path
	PYTHONPATH=$(COMPILED) $(BIN)/python -m heights_cli.main bench
	PYTHONPATH=$(COMPILED) $(BIN)/python -m heights_cli.main bench-runner
	PYTHONPATH=$(COMPILED) $(BIN)/python -m heights_cli.main bench-runner --matches 2 --matches-per-worker 2
	PYTHONPATH=$(COMPILED) $(BIN)/python -m heights_cli.main bench-ratings

# Starts its own engine replicas on 127.0.0.1 (compiled rules core), stops them at the end;
# LOADTEST_CONFIGS, LOADTEST_STEP_SECONDS, ... are described in loadtests/README.md.
loadtest: compiled ## Load-test the engine service at fixed arrival rates; summary in loadtests/results/
	$(BIN)/python -m loadtests.run

# Seeds a PostgreSQL database at issue 19's scale once, kept as a template keyed by the
# seed's hash (LOADTEST_DATABASE_URL's name + _tpl_<hash>, 127.0.0.1), copies it for each
# run, serves the platform with gunicorn, drops the copy at the end; see "Platform" in
# loadtests/README.md.
loadtest-platform: compiled ## Load-test the platform's read API with locust (100 users)
	$(BIN)/python loadtests/platform/run.py

demo: setup compiled ## The main job: a tournament of bots through engine, runner and platform
	PYTHONPATH=$(COMPILED) $(BIN)/python -m heights_cli.main demo

# `make up` twice starts one stack: the second says what is running and starts nothing,
# not even a rebuild of the compiled engine the running one imports (a running stack
# holds the lock, flock(1) tells). UP_VAR and UP_PORT move it (the tests use a scratch
# folder and a free port).
UP_VAR ?= var/up
UP_PORT ?= 8000
up: ## Start engine, runner and platform in the background (var/up/); returns once up
	@if [ -e $(UP_VAR)/stack.lock ] && ! flock -n $(UP_VAR)/stack.lock true; then \
		$(BIN)/python -m heights_cli.main up --var $(UP_VAR); \
	else \
		$(MAKE) --no-print-directory setup compiled; \
		PYTHONPATH=$(COMPILED) $(BIN)/python -m heights_cli.main up --detach \
			--var $(UP_VAR) --port $(UP_PORT); \
	fi

# Waits (up to 90 s) until the stack has stopped, so that `make up` right after it does not
# meet the old services on their ports; ends anything of it that outlived its parent.
down: ## Stop everything `make up` started, and say what
	@if [ ! -x $(BIN)/python ]; then echo "nothing is up (no $(VENV)/)"; exit 0; fi; \
	$(BIN)/python -m heights_cli.main down --var $(UP_VAR)

# The lock also pins pip, wheel and the build backend from [build-system], so setup
# needs nothing that the lock does not name. uv keeps existing pins unless told otherwise.
lock: setup ## Regenerate requirements/lock.txt from pyproject.toml (LOCK_ARGS=--upgrade bumps all)
	{ echo pip; echo wheel; $(BIN)/python -c 'import tomllib; \
		print(*tomllib.load(open("pyproject.toml", "rb"))["build-system"]["requires"], sep="\n")'; } \
	| $(BIN)/uv pip compile pyproject.toml - --extra dev --python-version 3.11 \
		--generate-hashes --custom-compile-command "make lock" --quiet $(LOCK_ARGS) -o $(LOCK)

clean: ## Remove .venv/, tool caches and build artefacts
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis build dist out var
	find . -path ./.git -prune -o \( -name __pycache__ -o -name '*.egg-info' \) -prune \
		-exec rm -rf {} +
