"""Every read and change is scoped by tenant: another tenant's things do not exist."""

import json
from datetime import UTC, datetime

import pytest
from pipeline_support import ScriptedClassifier, deps

from aurra_core import service
from aurra_core.access import keys
from aurra_core.embedders import LexicalEmbedder
from aurra_core.errors import NotFound, Unauthorized
from aurra_core.models import (
    AuditListQuery,
    MemoryListQuery,
    PointInTime,
    SettingsPatch,
    SupersedeRequest,
    WriteRequest,
)
from aurra_core.storage import queries
from aurra_core.write_path.pipeline import write_memory
from aurra_core.write_path.supersession import supersede

EMB = LexicalEmbedder(384)


def test_a_second_tenant_sees_and_changes_nothing_of_the_first(db, new_key):
    alice, _ = new_key()
    mallory, _ = new_key()
    memory = write_memory(
        alice, WriteRequest(content="alice uses Vim"), deps(ScriptedClassifier(), False)
    ).result.memory
    newer = supersede(alice, memory.id, SupersedeRequest(content="alice uses Emacs"), db, EMB).memory
    event = queries.read_audit_page(alice, AuditListQuery(), db).events[0]

    with pytest.raises(NotFound):
        queries.read_memory(mallory, memory.id, PointInTime(), db)
    with pytest.raises(NotFound):
        queries.read_memory_history(mallory, newer.id, PointInTime(), db)
    with pytest.raises(NotFound):
        supersede(mallory, newer.id, SupersedeRequest(content="mallory was here"), db, EMB)
    other = write_memory(
        mallory, WriteRequest(content="mallory's fact"), deps(ScriptedClassifier(), False)
    ).result.memory
    with pytest.raises(NotFound):
        supersede(mallory, other.id, SupersedeRequest(superseded_by=newer.id), db, EMB)
    with pytest.raises(NotFound):
        queries.read_audit_event(mallory, event.id, db)
    assert queries.read_audit_page(mallory, AuditListQuery(memory_id=memory.id), db).events == []
    assert [
        m.id
        for m in queries.read_memory_page(mallory, MemoryListQuery(include_superseded=True), db, EMB).memories
    ] == [other.id]
    assert (
        queries.read_memory_page(mallory, MemoryListQuery(q="alice uses Vim"), db, EMB).memories[0].id
        == other.id
    )

    # The second tenant's writes never take the first tenant's memories as candidates.
    seen = ScriptedClassifier()
    write_memory(mallory, WriteRequest(content="alice uses Emacs daily", auto_supersede=True), deps(seen))
    assert all(c.id != newer.id for _, cands in seen.calls for c in cands)

    # Settings are per key.
    with db.transaction() as conn:
        keys.update_key_settings(conn, mallory, SettingsPatch(min_confidence=0.99))
        assert keys.get_key_settings(conn, alice).min_confidence == 0.85


def test_keys_authenticate_and_revoked_keys_are_refused(db, new_key):
    caller, raw = new_key()
    assert service.authenticate(raw) == caller
    for bad in (
        "",
        "aurra_",
        "nonsense",
        raw[:-1] + ("x" if raw[-1] != "x" else "y"),
        "aurra_nolookup_" + "a" * 30,
    ):
        with pytest.raises(Unauthorized):
            service.authenticate(bad)
    with db.transaction() as conn:
        conn.execute(
            "UPDATE api_keys SET revoked_at = %s WHERE id = %s", (datetime.now(UTC), caller.api_key_id)
        )
        stored = conn.execute(
            "SELECT secret_hash FROM api_keys WHERE id = %s", (caller.api_key_id,)
        ).fetchone()[0]
    assert raw.split("_", 2)[2] not in stored
    with pytest.raises(Unauthorized):
        service.authenticate(raw)


def test_every_foreign_key_names_the_caller(db):
    """The API answers a broken foreign key as 404 "API key not found" (aurra_core.api.handlers):
    sound only while every one of them is a tenant's or an API key's, named as the handler reads it."""
    with db.transaction() as conn:
        rows = conn.execute(
            """SELECT c.conname, c.conrelid::regclass::text, c.confrelid::regclass::text, a.attname
               FROM pg_constraint c
               JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY (c.conkey)
               WHERE c.contype = 'f' AND c.connamespace = 'public'::regnamespace"""
        ).fetchall()
    assert rows
    # Keys between the service's own rows that no request's ids reach: a batched erasure's
    # pending memories are inserted in the transaction that creates the erasure they name.
    internal = {("erasure_pending", "erasures_running"): "erasure_id"}
    for name, table, referenced, column in rows:
        expected = {"tenants": "tenant_id", "api_keys": "api_key_id"}.get(referenced)
        expected = internal.get((table, referenced), expected)
        assert column == expected, (name, table, referenced, column)
        assert name == f"{table}_{column}_fkey"


def test_a_write_for_a_caller_that_does_not_exist_is_a_404(db, configure):
    """What the authorizer never passes on, but an event written by hand can: a 404, never a 500,
    with the Level 2 switch off (nothing reads the key's settings first) and on."""
    from uuid import uuid4

    from aurra_local import gateway

    for level2 in ("false", "true"):
        configure(AURRA_LEVEL2_ENABLED=level2)
        tenant_id, key_id = str(uuid4()), str(uuid4())
        event = gateway.proxy_event(
            "POST",
            "/agent/memories",
            {"Content-Type": "application/json"},
            b'{"content": "User uses Vim", "topic": "preferences"}',
            "/agent/memories",
            {},
            {"principalId": key_id, "tenant_id": tenant_id, "api_key_id": key_id},
        )
        response = gateway.invoke("write", event)
        assert response["statusCode"] == 404, (level2, response)
        assert json.loads(response["body"])["error"] == {
            "code": "not_found",
            "message": "API key not found",
            "details": [],
        }
