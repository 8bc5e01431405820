"""Retention periods through the maintenance job's entry point (functions/maintenance), on a
database of their own: what each period erases, with a receipt per run that erased something,
the shortest period of a tenant's keys that are not revoked, and nothing of a tenant without
one. Memories of the past are written as the store writes them, at the times they would have
been recorded then."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from erasure_support import hits, run_maintenance, token

from aurra_core import service
from aurra_core.access import keys
from aurra_core.embedders import LexicalEmbedder
from aurra_core.errors import Gone
from aurra_core.models import AuditListQuery, AuditType, PointInTime, Scope, SettingsPatch
from aurra_core.storage import store
from aurra_core.storage.db import get_database
from aurra_core.storage.ids import new_id

pytestmark = pytest.mark.integration

NOW = datetime.now(UTC)


def days_ago(days: float) -> datetime:
    return NOW - timedelta(days=days)


def new_tenant():
    with get_database().transaction() as conn:
        return keys.create_key(conn, f"retention-{token('t')}")[0]


def another_key(caller):
    with get_database().transaction() as conn:
        name = conn.execute("SELECT name FROM tenants WHERE id = %s", (caller.tenant_id,)).fetchone()[0]
        return keys.create_key(conn, name)[0]


def settings(caller, **patch) -> None:
    service.update_settings(caller, SettingsPatch.model_validate(patch))


def remember(caller, content, recorded_at, *, valid_to=None, user_id=None) -> store.MemoryRow:
    """A memory as a write at `recorded_at` would have recorded it."""
    with get_database().tenant_transaction(caller.tenant_id) as conn:
        return store.insert_version(
            conn,
            memory_id=new_id(),
            tenant_id=caller.tenant_id,
            content=content,
            topic="general",
            metadata={},
            embedding=LexicalEmbedder(384).embed(content),
            valid_from=recorded_at,
            valid_to=valid_to,
            superseded_by=None,
            supersedes=None,
            recorded_at=recorded_at,
            scope=Scope(user_id),
        )


def supersede_at(caller, old, new, at) -> None:
    """`new` supersedes `old` at `at`, with its audit event, whose reason quotes both."""
    with get_database().tenant_transaction(caller.tenant_id) as conn:
        event_id = new_id()
        store.insert_audit_event(
            conn,
            event_id=event_id,
            tenant_id=caller.tenant_id,
            type=AuditType.AUTO_SUPERSEDE,
            created_at=at,
            api_key_id=caller.api_key_id,
            memory_id=new.memory_id,
            superseded_id=old.memory_id,
            classifier="contradicts",
            confidence=0.97,
            reason=f"'{new.content}' replaces '{old.content}'",
            model="quoting-model",
        )
        store.revise_version(
            conn, old, at, valid_to=new.valid_from, superseded_by=new.memory_id, superseded_event_id=event_id
        )


def test_memory_retention_erases_what_was_recorded_longer_ago_with_a_receipt(own_database):
    caller = new_tenant()
    stricter, revoked = another_key(caller), another_key(caller)
    settings(caller, memory_retention_days=100)
    settings(stricter, memory_retention_days=30)  # the shortest of the tenant's keys wins
    settings(revoked, memory_retention_days=1)
    with get_database().transaction() as conn:
        keys.revoke_key(conn, revoked.api_key_id)  # ... of those not revoked
    words = [token("mr") for _ in range(3)]
    old = remember(caller, f"User lived in {words[0]}", days_ago(40))
    recent = remember(caller, f"User lives in {words[1]}", days_ago(20))
    other = new_tenant()  # no period: kept for ever
    theirs = remember(other, f"User lived in {words[2]}", days_ago(400))

    report = run_maintenance()

    (entry,) = report["retention"]
    assert entry["tenant_id"] == str(caller.tenant_id)
    assert entry["selector"] == {"memory_retention_days": 30}
    assert entry["counts"] == {
        "memories": 1,
        "versions": 1,
        "audit_events": 0,
        "proposals": 0,
        "idempotency_records": 0,
    }
    assert service.get_erasure(caller, entry["id"]).selector == {"memory_retention_days": 30}
    with pytest.raises(Gone):
        service.get_memory(caller, old.memory_id, PointInTime())
    assert service.get_memory(caller, recent.memory_id, PointInTime()).id == recent.memory_id
    assert service.get_memory(other, theirs.memory_id, PointInTime()).id == theirs.memory_id
    assert hits(get_database(), words) == {words[1]: ["memory_versions"], words[2]: ["memory_versions"]}
    (event,) = service.list_audit_events(caller, AuditListQuery(type=AuditType.ERASURE)).events
    assert event.api_key_id is None and event.details["erasure_id"] == entry["id"]
    # the next run finds nothing more: no receipt
    assert run_maintenance()["retention"] == []


def test_history_retention_erases_what_is_no_longer_current_and_old_versions(own_database):
    caller = new_tenant()
    settings(caller, history_retention_days=30)
    w = {name: token(name) for name in ("c", "d", "e", "f", "g", "h", "i")}
    c = remember(caller, f"User used {w['c']}", days_ago(60))
    d = remember(caller, f"User uses {w['d']}", days_ago(40))
    supersede_at(caller, c, d, days_ago(40))  # superseded 40 days ago: erased, with its event's reason
    e = remember(caller, f"User owns {w['e']}", days_ago(60))
    with get_database().tenant_transaction(caller.tenant_id) as conn:
        store.revise_version(conn, e, days_ago(40))  # a version closed 40 days ago: erased alone
    f = remember(caller, f"User drove {w['f']}", days_ago(60))
    g = remember(caller, f"User drives {w['g']}", days_ago(10))
    supersede_at(caller, f, g, days_ago(10))  # superseded 10 days ago: kept
    h = remember(caller, f"User visited {w['h']}", days_ago(60), valid_to=days_ago(40))  # expired: erased
    i = remember(caller, f"User visits {w['i']}", days_ago(5), valid_to=NOW + timedelta(days=5))

    report = run_maintenance()

    (entry,) = report["retention"]
    assert entry["selector"] == {"history_retention_days": 30}
    # c (two versions) and h whole, and e's first version; the event about c made content-free
    assert entry["counts"] == {
        "memories": 2,
        "versions": 4,
        "audit_events": 1,
        "proposals": 0,
        "idempotency_records": 0,
    }
    for gone in (c, h):
        with pytest.raises(Gone):
            service.get_memory(caller, gone.memory_id, PointInTime())
    for kept in (d, e, f, g, i):
        assert (
            service.get_memory(caller, kept.memory_id, PointInTime(as_of=kept.valid_from)).id
            == kept.memory_id
        )
    assert len(service.memory_history(caller, e.memory_id, PointInTime()).versions) == 1
    assert len(service.memory_history(caller, f.memory_id, PointInTime()).versions) == 2
    assert set(hits(get_database(), list(w.values()))) == {w[k] for k in ("d", "e", "f", "g", "i")}
    (scrubbed,) = service.list_audit_events(
        caller, AuditListQuery(memory_id=c.memory_id, type=AuditType.AUTO_SUPERSEDE)
    ).events
    assert scrubbed.reason is None and scrubbed.details["erased"] is True
    (kept_event,) = service.list_audit_events(
        caller, AuditListQuery(memory_id=f.memory_id, type=AuditType.AUTO_SUPERSEDE)
    ).events
    assert w["f"] in kept_event.reason
    assert run_maintenance()["retention"] == []


def test_without_a_period_nothing_is_erased(own_database):
    caller = new_tenant()
    old = remember(caller, f"User lived in {token('np')}", days_ago(4000), valid_to=days_ago(3000))
    settings(caller, history_retention_days=30)
    settings(caller, history_retention_days=None)  # null: for ever again
    assert run_maintenance()["retention"] == []
    assert service.memory_history(caller, old.memory_id, PointInTime()).memory_id == old.memory_id


@pytest.mark.parametrize(
    "patch",
    [
        {"history_retention_days": 0},
        {"memory_retention_days": -1},
        {"history_retention_days": "30"},
        {"memory_retention_days": 30.5},
        {"memory_retention_days": True},
        {"history_retention_days": 36_501},
    ],
)
def test_a_period_is_a_whole_number_of_days_from_one(patch):
    with pytest.raises(ValueError):
        SettingsPatch.model_validate(patch)


def test_periods_read_back_and_their_changes_are_audited(db, new_key):
    caller, _ = new_key()
    assert service.get_settings(caller).history_retention_days is None
    updated = service.update_settings(caller, SettingsPatch.model_validate({"memory_retention_days": 90}))
    assert (updated.memory_retention_days, updated.history_retention_days) == (90, None)
    assert service.get_settings(caller).memory_retention_days == 90
    (event,) = service.list_audit_events(caller, AuditListQuery(type=AuditType.SETTINGS_UPDATED)).events
    assert event.details["changes"] == {"memory_retention_days": {"from": None, "to": 90}}
