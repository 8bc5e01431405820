"""Shared fixtures: one real embedded PostgreSQL with pgvector per test session.

Facts and audit events are append-only (the database refuses deletes), so tests never
clean up: each test makes its own tenants and keys, and tenants never see each other.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator

import pytest

from aurra_local.environment import apply_local_defaults


@pytest.fixture(scope="session")
def pg_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    apply_local_defaults()
    url = os.environ.get("AURRA_TEST_DATABASE_URL")
    server = None
    if not url:
        from aurra_local.embedded_postgres import EmbeddedPostgres

        server = EmbeddedPostgres(tmp_path_factory.mktemp("pg") / "data")
        url = server.url
    from aurra_core.config import get_config
    from aurra_core.migrate import apply_migrations

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
    from aurra_core.db import get_database

    return get_database()


@pytest.fixture
def new_key(db) -> Callable[..., tuple]:
    """Create a fresh tenant and key: returns (Caller, raw key)."""
    from aurra_core import keys

    def make(tenant: str | None = None):
        with db.transaction() as conn:
            return keys.create_key(conn, tenant or f"tenant-{uuid.uuid4().hex[:10]}")

    return make
