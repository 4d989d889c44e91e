# Corridor: `make serve` runs it, `make test` tests it. Needs only Python 3.11+ and make.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: serve test bench lint format install clean sdk-models

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml clients/python/pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]' -e clients/python
	touch $(STAMP)

install: $(STAMP)

serve: $(STAMP)
	$(BIN)/corridor migrate
	$(BIN)/corridor init --if-empty
	$(BIN)/corridor serve

test: $(STAMP)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

bench: $(STAMP)
	$(BIN)/python -m benchmarks $(BENCH_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks clients
	$(BIN)/ruff format --check src tests benchmarks clients

format: $(STAMP)
	$(BIN)/ruff check --fix src tests benchmarks clients
	$(BIN)/ruff format src tests benchmarks clients

# The Python SDK's generated code: models.py from the server's OpenAPI, _sync/ from _async/.
sdk-models: $(STAMP)
	$(BIN)/python clients/python/codegen.py

clean:
	rm -rf $(VENV) .corridor
