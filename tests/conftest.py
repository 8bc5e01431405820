"""Shared fixtures: one real embedded PostgreSQL with pgvector per test session.

Facts and audit events are append-only (the database refuses deletes), so tests never
clean up: each test makes its own tenants and keys, and tenants never see each other.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import Callable, Iterator

import pytest

from aurra_local.environment import apply_local_defaults

_OWN_BASETEMP = "_aurra_own_basetemp"


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """Give each run its own base temp directory unless --basetemp names one. Pytest's default
    (/tmp/pytest-of-USER/pytest-N) is shared by every run on the machine, and a run prunes the
    older numbered directories: a second run could remove the embedded PostgreSQL's data
    directory from under the first."""
    if config.option.basetemp is None:
        basetemp = tempfile.mkdtemp(prefix="aurra-pytest-")
        config.option.basetemp = basetemp
        setattr(config, _OWN_BASETEMP, basetemp)


def pytest_unconfigure(config: pytest.Config) -> None:
    basetemp = getattr(config, _OWN_BASETEMP, None)
    if basetemp:
        shutil.rmtree(basetemp, ignore_errors=True)


@pytest.fixture(scope="session")
def pg_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    apply_local_defaults()
    url = os.environ.get("AURRA_TEST_DATABASE_URL")
    server = None
    if not url:
        from aurra_local.embedded_postgres import EmbeddedPostgres

        server = EmbeddedPostgres(tmp_path_factory.mktemp("pg") / "data")
        url = server.url
    from aurra_core.runtime.config import get_config
    from aurra_core.storage.migrate import apply_migrations

    os.environ["AURRA_DATABASE_URL"] = url
    from aurra_core.service import reset

    reset()
    apply_migrations(url, get_config().embedding_dim)
    yield url
    reset()
    if server is not None:
        server.stop()


@pytest.fixture
def configure(pg_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., None]]:
    """Set service environment variables for one test (e.g. configure(AURRA_LEVEL2_ENABLED="true"))."""
    from aurra_core.service import reset

    def apply(**env: str) -> None:
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        reset(database=False)

    yield apply
    monkeypatch.undo()
    reset(database=False)


@pytest.fixture
def db(pg_url: str):
    from aurra_core.storage.db import get_database

    return get_database()


@pytest.fixture
def new_key(db) -> Callable[..., tuple]:
    """Create a fresh tenant and key: returns (Caller, raw key)."""
    from aurra_core.access import keys

    def make(tenant: str | None = None):
        with db.transaction() as conn:
            return keys.create_key(conn, tenant or f"tenant-{uuid.uuid4().hex[:10]}")

    return make
