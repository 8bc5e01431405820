"""Fixtures of the integration tests that need more than the session's database."""

from __future__ import annotations

import uuid

import psycopg
import pytest
from psycopg.conninfo import make_conninfo


@pytest.fixture
def own_database(pg_url: str, monkeypatch: pytest.MonkeyPatch):
    """A database of its own: its dump and its files hold this test's rows alone."""
    from aurra_core import service
    from aurra_core.runtime.config import get_config
    from aurra_core.storage.migrate import apply_migrations

    name = f"aurra_erasure_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = make_conninfo(pg_url, dbname=name)
    apply_migrations(url, get_config().embedding_dim)
    monkeypatch.setenv("AURRA_DATABASE_URL", url)
    service.reset()
    yield url
    monkeypatch.undo()
    service.reset()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
