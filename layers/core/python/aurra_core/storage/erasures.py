"""Erasure in the store: what a selector matches, the one call that erases (the database
function `aurra_erase`, migrations 0017 and 0023), receipts and tombstones, and the progress of
an erasure run in batches (migration 0023).

Everything here runs in a transaction confined to the tenant (row-level security); the
function itself refuses any tenant but the one the transaction names."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

import psycopg
from psycopg import sql
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from aurra_core.models import ErasureCounts, ErasureReceipt
from aurra_core.storage.db import one_row


@dataclass(frozen=True)
class Selection:
    """What an erasure erases: whole memories (every version), single versions besides, and
    (a whole-tenant erasure) the tenant's Idempotency-Key records created up to its start."""

    memories: list[UUID]
    versions: list[int]
    tenant_records: datetime | None = None

    @property
    def empty(self) -> bool:
        return not (self.memories or self.versions or self.tenant_records is not None)


def lineage_of(conn: psycopg.Connection, tenant_id: UUID, memory_id: UUID) -> list[UUID]:
    """Every memory linked to `memory_id` by supersession in any version ever recorded (what
    it replaced and what replaced it, transitively, a revert's undone links included): its
    whole lineage, at every point of transaction time. Only memories that still have versions."""
    rows = conn.execute(
        """WITH RECURSIVE linked(id) AS (
               SELECT %(start)s::uuid
               UNION
               SELECT x.id
               FROM memory_versions v
               JOIN linked ON v.memory_id = linked.id OR v.superseded_by = linked.id OR v.supersedes = linked.id
               CROSS JOIN LATERAL (VALUES (v.memory_id), (v.superseded_by), (v.supersedes)) AS x(id)
               WHERE v.tenant_id = %(tenant_id)s AND x.id IS NOT NULL)
           SELECT id FROM linked
           WHERE EXISTS (SELECT 1 FROM memory_versions
                         WHERE tenant_id = %(tenant_id)s AND memory_id = linked.id)""",
        {"tenant_id": tenant_id, "start": memory_id},
    ).fetchall()
    return sorted((r[0] for r in rows), key=str)


def memories_where(
    conn: psycopg.Connection, tenant_id: UUID, column: str, value: str, **also: str
) -> list[UUID]:
    """The memories of the tenant whose `column` (a scope or source column) is `value`, and
    each of `also` likewise (a version's scope and source are its memory's)."""
    allowed = {"user_id", "agent_id", "conversation_id", "source_id"}
    filters = {column: value, **also}
    if not set(filters) <= allowed:
        raise ValueError(f"not a selector column: {sorted(set(filters) - allowed)}")
    clauses = " AND ".join(f"{name} = %({name})s" for name in filters)
    rows = conn.execute(
        f"SELECT DISTINCT memory_id FROM memory_versions WHERE tenant_id = %(tenant_id)s AND {clauses}",
        {"tenant_id": tenant_id, **filters},
    ).fetchall()
    return sorted((r[0] for r in rows), key=str)


def all_memories(conn: psycopg.Connection, tenant_id: UUID) -> list[UUID]:
    """Every memory of the tenant that has a version."""
    rows = conn.execute(
        "SELECT DISTINCT memory_id FROM memory_versions WHERE tenant_id = %s", (tenant_id,)
    ).fetchall()
    return sorted((r[0] for r in rows), key=str)


def erase(conn: psycopg.Connection, erasure_id: UUID, tenant_id: UUID, selection: Selection) -> ErasureCounts:
    """Erase `selection` in this transaction (`aurra_erase`: tombstones, deleted versions,
    scrubbed events, deleted Idempotency-Key records) and count what it touched. An erasure in
    batches calls it once per batch with the same id: each call counts what it did itself."""
    row = one_row(
        conn.execute(
            "SELECT * FROM aurra_erase(%s, %s, %s::uuid[], %s::bigint[], %s::timestamptz)",
            (erasure_id, tenant_id, selection.memories, selection.versions, selection.tenant_records),
        ).fetchone()
    )
    return ErasureCounts(
        memories=row[0], versions=row[1], audit_events=row[2], proposals=row[3], idempotency_records=row[4]
    )


# ---------------------------------------------------------------- an erasure in batches


@dataclass(frozen=True)
class Running:
    """An erasure in batches, as its progress records it."""

    id: UUID
    tenant_id: UUID
    api_key_id: UUID | None
    selector: dict[str, Any]
    created_at: datetime
    counts: ErasureCounts
    tenant_records: datetime | None
    event_scope: dict[str, Any]

    def receipt(self) -> ErasureReceipt:
        return ErasureReceipt(
            id=self.id,
            selector=self.selector,
            created_at=self.created_at,
            counts=self.counts,
            status="running",
        )


def start_running(
    conn: psycopg.Connection,
    *,
    erasure_id: UUID,
    tenant_id: UUID,
    api_key_id: UUID | None,
    selector: dict[str, Any],
    created_at: datetime,
    selection: Selection,
    event_scope: dict[str, Any],
) -> None:
    """Record an erasure's selection (its memories) and its progress (nothing erased yet)."""
    zero = ErasureCounts(memories=0, versions=0, audit_events=0, proposals=0, idempotency_records=0)
    conn.execute(
        """INSERT INTO erasures_running (id, tenant_id, api_key_id, selector, created_at, counts,
               tenant_records, event_scope)
           VALUES (%s, %s, %s, %s, %s, %s, %s, %s)""",
        (
            erasure_id,
            tenant_id,
            api_key_id,
            Jsonb(selector),
            created_at,
            Jsonb(zero.model_dump()),
            selection.tenant_records,
            Jsonb(event_scope),
        ),
    )
    # One statement for the whole list (COPY is refused under row-level security).
    conn.execute(
        """INSERT INTO erasure_pending (erasure_id, tenant_id, memory_id)
           SELECT %s, %s, m FROM unnest(%s::uuid[]) AS m""",
        (erasure_id, tenant_id, selection.memories),
    )


_RUNNING = """SELECT id, tenant_id, api_key_id, selector, created_at, counts, tenant_records, event_scope
              FROM erasures_running"""


def _running(record: dict[str, Any]) -> Running:
    return Running(**{**record, "counts": ErasureCounts(**record["counts"])})


def running(
    conn: psycopg.Connection, tenant_id: UUID, erasure_id: UUID, *, lock: bool = False
) -> Running | None:
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(
            f"{_RUNNING} WHERE tenant_id = %s AND id = %s{' FOR UPDATE' if lock else ''}",
            (tenant_id, erasure_id),
        )
        record = cur.fetchone()
    return _running(record) if record else None


def running_with_selector(conn: psycopg.Connection, tenant_id: UUID, selector: dict[str, Any]) -> UUID | None:
    """The tenant's erasure of exactly this selector that has not finished, if any."""
    row = conn.execute(
        "SELECT id FROM erasures_running WHERE tenant_id = %s AND selector = %s ORDER BY created_at LIMIT 1",
        (tenant_id, Jsonb(selector)),
    ).fetchone()
    return row[0] if row else None


def running_ids(conn: psycopg.Connection, started_before: datetime) -> list[tuple[UUID, UUID]]:
    """(tenant, erasure) of every erasure not finished that started before `started_before`:
    the maintenance job's, as the tables' owner (every tenant)."""
    rows = conn.execute(
        "SELECT tenant_id, id FROM erasures_running WHERE created_at < %s ORDER BY created_at",
        (started_before,),
    ).fetchall()
    return [(r[0], r[1]) for r in rows]


def next_batch(conn: psycopg.Connection, erasure_id: UUID, size: int) -> tuple[list[UUID], bool]:
    """The next `size` memories of a running erasure, and whether they are its last."""
    rows = conn.execute(
        "SELECT memory_id FROM erasure_pending WHERE erasure_id = %s ORDER BY memory_id LIMIT %s",
        (erasure_id, size + 1),
    ).fetchall()
    return [r[0] for r in rows[:size]], len(rows) <= size


def batch_done(
    conn: psycopg.Connection, running: Running, memories: list[UUID], counts: ErasureCounts
) -> None:
    """A batch's memories leave the list; its counts join the progress."""
    conn.execute(
        "DELETE FROM erasure_pending WHERE erasure_id = %s AND memory_id = ANY(%s)", (running.id, memories)
    )
    conn.execute(
        "UPDATE erasures_running SET counts = %s WHERE id = %s", (Jsonb(counts.model_dump()), running.id)
    )


def finish_running(conn: psycopg.Connection, running: Running) -> None:
    """The progress of a finished erasure goes (its list is empty); its receipt stays."""
    conn.execute("DELETE FROM erasures_running WHERE id = %s", (running.id,))


def insert_receipt(
    conn: psycopg.Connection,
    *,
    erasure_id: UUID,
    tenant_id: UUID,
    api_key_id: UUID | None,
    selector: dict[str, Any],
    counts: ErasureCounts,
    created_at: datetime,
) -> ErasureReceipt:
    conn.execute(
        """INSERT INTO erasures (id, tenant_id, api_key_id, selector, counts, created_at)
           VALUES (%s, %s, %s, %s, %s, %s)""",
        (erasure_id, tenant_id, api_key_id, Jsonb(selector), Jsonb(counts.model_dump()), created_at),
    )
    return ErasureReceipt(id=erasure_id, selector=selector, created_at=created_at, counts=counts)


_RECEIPT = "SELECT id, selector, counts, created_at FROM erasures"


def _receipt(record: dict[str, Any]) -> ErasureReceipt:
    return ErasureReceipt(
        id=record["id"],
        selector=record["selector"],
        created_at=record["created_at"],
        counts=ErasureCounts(**record["counts"]),
    )


def select_receipt(conn: psycopg.Connection, tenant_id: UUID, erasure_id: UUID) -> ErasureReceipt | None:
    """The receipt of a finished erasure, or the progress of one still running."""
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(f"{_RECEIPT} WHERE tenant_id = %s AND id = %s", (tenant_id, erasure_id))
        record = cur.fetchone()
    if record:
        return _receipt(record)
    still = running(conn, tenant_id, erasure_id)
    return still.receipt() if still else None


def latest_receipt(
    conn: psycopg.Connection, tenant_id: UUID, selector: dict[str, Any]
) -> ErasureReceipt | None:
    """The tenant's latest receipt of exactly this selector."""
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(
            f"{_RECEIPT} WHERE tenant_id = %s AND selector = %s ORDER BY created_at DESC, id DESC LIMIT 1",
            (tenant_id, Jsonb(selector)),
        )
        record = cur.fetchone()
    return _receipt(record) if record else None


def erasure_of(conn: psycopg.Connection, tenant_id: UUID, memory_id: UUID) -> UUID | None:
    """The erasure that erased the memory, when nothing of it is left but tombstones (None
    when it has live versions, or never existed in this tenant)."""
    row = conn.execute(
        """SELECT erasure_id FROM memory_tombstones t
           WHERE tenant_id = %(tenant_id)s AND memory_id = %(memory_id)s
             AND NOT EXISTS (SELECT 1 FROM memory_versions
                             WHERE tenant_id = %(tenant_id)s AND memory_id = %(memory_id)s)
           ORDER BY erased_at DESC, version_id DESC LIMIT 1""",
        {"tenant_id": tenant_id, "memory_id": memory_id},
    ).fetchone()
    return row[0] if row else None


def erased_among(conn: psycopg.Connection, tenant_id: UUID, ids: list[UUID]) -> bool:
    """Whether any of `ids` is a memory of the tenant that was erased whole."""
    if not ids:
        return False
    row = conn.execute(
        """SELECT 1 FROM memory_tombstones t
           WHERE tenant_id = %(tenant_id)s AND memory_id = ANY(%(ids)s)
             AND NOT EXISTS (SELECT 1 FROM memory_versions v
                             WHERE v.tenant_id = %(tenant_id)s AND v.memory_id = t.memory_id)
           LIMIT 1""",
        {"tenant_id": tenant_id, "ids": ids},
    ).fetchone()
    return row is not None


# ---------------------------------------------------------------- upkeep (the maintenance job, as the owner)

# The tables an erasure changes: deleted versions, scrubbed events, deleted Idempotency-Key
# records. Until VACUUM, the old row versions are still in their pages (dead, unreadable by any
# query, but on disk); VACUUM removes them and their index entries.
ERASED_TABLES = ("memory_versions", "audit_events", "idempotency_records")
# The indexes that hold a memory's words (migrations 0007, 0008). VACUUM takes a deleted row's
# entries out of their posting lists, but a word's key stays in a GIN index's entry tree until
# the index is rebuilt.
FULL_TEXT_INDEXES = ("memory_versions_current_content_words", "memory_versions_past_content_words")
# Where the maintenance job remembers when it last vacuumed, and last rebuilt those indexes,
# after erasures.
_VACUUMED_THROUGH = "erasures_vacuumed_through"
_REINDEXED_THROUGH = "erasures_reindexed_through"
# An Idempotency-Key record is kept this long after its expiry (a retry then runs again anyway).
IDEMPOTENCY_GRACE_S = 3600


def _since(conn: psycopg.Connection, key: str) -> bool:
    """Whether an erasure may have committed since the time stored under `key`. An erasure is
    stamped when it starts and commits within its function's timeout, so one stamped up to a
    minute before that time may have committed after it: it counts again."""
    found: bool = one_row(
        conn.execute(
            """SELECT EXISTS (SELECT 1 FROM erasures
               WHERE created_at > coalesce(
                   (SELECT value::timestamptz FROM deployment_settings WHERE key = %s), '-infinity')
                   - interval '1 minute')""",
            (key,),
        ).fetchone()
    )[0]
    return found


def _stamp(conn: psycopg.Connection, key: str, at: datetime) -> None:
    conn.execute(
        """INSERT INTO deployment_settings (key, value) VALUES (%s, %s)
           ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value""",
        (key, at.isoformat()),
    )


def vacuum_after_erasures(conn: psycopg.Connection, *, reindex_interval_h: float = 24.0) -> dict[str, Any]:
    """After erasures (an autocommit connection of the tables' owner: VACUUM and REINDEX
    CONCURRENTLY run outside a transaction): VACUUM the tables they touched, when one may have
    committed since the last VACUUM; and rebuild the full-text indexes, when one may have
    committed since their last rebuild and that is `reindex_interval_h` ago or more (a
    rebuild reads the whole table; writes go on meanwhile). Returns what it did."""
    started: datetime = one_row(conn.execute("SELECT clock_timestamp()").fetchone())[0]
    done: dict[str, Any] = {"vacuumed": [], "reindexed": []}
    if _since(conn, _VACUUMED_THROUGH):
        for table in ERASED_TABLES:
            # ANALYZE too: the planner's statistics (pg_statistic) keep sample values of each
            # column, content among them, until the table is analyzed again.
            conn.execute(f"VACUUM (ANALYZE) {table}")
        _stamp(conn, _VACUUMED_THROUGH, started)
        done["vacuumed"] = list(ERASED_TABLES)
    due = one_row(
        conn.execute(
            """SELECT coalesce((SELECT value::timestamptz FROM deployment_settings WHERE key = %s),
                               '-infinity') <= %s - make_interval(secs => %s)""",
            (_REINDEXED_THROUGH, started, reindex_interval_h * 3600),
        ).fetchone()
    )[0]
    if due and _since(conn, _REINDEXED_THROUGH):
        for index in FULL_TEXT_INDEXES:
            # A rebuild interrupted (a timeout) leaves its invalid copy behind: drop it first.
            leftovers = conn.execute(
                """SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
                   WHERE NOT i.indisvalid AND c.relname LIKE %s""",
                (f"{index}_ccnew%",),
            ).fetchall()
            for (leftover,) in leftovers:
                conn.execute(sql.SQL("DROP INDEX CONCURRENTLY IF EXISTS {}").format(sql.Identifier(leftover)))
            conn.execute(f"REINDEX INDEX CONCURRENTLY {index}")
        _stamp(conn, _REINDEXED_THROUGH, started)
        done["reindexed"] = list(FULL_TEXT_INDEXES)
    return done


def purge_expired_idempotency_records(conn: psycopg.Connection, now_s: float) -> int:
    """Delete the Idempotency-Key records expired for over an hour: each holds a response (the
    memories it wrote), kept no longer than a retry could use it."""
    removed = conn.execute(
        "DELETE FROM idempotency_records WHERE expiry < %s", (int(now_s) - IDEMPOTENCY_GRACE_S,)
    ).rowcount
    return int(removed)
