"""Scopes (user_id, agent_id) on the real PostgreSQL: automatic supersession compares only
memories of the same scope, reads filter exactly, the audit trail filters by user, the
migration adds the columns without rewriting a row, and a scoped candidate search in a large
tenant is served by the scope index."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import numpy as np
import psycopg
import pytest
from pgvector.psycopg import register_vector
from pipeline_support import ScriptedClassifier, contradicts_when, deps
from psycopg.conninfo import make_conninfo

from aurra_core import service
from aurra_core.embedders import LexicalEmbedder
from aurra_core.models import (
    AuditListQuery,
    MemoryListQuery,
    Scope,
    SkippedReason,
    SupersedeRequest,
    WriteRequest,
)
from aurra_core.storage import queries, store
from aurra_core.storage.migrate import apply_migrations, load_migrations
from aurra_core.write_path.pipeline import write_memory

pytestmark = pytest.mark.integration


def write(caller, classifier, **fields):
    fields.setdefault("auto_supersede", True)
    fields.setdefault("topic", "preferences")
    return write_memory(caller, WriteRequest(**fields), deps(classifier))


def listed(caller, db, **filters):
    page = queries.read_memory_page(caller, MemoryListQuery(limit=100, **filters), db, LexicalEmbedder(384))
    return page.memories


def test_two_users_writing_the_same_sentences_never_touch_each_other(db, new_key):
    caller, _ = new_key()
    # A classifier that would supersede anything it is shown: only the scope keeps users apart.
    clf = ScriptedClassifier(contradicts_when("User uses Vim", 0.99))
    alice_vim = write(caller, clf, content="User uses Vim", user_id="alice").result.memory
    bob_vim = write(caller, clf, content="User uses Vim", user_id="bob").result.memory
    assert clf.calls == [], "bob's first fact has no candidate: alice's is not his"

    alice_emacs = write(caller, clf, content="User switched to Emacs from Vim", user_id="alice").result
    assert alice_emacs.auto_supersede.supersession.superseded_id == alice_vim.id
    assert [c.id for c in clf.calls[-1][1]] == [alice_vim.id]
    assert alice_emacs.memory.user_id == "alice" and alice_emacs.memory.agent_id is None

    bob = {m.id: m for m in listed(caller, db, user_id="bob")}
    assert bob[bob_vim.id].status == "current"
    assert set(bob) == {bob_vim.id}
    alice = {m.id for m in listed(caller, db, user_id="alice")}
    assert alice == {alice_emacs.memory.id}, "the current view of alice: her new fact only"


def test_absent_matches_only_absent_and_agent_is_part_of_the_scope(db, new_key):
    caller, _ = new_key()
    clf = ScriptedClassifier(contradicts_when("User lives in Berlin", 0.99))
    unscoped = write(caller, clf, content="User lives in Berlin").result.memory
    with_agent = write(caller, clf, content="User lives in Berlin", user_id="u1", agent_id="a1").result.memory
    user_only = write(caller, clf, content="User lives in Berlin", user_id="u1").result.memory
    assert clf.calls == []

    moved = write(caller, clf, content="User lives in Munich now", user_id="u1", agent_id="a1").result
    assert moved.auto_supersede.supersession.superseded_id == with_agent.id
    assert [c.id for c in clf.calls[-1][1]] == [with_agent.id]
    moved_unscoped = write(caller, clf, content="User lives in Munich now").result
    assert moved_unscoped.auto_supersede.supersession.superseded_id == unscoped.id
    assert [c.id for c in clf.calls[-1][1]] == [unscoped.id]
    current = {m.id for m in listed(caller, db, user_id="u1")}
    assert user_only.id in current and with_agent.id not in current


def test_list_search_and_audit_filter_exactly(db, new_key):
    caller, _ = new_key()
    clf = ScriptedClassifier(contradicts_when("User plays chess", 0.99))
    write(caller, clf, content="User plays chess", user_id="alice", agent_id="coach")
    write(caller, clf, content="User plays chess", user_id="bob", agent_id="coach")
    write(caller, clf, content="User plays chess", user_id="alice")
    write(caller, clf, content="User plays chess")
    replaced = write(caller, clf, content="User gave up chess for go", user_id="alice", agent_id="coach")
    assert replaced.result.auto_supersede.supersession is not None

    def scopes(memories):
        return sorted((m.user_id or "-", m.agent_id or "-") for m in memories)

    assert scopes(listed(caller, db)) == [("-", "-"), ("alice", "-"), ("alice", "coach"), ("bob", "coach")]
    assert scopes(listed(caller, db, user_id="alice")) == [("alice", "-"), ("alice", "coach")]
    assert scopes(listed(caller, db, agent_id="coach")) == [("alice", "coach"), ("bob", "coach")]
    assert scopes(listed(caller, db, user_id="bob", agent_id="coach")) == [("bob", "coach")]
    assert listed(caller, db, user_id="carol") == []
    searched = listed(caller, db, q="chess", user_id="bob")
    assert scopes(searched) == [("bob", "coach")] and searched[0].score is not None
    everything = listed(caller, db, user_id="alice", include_superseded=True)
    assert len(everything) == 3

    events = queries.read_audit_page(caller, AuditListQuery(user_id="alice"), db).events
    assert [e.memory_id for e in events] == [replaced.result.memory.id]
    assert queries.read_audit_page(caller, AuditListQuery(user_id="bob"), db).events == []


def test_pages_of_a_scoped_list_keep_their_filter(db, new_key):
    caller, _ = new_key()
    clf = ScriptedClassifier()
    for i in range(5):
        write(caller, clf, content=f"User fact number {i}", user_id="pager", auto_supersede=False)
        write(caller, clf, content=f"User fact number {i}", user_id="other", auto_supersede=False)
    embedder = LexicalEmbedder(384)
    page = queries.read_memory_page(caller, MemoryListQuery(limit=2, user_id="pager"), db, embedder)
    seen = [m.id for m in page.memories]
    while page.next_cursor:
        page = queries.read_memory_page(
            caller, MemoryListQuery(limit=2, user_id="pager", cursor=page.next_cursor), db, embedder
        )
        seen += [m.id for m in page.memories]
    assert len(seen) == len(set(seen)) == 5
    with pytest.raises(Exception, match="cursor does not belong"):
        first = queries.read_memory_page(caller, MemoryListQuery(limit=2, user_id="pager"), db, embedder)
        queries.read_memory_page(
            caller, MemoryListQuery(limit=2, user_id="other", cursor=first.next_cursor), db, embedder
        )


def test_a_manual_replacement_stays_in_the_scope_of_what_it_replaces(db, new_key):
    caller, _ = new_key()
    clf = ScriptedClassifier()
    old = write(caller, clf, content="User drinks coffee", user_id="alice", agent_id="barista").result.memory
    result = service.supersede_memory(caller, old.id, SupersedeRequest(content="User drinks tea now"))[1]
    assert (result.memory.user_id, result.memory.agent_id) == ("alice", "barista")
    assert (result.superseded.user_id, result.superseded.agent_id) == ("alice", "barista")
    events = queries.read_audit_page(caller, AuditListQuery(user_id="alice"), db).events
    assert [e.type for e in events] == ["manual_supersede"]


def test_another_tenant_with_the_same_user_id_is_invisible(db, new_key):
    mine, _ = new_key()
    theirs, _ = new_key()
    clf = ScriptedClassifier(contradicts_when("User uses Vim", 0.99))
    write(caller=theirs, classifier=clf, content="User uses Vim", user_id="alice")
    outcome = write(caller=mine, classifier=clf, content="User uses Vim", user_id="alice")
    assert outcome.result.auto_supersede.skipped_reason == SkippedReason.NO_CANDIDATES
    assert [m.user_id for m in listed(mine, db, user_id="alice")] == ["alice"]
    assert queries.read_audit_page(mine, AuditListQuery(user_id="alice"), db).events == []


def test_bad_scope_ids_are_refused():
    for bad in ("", "a b", "x" * 129, "alice/bob", "ünïcode"):
        with pytest.raises(ValueError, match="user_id"):
            WriteRequest(content="x", user_id=bad)
        with pytest.raises(ValueError, match="agent_id"):
            MemoryListQuery(agent_id=bad)
    assert WriteRequest(content="x", user_id="a.b:c@d-e_f", agent_id="A" * 128).scope == Scope(
        "a.b:c@d-e_f", "A" * 128
    )


# ---------------------------------------------------------------- the migration and the index


@pytest.fixture
def empty_database(pg_url: str):
    name = f"aurra_scopes_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    yield make_conninfo(pg_url, dbname=name)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


def test_the_scope_migration_rewrites_no_row(empty_database):
    dim = 8
    before_scopes = [m for m in load_migrations(dim) if m.version < "0004"]
    with psycopg.connect(empty_database, autocommit=True) as conn:
        conn.execute("CREATE TABLE schema_migrations (version text PRIMARY KEY, checksum text NOT NULL)")
        for migration in before_scopes:
            conn.execute(migration.sql)
            conn.execute(
                "INSERT INTO schema_migrations VALUES (%s, %s)", (migration.version, migration.checksum)
            )
        register_vector(conn)
        tenant = uuid.uuid4()
        conn.execute("INSERT INTO tenants (id, name) VALUES (%s, 'old')", (tenant,))
        now = datetime.now(UTC)
        for i in range(50):
            conn.execute(
                """INSERT INTO memory_versions (memory_id, tenant_id, content, topic, embedding,
                       valid_from, recorded_at) VALUES (%s, %s, %s, 'general', %s, %s, %s)""",
                (uuid.uuid4(), tenant, f"old fact {i}", np.ones(dim, dtype=np.float32), now, now),
            )
        files = dict(
            conn.execute(
                "SELECT relname, relfilenode FROM pg_class WHERE relname IN ('memory_versions', 'audit_events')"
            ).fetchall()
        )
        rows = conn.execute("SELECT ctid::text, xmin::text FROM memory_versions ORDER BY ctid").fetchall()

    assert apply_migrations(empty_database, dim)[0] == "0004_scopes"

    with psycopg.connect(empty_database) as conn:
        register_vector(conn)
        after = dict(
            conn.execute(
                "SELECT relname, relfilenode FROM pg_class WHERE relname IN ('memory_versions', 'audit_events')"
            ).fetchall()
        )
        assert after == files, "the tables were rewritten"
        assert (
            conn.execute("SELECT ctid::text, xmin::text FROM memory_versions ORDER BY ctid").fetchall()
            == rows
        )
        assert conn.execute(
            "SELECT count(*) FROM memory_versions WHERE user_id IS NULL AND agent_id IS NULL"
        ).fetchone() == (50,)
        with pytest.raises(psycopg.errors.CheckViolation):
            conn.execute(
                """INSERT INTO memory_versions (memory_id, tenant_id, content, topic, embedding,
                       valid_from, recorded_at, user_id) VALUES (%s, %s, 'x', 'general', %s, now(), now(), 'a b')""",
                (uuid.uuid4(), tenant, np.ones(dim, dtype=np.float32)),
            )


def test_a_scoped_candidate_search_in_a_large_tenant_is_an_index_scan(empty_database):
    """A tenant far over the HNSW threshold, and one user in it with a few memories: the search
    reads that user's rows through the scope index (an exact scan of a small scope), where
    the tenant-wide strategy would have walked an HNSW graph of everyone's rows."""
    dim = 16
    apply_migrations(empty_database, dim)
    rng = np.random.default_rng(5)
    tenant = uuid.uuid4()
    now = datetime.now(UTC)
    size = store.HNSW_MIN_TENANT_MEMORIES * 3
    with psycopg.connect(empty_database) as conn:
        register_vector(conn)
        conn.execute("INSERT INTO tenants (id, name) VALUES (%s, 'large')", (tenant,))
        with conn.cursor().copy(
            "COPY memory_versions (memory_id, tenant_id, content, topic, embedding, valid_from, "
            "recorded_at, user_id) FROM STDIN WITH (FORMAT BINARY)"
        ) as copy:
            copy.set_types(["uuid", "uuid", "text", "text", "vector", "timestamptz", "timestamptz", "text"])
            for i in range(size):
                v = rng.standard_normal(dim).astype(np.float32)
                user = "alice" if i % 500 == 0 else f"user-{i % 97}"
                copy.write_row((uuid.uuid4(), tenant, f"fact {i}", "general", v, now, now, user))
        conn.execute("ANALYZE memory_versions")
        q = rng.standard_normal(dim).astype(np.float32)

        statements: list[tuple[str, dict]] = []

        class Recording(psycopg.Cursor):
            def execute(self, query, params=None, **kwargs):
                statements.append((str(query), params))
                return super().execute(query, params, **kwargs)

        conn.cursor_factory = Recording
        found = store.find_candidates(
            conn, tenant, q, scope=Scope("alice"), excluded_topics=[], limit=3, min_similarity=-1
        )
        conn.cursor_factory = psycopg.Cursor
        assert len(found) == 3 and {row.user_id for row, _ in found} == {"alice"}
        ((query, params),) = [(s, p) for s, p in statements if "ORDER BY" in s]
        plan = "\n".join(r[0] for r in conn.execute("EXPLAIN " + query, params, prepare=False))
        assert "memory_versions_scope_current" in plan, plan
        assert "Seq Scan" not in plan and "hnsw" not in plan.lower(), plan
        assert store.count_current(conn, tenant) == size
