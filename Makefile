# Content Studio — the two commands a fresh machine needs are `make run` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
SERVE   = $(VENV)/.installed-serve
DEV     = $(VENV)/.installed-dev
PORT   ?=

.PHONY: install dev system-deps run test lint typecheck pytest bench clean

# What serving needs, into .venv (re-run when pyproject.toml changes): `make run` installs only this.
$(SERVE): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e .
	touch $(SERVE)

# …and what testing needs on top: pytest, ruff, mypy, Playwright (`make test`, `make lint` …).
$(DEV): $(SERVE)
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(DEV)

# System packages the tests use: Debian's chromium for the browser tests (Playwright drives it; browsers
# cannot be downloaded here, so never `playwright install`) and postgresql, whose initdb and pg_ctl start a
# throwaway cluster for the PostgreSQL tests (tests/pg.py), and libGL for OpenCV (OCR, mask inpainting).
# Idempotent: apt runs only when one is missing.
system-deps:
	@missing=""; \
	[ -x /usr/bin/chromium ] || missing="$$missing chromium"; \
	{ command -v initdb || ls /usr/lib/postgresql/*/bin/initdb; } >/dev/null 2>&1 || missing="$$missing postgresql"; \
	ls /usr/lib/*/libGL.so.1 /lib/*/libGL.so.1 >/dev/null 2>&1 || missing="$$missing libgl1 libglib2.0-0"; \
	if [ -n "$$missing" ]; then \
		SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
		$$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
		$$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi

install: $(SERVE)

# The test set-up: the dev tools and the system packages only the tests use (chromium, postgresql).
dev: system-deps $(DEV)

# Serving migrates the database and loads the sample corpus first (`studio serve --prepare`, one process
# start instead of three). `make run PORT=8001` serves on another port (the setting is STUDIO_PORT).
run: install
	$(BIN)/studio serve $(if $(PORT),--port $(PORT))

lint: dev
	$(BIN)/ruff check .
	$(BIN)/lint-imports

typecheck: dev
	$(BIN)/mypy

pytest: dev
	$(BIN)/pytest

test: lint typecheck pytest

# Every benchmark (~10-12 min on 2 cores): tables on stdout, JSON in bench/results/, see docs/benchmarks.md.
# On a shared machine: make bench BENCH_ARGS="--wait-load 1.0" (each benchmark waits for a quiet moment).
bench: install
	$(BIN)/python -m bench $(BENCH_ARGS)

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
