"""Reads: list and search, get, history, and the audit trail, on both time axes."""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

from pydantic import AwareDatetime

from aurra_core.embedders import Embedder
from aurra_core.errors import NotFound, ValidationFailed
from aurra_core.models import (
    AuditEvent,
    AuditListQuery,
    AuditPage,
    AuditType,
    Caller,
    History,
    Memory,
    MemoryListQuery,
    MemoryPage,
    PointInTime,
)
from aurra_core.storage import cursors, store
from aurra_core.storage.db import Database


class MemoryCursor(cursors.CursorPosition):
    """Where the next page of a memory list starts: the pinned time axes and the last row."""

    k: AwareDatetime
    a: AwareDatetime
    id: UUID


class SearchCursor(cursors.CursorPosition):
    """Where the next page of a search starts: the pinned time axes, how many results the pages
    so far held, and the last of them (to tell that the ranking is still the same)."""

    k: AwareDatetime
    a: AwareDatetime
    n: int
    id: UUID


class AuditCursor(cursors.CursorPosition):
    """Where the next page of the audit trail starts: the pinned time and the last event."""

    k: AwareDatetime
    at: AwareDatetime
    id: UUID


# The endpoints a cursor is bound to: one endpoint's cursor is refused by another.
MEMORIES_ENDPOINT = "GET /agent/memories"
AUDIT_ENDPOINT = "GET /agent/audit"


def believed_now(caller: Caller, db: Database) -> datetime:
    """The instant a first page reads at, from a short transaction of its own (store.believed_now)."""
    with db.tenant_transaction(caller.tenant_id) as conn:
        return store.believed_now(conn, caller.tenant_id)


def read_memory_page(caller: Caller, query: MemoryListQuery, db: Database, embedder: Embedder) -> MemoryPage:
    page = _memory_page(caller, query, db, embedder)
    if not query.possibly_stale:
        return page
    # One more statement, only when asked: which of the page's memories a dependency proposal
    # still names (storage/store.possibly_stale).
    with db.tenant_transaction(caller.tenant_id) as conn:
        flagged = store.possibly_stale(conn, caller.tenant_id, [m.id for m in page.memories])
    memories = [m.model_copy(update={"possibly_stale": m.id in flagged}) for m in page.memories]
    return page.model_copy(update={"memories": memories})


def _memory_page(caller: Caller, query: MemoryListQuery, db: Database, embedder: Embedder) -> MemoryPage:
    fp = cursors.fingerprint(
        q=query.q,
        topic=query.topic,
        user_id=query.user_id,
        agent_id=query.agent_id,
        as_of=query.as_of,
        known_at=query.known_at,
        include_superseded=query.include_superseded,
    )
    if query.q is not None:
        return _search_page(caller, query, query.q, fp, db, embedder)
    after = None
    if query.cursor:
        position = cursors.decode(
            query.cursor,
            MemoryCursor,
            tenant_id=caller.tenant_id,
            endpoint=MEMORIES_ENDPOINT,
            expected_fingerprint=fp,
        )
        known_at, as_of, after = position.k, position.a, position.id
    else:
        known_at, as_of = _first_page_times(caller, query, db)
    with db.tenant_transaction(caller.tenant_id) as conn:
        rows = store.select_memories(
            conn,
            caller.tenant_id,
            known_at=known_at,
            as_of=as_of,
            include_superseded=query.include_superseded,
            topic=query.topic,
            user_id=query.user_id,
            agent_id=query.agent_id,
            after=after,
            limit=query.limit + 1,
        )
    page = rows[: query.limit]
    next_cursor = None
    if len(rows) > query.limit:
        next_cursor = cursors.encode(
            MemoryCursor(f=fp, k=known_at, a=as_of, id=page[-1].memory_id),
            tenant_id=caller.tenant_id,
            endpoint=MEMORIES_ENDPOINT,
        )
    return MemoryPage(memories=[row.to_memory() for row in page], next_cursor=next_cursor)


def _first_page_times(caller: Caller, query: MemoryListQuery, db: Database) -> tuple[datetime, datetime]:
    # A known_at in the future is clamped: the future's beliefs are not known yet.
    now = believed_now(caller, db)
    return (min(query.known_at, now) if query.known_at else now), (query.as_of or now)


def _search_page(
    caller: Caller, query: MemoryListQuery, q: str, fp: str, db: Database, embedder: Embedder
) -> MemoryPage:
    """One page of a search. A fused ranking has no key to resume from, so every page ranks the
    pinned snapshot again (the same rows rank the same way: store.fused_ranking) and cuts its
    page out at the position the cursor carries; a search ranks store.SEARCH_DEPTH results at most."""
    offset, last_id = 0, None
    if query.cursor:
        position = cursors.decode(
            query.cursor,
            SearchCursor,
            tenant_id=caller.tenant_id,
            endpoint=MEMORIES_ENDPOINT,
            expected_fingerprint=fp,
        )
        known_at, as_of, offset, last_id = position.k, position.a, position.n, position.id
    else:
        known_at, as_of = _first_page_times(caller, query, db)
    embedding = embedder.embed(q)
    with db.tenant_transaction(caller.tenant_id) as conn:
        ranked = store.search_memories(
            conn,
            caller.tenant_id,
            embedding,
            q,
            known_at=known_at,
            as_of=as_of,
            include_superseded=query.include_superseded,
            topic=query.topic,
            user_id=query.user_id,
            agent_id=query.agent_id,
        )
    if last_id is not None and not (
        0 < offset <= len(ranked) and ranked[offset - 1].row.memory_id == last_id
    ):
        # Only a change of the embedding model between pages gets here.
        raise ValidationFailed(
            "cursor does not belong to this ranking",
            [
                {
                    "field": "cursor",
                    "problem": "the search ranks differently since the first page; start again",
                }
            ],
        )
    page = ranked[offset : offset + query.limit]
    next_cursor = None
    if offset + query.limit < len(ranked):
        next_cursor = cursors.encode(
            SearchCursor(f=fp, k=known_at, a=as_of, n=offset + len(page), id=page[-1].row.memory_id),
            tenant_id=caller.tenant_id,
            endpoint=MEMORIES_ENDPOINT,
        )
    memories = [
        hit.row.to_memory(score=round(hit.similarity, 6), relevance=round(hit.fused_score, 6)) for hit in page
    ]
    return MemoryPage(memories=memories, next_cursor=next_cursor)


def read_memory(caller: Caller, memory_id: UUID, when: PointInTime, db: Database) -> Memory:
    with db.tenant_transaction(caller.tenant_id) as conn:
        row = store.select_memory(conn, caller.tenant_id, memory_id, known_at=when.known_at, as_of=when.as_of)
    if row is None:
        raise NotFound("memory not found")
    return row.to_memory()


def read_memory_history(caller: Caller, memory_id: UUID, when: PointInTime, db: Database) -> History:
    with db.tenant_transaction(caller.tenant_id) as conn:
        row = store.select_memory(conn, caller.tenant_id, memory_id, known_at=when.known_at)
        if row is None:
            raise NotFound("memory not found")
        chain = store.lineage(conn, caller.tenant_id, row, known_at=when.known_at)
        versions = store.memory_versions(conn, caller.tenant_id, memory_id, known_at=when.known_at)
    if when.as_of is not None:
        chain = [r for r in chain if r.valid_from <= when.as_of]
    return History(
        memory_id=memory_id, chain=[r.to_memory() for r in chain], versions=[v.to_version() for v in versions]
    )


def read_audit_page(caller: Caller, query: AuditListQuery, db: Database) -> AuditPage:
    if query.status is not None and query.type not in (
        None,
        AuditType.SUPERSESSION_PROPOSED,
        AuditType.DEPENDENCY_PROPOSED,
    ):
        problem = "status applies to supersession_proposed and dependency_proposed events only"
        raise ValidationFailed(problem, [{"field": "status", "problem": problem}])
    fp = cursors.fingerprint(
        memory_id=query.memory_id,
        type=query.type,
        status=query.status,
        user_id=query.user_id,
        since=query.since,
        until=query.until,
    )
    before = None
    if query.cursor:
        position = cursors.decode(
            query.cursor,
            AuditCursor,
            tenant_id=caller.tenant_id,
            endpoint=AUDIT_ENDPOINT,
            expected_fingerprint=fp,
        )
        before, pinned = (position.at, position.id), position.k
    else:
        pinned = believed_now(caller, db)
    until = min(query.until, pinned) if query.until else None
    with db.tenant_transaction(caller.tenant_id) as conn:
        events = store.select_audit_events(
            conn,
            caller.tenant_id,
            memory_id=query.memory_id,
            type=query.type,
            user_id=query.user_id,
            since=query.since,
            until=until,
            before=before,
            limit=query.limit + 1,
            recorded_by=pinned,
            status=query.status,
        )
    page = events[: query.limit]
    next_cursor = None
    if len(events) > query.limit:
        next_cursor = cursors.encode(
            AuditCursor(f=fp, k=pinned, at=page[-1].created_at, id=page[-1].id),
            tenant_id=caller.tenant_id,
            endpoint=AUDIT_ENDPOINT,
        )
    return AuditPage(events=page, next_cursor=next_cursor)


def read_audit_event(caller: Caller, event_id: UUID, db: Database) -> AuditEvent:
    with db.tenant_transaction(caller.tenant_id) as conn:
        event = store.select_audit_event(conn, caller.tenant_id, event_id)
    if event is None:
        raise NotFound("audit event not found")
    return event
