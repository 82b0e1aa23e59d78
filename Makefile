# Content Studio — the two commands a fresh machine needs are `make run` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
STAMP   = $(VENV)/.installed

.PHONY: install system-deps run test lint typecheck pytest bench clean

# Python dependencies into .venv (re-run when pyproject.toml changes).
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

# System packages: Debian's chromium for the browser tests (Playwright drives it; browsers cannot be
# downloaded here, so never `playwright install`). Idempotent: skipped when /usr/bin/chromium exists.
system-deps:
	@if [ -x /usr/bin/chromium ]; then :; \
	else \
		SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
		$$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
		$$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; \
	fi

install: system-deps $(STAMP)

run: install
	$(BIN)/studio db upgrade
	$(BIN)/studio notes seed
	$(BIN)/studio serve

lint: install
	$(BIN)/ruff check .

typecheck: install
	$(BIN)/mypy

pytest: install
	$(BIN)/pytest

test: lint typecheck pytest

# Every benchmark (~8-10 min on 2 cores): tables on stdout, JSON in bench/results/, see docs/benchmarks.md.
# On a shared machine: make bench BENCH_ARGS="--wait-load 1.0" (each benchmark waits for a quiet moment).
bench: install
	$(BIN)/python -m bench $(BENCH_ARGS)

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
