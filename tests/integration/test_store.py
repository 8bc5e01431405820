"""The bi-temporal store on a real PostgreSQL: both time axes, append-only, migrations."""

from datetime import UTC, datetime, timedelta

import psycopg
import pytest
from pipeline_support import ScriptedClassifier, deps

from aurra_core.embedders import LexicalEmbedder
from aurra_core.errors import Conflict, NotFound, ValidationFailed
from aurra_core.models import AuditType, MemoryListQuery, PointInTime, SupersedeRequest, WriteRequest
from aurra_core.runtime.config import get_config
from aurra_core.storage import queries, store
from aurra_core.storage.ids import new_id
from aurra_core.storage.migrate import apply_migrations
from aurra_core.write_path.pipeline import write_memory
from aurra_core.write_path.supersession import supersede

EMB = LexicalEmbedder(384)


def add(caller, content, valid_from=None, topic="general"):
    return write_memory(
        caller,
        WriteRequest(content=content, topic=topic, valid_from=valid_from),
        deps(ScriptedClassifier(), level2=False),
    ).result.memory


def page(db, caller, **q):
    return queries.read_memory_page(caller, MemoryListQuery(**q), db, EMB)


def test_what_was_true_and_what_we_knew(db, new_key):
    caller, _ = new_key()
    vim = add(caller, "alice uses Vim", "2026-04-01T00:00:00Z")
    before_change = datetime.now(UTC)
    emacs = supersede(
        caller,
        vim.id,
        SupersedeRequest(content="alice uses Emacs", valid_from="2026-05-01T00:00:00Z"),
        db,
        EMB,
    ).memory

    def contents(**q):
        return [m.content for m in page(db, caller, **q).memories]

    assert contents() == ["alice uses Emacs"]
    assert contents(as_of="2026-04-15T00:00:00Z") == ["alice uses Vim"]
    assert contents(as_of="2026-05-15T00:00:00Z") == ["alice uses Emacs"]
    assert contents(as_of="2026-03-01T00:00:00Z") == []
    # What did we know, before the change was recorded, about May 15? That Vim was current.
    known = page(db, caller, as_of="2026-05-15T00:00:00Z", known_at=before_change.isoformat()).memories
    assert [(m.content, m.status, m.valid_to) for m in known] == [("alice uses Vim", "current", None)]
    assert contents(include_superseded=True) == ["alice uses Emacs", "alice uses Vim"]

    got = queries.read_memory(caller, vim.id, PointInTime(known_at=before_change), db)
    assert got.status == "current"
    assert queries.read_memory(caller, vim.id, PointInTime(), db).superseded_by == emacs.id
    with pytest.raises(NotFound):
        queries.read_memory(caller, emacs.id, PointInTime(known_at=before_change), db)
    with pytest.raises(NotFound):
        queries.read_memory(caller, vim.id, PointInTime(as_of=datetime(2026, 6, 1, tzinfo=UTC)), db)


def test_history_gives_the_whole_lineage_and_every_version(db, new_key):
    caller, _ = new_key()
    a = add(caller, "alice uses Vim", "2026-01-01T00:00:00Z")
    b = supersede(
        caller, a.id, SupersedeRequest(content="alice uses Emacs", valid_from="2026-02-01T00:00:00Z"), db, EMB
    ).memory
    c = supersede(
        caller, b.id, SupersedeRequest(content="alice uses Helix", valid_from="2026-03-01T00:00:00Z"), db, EMB
    ).memory
    for member in (a, b, c):
        history = queries.read_memory_history(caller, member.id, PointInTime(), db)
        assert [m.id for m in history.chain] == [a.id, b.id, c.id]
    hb = queries.read_memory_history(caller, b.id, PointInTime(), db)
    assert [(v.status, v.recorded_to is None) for v in hb.versions] == [
        ("current", False),
        ("superseded", True),
    ]
    early = queries.read_memory_history(caller, b.id, PointInTime(known_at=hb.versions[0].recorded_at), db)
    assert [m.id for m in early.chain] == [a.id, b.id]


def test_manual_supersede_rules(db, new_key):
    caller, _ = new_key()
    a = add(caller, "alice uses Vim")
    b = add(caller, "alice uses Emacs")
    with pytest.raises(ValidationFailed, match="itself"):
        supersede(caller, a.id, SupersedeRequest(superseded_by=a.id), db, EMB)
    with pytest.raises(ValidationFailed, match="not both"):
        supersede(caller, a.id, SupersedeRequest(superseded_by=b.id, content="x"), db, EMB)
    with pytest.raises(ValidationFailed, match="required"):
        supersede(caller, a.id, SupersedeRequest(), db, EMB)
    linked = supersede(caller, a.id, SupersedeRequest(superseded_by=b.id), db, EMB)
    assert linked.superseded.superseded_by == b.id and linked.memory.supersedes == a.id
    assert linked.superseded.valid_to == linked.memory.valid_from
    with pytest.raises(Conflict):
        supersede(caller, a.id, SupersedeRequest(content="alice uses Nano"), db, EMB)
    # b -> a would close a cycle a -> b -> a
    with pytest.raises((ValidationFailed, Conflict)):
        supersede(caller, b.id, SupersedeRequest(superseded_by=a.id), db, EMB)
    with pytest.raises(ValidationFailed, match="valid_from"):
        supersede(
            caller,
            b.id,
            SupersedeRequest(content="alice uses Nano", valid_from="2000-01-01T00:00:00Z"),
            db,
            EMB,
        )


def test_cycle_through_a_chain_is_refused(db, new_key):
    caller, _ = new_key()
    a = add(caller, "fact a")
    b = supersede(caller, a.id, SupersedeRequest(content="fact b"), db, EMB).memory
    # a -> b exists; "b superseded by a" would close the cycle.
    with pytest.raises(ValidationFailed, match="cycle"):
        supersede(caller, b.id, SupersedeRequest(superseded_by=a.id), db, EMB)
    c = add(caller, "fact c")
    # and a link the other way, to a later fact, is fine
    assert supersede(caller, b.id, SupersedeRequest(superseded_by=c.id), db, EMB).memory.supersedes == b.id


def test_pagination_is_stable_under_concurrent_writes(db, new_key):
    caller, _ = new_key()
    written = [add(caller, f"fact number {i}") for i in range(25)]
    first = page(db, caller, limit=10)
    for i in range(5):
        add(caller, f"late fact {i}")  # lands between pages
    second = page(db, caller, limit=10, cursor=first.next_cursor)
    third = page(db, caller, limit=10, cursor=second.next_cursor)
    seen = [m.id for p in (first, second, third) for m in p.memories]
    assert seen == [m.id for m in reversed(written)]
    assert third.next_cursor is None
    with pytest.raises(ValidationFailed, match="cursor"):
        page(db, caller, limit=10, topic="other", cursor=first.next_cursor)
    with pytest.raises(ValidationFailed, match="cursor"):
        page(db, caller, cursor="not-a-cursor!!")


def test_search_pages_by_relevance(db, new_key):
    caller, _ = new_key()
    for text in [
        "alice uses Vim as her editor",
        "alice prefers tea",
        "bob flies to Lisbon",
        "alice edits in Vim daily",
    ]:
        add(caller, text)
    first = page(db, caller, q="vim editor", limit=2)
    rest = page(db, caller, q="vim editor", limit=2, cursor=first.next_cursor)
    relevance = [m.relevance for m in first.memories + rest.memories]
    assert relevance == sorted(relevance, reverse=True)
    assert "Vim" in first.memories[0].content
    assert len({m.id for m in first.memories + rest.memories}) == 4


def test_future_valid_from_is_not_true_yet(db, new_key):
    caller, _ = new_key()
    future = (datetime.now(UTC) + timedelta(days=30)).isoformat()
    add(caller, "alice starts at Acme next month", future)
    assert page(db, caller).memories == []
    assert len(page(db, caller, as_of=(datetime.now(UTC) + timedelta(days=31)).isoformat()).memories) == 1


def test_facts_and_audit_events_are_append_only_in_the_database(db, new_key):
    caller, _ = new_key()
    a = add(caller, "alice uses Vim")
    supersede(caller, a.id, SupersedeRequest(content="alice uses Emacs"), db, EMB)
    statements = [
        "UPDATE memory_versions SET content = 'tampered' WHERE tenant_id = %s",
        "DELETE FROM memory_versions WHERE tenant_id = %s",
        "UPDATE memory_versions SET recorded_to = now() WHERE recorded_to IS NOT NULL AND tenant_id = %s",
        "UPDATE audit_events SET reason = 'tampered' WHERE tenant_id = %s",
        "DELETE FROM audit_events WHERE tenant_id = %s",
        "DELETE FROM key_settings WHERE tenant_id = %s",
    ]
    for sql in statements:
        with (
            pytest.raises(psycopg.errors.InsufficientPrivilege, match="aurra"),
            db.transaction() as conn,
        ):
            conn.execute(sql, (caller.tenant_id,))
    for table in ("memory_versions", "audit_events"):
        with pytest.raises(psycopg.errors.InsufficientPrivilege), db.transaction() as conn:
            conn.execute(f"TRUNCATE {table}")


def test_a_supersession_of_a_version_no_longer_believed_keeps_nothing(db, new_key):
    """The new version, the old one's revision and the audit event are one statement: when the
    old version was closed in the meantime (nothing to revise), the write fails and neither
    the new version nor its audit event is kept."""
    caller, _ = new_key()
    vim = add(caller, "alice uses Vim")

    def counts():
        with db.tenant_transaction(caller.tenant_id) as conn:
            return tuple(
                conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
                for table in ("memory_versions", "audit_events")
            )

    before = counts()
    with (
        pytest.raises(RuntimeError, match="no longer believed"),
        db.tenant_transaction(caller.tenant_id) as conn,
    ):
        stale = store.lock_believed(conn, caller.tenant_id, vim.id)
        assert stale is not None
        now = store.write_clock(conn)
        store.revise_version(conn, stale, now, valid_to=now)  # closes `stale`
        version = {
            "memory_id": new_id(),
            "tenant_id": caller.tenant_id,
            "content": "alice uses Emacs",
            "topic": "general",
            "metadata": {},
            "embedding": EMB.embed("alice uses Emacs"),
            "valid_from": now,
            "valid_to": None,
            "superseded_by": None,
            "supersedes": vim.id,
            "recorded_at": now,
        }
        event = {
            "tenant_id": caller.tenant_id,
            "type": AuditType.AUTO_SUPERSEDE,
            "api_key_id": caller.api_key_id,
            "memory_id": version["memory_id"],
            "superseded_id": vim.id,
        }
        changes = {"valid_to": now, "superseded_by": version["memory_id"], "superseded_event_id": new_id()}
        store.insert_version_audited(conn, version, event, revise=(stale, changes))
    assert counts() == before


def test_migrations_are_recorded_and_safe_to_run_twice(pg_url):
    assert apply_migrations(pg_url, get_config().embedding_dim) == []
    with psycopg.connect(pg_url) as conn:
        versions = [r[0] for r in conn.execute("SELECT version FROM schema_migrations ORDER BY version")]
    assert versions[0] == "0001_initial"
    with pytest.raises(RuntimeError, match="dimension"):
        apply_migrations(pg_url, 1024)
