"""Reads: list and search, get, history, and the audit trail, on both time axes; asynchronous
Level 2's jobs."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Literal
from uuid import UUID

import psycopg
from pydantic import AwareDatetime

from aurra_core.embedders import Embedder
from aurra_core.errors import AurraError, Gone, NotFound, ValidationFailed
from aurra_core.models import (
    AuditEvent,
    AuditListQuery,
    AuditPage,
    AuditType,
    Caller,
    ExportQuery,
    History,
    JobListQuery,
    JobPage,
    Level2Job,
    Memory,
    MemoryListQuery,
    MemoryPage,
    PointInTime,
    format_timestamp,
)
from aurra_core.storage import cursors, erasures, level2_jobs, store
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


def _source_filters(conversation_id: str | None, source_id: str | None) -> dict[str, str]:
    """The provenance filters a cursor's fingerprint covers: only those given, so a cursor
    issued before they existed still belongs to its query."""
    given = {"conversation_id": conversation_id, "source_id": source_id}
    return {name: value for name, value in given.items() if value is not None}


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
        **_source_filters(query.conversation_id, query.source_id),
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
            conversation_id=query.conversation_id,
            source_id=query.source_id,
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
            conversation_id=query.conversation_id,
            source_id=query.source_id,
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


def missing(conn: psycopg.Connection, tenant_id: UUID, memory_id: UUID) -> AurraError:
    """The error for a memory not found: 410 `gone` when it was erased (only its tombstones are
    left; the details name the erasure), else 404."""
    erased_by = erasures.erasure_of(conn, tenant_id, memory_id)
    if erased_by is None:
        return NotFound("memory not found")
    return Gone(
        "memory was erased",
        [{"field": "id", "problem": "erased", "erasure_id": str(erased_by)}],
    )


def read_memory(caller: Caller, memory_id: UUID, when: PointInTime, db: Database) -> Memory:
    with db.tenant_transaction(caller.tenant_id) as conn:
        row = store.select_memory(conn, caller.tenant_id, memory_id, known_at=when.known_at, as_of=when.as_of)
        if row is None:
            raise missing(conn, caller.tenant_id, memory_id)
    return row.to_memory()


def read_memory_history(caller: Caller, memory_id: UUID, when: PointInTime, db: Database) -> History:
    with db.tenant_transaction(caller.tenant_id) as conn:
        row = store.select_memory(conn, caller.tenant_id, memory_id, known_at=when.known_at)
        if row is None:
            raise missing(conn, caller.tenant_id, memory_id)
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
        **_source_filters(query.conversation_id, query.source_id),
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
            conversation_id=query.conversation_id,
            source_id=query.source_id,
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


# ---------------------------------------------------------------- asynchronous Level 2's jobs


class JobCursor(cursors.CursorPosition):
    """Where the next page of jobs starts: the last job of this page (newest first)."""

    at: AwareDatetime
    id: UUID


JOBS_ENDPOINT = "GET /agent/jobs"


def read_job_page(caller: Caller, query: JobListQuery, db: Database) -> JobPage:
    fp = cursors.fingerprint(status=query.status, memory_id=query.memory_id, user_id=query.user_id)
    before = None
    if query.cursor:
        position = cursors.decode(
            query.cursor,
            JobCursor,
            tenant_id=caller.tenant_id,
            endpoint=JOBS_ENDPOINT,
            expected_fingerprint=fp,
        )
        before = (position.at, position.id)
    with db.tenant_transaction(caller.tenant_id) as conn:
        rows = level2_jobs.select_jobs(
            conn,
            caller.tenant_id,
            status=query.status,
            memory_id=query.memory_id,
            user_id=query.user_id,
            before=before,
            limit=query.limit + 1,
        )
    page = [Level2Job(**row) for row in rows[: query.limit]]
    next_cursor = None
    if len(rows) > query.limit:
        next_cursor = cursors.encode(
            JobCursor(f=fp, at=page[-1].created_at, id=page[-1].id),
            tenant_id=caller.tenant_id,
            endpoint=JOBS_ENDPOINT,
        )
    return JobPage(jobs=page, next_cursor=next_cursor)


def read_job(caller: Caller, job_id: UUID, db: Database) -> Level2Job:
    with db.tenant_transaction(caller.tenant_id) as conn:
        rows = level2_jobs.select_jobs(conn, caller.tenant_id, job_id=job_id)
    if not rows:
        raise NotFound("job not found")
    return Level2Job(**rows[0])


# ---------------------------------------------------------------- export


class ExportCursor(cursors.CursorPosition):
    """Where the next response of an export starts: the pinned transaction time, the part of
    the stream (memory versions, then audit events) and the last record of it sent."""

    k: AwareDatetime
    p: Literal["v", "a"]
    v: int = 0
    at: AwareDatetime | None = None
    id: UUID | None = None


EXPORT_ENDPOINT = "GET /agent/export"
# A response stops after the record that takes it past this many bytes: a Lambda function's
# response is at most 6 MB, and API Gateway's 10 MB; a record is at most ~30 KB of JSON.
EXPORT_PAGE_BYTES = 4 * 1024 * 1024
# Records read from the database per statement.
_EXPORT_CHUNK = 1000


def _line(kind: str, record: dict[str, Any]) -> str:
    return json.dumps({"kind": kind, **record}, ensure_ascii=False, separators=(",", ":")) + "\n"


def version_record(row: store.MemoryRow) -> dict[str, Any]:
    """A memory version as the export writes it: the memory object as the API returns it
    (every field of the model, so a field added to it is exported too) and the end of its
    transaction time."""
    record = row.to_memory().model_dump(mode="json")
    record["recorded_to"] = None if row.recorded_to is None else format_timestamp(row.recorded_to)
    return record


def read_export_page(caller: Caller, query: ExportQuery, db: Database) -> str:
    """One response of GET /agent/export: NDJSON lines, the last `{"kind": "end",
    "next_cursor": ...}` (null once the export is complete)."""
    fp = cursors.fingerprint(user_id=query.user_id)
    if query.cursor:
        position = cursors.decode(
            query.cursor,
            ExportCursor,
            tenant_id=caller.tenant_id,
            endpoint=EXPORT_ENDPOINT,
            expected_fingerprint=fp,
        )
    else:
        position = ExportCursor(f=fp, k=believed_now(caller, db), p="v")
    lines: list[str] = []
    size = 0
    full = False
    with db.tenant_transaction(caller.tenant_id) as conn:
        while position.p == "v" and not full:
            want = min(_EXPORT_CHUNK, query.limit - len(lines))
            rows = store.select_versions_for_export(
                conn,
                caller.tenant_id,
                recorded_by=position.k,
                after_version=position.v,
                user_id=query.user_id,
                limit=want,
            )
            for row in rows:
                line = _line("memory_version", version_record(row))
                lines.append(line)
                size += len(line)
                position.v = row.version_id
                if len(lines) >= query.limit or size >= EXPORT_PAGE_BYTES:
                    full = True
                    break
            if not full and len(rows) < want:
                position.p = "a"
        while position.p == "a" and not full:
            want = min(_EXPORT_CHUNK, query.limit - len(lines))
            events = store.select_audit_events_for_export(
                conn,
                caller.tenant_id,
                recorded_by=position.k,
                after=None if position.at is None or position.id is None else (position.at, position.id),
                user_id=query.user_id,
                limit=want,
            )
            for event in events:
                line = _line("audit_event", event.model_dump(mode="json"))
                lines.append(line)
                size += len(line)
                position.at, position.id = event.created_at, event.id
                if len(lines) >= query.limit or size >= EXPORT_PAGE_BYTES:
                    full = True
                    break
            if not full and len(events) < want:
                break
    next_cursor = (
        cursors.encode(position, tenant_id=caller.tenant_id, endpoint=EXPORT_ENDPOINT) if full else None
    )
    lines.append(_line("end", {"next_cursor": next_cursor}))
    return "".join(lines)
