# The README's two commands. Each sets up what it needs on a fresh machine, then runs.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
FMNIST_DEBIAN := /usr/share/datasets/fashion-mnist

.PHONY: train test bench lint setup setup-dev data fuzz

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

setup: $(BIN)/python
	$(BIN)/pip install -q -e .

setup-dev: $(BIN)/python
	$(BIN)/pip install -q -e '.[dev]'

# Offline machines: Debian's dataset-fashion-mnist package is reachable through apt.
data:
	@if [ ! -d "$(FMNIST_DEBIAN)" ] && [ -z "$$FRAMEWORK_HOME" ] \
	    && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  apt-get update -qq && apt-get install -y -qq dataset-fashion-mnist; fi

train: setup data
	$(BIN)/python -m train $(ARGS)

test: setup-dev data
	$(BIN)/python -m pytest -n 2 -q $(ARGS)

bench: setup
	$(BIN)/pip install -q torch==2.13.0 || echo "PyTorch not installable: its column is skipped"
	$(BIN)/python -m benchmarks $(ARGS)

# The long fuzz run of the file readers (tests/fuzz): CASES per format, a table of outcomes.
CASES ?= 100000
fuzz: setup-dev
	$(BIN)/python -m benchmarks fuzz --cases $(CASES) $(ARGS)

lint: setup-dev
	$(BIN)/ruff check framework datasets train benchmarks tests tools
