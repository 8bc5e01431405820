"""Erasure (POST /agent/erasures): a selector's memories leave the store, with a receipt.

One transaction, holding the tenant's write lock exclusively from its first statement: every
write of the tenant that took the lock before (every write does, shared, before it reads its
clock) has committed and is erased when the selector matches it; every write after waits for
this commit, and stays. What is erased, and how the database lets it happen, is the database
function `aurra_erase` (migration 0017); this module chooses what to erase, records the
`erasure` audit event and the receipt, and answers a repeated erasure with its receipt."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from uuid import UUID

import psycopg

from aurra_core.errors import NotFound
from aurra_core.models import AuditType, Caller, ErasureReceipt, ErasureRequest, EventType, Scope
from aurra_core.storage import erasures, events, store
from aurra_core.storage.db import Database
from aurra_core.storage.ids import new_id


def _selection(
    conn: psycopg.Connection, caller: Caller, request: ErasureRequest
) -> erasures.Selection | UUID:
    """What the selector matches now, or (memory_id only) the erasure that already erased the
    memory. A memory id that is not the tenant's is a 404, as every read of it is."""
    tenant_id = caller.tenant_id
    if request.memory_id is not None:
        lineage = erasures.lineage_of(conn, tenant_id, request.memory_id)
        if lineage:
            return erasures.Selection(memories=lineage, versions=[])
        erased_by = erasures.erasure_of(conn, tenant_id, request.memory_id)
        if erased_by is None:
            raise NotFound("memory not found")
        return erased_by
    if request.tenant:
        return erasures.Selection(memories=[], versions=[], whole_tenant=True)
    if request.user_id is not None:
        also = {} if request.agent_id is None else {"agent_id": request.agent_id}
        memories = erasures.memories_where(conn, tenant_id, "user_id", request.user_id, **also)
    elif request.conversation_id is not None:
        memories = erasures.memories_where(conn, tenant_id, "conversation_id", request.conversation_id)
    else:
        assert request.source_id is not None  # the request has exactly one selector
        memories = erasures.memories_where(conn, tenant_id, "source_id", request.source_id)
    return erasures.Selection(memories=memories, versions=[])


def run(
    conn: psycopg.Connection,
    tenant_id: UUID,
    api_key_id: UUID | None,
    selector: dict[str, Any],
    selection: erasures.Selection,
    now: datetime,
    *,
    event_scope: dict[str, Any] | None = None,
) -> ErasureReceipt:
    """Erase `selection` in this transaction (which holds the tenant's write lock), with its
    `erasure` audit event, its receipt and its `erasure.completed` change event (ids and counts
    only): the API's erasures and the retention periods'."""
    erasure_id = new_id()
    counts = erasures.erase(conn, erasure_id, tenant_id, selection)
    store.insert_audit_event(
        conn,
        tenant_id=tenant_id,
        type=AuditType.ERASURE,
        created_at=now,
        api_key_id=api_key_id,
        details={"erasure_id": str(erasure_id), "selector": selector, "counts": counts.model_dump()},
        **(event_scope or {}),
    )
    receipt = erasures.insert_receipt(
        conn,
        erasure_id=erasure_id,
        tenant_id=tenant_id,
        api_key_id=api_key_id,
        selector=selector,
        counts=counts,
        created_at=now,
    )
    events.insert_event(
        conn,
        tenant_id,
        EventType.ERASURE_COMPLETED,
        scope=Scope(user_id=selector.get("user_id"), agent_id=selector.get("agent_id")),
        memory_id=UUID(selector["memory_id"]) if "memory_id" in selector else None,
        data={"erasure_id": str(erasure_id), "selector": selector, "counts": counts.model_dump()},
    )
    return receipt


def erase(caller: Caller, request: ErasureRequest, db: Database) -> tuple[int, ErasureReceipt]:
    """201 and a new receipt; or 200 and the receipt of the erasure that already did it, when
    the same selector (or, for a memory, any erasure) left nothing new to erase."""
    selector = request.selector()
    with db.tenant_transaction(caller.tenant_id) as conn:
        if conn.execute("SELECT 1 FROM api_keys WHERE id = %s", (caller.api_key_id,)).fetchone() is None:
            raise NotFound("API key not found")  # the receipt names its key and tenant
        # Exclusive: waits for the tenant's writes in flight, holds back the next ones.
        now = store.believed_now(conn, caller.tenant_id)
        selection = _selection(conn, caller, request)
        if isinstance(selection, UUID):
            earlier = erasures.select_receipt(conn, caller.tenant_id, selection)
            if earlier is None:  # a tombstone always has its receipt; never a 500 for it
                raise NotFound("memory not found")
            return 200, earlier
        nothing_new = not selection.memories and not (
            selection.whole_tenant and erasures.any_memory(conn, caller.tenant_id)
        )
        if nothing_new:
            earlier = erasures.latest_receipt(conn, caller.tenant_id, selector)
            if earlier is not None:
                return 200, earlier
        scope = {
            "memory_id": request.memory_id,
            "user_id": request.user_id,
            "conversation_id": request.conversation_id,
            "source_id": request.source_id,
        }
        receipt = run(
            conn,
            caller.tenant_id,
            caller.api_key_id,
            selector,
            selection,
            now,
            event_scope={k: v for k, v in scope.items() if v is not None},
        )
    return 201, receipt


def get_receipt(caller: Caller, erasure_id: UUID, db: Database) -> ErasureReceipt:
    with db.tenant_transaction(caller.tenant_id) as conn:
        receipt = erasures.select_receipt(conn, caller.tenant_id, erasure_id)
    if receipt is None:
        raise NotFound("erasure not found")
    return receipt
