# mnemo: `make demo` sets up and runs the main job; `make test` sets up and runs the tests.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: setup demo test lint typecheck eval-locomo eval-longmemeval bench clean

setup: $(VENV)/.installed

# torch is pinned in the same install: the CPU wheel of 2.13.0 is local; without the pin pip
# would pull a multi-GB CUDA build.
$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet "torch==2.13.0" -e ".[local,server,dev,postgres,files]"
	touch $@

demo: setup
	$(BIN)/mnemo demo

lint: setup
	$(BIN)/ruff check mnemo tests bench scripts
	$(BIN)/ruff format --check mnemo tests bench scripts

typecheck: setup
	$(BIN)/mypy

# PostgreSQL for the storage tests: $$MNEMO_TEST_DATABASE_URL when set, else a throwaway server
# started by $(PGVECTOR) (needs root); without either the PostgreSQL tests are skipped.
PGVECTOR ?= ../shared/ci/pgvector.sh

test: setup lint typecheck
	@url="$${MNEMO_TEST_DATABASE_URL:-}"; \
	if [ -z "$$url" ] && [ -f "$(PGVECTOR)" ] && [ "$$(id -u)" = 0 ]; then \
		url=$$(bash "$(PGVECTOR)" 2>.pgvector.log | tail -n 1); \
	fi; \
	case "$$url" in postgresql://*) echo "PostgreSQL tests on $$url";; \
		*) url=""; echo "no PostgreSQL (see .pgvector.log): its tests will be skipped";; esac; \
	MNEMO_TEST_DATABASE_URL="$$url" $(BIN)/pytest -q

eval-locomo: setup
	$(BIN)/mnemo eval locomo --data ../shared/data/locomo-dev.json --json docs/results/locomo-dev.json

eval-longmemeval: setup
	$(BIN)/mnemo eval longmemeval --data ../shared/data/longmemeval-s-dev.json --json docs/results/longmemeval-s-dev.json

bench: setup
	$(BIN)/python bench/search_latency.py
	$(BIN)/python bench/ingest.py

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache mnemo-demo.db* .pgvector.log
