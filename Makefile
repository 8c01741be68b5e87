# Everything runs inside a project-local virtualenv that the first target builds.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup demo test test-fast lint typecheck unit bench bench-search clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/legion-memory demo

lint: $(STAMP)
	$(BIN)/ruff check legion_memory tests $(wildcard bench)
	$(BIN)/ruff format --check legion_memory tests $(wildcard bench)

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/pytest

test: lint typecheck unit

# The edit-test loop: everything but the tests marked slow. `make test` and CI run them all.
test-fast: $(STAMP)
	$(BIN)/pytest -m "not slow"

bench: $(STAMP)
	$(BIN)/python -m bench.run

# Retrieval quality of search and context against SQLite FTS5, over ../shared/legion.
bench-search: $(STAMP)
	$(BIN)/python -m bench.search.run

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
