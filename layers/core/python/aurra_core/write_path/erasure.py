"""Erasure (POST /agent/erasures): a selector's memories leave the store, with a receipt.

The selection is made in a transaction holding the tenant's write lock exclusively from its
first statement: every write of the tenant that took the lock before (every write does, shared,
before it reads its clock) has committed and is erased when the selector matches it; every write
after waits for that commit, and stays. A selection of at most `BATCH_MEMORIES` memories is
erased in that same transaction. A larger one is recorded (its memory ids) and committed, then
erased in batches of `BATCH_MEMORIES` memories, each its own transaction holding the tenant's
write lock exclusively only while it runs: a write of the tenant waits for one batch, never for
the whole erasure. A crash between batches leaves the erasure `running`; a retry of the same
selector, or the maintenance job, completes it. The receipt and the `erasure` audit event are
recorded when the last batch commits. What is erased, and how the database lets it happen, is
the database function `aurra_erase` (migrations 0017, 0023)."""

from __future__ import annotations

import time
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

import psycopg

from aurra_core.errors import NotFound
from aurra_core.models import (
    AuditType,
    Caller,
    ErasureCounts,
    ErasureReceipt,
    ErasureRequest,
    EventType,
    Scope,
)
from aurra_core.storage import erasures, events, store
from aurra_core.storage.db import Database
from aurra_core.storage.ids import new_id

# Memories a batch erases: with their versions, events and records, about a second's work at
# most on a loaded machine (bench/erasure.py), so a write of the tenant waits no longer.
BATCH_MEMORIES = 1000
# A request starts no batch past this many seconds (the erasure function's timeout is 25 s, and
# a batch takes about one): it answers 202 with the running receipt instead of timing out.
REQUEST_BUDGET_S = 18.0
# The maintenance job completes a running erasure started longer ago than the erasure
# function's timeout: the request that started it has stopped by then.
ABANDONED_AFTER = timedelta(minutes=2)


def _selection(
    conn: psycopg.Connection, caller: Caller, request: ErasureRequest, now: datetime
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
        return erasures.Selection(
            memories=erasures.all_memories(conn, tenant_id), versions=[], tenant_records=now
        )
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
    """Erase `selection` in this transaction (which holds the tenant's write lock), with what
    records its completion (`_completed`): the API's erasures and the retention periods'."""
    erasure_id = new_id()
    counts = erasures.erase(conn, erasure_id, tenant_id, selection)
    return _completed(conn, tenant_id, api_key_id, erasure_id, selector, counts, now, now, event_scope or {})


def _completed(
    conn: psycopg.Connection,
    tenant_id: UUID,
    api_key_id: UUID | None,
    erasure_id: UUID,
    selector: dict[str, Any],
    counts: ErasureCounts,
    now: datetime,
    created_at: datetime,
    event_scope: dict[str, Any],
) -> ErasureReceipt:
    """An erasure's `erasure` audit event, its receipt and its `erasure.completed` change event
    (ids and counts only), in the transaction that erased its last memories: whether it ran in
    one transaction or in batches."""
    store.insert_audit_event(
        conn,
        tenant_id=tenant_id,
        type=AuditType.ERASURE,
        created_at=now,
        api_key_id=api_key_id,
        details={"erasure_id": str(erasure_id), "selector": selector, "counts": counts.model_dump()},
        **event_scope,
    )
    receipt = erasures.insert_receipt(
        conn,
        erasure_id=erasure_id,
        tenant_id=tenant_id,
        api_key_id=api_key_id,
        selector=selector,
        counts=counts,
        created_at=created_at,
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


def erase(
    caller: Caller,
    request: ErasureRequest,
    db: Database,
    *,
    batch_memories: int = BATCH_MEMORIES,
    budget_s: float = REQUEST_BUDGET_S,
) -> tuple[int, ErasureReceipt]:
    """201 and a new receipt; or 200 and the receipt of the erasure that already did it, when
    the same selector (or, for a memory, any erasure) left nothing new to erase. A running
    erasure of the same selector (one that stopped between batches) is continued: 201 once
    complete, or 202 with its running receipt when `budget_s` ran out first (send it again)."""
    deadline = time.monotonic() + budget_s
    selector = request.selector()
    tenant_id = caller.tenant_id
    with db.tenant_transaction(tenant_id) as conn:
        if conn.execute("SELECT 1 FROM api_keys WHERE id = %s", (caller.api_key_id,)).fetchone() is None:
            raise NotFound("API key not found")  # the receipt names its key and tenant
        # Exclusive: waits for the tenant's writes in flight, holds back the next ones.
        now = store.believed_now(conn, tenant_id)
        unfinished = erasures.running_with_selector(conn, tenant_id, selector)
        if unfinished is None:
            selection = _selection(conn, caller, request, now)
            if isinstance(selection, UUID):
                earlier = erasures.select_receipt(conn, tenant_id, selection)
                if earlier is None:  # a tombstone always has its receipt; never a 500 for it
                    raise NotFound("memory not found")
                if earlier.status == "completed":
                    return 200, earlier
                unfinished = selection  # erased by an erasure still running: complete it
            else:
                if not selection.memories:
                    earlier = erasures.latest_receipt(conn, tenant_id, selector)
                    if earlier is not None:
                        return 200, earlier
                scope = {
                    "memory_id": request.memory_id,
                    "user_id": request.user_id,
                    "conversation_id": request.conversation_id,
                    "source_id": request.source_id,
                }
                event_scope = {k: v for k, v in scope.items() if v is not None}
                if len(selection.memories) <= batch_memories:
                    receipt = run(
                        conn, tenant_id, caller.api_key_id, selector, selection, now, event_scope=event_scope
                    )
                    return 201, receipt
                unfinished = new_id()
                erasures.start_running(
                    conn,
                    erasure_id=unfinished,
                    tenant_id=tenant_id,
                    api_key_id=caller.api_key_id,
                    selector=selector,
                    created_at=now,
                    selection=selection,
                    event_scope={k: str(v) for k, v in event_scope.items()},
                )
    # The selection is committed: the batches follow, each a transaction of its own.
    receipt = complete(db, tenant_id, unfinished, batch_memories, deadline=deadline)
    return (201 if receipt.status == "completed" else 202), receipt


def _plus(a: ErasureCounts, b: ErasureCounts) -> ErasureCounts:
    return ErasureCounts(**{kind: getattr(a, kind) + getattr(b, kind) for kind in ErasureCounts.model_fields})


def erase_batch(db: Database, tenant_id: UUID, erasure_id: UUID, batch_memories: int) -> ErasureReceipt:
    """One batch of a running erasure, in a transaction holding the tenant's write lock
    exclusively; the last one records the receipt and the `erasure` audit event. Returns the
    receipt: `running` with the counts so far, or the final one (with its events)."""
    with db.tenant_transaction(tenant_id) as conn:
        now = store.believed_now(conn, tenant_id)
        progress = erasures.running(conn, tenant_id, erasure_id, lock=True)
        if progress is None:  # completed meanwhile, by a retry or the maintenance job
            done = erasures.select_receipt(conn, tenant_id, erasure_id)
            if done is None:
                raise NotFound("erasure not found")
            return done
        memories, last = erasures.next_batch(conn, erasure_id, batch_memories)
        selection = erasures.Selection(
            memories=memories, versions=[], tenant_records=progress.tenant_records if last else None
        )
        counts = _plus(progress.counts, erasures.erase(conn, erasure_id, tenant_id, selection))
        erasures.batch_done(conn, progress, memories, counts)
        if not last:
            return replace(progress, counts=counts).receipt()
        erasures.finish_running(conn, progress)
        return _completed(
            conn,
            tenant_id,
            progress.api_key_id,
            erasure_id,
            progress.selector,
            counts,
            now,
            progress.created_at,
            {k: UUID(v) if k == "memory_id" else v for k, v in progress.event_scope.items()},
        )


def complete(
    db: Database,
    tenant_id: UUID,
    erasure_id: UUID,
    batch_memories: int = BATCH_MEMORIES,
    *,
    deadline: float | None = None,
) -> ErasureReceipt:
    """The remaining batches of a running erasure: its final receipt; or, once `deadline`
    (time.monotonic) has passed, the running receipt after the batch that passed it."""
    while True:
        receipt = erase_batch(db, tenant_id, erasure_id, batch_memories)
        if receipt.status == "completed" or (deadline is not None and time.monotonic() >= deadline):
            return receipt


def complete_abandoned(conninfo: str, now: datetime) -> list[dict[str, Any]]:
    """The maintenance job: every erasure left running (its request stopped between batches)
    completed, as the tables' owner acting as the service role for each tenant in turn."""
    with psycopg.connect(conninfo, autocommit=True) as conn:
        abandoned = erasures.running_ids(conn, now - ABANDONED_AFTER)
    if not abandoned:
        return []
    db = Database(conninfo, max_size=1)
    try:
        return [
            {"tenant_id": str(tenant_id), **complete(db, tenant_id, erasure_id).model_dump(mode="json")}
            for tenant_id, erasure_id in abandoned
        ]
    finally:
        db.close()


def get_receipt(caller: Caller, erasure_id: UUID, db: Database) -> ErasureReceipt:
    with db.tenant_transaction(caller.tenant_id) as conn:
        receipt = erasures.select_receipt(conn, caller.tenant_id, erasure_id)
    if receipt is None:
        raise NotFound("erasure not found")
    return receipt
