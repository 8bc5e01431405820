"""Row-level security: with the code's tenant filter wrong or removed, the database itself
still returns nothing of another tenant."""

from datetime import UTC, datetime, timedelta

import psycopg
import pytest

from aurra_core import service
from aurra_core.access import keys
from aurra_core.embedders import LexicalEmbedder
from aurra_core.errors import NotFound
from aurra_core.models import AuditListQuery, MemoryListQuery, SupersedeRequest, WriteRequest
from aurra_core.storage import queries, store
from aurra_core.storage.db import SERVICE_ROLE

TABLES = ("tenants", "api_keys", "key_settings", "memory_versions", "audit_events")
LATER = datetime.now(UTC) + timedelta(days=1)


@pytest.fixture
def two_tenants(db, new_key):
    alice, _ = new_key()
    bob, _ = new_key()
    for caller, text in ((alice, "alice uses Vim"), (bob, "bob uses Emacs")):
        _, written = service.write_memory(caller, WriteRequest(content=text))
        service.supersede_memory(caller, written.memory.id, SupersedeRequest(content=text + " daily"))
    return alice, bob


def test_unfiltered_queries_see_only_the_scoped_tenant(db, two_tenants):
    _alice, bob = two_tenants
    with db.tenant_transaction(bob.tenant_id) as conn:
        for table in TABLES:
            column = "id" if table == "tenants" else "tenant_id"
            seen = {r[0] for r in conn.execute(f"SELECT {column} FROM {table}")}
            assert seen == {bob.tenant_id}, table
    with db.tenant_transaction(None) as conn:
        for table in TABLES:
            assert conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == 0, table


def test_store_queries_with_the_wrong_tenant_find_nothing(db, two_tenants):
    alice, bob = two_tenants
    alice_memory = queries.read_memory_page(
        alice, MemoryListQuery(include_superseded=True), db, LexicalEmbedder(384)
    ).memories[0]
    alice_event = queries.read_audit_page(alice, AuditListQuery(), db).events[0]
    embedding = LexicalEmbedder(384).embed("alice uses Vim")
    # Connection scoped to bob; the code's filter (wrongly) asks for alice.
    with db.tenant_transaction(bob.tenant_id) as conn:
        a = alice.tenant_id
        assert store.select_memory(conn, a, alice_memory.id) is None
        assert store.select_memories_by_id(conn, a, [alice_memory.id]) == []
        assert store.lock_believed(conn, a, alice_memory.id) is None
        assert store.memory_versions(conn, a, alice_memory.id) == []
        assert store.count_current(conn, a) == 0
        assert (
            store.find_candidates(
                conn, a, embedding, scope=store.UNSCOPED, excluded_topics=[], limit=3, min_similarity=-1
            )
            == []
        )
        assert (
            store.select_memories(
                conn,
                a,
                known_at=LATER,
                as_of=LATER,
                include_superseded=True,
                topic=None,
                after=None,
                limit=100,
            )
            == []
        )
        assert (
            store.find_candidates(
                conn,
                a,
                embedding,
                scope=store.UNSCOPED,
                excluded_topics=[],
                limit=3,
                min_similarity=-1,
                text="alice uses Vim",
                topic="preferences",
            )
            == []
        )
        assert (
            store.search_memories(
                conn,
                a,
                embedding,
                "alice uses Vim",
                known_at=LATER,
                as_of=LATER,
                include_superseded=True,
                topic=None,
            )
            == []
        )
        assert store.select_audit_event(conn, a, alice_event.id) is None
        assert (
            store.select_audit_events(
                conn,
                a,
                memory_id=None,
                type=None,
                since=None,
                until=None,
                before=None,
                limit=100,
                recorded_by=LATER,
            )
            == []
        )
        with pytest.raises(NotFound):
            keys.get_key_settings(conn, alice)


def test_writes_into_another_tenant_are_refused(db, two_tenants):
    alice, bob = two_tenants
    with (
        pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"),
        db.tenant_transaction(bob.tenant_id) as conn,
    ):
        store.insert_audit_event(
            conn,
            tenant_id=alice.tenant_id,
            type=store.AuditType.REVERT,
            created_at=datetime.now(UTC),
            api_key_id=None,
        )


def test_the_service_role_owns_nothing_and_cannot_bypass(db):
    with db.transaction() as conn:
        bypass, superuser = conn.execute(
            "SELECT rolbypassrls, rolsuper FROM pg_roles WHERE rolname = %s", (SERVICE_ROLE,)
        ).fetchone()
        owned = conn.execute(
            "SELECT count(*) FROM pg_tables WHERE tableowner = %s", (SERVICE_ROLE,)
        ).fetchone()[0]
        rls = dict(
            conn.execute(
                "SELECT relname, relrowsecurity FROM pg_class WHERE relname = ANY(%s)", (list(TABLES),)
            )
        )
    assert not bypass and not superuser and owned == 0
    assert all(rls[t] for t in TABLES)
    with pytest.raises(psycopg.errors.InsufficientPrivilege), db.tenant_transaction(None) as conn:
        conn.execute(
            "SELECT content FROM memory_versions FOR UPDATE; UPDATE memory_versions SET content = 'x'"
        )
