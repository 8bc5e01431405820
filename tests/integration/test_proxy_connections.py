"""Connections through RDS Proxy prepare no statement: the proxy pins its database connection to
a client for as long as a statement that client prepared lives (the proxy-pinning alarm)."""

from __future__ import annotations

import pytest
from pipeline_support import ScriptedClassifier
from psycopg.conninfo import make_conninfo

from aurra_core.embedders import LexicalEmbedder
from aurra_core.models import WriteRequest
from aurra_core.runtime.flags import EnvFlagSource
from aurra_core.storage.db import Database
from aurra_core.write_path.pipeline import WriteDependencies, write_memory


def prepared_statements_after_writes(pg_url: str, new_key, *, through_proxy: bool) -> int:
    database = Database(make_conninfo(pg_url), max_size=1, through_proxy=through_proxy)
    try:
        deps = WriteDependencies(
            db=database,
            embedder=LexicalEmbedder(384),
            classifier_factory=ScriptedClassifier,
            flags=EnvFlagSource(True),
        )
        caller, _ = new_key()
        for i in range(8):  # past psycopg's prepare_threshold of 5
            request = WriteRequest(
                content=f"alice uses Vim on machine {i}", topic="tools", auto_supersede=True
            )
            write_memory(caller, request, deps)
        with database.transaction() as conn:  # the pool's one connection
            assert (conn.prepare_threshold is None) == through_proxy
            return int(conn.execute("SELECT count(*) FROM pg_prepared_statements").fetchone()[0])
    finally:
        database.close()


@pytest.mark.parametrize("through_proxy", [False, True])
def test_only_direct_connections_prepare_statements(pg_url, new_key, through_proxy: bool) -> None:
    prepared = prepared_statements_after_writes(pg_url, new_key, through_proxy=through_proxy)
    if through_proxy:
        assert prepared == 0
    else:
        assert prepared > 0  # the small scope's candidate list, and the statements run often


def test_the_service_connects_through_the_proxy_without_prepared_statements(monkeypatch) -> None:
    from aurra_core.runtime.config import reset_config
    from aurra_core.storage import db

    monkeypatch.delenv("AURRA_DATABASE_URL", raising=False)
    monkeypatch.setenv("AURRA_DB_USER", "aurra_service")
    monkeypatch.setenv("AURRA_DB_HOST", "proxy.example.internal")
    db.reset_database()
    reset_config()
    try:
        assert db.get_database()._through_proxy is True
    finally:
        db.reset_database()
        monkeypatch.undo()
        reset_config()
