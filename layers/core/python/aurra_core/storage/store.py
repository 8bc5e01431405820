"""The bi-temporal store: memory versions and audit events on PostgreSQL.

Valid time (valid_from, valid_to) says when a fact was true; transaction time
(recorded_at, recorded_to) says when the service believed that version. A change of
validity closes the believed version (recorded_to) and inserts a new one; nothing else is
ever changed or deleted, and the database enforces it.

Transaction time must be exact for `known_at` queries, including under concurrency. A
writer takes a shared per-tenant advisory lock before reading its clock; a reader that needs
"now" first takes the exclusive lock in a short transaction of its own (`believed_now`). So
every write stamped at or before a reader's "now" has committed by the time the reader looks,
and any later query with `known_at` equal to that instant sees exactly the same rows. Both
locks are transaction-scoped: nothing outlives a transaction, so RDS Proxy can hand the
connection to another client after each commit instead of pinning it.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sized
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, date, datetime
from functools import lru_cache
from typing import TYPE_CHECKING, Any, NamedTuple, cast
from uuid import UUID

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from aurra_core.models import (
    DEFAULT_TOPIC,
    UNSCOPED,
    AuditEvent,
    AuditType,
    Caller,
    Memory,
    MemoryStatus,
    MemoryVersion,
    ProposalStatus,
    Scope,
    Source,
    Verdict,
)
from aurra_core.runtime.config import get_config
from aurra_core.storage import idempotency_claim, tenant_indexes
from aurra_core.storage.db import Database, one_row
from aurra_core.storage.ids import new_id

if TYPE_CHECKING:
    from pgvector import Vector

_MEMORY_COLUMNS = (
    "version_id, memory_id, tenant_id, content, topic, metadata, valid_from, valid_to, "
    "superseded_by, supersedes, recorded_at, recorded_to, user_id, agent_id, superseded_event_id, "
    "source_type, source_id, source_uri, conversation_id, source_message_indexes, source_quote"
)
# What a memory's versions all share with the write that created it (a revision copies them).
_SOURCE_COLUMNS = "source_type, source_id, source_uri, conversation_id, source_message_indexes, source_quote"

# Tenants whose current memories outnumber this are searched through an HNSW index (their
# own when tenant_indexes.py has built it, else the shared one); smaller ones exactly through
# the btree. Measured (bench/notes/tenant-indexes.md): an exact scan costs about 1 ms per 1,000 memories
# here, HNSW a millisecond or two whatever the size.
HNSW_MIN_TENANT_MEMORIES = 2_000


@dataclass(frozen=True)
class SourceRecord:
    """Where a memory came from (models.Source), as a write records it."""

    type: str
    id: str | None = None
    uri: str | None = None
    conversation_id: str | None = None
    message_indexes: tuple[int, ...] | None = None
    quote: str | None = None

    def values(self) -> tuple[Any, ...]:
        """The values of `_SOURCE_COLUMNS`, in their order."""
        indexes = None if self.message_indexes is None else list(self.message_indexes)
        return (self.type, self.id, self.uri, self.conversation_id, indexes, self.quote)


_NO_SOURCE: tuple[Any, ...] = (None,) * 6


def status_of(superseded_by: UUID | None, valid_to: datetime | None, now: datetime | None = None) -> str:
    """`superseded` once another memory replaced it; `expired` once its own `valid_to` (an
    expiry set by its write) has passed; else `current`."""
    if superseded_by is not None:
        return "superseded"
    if valid_to is not None and valid_to <= (now or datetime.now(UTC)):
        return "expired"
    return "current"


@dataclass(frozen=True)
class MemoryRow:
    version_id: int
    memory_id: UUID
    tenant_id: UUID
    content: str
    topic: str
    metadata: dict[str, Any]
    valid_from: datetime
    valid_to: datetime | None
    superseded_by: UUID | None
    supersedes: UUID | None
    recorded_at: datetime
    recorded_to: datetime | None
    user_id: str | None = None
    agent_id: str | None = None
    superseded_event_id: UUID | None = None
    source_type: str | None = None
    source_id: str | None = None
    source_uri: str | None = None
    conversation_id: str | None = None
    source_message_indexes: list[int] | None = None
    source_quote: str | None = None

    @property
    def scope(self) -> Scope:
        return Scope(self.user_id, self.agent_id)

    @property
    def is_current(self) -> bool:
        """Neither superseded nor expired (a future `valid_to` is an expiry still to come)."""
        return status_of(self.superseded_by, self.valid_to) == "current"

    @property
    def source(self) -> SourceRecord | None:
        if self.source_type is None:
            return None
        indexes = self.source_message_indexes
        return SourceRecord(
            type=self.source_type,
            id=self.source_id,
            uri=self.source_uri,
            conversation_id=self.conversation_id,
            message_indexes=None if indexes is None else tuple(indexes),
            quote=self.source_quote,
        )

    def to_memory(self, score: float | None = None, relevance: float | None = None) -> Memory:
        source = None
        if self.source_type is not None:
            source = Source(
                type=self.source_type,
                id=self.source_id,
                conversation_id=self.conversation_id,
                message_indexes=self.source_message_indexes,
                quote=self.source_quote,
                uri=self.source_uri,
            )
        return Memory(
            id=self.memory_id,
            content=self.content,
            topic=self.topic,
            metadata=self.metadata,
            valid_from=self.valid_from,
            valid_to=self.valid_to,
            superseded_by=self.superseded_by,
            supersedes=self.supersedes,
            recorded_at=self.recorded_at,
            status=cast("MemoryStatus", status_of(self.superseded_by, self.valid_to)),
            user_id=self.user_id,
            agent_id=self.agent_id,
            superseded_event_id=self.superseded_event_id,
            source=source,
            score=score,
            relevance=relevance,
        )

    def to_version(self) -> MemoryVersion:
        return MemoryVersion(
            valid_from=self.valid_from,
            valid_to=self.valid_to,
            superseded_by=self.superseded_by,
            supersedes=self.supersedes,
            status=cast("MemoryStatus", status_of(self.superseded_by, self.valid_to)),
            recorded_at=self.recorded_at,
            recorded_to=self.recorded_to,
        )


def _row(record: dict[str, Any]) -> MemoryRow:
    return MemoryRow(**{k: record[k] for k in MemoryRow.__dataclass_fields__})


def _tenant_lock_key(tenant_id: UUID) -> int:
    # Advisory locks take a bigint; the low 63 bits of the UUID are as good as any hash.
    return tenant_id.int & 0x7FFF_FFFF_FFFF_FFFF


# ---------------------------------------------------------------- transaction time


def begin_write(conn: psycopg.Connection, tenant_id: UUID) -> None:
    """Mark this transaction as a writer of the tenant (see the module docstring). Inside an
    idempotent call, the call's Idempotency-Key record commits with it (idempotency_claim)."""
    hold_write_lock(conn, tenant_id)
    idempotency_claim.bind(conn)


def hold_write_lock(conn: psycopg.Connection, tenant_id: UUID) -> None:
    """The tenant's write lock, shared, until this transaction ends: an erasure (which takes it
    exclusively, `believed_now`) is wholly before or after this transaction."""
    conn.execute("SELECT pg_advisory_xact_lock_shared(%s)", (_tenant_lock_key(tenant_id),))


@contextmanager
def write_transaction(db: Database, tenant_id: UUID) -> Iterator[tuple[psycopg.Connection, datetime]]:
    """A tenant transaction begun as `begin_write` begins one, with the clock read once the
    tenant's lock is granted: the write's transaction time when it locks no row (else
    `write_clock` after its row locks). The confinement, the lock and the clock are one round
    trip (Database.tenant_writer_transaction)."""
    with db.tenant_writer_transaction(tenant_id, _tenant_lock_key(tenant_id)) as (conn, now):
        idempotency_claim.bind(conn)
        yield conn, now


@contextmanager
def row_write_transaction(db: Database, tenant_id: UUID) -> Iterator[psycopg.Connection]:
    """`write_transaction` for a write that locks rows: its clock is read with the last of its
    row locks (`lock_believed_and_clock`), never before them."""
    with db.tenant_row_writer_transaction(tenant_id, _tenant_lock_key(tenant_id)) as conn:
        idempotency_claim.bind(conn)
        yield conn


def write_clock(conn: psycopg.Connection) -> datetime:
    """The transaction time of this write. Read it after taking every row lock the write needs."""
    now: datetime = one_row(conn.execute("SELECT clock_timestamp()").fetchone())[0]
    return now


def believed_now(conn: psycopg.Connection, tenant_id: UUID) -> datetime:
    """A transaction time at which every write of the tenant stamped no later has committed.

    Call it in a transaction of its own and commit that before reading at the instant: the
    exclusive lock is held until the commit, and held through a read it would stall the
    tenant's writers for as long as the read takes."""
    conn.execute("SELECT pg_advisory_xact_lock(%s)", (_tenant_lock_key(tenant_id),))
    now: datetime = one_row(conn.execute("SELECT clock_timestamp()").fetchone())[0]
    return now


# ---------------------------------------------------------------- memories


# A new version, its columns in the order of `_version_values`.
_INSERT_VERSIONS = f"""INSERT INTO memory_versions (memory_id, tenant_id, content, topic, metadata,
        embedding, valid_from, valid_to, superseded_by, supersedes, recorded_at, user_id, agent_id,
        superseded_event_id, {_SOURCE_COLUMNS})
    VALUES """
# One row's parameters (`_version_values`).
_VERSION_ROW = "(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
_INSERT_VERSION = f"{_INSERT_VERSIONS}{_VERSION_ROW} RETURNING {_MEMORY_COLUMNS}"

# Closing a believed version and recording its successor with new validity: one statement
# (the successor is copied from the row the close returns; the close runs first since the
# copy reads its rows). Its parameters: the close's recorded_to and version id, then the
# successor's valid_from, valid_to, superseded_by, supersedes, recorded_at, superseded_event_id.
_CLOSED = f"""closed AS (
        UPDATE memory_versions SET recorded_to = %s WHERE version_id = %s AND recorded_to IS NULL
        RETURNING memory_id, tenant_id, content, topic, metadata, embedding, user_id, agent_id,
            {_SOURCE_COLUMNS})"""
_SUCCESSOR = f"""INSERT INTO memory_versions (memory_id, tenant_id, content, topic, metadata, embedding,
        valid_from, valid_to, superseded_by, supersedes, recorded_at, superseded_event_id,
        user_id, agent_id, {_SOURCE_COLUMNS})
    SELECT memory_id, tenant_id, content, topic, metadata, embedding, %s, %s, %s, %s, %s, %s,
        user_id, agent_id, {_SOURCE_COLUMNS}
    FROM closed
    RETURNING {_MEMORY_COLUMNS}"""


def _version_values(
    *,
    memory_id: UUID,
    tenant_id: UUID,
    content: str,
    topic: str,
    metadata: dict[str, Any],
    embedding: Vector,
    valid_from: datetime,
    valid_to: datetime | None,
    superseded_by: UUID | None,
    supersedes: UUID | None,
    recorded_at: datetime,
    scope: Scope = UNSCOPED,
    superseded_event_id: UUID | None = None,
    source: SourceRecord | None = None,
) -> tuple[Any, ...]:
    return (
        memory_id,
        tenant_id,
        content,
        topic,
        Jsonb(metadata),
        embedding,
        valid_from,
        valid_to,
        superseded_by,
        supersedes,
        recorded_at,
        scope.user_id,
        scope.agent_id,
        superseded_event_id,
        *(_NO_SOURCE if source is None else source.values()),
    )


def _checked(row: MemoryRow) -> MemoryRow:
    """The row as PostgreSQL gives it back must make a response: fail here, inside the
    transaction, rather than commit a memory that every later read of the tenant would trip on."""
    row.to_memory().model_dump_json()
    return row


def insert_version(
    conn: psycopg.Connection, *, then: tuple[str, tuple[Any, ...]] | None = None, **version: Any
) -> MemoryRow:
    """A new version (the keywords of `_version_values`). `then`: a statement and its parameters
    run after the insert, sent with it (pipelined: one round trip for the two)."""
    with conn.cursor(row_factory=dict_row) as cur:
        if then is None:
            cur.execute(_INSERT_VERSION, _version_values(**version))
        else:
            with conn.pipeline():
                cur.execute(_INSERT_VERSION, _version_values(**version))
                conn.execute(*then)
        return _checked(_row(one_row(cur.fetchone())))


@lru_cache(maxsize=8)
def _insert_rows(count: int) -> str:
    """`_INSERT_VERSION` for `count` rows, with PostgreSQL's own numbered placeholders: a
    RawCursor sends them as they are, where psycopg would parse a query of this length (it
    caches none over 50 parameters) at every execution, a tenth of an import's server CPU."""
    width = _VERSION_ROW.count("%s")
    rows = ", ".join(
        "(" + ", ".join(f"${row * width + column + 1}" for column in range(width)) + ")"
        for row in range(count)
    )
    return f"{_INSERT_VERSIONS}{rows} RETURNING {_MEMORY_COLUMNS}"


def insert_versions(conn: psycopg.Connection, versions: list[dict[str, Any]]) -> list[MemoryRow]:
    """New versions (each the keywords of `_version_values`) of new memories, one statement for
    them all: a statement a row cost the server and the database more than the rows themselves
    (an import's batches). Returned in the order given."""
    if len(versions) == 1:
        return [insert_version(conn, **versions[0])]
    with psycopg.RawCursor(conn, row_factory=dict_row) as cur:
        cur.execute(
            _insert_rows(len(versions)),
            [value for version in versions for value in _version_values(**version)],
        )
        # RETURNING's order is not promised: each row is found by its memory's id (a memory has
        # one believed version, memory_versions_believed)
        inserted = {record["memory_id"]: record for record in cur.fetchall()}
    return [_checked(_row(inserted[version["memory_id"]])) for version in versions]


def _revision(old: MemoryRow, recorded_at: datetime, changes: dict[str, Any]) -> tuple[Any, ...]:
    """The parameters of `_CLOSED` and `_SUCCESSOR` for closing `old` with `changes`.

    A change of `superseded_by` names the event that made it (`superseded_event_id`), so the
    version always says which event retired it; clearing it (a revert) clears both."""
    if "superseded_by" in changes:
        if changes["superseded_by"] is None:
            changes.setdefault("superseded_event_id", None)
        elif "superseded_event_id" not in changes:
            raise ValueError("a supersession must name its audit event (superseded_event_id)")
    fields = {
        "valid_from": old.valid_from,
        "valid_to": old.valid_to,
        "superseded_by": old.superseded_by,
        "supersedes": old.supersedes,
        "superseded_event_id": old.superseded_event_id,
        **changes,
    }
    return (
        recorded_at,
        old.version_id,
        fields["valid_from"],
        fields["valid_to"],
        fields["superseded_by"],
        fields["supersedes"],
        recorded_at,
        fields["superseded_event_id"],
    )


def revise_version(
    conn: psycopg.Connection, old: MemoryRow, recorded_at: datetime, **changes: Any
) -> MemoryRow:
    """Close the believed version `old` and record its successor with `changes` to its validity
    (`_revision`), in one statement."""
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(f"WITH {_CLOSED} {_SUCCESSOR}", _revision(old, recorded_at, changes))
        row = cur.fetchone()
    if row is None:
        raise RuntimeError(f"version {old.version_id} is no longer believed: nothing to revise")
    return _row(row)


def insert_version_audited(
    conn: psycopg.Connection,
    version: dict[str, Any],
    event: dict[str, Any],
    *,
    revise: tuple[MemoryRow, dict[str, Any]] | None = None,
) -> tuple[MemoryRow, AuditEvent]:
    """A new version (`insert_version`'s keywords), its audit event (`insert_audit_event`'s,
    stamped with the version's recorded_at) and, with `revise` (old, changes), the revision of
    the version it supersedes or is superseded by (`revise_version`'s): all in one statement,
    so one round trip where they took four. A statement is atomic on its own, and all of it
    commits or none with the transaction, as before."""
    audit_sql, audit_params, audit_event = _audit_insert(created_at=version["recorded_at"], **event)
    ctes = [f"created AS ({_INSERT_VERSION})"]
    params: list[Any] = [*_version_values(**version)]
    revised = "0"
    if revise is not None:
        old, changes = revise
        ctes += [_CLOSED, f"revised AS ({_SUCCESSOR})"]
        params += _revision(old, version["recorded_at"], dict(changes))
        revised = "(SELECT count(*) FROM revised)"
    ctes.append(f"audited AS ({audit_sql} RETURNING id)")
    params += audit_params
    # Every data-modifying CTE runs to completion whether or not the outer query reads it.
    sql = f"WITH {', '.join(ctes)} SELECT created.*, {revised} AS revised FROM created"
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(sql, params)
        record = one_row(cur.fetchone())
    if revise is not None and record["revised"] != 1:
        raise RuntimeError(f"version {revise[0].version_id} is no longer believed: nothing to revise")
    return _checked(_row(record)), audit_event


def lock_believed(conn: psycopg.Connection, tenant_id: UUID, memory_id: UUID) -> MemoryRow | None:
    """The believed version of a memory, locked against concurrent changes (None if not the tenant's)."""
    return lock_believed_and_clock(conn, tenant_id, memory_id)[0]


# The memories whose supersession of the locked one was reverted (`reverted_supersessors`).
_REVERTED_SUPERSESSORS = """ARRAY(SELECT superseded_id FROM audit_events
        WHERE tenant_id = locked.tenant_id AND type = 'revert' AND memory_id = locked.memory_id)"""


def lock_believed_and_clock(
    conn: psycopg.Connection, tenant_id: UUID, memory_id: UUID, *, with_reverted_supersessors: bool = False
) -> tuple[MemoryRow | None, datetime, set[UUID] | None]:
    """`lock_believed`, and the clock read once that lock is granted (what `write_clock` reads
    after the write's last row lock), in the same statement: the outer query's clock is
    evaluated on the row the inner one has locked, so after any wait for it. One round trip
    instead of two.

    `with_reverted_supersessors`: also `reverted_supersessors` of the memory, read in the same
    statement (a round trip fewer for a contradiction). Its snapshot is the statement's, taken
    before any wait for the lock, and that is enough: a revert naming the memory as the one it
    restored always revises the memory's believed version, so one that committed while this
    waited changed the locked row, which the lock then skips and the next try reads afresh;
    one that comes later waits for this lock. (None when not asked.)"""
    reverts = f", {_REVERTED_SUPERSESSORS} AS reverted_supersessors" if with_reverted_supersessors else ""
    with conn.cursor(row_factory=dict_row) as cur:
        for _ in range(5):
            cur.execute(
                f"""SELECT locked.*, clock_timestamp() AS locked_at{reverts} FROM (
                        SELECT {_MEMORY_COLUMNS} FROM memory_versions
                        WHERE tenant_id = %s AND memory_id = %s AND recorded_to IS NULL
                        FOR UPDATE) AS locked""",
                (tenant_id, memory_id),
            )
            record = cur.fetchone()
            if record:
                supersessors = set(record["reverted_supersessors"]) if with_reverted_supersessors else None
                return _row(record), record["locked_at"], supersessors
            # A concurrent writer may have just replaced the version we waited for; its successor
            # is visible to a new statement. Only a memory with no versions at all is missing.
            cur.execute(
                "SELECT 1 FROM memory_versions WHERE tenant_id = %s AND memory_id = %s LIMIT 1",
                (tenant_id, memory_id),
            )
            if cur.fetchone() is None:
                break
    return None, write_clock(conn), None


def _believed_at(known_at: datetime | None) -> tuple[str, dict[str, Any]]:
    if known_at is None:
        return "recorded_to IS NULL", {}
    return "recorded_at <= %(known_at)s AND (recorded_to IS NULL OR recorded_to > %(known_at)s)", {
        "known_at": known_at
    }


def select_memory(
    conn: psycopg.Connection,
    tenant_id: UUID,
    memory_id: UUID,
    *,
    known_at: datetime | None = None,
    as_of: datetime | None = None,
) -> MemoryRow | None:
    believed, params = _believed_at(known_at)
    valid = ""
    if as_of is not None:
        valid = "AND valid_from <= %(as_of)s AND (valid_to IS NULL OR valid_to > %(as_of)s)"
        params["as_of"] = as_of
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(
            f"""SELECT {_MEMORY_COLUMNS} FROM memory_versions
                WHERE tenant_id = %(tenant_id)s AND memory_id = %(memory_id)s AND {believed} {valid}""",
            {"tenant_id": tenant_id, "memory_id": memory_id, **params},
        )
        record = cur.fetchone()
    return _row(record) if record else None


def select_memories_by_id(
    conn: psycopg.Connection, tenant_id: UUID, memory_ids: list[UUID], *, known_at: datetime | None = None
) -> list[MemoryRow]:
    believed, params = _believed_at(known_at)
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(
            f"""SELECT {_MEMORY_COLUMNS} FROM memory_versions
                WHERE tenant_id = %(tenant_id)s AND memory_id = ANY(%(ids)s) AND {believed}""",
            {"tenant_id": tenant_id, "ids": memory_ids, **params},
        )
        return [_row(r) for r in cur.fetchall()]


def scope_clause(scope: Scope, params: dict[str, Any]) -> str:
    """The SQL that keeps exactly `scope`'s rows: an absent user or agent matches only absent
    (IS NULL, not IS NOT DISTINCT FROM, so the scope index serves both forms)."""
    parts = []
    for column, value in (("user_id", scope.user_id), ("agent_id", scope.agent_id)):
        if value is None:
            parts.append(f"{column} IS NULL")
        else:
            parts.append(f"{column} = %(scope_{column})s")
            params[f"scope_{column}"] = value
    return " AND ".join(parts)


def count_current(
    conn: psycopg.Connection, tenant_id: UUID, *, scope: Scope | None = None, at_most: int | None = None
) -> int:
    """The tenant's current memories (of one scope, when given); with `at_most`, counting stops
    there (a bounded cost whatever the size, which is all the strategy choice needs)."""
    params: dict[str, Any] = {"tenant_id": tenant_id}
    scoped = "" if scope is None else "AND " + scope_clause(scope, params)
    limit = "" if at_most is None else f"LIMIT {int(at_most)}"
    count: int = one_row(
        conn.execute(
            f"""SELECT count(*) FROM (SELECT 1 FROM memory_versions
                WHERE tenant_id = %(tenant_id)s AND recorded_to IS NULL AND valid_to IS NULL {scoped}
                {limit}) current""",
            params,
        ).fetchone()
    )[0]
    return count


def largest_current_scope(conn: psycopg.Connection, tenant_id: UUID) -> int:
    """The most current memories any one scope (user and agent) of the tenant holds; 0 for none."""
    largest: int = one_row(
        conn.execute(
            f"""SELECT coalesce(max(n), 0) FROM (SELECT count(*) AS n FROM memory_versions
                WHERE tenant_id = %s AND {_CURRENT} GROUP BY user_id, agent_id) scopes""",
            (tenant_id,),
        ).fetchone()
    )[0]
    return largest


# Beyond this many current memories in a scope, its relations are not read (a messages write
# would scan them all): a "she" there is read from the conversation alone.
RELATIONS_SCAN_AT_MOST = 5000


def relations_named(conn: psycopg.Connection, tenant_id: UUID, scope: Scope) -> set[tuple[str, str]]:
    """Whom of the user's the current memories of the tenant's `scope` are about, by the words
    they open with: the word after "User's" (or after "my", in a memory kept as said) and the
    word after it, lower case ("User's boyfriend Marco is a sous chef": ("boyfriend", "marco")).
    Empty when the scope holds more than RELATIONS_SCAN_AT_MOST current memories."""
    params: dict[str, Any] = {"tenant_id": tenant_id, "at_most": RELATIONS_SCAN_AT_MOST + 1}
    where = f"tenant_id = %(tenant_id)s AND {_CURRENT} AND {scope_clause(scope, params)}"
    rows = conn.execute(
        f"""WITH scoped AS (
                SELECT coalesce(regexp_match(lower(content), '^user''s ([a-z]+)(?: ([a-z]+))?'),
                                regexp_match(lower(content), '^user said: (?:[a-z]+ ){{0,3}}?my ([a-z]+)(?: ([a-z]+))?'))
                       AS said
                FROM memory_versions WHERE {where} LIMIT %(at_most)s)
            SELECT (SELECT count(*) FROM scoped), said[1], coalesce(said[2], '')
            FROM scoped WHERE said IS NOT NULL GROUP BY 2, 3""",
        params,
    ).fetchall()
    if not rows or rows[0][0] > RELATIONS_SCAN_AT_MOST:
        return set()
    return {(relation, after) for _, relation, after in rows}


def small_scope_memories(
    conn: psycopg.Connection,
    tenant_id: UUID,
    embedding: Vector,
    *,
    scope: Scope,
    excluded_topics: list[str],
    at_most: int,
    excluded_ids: list[UUID] | None = None,
) -> list[tuple[MemoryRow, float]] | None:
    """Every current memory of the tenant's `scope` outside the excluded topics (and not one of
    `excluded_ids`), nearest first, each with its cosine similarity, whatever the similarity
    floor: when the scope holds at most `at_most` of them; None when it holds more. One
    statement, an exact scan of the scope's rows (at most `at_most` + 1 are read)."""
    params: dict[str, Any] = {"tenant_id": tenant_id, "excluded": excluded_topics, "q": embedding}
    where = (
        f"tenant_id = %(tenant_id)s AND {_CURRENT} "
        f"AND {scope_clause(scope, params)} AND NOT (topic = ANY(%(excluded)s))"
    )
    if excluded_ids:
        where += " AND memory_id <> ALL(%(excluded_ids)s)"
        params["excluded_ids"] = excluded_ids
    params["limit"] = at_most + 1
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(
            f"""SELECT {_MEMORY_COLUMNS}, embedding <=> %(q)s AS distance FROM memory_versions
                WHERE {where} ORDER BY (embedding <=> %(q)s) + 0, memory_id LIMIT %(limit)s""",
            params,
        )
        records = cur.fetchall()
    if len(records) > at_most:
        return None
    return [(_row(record), 1.0 - float(record["distance"])) for record in records]


class SaidWith(NamedTuple):
    """Where an old memory was said, and what said in the same message rests on it."""

    conversation_id: str | None
    message_indexes: list[int]
    # PostgreSQL expressions (ARE, case aside): words that point back at what the old memory
    # said ("there", "in it"); the life around the place it says the user lives or works in, for
    # a memory of the same subject (None: it says no such place)
    points_back: str
    life_around: str | None


def propose_dependents(
    conn: psycopg.Connection,
    caller_tenant_id: UUID,
    api_key_id: UUID | None,
    *,
    scope: Scope,
    subject_pattern: str,
    values: list[tuple[str, str]],
    old_id: UUID,
    new_id_: UUID,
    supersession_event_id: UUID,
    now: datetime,
    said_with: SaidWith | None = None,
    limit: int = 20,
) -> int:
    """One statement: a `dependency_proposed` event for each current memory of the scope whose
    content matches `subject_pattern` (a PostgreSQL regular expression, case aside) and names one
    of `values` ((value, its word-bounded pattern) pairs), other than the two memories of the
    supersession and any this transaction wrote (recorded at `now`). `said_with`: where the old
    memory was said and what, said in the same message, rests on it (`SaidWith`); such a memory
    rests on it too, and the event names the first value. Returns how many."""
    conversation, indexes, points_back, life_around = said_with or SaidWith(None, [], "", None)
    params: dict[str, Any] = {
        "tenant_id": caller_tenant_id,
        "subject": subject_pattern,
        "values": [value for value, _ in values],
        "patterns": [pattern for _, pattern in values],
        "excluded": [old_id, new_id_],
        "before": now,
        "limit": limit,
        "ids": [new_id() for _ in range(limit)],
        "type": AuditType.DEPENDENCY_PROPOSED.value,
        "now": now,
        "key": api_key_id,
        "old": old_id,
        "new": str(new_id_),
        "event": str(supersession_event_id),
        "conversation": conversation,
        "indexes": indexes,
        "back": points_back,
        "around": life_around,
        "first": values[0][0] if values else None,
    }
    where = (
        f"tenant_id = %(tenant_id)s AND {_CURRENT} AND {scope_clause(scope, params)} "
        "AND NOT (memory_id = ANY(%(excluded)s)) AND recorded_at < %(before)s "
        "AND ((content ~* %(subject)s AND content ~* ANY(%(patterns)s)) "
        "OR (%(conversation)s::text IS NOT NULL AND conversation_id = %(conversation)s::text "
        "AND source_message_indexes && %(indexes)s::int[] AND (content ~* %(back)s "
        "OR (%(around)s::text IS NOT NULL AND content ~* %(subject)s AND content ~* %(around)s))))"
    )
    row = conn.execute(
        f"""WITH dependents AS (
                SELECT m.memory_id, m.user_id,
                       COALESCE((SELECT v.value FROM unnest(%(values)s::text[], %(patterns)s::text[]) AS v(value, pattern)
                                 WHERE m.content ~* v.pattern LIMIT 1), %(first)s::text) AS on_value,
                       row_number() OVER (ORDER BY m.memory_id) AS n
                FROM memory_versions m WHERE {where} ORDER BY m.memory_id LIMIT %(limit)s),
            proposed AS (
                INSERT INTO audit_events (id, tenant_id, type, created_at, api_key_id, memory_id,
                                          superseded_id, reason, details, user_id)
                SELECT (%(ids)s::uuid[])[d.n], %(tenant_id)s::uuid, %(type)s::text, %(now)s::timestamptz,
                       %(key)s::uuid, d.memory_id, %(old)s::uuid,
                       'rests on ' || d.on_value || ', which a supersession replaced',
                       jsonb_build_object('on', d.on_value, 'superseded_by', %(new)s::text,
                                          'supersession_event_id', %(event)s::text),
                       d.user_id
                FROM dependents d
                RETURNING 1)
            SELECT count(*) FROM proposed""",
        params,
    ).fetchone()
    return int(row[0]) if row else 0


def possibly_stale(conn: psycopg.Connection, tenant_id: UUID, memory_ids: list[UUID]) -> set[UUID]:
    """Which of the memories an open `dependency_proposed` event names (none resolves it)."""
    if not memory_ids:
        return set()
    rows = conn.execute(
        """SELECT DISTINCT e.memory_id FROM audit_events e
           WHERE e.tenant_id = %s AND e.type = 'dependency_proposed' AND e.memory_id = ANY(%s)
             AND NOT EXISTS (SELECT 1 FROM audit_events r
                             WHERE r.tenant_id = e.tenant_id AND r.resolves_event_id = e.id)""",
        (tenant_id, memory_ids),
    ).fetchall()
    return {row[0] for row in rows}


def find_candidates(
    conn: psycopg.Connection,
    tenant_id: UUID,
    embedding: Vector,
    *,
    scope: Scope,
    excluded_topics: list[str],
    limit: int,
    min_similarity: float,
    text: str | None = None,
    topic: str | None = None,
    strategy: str = "auto",
    ef_search: int | None = None,
    reservation: CallReservation | None = None,
    excluded_ids: list[UUID] | None = None,
) -> list[tuple[MemoryRow, float]]:
    """The current memories of the tenant's `scope` most like a new fact, never one of an
    excluded topic nor of `excluded_ids`, each with its cosine similarity; none below
    `min_similarity`.

    With the fact's `text` (and `topic`), hybrid: three lists, each the nearest by vector, fused
    by reciprocal rank: of all memories; of those among the nearest `NEAREST_POOL` of the
    fact's own topic; and of those among them that name any kind of thing the fact names
    (`kinds.py`: "Emacs" for "editor", "Tesla" for "car"; PostgreSQL's English stems). Not the words it shares, as a search does
    (`fused_ranking`): they lift the distractors that share words but not meaning. A memory in
    several lists rises; a topic or kind match alone never lifts a memory the embedder finds
    unlike the fact above the floor. `ef_search`: by default the one calibrated on the
    tenant's own index (`tenant_indexes.calibrate`), else the setting `candidate_ef_search`;
    given, that value whatever the index.

    With a `reservation` (hybrid only), the same statement also takes one model call from the
    key's budget when, and only when, it finds a candidate (its nearest memory at or above the
    floor, as the fused list has one exactly then): `reservation.taken` says whether it did
    (False when none was found or the budget is used up). One round trip instead of two."""
    calibrated = ef_search is None
    if ef_search is None:
        ef_search = get_config().candidate_ef_search
    where_params: dict[str, Any] = {"tenant_id": tenant_id, "excluded": excluded_topics}
    where = (
        f"tenant_id = %(tenant_id)s AND {_CURRENT} "
        f"AND {scope_clause(scope, where_params)} AND NOT (topic = ANY(%(excluded)s))"
    )
    if excluded_ids:
        where += " AND memory_id <> ALL(%(excluded_ids)s)"
        where_params["excluded_ids"] = excluded_ids
    if strategy == "auto":
        strategy = _vector_strategy(conn, tenant_id, scope)
    if text is None:
        if reservation is not None:
            raise ValueError("a reservation is taken only with a hybrid (text) search")
        found = _vector_list(
            conn, tenant_id, embedding, where, where_params, limit, strategy, ef_search, calibrated=calibrated
        )
        return [(n.row, n.similarity) for n in found if n.similarity >= min_similarity]
    from aurra_core.text_analysis import kinds  # the lexicon: only where facts are written

    depth = max(limit, FUSION_DEPTH)
    phrases = kinds.phrases_of(kinds.kinds_of(text))
    with_topic = bool(topic and topic != DEFAULT_TOPIC)
    by_vector = _vector_list(
        conn,
        tenant_id,
        embedding,
        where,
        where_params,
        max(depth, NEAREST_POOL) if (phrases or with_topic) else depth,
        strategy,
        ef_search,
        calibrated=calibrated,
        kinds=phrases,
        keep=(depth, topic if with_topic else None),
        prepared=True,
        reserve=None if reservation is None else (reservation, min_similarity),
    )
    ranked = [([(n.row, n.similarity) for n in by_vector[:depth]], 1.0)]
    if with_topic:
        same_topic = [(n.row, n.similarity) for n in by_vector if n.row.topic == topic][:depth]
        ranked.append((same_topic, CANDIDATE_WEIGHTS["topic"]))
    if phrases:
        same_kind = [(n.row, n.similarity) for n in by_vector if n.names_kind][:depth]
        ranked.append((same_kind, CANDIDATE_WEIGHTS["kind"]))
    fused = fuse_by_rank(ranked, limit, min_similarity, k=CANDIDATE_FUSION_K)
    return [(hit.row, hit.similarity) for hit in fused]


# Reciprocal rank fusion: a memory scores the sum of weight / (k + rank) over the lists it is
# in. A search's: 60, the customary constant, its words and its kinds at half weight each (half
# is what the candidates measured for kinds). The memories that could answer a question
# (`questions.py`) at full weight when the answer has wording of its own (a workplace, a home),
# at half when any number, time or day would show it, as many memories do: chosen on the
# development conversations' update questions (`aurra eval --conversations`, the new value in
# the top 3, dev to dev15: 607 -> 653 of 740; the broad ones at full weight lost two more than
# they found).
FUSION_K = 60
FUSION_WEIGHTS = {"words": 0.5, "kind": 0.5, "answers": 1.0, "any_number_or_time": 0.5}
# Candidates' (measured on the development set, `aurra eval --candidate-recall`, see
# bench/notes/candidate-recall.md): a small k (the top of each list counts more than its tail), the fact's topic
# at full weight, its kinds at three quarters. Both at half weight found more on the four
# development sets (314 / 123 / 177 / 154 cases against 314 / 122 / 175 / 149, chosen on them)
# and 6 fewer on the acceptance set (282 of 305 against 288), the one set not used to choose:
# kept as they were. Shared words are not fused: at every weight
# tried they lifted the distractors that share words but not meaning more than the memories a
# fact is about (again with the words list read through its index, migration 0009).
CANDIDATE_FUSION_K = 10
CANDIDATE_WEIGHTS = {"topic": 1.0, "kind": 0.75}
# How deep each candidate list is read before fusing (the classifier sees the fused top 3).
FUSION_DEPTH = 20
# The kind list, and the candidates' topic list, are read from this many nearest memories, not
# from all that name a kind or share the topic: a memory the embedder ranks below them is too
# unlike the fact to gain from either (no difference in recall from 50 to all for kinds, and
# none for the topic against its own filtered search, on the development set), and the cost
# stays bounded: one walk of the HNSW index per write instead of two (a filtered one for the
# topic cost 2-3 ms at 1M), and no walk past every memory that names no kind
# (`bench/experiments/hybrid_candidates.py`).
NEAREST_POOL = 50
# How deep a search (GET /agent/memories?q=) reads each list, and so how many results it
# ranks in all: every page recomputes the fused list over the pinned snapshot and cuts its
# page out of it (queries.read_memory_page).
SEARCH_DEPTH = 200

# The versions candidate search reads, and the predicate of the partial indexes over them.
_CURRENT = "recorded_to IS NULL AND valid_to IS NULL"


@dataclass
class CallReservation:
    """One model call to take from `caller`'s key's budget (`limit` calls and `cost_limit`
    dollars a day, None: no limit; `hold_usd` the most the call can cost) in the candidate
    statement itself, when it finds a candidate; `taken` once it ran, on `day`."""

    caller: Caller
    limit: int | None
    cost_limit: float | None = None
    hold_usd: float = 0.0
    taken: bool = False
    day: date | None = None


@dataclass(frozen=True)
class Nearest:
    """A memory of a vector list: its cosine similarity to the query, and whether it names a
    kind of thing the query names (only when the list was asked about kinds)."""

    row: MemoryRow
    similarity: float
    names_kind: bool = False


@dataclass(frozen=True)
class RankedMemory:
    """A memory in a fused ranking: its cosine similarity to the query and its fused score."""

    row: MemoryRow
    similarity: float
    fused_score: float


def fused_ranking(
    conn: psycopg.Connection,
    tenant_id: UUID,
    embedding: Vector,
    text: str,
    where: str,
    where_params: dict[str, Any],
    *,
    depth: int,
    past_versions: bool = False,
) -> list[RankedMemory]:
    """The memories `where` admits, ranked by reciprocal rank fusion of the nearest `depth` by
    vector (exact), the `depth` that best share `text`'s words, and those of the nearest
    `NEAREST_POOL` that name a kind of thing `text` names (`kinds.py`: "editor" finds "Emacs");
    at most `depth` in all, best first, ties by similarity then id (so the same rows always
    rank the same way, which a search's cursor needs).

    `where` must keep to the tenant; with `past_versions` it may admit versions that are no
    longer current (a search's snapshot), which the word list then reads through its second
    index. GET /agent/memories?q= ranks this way (candidate search fuses the fact's topic and
    kinds, not words: `find_candidates`)."""
    # the lexicon and the question forms: only where text is searched
    from aurra_core.text_analysis import kinds, questions

    phrases = kinds.phrases_of(kinds.kinds_of(text))
    by_vector = _vector_list(
        conn, tenant_id, embedding, where, where_params, depth, "exact", 200, kinds=phrases
    )
    ranked = [
        ([(n.row, n.similarity) for n in by_vector], 1.0),
        (
            _word_list(conn, embedding, text, where, where_params, depth, past_versions=past_versions),
            FUSION_WEIGHTS["words"],
        ),
    ]
    if phrases:
        ranked.append(([(n.row, n.similarity) for n in by_vector if n.names_kind], FUSION_WEIGHTS["kind"]))
    question = questions.read_question(text)
    if question is not None:
        # The latest first among answers alike: what was said last is what a question asks.
        answering = sorted(
            (n for n in by_vector if question.answers(n.row.content)),
            key=lambda n: (-n.similarity, -n.row.valid_from.timestamp()),
        )
        weight = FUSION_WEIGHTS["answers" if question.specific else "any_number_or_time"]
        ranked.append(([(n.row, n.similarity) for n in answering], weight))
    return fuse_by_rank(ranked, depth)


def fuse_by_rank(
    ranked: list[tuple[list[tuple[MemoryRow, float]], float]],
    depth: int,
    min_similarity: float | None = None,
    *,
    k: int = FUSION_K,
) -> list[RankedMemory]:
    scores: dict[UUID, float] = {}
    rows: dict[UUID, tuple[MemoryRow, float]] = {}
    for found, weight in ranked:
        for rank, (row, sim) in enumerate(found, start=1):
            scores[row.memory_id] = scores.get(row.memory_id, 0.0) + weight / (k + rank)
            rows[row.memory_id] = (row, sim)
    kept = [m for m in scores if min_similarity is None or rows[m][1] >= min_similarity]
    order = sorted(kept, key=lambda memory_id: (-scores[memory_id], -rows[memory_id][1], memory_id))
    return [RankedMemory(*rows[memory_id], scores[memory_id]) for memory_id in order[:depth]]


# How long this process reuses a scope's strategy before it counts the scope again. Safe when
# stale: the answer only chooses how to find the nearest memories, never which rows may be
# found (the query's tenant and scope filters and row-level security decide that, and which
# index serves an HNSW search is asked afresh every time). A scope that just grew past the
# threshold is read exactly for a few more seconds (exact, slower); one that shrank below it
# through HNSW, as every large scope is. It saves the count's round trip on most Level 2
# writes (bench/notes/write-latency.md, the write path's round trips against its floor).
STRATEGY_TTL_S = 10.0
_strategies: dict[tuple[UUID, str | None, str | None], tuple[float, str]] = {}


def forget_strategies() -> None:
    """Drop the cached strategies (tests that resize a tenant)."""
    _strategies.clear()


def _vector_strategy(conn: psycopg.Connection, tenant_id: UUID, scope: Scope) -> str:
    """Exact or HNSW by the scope's size, not the tenant's: one user's few memories in a large
    tenant are read exactly through the scope index, where a filtered HNSW scan would have to
    walk past the other users' rows. Cached for `STRATEGY_TTL_S`."""
    key = (tenant_id, scope.user_id, scope.agent_id)
    now = time.monotonic()
    cached = _strategies.get(key)
    if cached is not None and now - cached[0] < STRATEGY_TTL_S:
        return cached[1]
    size = count_current(conn, tenant_id, scope=scope, at_most=HNSW_MIN_TENANT_MEMORIES + 1)
    strategy = "hnsw" if size > HNSW_MIN_TENANT_MEMORIES else "exact"
    _strategies[key] = (now, strategy)
    return strategy


def _vector_list(
    conn: psycopg.Connection,
    tenant_id: UUID,
    embedding: Vector,
    where: str,
    where_params: dict[str, Any],
    limit: int,
    strategy: str,
    ef_search: int,
    *,
    calibrated: bool = False,
    kinds: list[str] | None = None,
    keep: tuple[int, str | None] | None = None,
    prepared: bool = False,
    reserve: tuple[CallReservation, float] | None = None,
) -> list[Nearest]:
    """The nearest memories `where` admits, by cosine, each with its similarity. "hnsw" reads
    current versions only (the index's predicate): `where` must keep to them.

    With `kinds` (phrases, `kinds.phrases_of`), each of the nearest `NEAREST_POOL` also says
    whether its words (English stems) contain any of them, each phrase's words in order: in the
    same statement, computed on those rows only, once the list is cut (the outer query runs
    over the inner one's `limit` rows), so the kind list costs no round trip of its own.

    With `keep` (depth, topic), only the rows some list can use come back: the nearest
    `depth`, and beyond them those that name a kind or have `topic` (the candidates' kind and
    topic lists are read from the nearest `NEAREST_POOL`; the others would be decoded only to
    be dropped). Still in order: the nearest `depth` first.

    With `calibrated`, an own index is searched with its calibrated ef_search, `ef_search`
    being the fallback (`tenant_indexes.route`).

    With `prepared`, an exact list (`strategy` "exact": a scope of at most
    `HNSW_MIN_TENANT_MEMORIES`) is a prepared statement of the connection: parsed and planned
    once, whatever the tenant, its plan being the scope index's and a sort of the scope's rows.
    An HNSW list never is: the tenant's own index matches only a plan made with the tenant id
    as a constant.

    With `reserve` (reservation, floor; only with `keep`), the statement also takes the
    reservation's model call when the nearest memory's similarity is at or above the floor (`metering.budget.reserve_sql`, a data-modifying CTE), and sets
    `reservation.taken`."""
    params = {**where_params, "q": embedding, "limit": limit}
    # The route's statement also sets the HNSW scan's settings (one round trip for the three).
    route = (
        tenant_indexes.route(conn, tenant_id, ef_search=ef_search, calibrated=calibrated)
        if strategy == "hnsw"
        else "exact"
    )
    if route != "exact":
        # The tenant's own index when it has one (only it serves this ordering); else the
        # shared one, which holds the tenant's rows only while it has no index of its own (its
        # predicate, repeated here, lets the planner use it). A tenant being moved between
        # them is read exactly, below.
        if route == "shared":
            where = f"{where} AND {tenant_indexes.SHARED_INDEX_PREDICATE}"
        # a pgvector Vector, or a numpy array (the adapter takes both)
        dim = embedding.dimensions() if hasattr(embedding, "dimensions") else len(cast("Sized", embedding))
        sql = tenant_indexes.nearest_sql(route, dim, _MEMORY_COLUMNS, where)
    else:
        # "+ 0" keeps the planner from handing the ordering to the HNSW index: for an ordinary
        # tenant an exact scan of its own rows (through the btree) is both faster and exact.
        # The id breaks ties, so an exact list is the same on every call over the same rows.
        sql = f"""SELECT {_MEMORY_COLUMNS}, embedding <=> %(q)s AS distance FROM memory_versions
                  WHERE {where} ORDER BY (embedding <=> %(q)s) + 0, memory_id LIMIT %(limit)s"""
    learn = ""
    if kinds or keep:
        params["pool"] = NEAREST_POOL
        names_kind = "false"
        if kinds:
            query = kinds_query(kinds)
            if query is not None:
                # Every phrase's tsquery is known: the kinds' query is a parameter.
                params["kinds_query"] = query or None
                kinds_sql = "%(kinds_query)s::tsquery"
            else:
                # Some phrase is new to this process: the statement builds the query, and also
                # returns each phrase's own tsquery, remembered for the next writes.
                params["phrases"] = kinds
                kinds_sql = """(SELECT string_agg(phraseto_tsquery('english', phrase)::text, ' | ')::tsquery
                                FROM unnest(%(phrases)s::text[]) AS phrase
                                WHERE numnode(phraseto_tsquery('english', phrase)) > 0)"""
                learn = """, (SELECT array_agg(phraseto_tsquery('english', phrase)::text ORDER BY n)
                              FROM unnest(%(phrases)s::text[]) WITH ORDINALITY AS p(phrase, n))
                             AS phrase_queries"""
            names_kind = f"""row_number() OVER () <= %(pool)s
               AND to_tsvector('english'::regconfig, nearest.content) @@ {kinds_sql}"""
        kept = ""
        if keep is not None:
            params.update(depth=keep[0], topic=keep[1])
            kept = "WHERE rank <= %(depth)s OR names_kind" + (" OR topic = %(topic)s" if keep[1] else "")
        # The inner list is cut before anything here runs (a subquery with a LIMIT is planned
        # on its own: the same index scan as without these columns), and the window function
        # keeps the middle query from being merged into the outer one (which would compute
        # each row's words twice, once for its filter and once for its column).
        listed = f"""SELECT nearest.*, row_number() OVER () AS rank, ({names_kind}) AS names_kind{learn}
                     FROM ({sql}) AS nearest"""
        if reserve is None:
            sql = f"SELECT * FROM ({listed}) AS listed {kept} ORDER BY rank"
        else:
            from aurra_core.metering import budget

            reservation, floor = reserve
            params.update(
                budget.reserve_params(
                    reservation.caller, reservation.limit, reservation.cost_limit, reservation.hold_usd
                ),
                floor=floor,
            )
            # The same arithmetic as the similarity find_candidates floors (1 - distance), on
            # the nearest row: a candidate exists exactly when it passes.
            found = "EXISTS (SELECT 1 FROM listed WHERE rank = 1 AND (1.0 - distance) >= %(floor)s)"
            sql = f"""WITH listed AS ({listed}), reserved AS ({budget.reserve_sql(found)})
                      SELECT listed.*, (SELECT max(day) FROM reserved) AS reserved
                      FROM listed {kept} ORDER BY rank"""
    elif reserve is not None:
        raise ValueError("a reservation is taken only by a hybrid list (`keep`)")
    with conn.cursor(row_factory=dict_row) as cur:
        # never through RDS Proxy, whose connections have no prepare_threshold (db.py): a
        # prepared statement pins the proxy's connection to the client
        prepare = prepared and strategy == "exact" and conn.prepare_threshold is not None
        cur.execute(sql, params, prepare=prepare)
        rows = cur.fetchall()
    if learn and rows:
        _remember_phrase_queries(kinds or [], rows[0]["phrase_queries"])
    if reserve is not None:
        reserve[0].day = rows[0]["reserved"] if rows else None
        reserve[0].taken = reserve[0].day is not None
    return [Nearest(_row(r), 1.0 - float(r["distance"]), bool(r.get("names_kind"))) for r in rows]


# Each kind phrase's full-text query as PostgreSQL writes it (phraseto_tsquery('english', ...)
# as text; '' for a phrase of stop words only), remembered by the process once a statement has
# returned it. Bounded by the lexicon: only `kinds.phrases_of`'s phrases are ever asked about.
_phrase_queries: dict[str, str] = {}


def _remember_phrase_queries(phrases: list[str], queries: list[str]) -> None:
    _phrase_queries.update(zip(phrases, queries, strict=True))


def kinds_query(phrases: list[str]) -> str | None:
    """The kinds' full-text query (every phrase's own tsquery, any of them), as the statement
    would build it from `phrases`: '' when every phrase is stop words only; None when some
    phrase's query is not yet remembered (the statement then builds it, and returns them)."""
    known = [_phrase_queries.get(phrase) for phrase in phrases]
    if any(query is None for query in known):
        return None
    return " | ".join(query for query in known if query)


def _word_list(
    conn: psycopg.Connection,
    embedding: Vector,
    text: str,
    where: str,
    where_params: dict[str, Any],
    limit: int,
    *,
    past_versions: bool,
) -> list[tuple[MemoryRow, float]]:
    """The memories `where` admits that share at least two of `text`'s words (English stems,
    stop words dropped; its only word when it has one), best covered first, each with its
    cosine similarity. One shared word of several is not enough: a word like "user" is in
    nearly every memory, and full-text ranking knows no word's rarity.

    The matches come from the GIN indexes through aurra_word_matches (migration 0009): current
    versions (0007) and, with `past_versions`, the others (0008); never a scan that computes
    every row's words. `where_params` must name the tenant (`tenant_id`)."""
    params = {
        **where_params,
        "q": embedding,
        "text": text,
        "max_stems": _MAX_STEMS,
        "limit": limit,
        "past_versions": past_versions,
    }
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(word_list_sql(where), params, prepare=False)
        return [(_row(r), 1.0 - float(r["distance"])) for r in cur.fetchall()]


def word_list_sql(where: str) -> str:
    """The word list's statement (parameters: `where`'s with tenant_id, q, text, max_stems,
    limit, past_versions). The index lookup is aurra_word_matches, run as the table's owner:
    under row-level security PostgreSQL would not use the GIN index for the full-text match
    (not a leakproof operator), so the rows are read here by primary key, through the policy."""
    return f"""WITH stems AS (
                   SELECT lexeme FROM unnest(to_tsvector('english', %(text)s)) LIMIT %(max_stems)s),
               words AS MATERIALIZED (
                   SELECT coalesce(
                       (SELECT string_agg(format('(%%L & %%L)', a.lexeme, b.lexeme), ' | ')
                        FROM stems a JOIN stems b ON a.lexeme < b.lexeme),
                       (SELECT min(format('%%L', lexeme)) FROM stems HAVING count(*) = 1))::tsquery AS query)
               SELECT {_MEMORY_COLUMNS}, embedding <=> %(q)s AS distance,
                      ts_rank_cd(to_tsvector('english'::regconfig, content), words.query, 1) AS coverage
               FROM memory_versions, words
               WHERE version_id = ANY(ARRAY(
                         SELECT aurra_word_matches(%(tenant_id)s, (SELECT query FROM words), %(past_versions)s)))
                 AND {where}
               ORDER BY coverage DESC, distance, memory_id
               LIMIT %(limit)s"""


# A text's stems beyond these add little and square the pairs (10 stems: 45 pairs).
_MAX_STEMS = 10


def snapshot_filter(
    tenant_id: UUID,
    *,
    known_at: datetime,
    as_of: datetime,
    include_superseded: bool,
    topic: str | None,
    user_id: str | None,
    agent_id: str | None,
    conversation_id: str | None = None,
    source_id: str | None = None,
) -> tuple[str, dict[str, Any]]:
    """The SQL (and its parameters) for the memories believed at `known_at` and true at `as_of`
    (or started by then, with `include_superseded`), of the filters given; an absent scope
    filter reads every scope."""
    params: dict[str, Any] = {"tenant_id": tenant_id, "known_at": known_at, "as_of": as_of}
    clauses = [
        "tenant_id = %(tenant_id)s",
        "recorded_at <= %(known_at)s AND (recorded_to IS NULL OR recorded_to > %(known_at)s)",
        "valid_from <= %(as_of)s",
    ]
    if not include_superseded:
        clauses.append("(valid_to IS NULL OR valid_to > %(as_of)s)")
    filters = (
        ("topic", topic),
        ("user_id", user_id),
        ("agent_id", agent_id),
        ("conversation_id", conversation_id),
        ("source_id", source_id),
    )
    for column, value in filters:
        if value is not None:
            clauses.append(f"{column} = %(filter_{column})s")
            params[f"filter_{column}"] = value
    return " AND ".join(clauses), params


def select_memories(
    conn: psycopg.Connection,
    tenant_id: UUID,
    *,
    known_at: datetime,
    as_of: datetime,
    include_superseded: bool,
    topic: str | None,
    user_id: str | None = None,
    agent_id: str | None = None,
    conversation_id: str | None = None,
    source_id: str | None = None,
    after: UUID | None,
    limit: int,
) -> list[MemoryRow]:
    """One page of memories as believed at `known_at` and true at `as_of` (or started by then,
    with `include_superseded`), newest first (by id, which is time-ordered), after `after`."""
    where, params = snapshot_filter(
        tenant_id,
        known_at=known_at,
        as_of=as_of,
        include_superseded=include_superseded,
        topic=topic,
        user_id=user_id,
        agent_id=agent_id,
        conversation_id=conversation_id,
        source_id=source_id,
    )
    if after is not None:
        where += " AND memory_id < %(after_id)s"
        params["after_id"] = after
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(
            f"""SELECT {_MEMORY_COLUMNS} FROM memory_versions WHERE {where}
                ORDER BY memory_id DESC LIMIT %(limit)s""",
            {**params, "limit": limit},
        )
        return [_row(r) for r in cur.fetchall()]


def search_memories(
    conn: psycopg.Connection,
    tenant_id: UUID,
    query_embedding: Vector,
    query_text: str,
    *,
    known_at: datetime,
    as_of: datetime,
    include_superseded: bool,
    topic: str | None,
    user_id: str | None = None,
    agent_id: str | None = None,
    conversation_id: str | None = None,
    source_id: str | None = None,
    depth: int = SEARCH_DEPTH,
) -> list[RankedMemory]:
    """The memories `select_memories` would list, ranked for a search: the fusion of the
    nearest by vector, those sharing the query's words and those naming a kind of thing
    the query names (`fused_ranking`), at most `depth`.

    Every filter holds inside each list. The vector list is exact (never HNSW): over a pinned
    snapshot it is the same on every page, and HNSW covers current versions only. A topic list
    would add nothing: with a topic filter every list is of that topic already, and a query
    text has no topic of its own."""
    where, params = snapshot_filter(
        tenant_id,
        known_at=known_at,
        as_of=as_of,
        include_superseded=include_superseded,
        topic=topic,
        user_id=user_id,
        agent_id=agent_id,
        conversation_id=conversation_id,
        source_id=source_id,
    )
    return fused_ranking(
        conn, tenant_id, query_embedding, query_text, where, params, depth=depth, past_versions=True
    )


def memory_versions(
    conn: psycopg.Connection, tenant_id: UUID, memory_id: UUID, *, known_at: datetime | None = None
) -> list[MemoryRow]:
    """Every recorded version of a memory, oldest first (only those recorded by `known_at`, as
    they were known then: a version closed after `known_at` was still open at `known_at`)."""
    params: dict[str, Any] = {"tenant_id": tenant_id, "memory_id": memory_id}
    recorded = ""
    if known_at is not None:
        recorded = "AND recorded_at <= %(known_at)s"
        params["known_at"] = known_at
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(
            f"""SELECT {_MEMORY_COLUMNS} FROM memory_versions
                WHERE tenant_id = %(tenant_id)s AND memory_id = %(memory_id)s {recorded}
                ORDER BY recorded_at, version_id""",
            params,
        )
        rows = cur.fetchall()
    if known_at is not None:
        for r in rows:
            if r["recorded_to"] is not None and r["recorded_to"] > known_at:
                r["recorded_to"] = None
    return [_row(r) for r in rows]


def lineage(
    conn: psycopg.Connection, tenant_id: UUID, start: MemoryRow, *, known_at: datetime | None = None
) -> list[MemoryRow]:
    """Every memory linked to `start` by supersession, as believed at `known_at`, oldest first."""
    found: dict[UUID, MemoryRow] = {start.memory_id: start}
    frontier = {start.memory_id}
    while frontier:
        neighbours: set[UUID] = set()
        for memory_id in frontier:
            row = found[memory_id]
            neighbours.update(x for x in (row.superseded_by, row.supersedes) if x is not None)
        # Links are recorded on both ends, but a memory may point at us without our pointing back.
        believed, params = _believed_at(known_at)
        with conn.cursor(row_factory=dict_row) as cur:
            cur.execute(
                f"""SELECT memory_id FROM memory_versions
                    WHERE tenant_id = %(tenant_id)s AND {believed}
                      AND (superseded_by = ANY(%(ids)s) OR supersedes = ANY(%(ids)s))""",
                {"tenant_id": tenant_id, "ids": list(frontier), **params},
            )
            neighbours.update(r["memory_id"] for r in cur.fetchall())
        new_ids = [x for x in neighbours if x not in found]
        rows = select_memories_by_id(conn, tenant_id, new_ids, known_at=known_at) if new_ids else []
        for row in rows:
            found[row.memory_id] = row
        frontier = {row.memory_id for row in rows}
    return sorted(found.values(), key=lambda r: (r.valid_from, r.memory_id))


# ---------------------------------------------------------------- audit events


def _audit_insert(
    *,
    tenant_id: UUID,
    type: AuditType,
    created_at: datetime,
    api_key_id: UUID | None,
    memory_id: UUID | None = None,
    superseded_id: UUID | None = None,
    classifier: str | None = None,
    confidence: float | None = None,
    reason: str | None = None,
    model: str | None = None,
    candidates_examined: int | None = None,
    details: dict[str, Any] | None = None,
    reverts_event_id: UUID | None = None,
    user_id: str | None = None,
    resolves_event_id: UUID | None = None,
    event_id: UUID | None = None,
    conversation_id: str | None = None,
    source_id: str | None = None,
) -> tuple[str, tuple[Any, ...], AuditEvent]:
    """An event's INSERT, its parameters, and the event as the caller is told it."""
    event_id = event_id or new_id()
    sql = """INSERT INTO audit_events (id, tenant_id, type, created_at, api_key_id, memory_id, superseded_id,
               classifier, confidence, reason, model, candidates_examined, details, reverts_event_id,
               user_id, resolves_event_id, conversation_id, source_id)
           VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"""
    params = (
        event_id,
        tenant_id,
        type.value,
        created_at,
        api_key_id,
        memory_id,
        superseded_id,
        classifier,
        confidence,
        reason,
        model,
        candidates_examined,
        Jsonb(details or {}),
        reverts_event_id,
        user_id,
        resolves_event_id,
        conversation_id,
        source_id,
    )
    event = AuditEvent(
        id=event_id,
        type=type,
        created_at=created_at,
        api_key_id=api_key_id,
        memory_id=memory_id,
        superseded_id=superseded_id,
        classifier=None if classifier is None else Verdict(classifier),
        confidence=confidence,
        reason=reason,
        model=model,
        candidates_examined=candidates_examined,
        details=details or {},
        status=ProposalStatus.OPEN if type in _PROPOSALS else None,
    )
    return sql, params, event


def insert_audit_event(conn: psycopg.Connection, **event: Any) -> AuditEvent:
    """Append an event (`_audit_insert`'s keywords). `user_id` is the user scope of the event's
    memory (`memory_id`), `conversation_id` and `source_id` the source of the write that
    recorded it; `event_id` is given when a memory version must name the event first."""
    sql, params, audit_event = _audit_insert(**event)
    conn.execute(sql, params)
    return audit_event


_PROPOSALS = frozenset({AuditType.SUPERSESSION_PROPOSED, AuditType.DEPENDENCY_PROPOSED})

# A proposal's status is derived from the event that resolved it, as recorded by a point in
# transaction time; nothing about the proposal itself ever changes.
_AUDIT_SELECT = """SELECT e.id, e.type, e.created_at, e.api_key_id, e.memory_id, e.superseded_id,
        e.classifier, e.confidence, e.reason, e.model, e.candidates_examined, e.details,
        CASE WHEN e.type IN ('supersession_proposed', 'dependency_proposed') THEN
            CASE r.type WHEN 'proposal_approved' THEN 'approved' WHEN 'proposal_dismissed' THEN 'dismissed'
                        ELSE 'open' END
        END AS status
    FROM audit_events e
    LEFT JOIN audit_events r ON r.resolves_event_id = e.id AND r.tenant_id = e.tenant_id
                            AND r.created_at <= %(recorded_by)s"""

_STATUS_FILTERS = {
    ProposalStatus.OPEN: "r.id IS NULL",
    ProposalStatus.APPROVED: "r.type = 'proposal_approved'",
    ProposalStatus.DISMISSED: "r.type = 'proposal_dismissed'",
}

# Any time after every event: "as recorded now".
_END_OF_TIME = datetime.max.replace(tzinfo=UTC)


def revert_of(conn: psycopg.Connection, tenant_id: UUID, event_id: UUID) -> UUID | None:
    row = conn.execute(
        "SELECT id FROM audit_events WHERE tenant_id = %s AND reverts_event_id = %s", (tenant_id, event_id)
    ).fetchone()
    return row[0] if row else None


def reverted_supersessors(conn: psycopg.Connection, tenant_id: UUID, memory_id: UUID) -> set[UUID]:
    """The memories whose supersession of `memory_id` was reverted (a revert event names the
    restored memory as memory_id and the one that had superseded it as superseded_id)."""
    rows = conn.execute(
        "SELECT superseded_id FROM audit_events WHERE tenant_id = %s AND type = 'revert' AND memory_id = %s",
        (tenant_id, memory_id),
    ).fetchall()
    return {r[0] for r in rows}


def restored_from(conn: psycopg.Connection, tenant_id: UUID, memory_id: UUID) -> set[UUID]:
    """The memories restored by reverting a supersession that `memory_id` had made."""
    rows = conn.execute(
        "SELECT memory_id FROM audit_events WHERE tenant_id = %s AND type = 'revert' AND superseded_id = %s",
        (tenant_id, memory_id),
    ).fetchall()
    return {r[0] for r in rows}


def select_audit_event(conn: psycopg.Connection, tenant_id: UUID, event_id: UUID) -> AuditEvent | None:
    """One event, with its status as recorded now."""
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(
            f"{_AUDIT_SELECT} WHERE e.tenant_id = %(tenant_id)s AND e.id = %(id)s",
            {"tenant_id": tenant_id, "id": event_id, "recorded_by": _END_OF_TIME},
        )
        record = cur.fetchone()
    return AuditEvent(**record) if record else None


def select_audit_events(
    conn: psycopg.Connection,
    tenant_id: UUID,
    *,
    memory_id: UUID | None,
    type: AuditType | None,
    user_id: str | None = None,
    conversation_id: str | None = None,
    source_id: str | None = None,
    since: datetime | None,
    until: datetime | None,
    before: tuple[datetime, UUID] | None,
    limit: int,
    recorded_by: datetime,
    status: ProposalStatus | None = None,
) -> list[AuditEvent]:
    clauses = ["e.tenant_id = %(tenant_id)s", "e.created_at <= %(recorded_by)s"]
    params: dict[str, Any] = {"tenant_id": tenant_id, "limit": limit, "recorded_by": recorded_by}
    if memory_id is not None:
        clauses.append("(e.memory_id = %(memory_id)s OR e.superseded_id = %(memory_id)s)")
        params["memory_id"] = memory_id
    if type is not None:
        clauses.append("e.type = %(type)s")
        params["type"] = type.value
    for column, value in (
        ("user_id", user_id),
        ("conversation_id", conversation_id),
        ("source_id", source_id),
    ):
        if value is not None:
            clauses.append(f"e.{column} = %({column})s")
            params[column] = value
    if status is not None:
        clauses.append("e.type IN ('supersession_proposed', 'dependency_proposed')")
        clauses.append(_STATUS_FILTERS[status])
    if since is not None:
        clauses.append("e.created_at >= %(since)s")
        params["since"] = since
    if until is not None:
        clauses.append("e.created_at < %(until)s")
        params["until"] = until
    if before is not None:
        clauses.append("(e.created_at, e.id) < (%(before_at)s, %(before_id)s)")
        params["before_at"], params["before_id"] = before
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(
            f"""{_AUDIT_SELECT} WHERE {" AND ".join(clauses)}
                ORDER BY e.created_at DESC, e.id DESC LIMIT %(limit)s""",
            params,
        )
        return [AuditEvent(**r) for r in cur.fetchall()]


# ---------------------------------------------------------------- export


def select_versions_for_export(
    conn: psycopg.Connection,
    tenant_id: UUID,
    *,
    recorded_by: datetime,
    after_version: int,
    user_id: str | None,
    limit: int,
) -> list[MemoryRow]:
    """Every version of the tenant's memories recorded by `recorded_by`, as believed then (a
    version closed later reads as still open), in the order they were recorded (version id),
    after `after_version`; only `user_id`'s when given."""
    params: dict[str, Any] = {
        "tenant_id": tenant_id,
        "recorded_by": recorded_by,
        "after": after_version,
        "limit": limit,
    }
    scoped = ""
    if user_id is not None:
        scoped = "AND user_id = %(user_id)s"
        params["user_id"] = user_id
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(
            f"""SELECT {_MEMORY_COLUMNS} FROM memory_versions
                WHERE tenant_id = %(tenant_id)s AND version_id > %(after)s
                  AND recorded_at <= %(recorded_by)s {scoped}
                ORDER BY version_id LIMIT %(limit)s""",
            params,
        )
        rows = cur.fetchall()
    for r in rows:
        if r["recorded_to"] is not None and r["recorded_to"] > recorded_by:
            r["recorded_to"] = None
    return [_row(r) for r in rows]


def select_audit_events_for_export(
    conn: psycopg.Connection,
    tenant_id: UUID,
    *,
    recorded_by: datetime,
    after: tuple[datetime, UUID] | None,
    user_id: str | None,
    limit: int,
) -> list[AuditEvent]:
    """The tenant's audit events created by `recorded_by`, oldest first, after `after`
    (created_at, id); only those of `user_id`'s memories when given. A proposal's status is
    as recorded by `recorded_by`."""
    clauses = ["e.tenant_id = %(tenant_id)s", "e.created_at <= %(recorded_by)s"]
    params: dict[str, Any] = {"tenant_id": tenant_id, "recorded_by": recorded_by, "limit": limit}
    if after is not None:
        clauses.append("(e.created_at, e.id) > (%(after_at)s, %(after_id)s)")
        params["after_at"], params["after_id"] = after
    if user_id is not None:
        clauses.append("e.user_id = %(user_id)s")
        params["user_id"] = user_id
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(
            f"""{_AUDIT_SELECT} WHERE {" AND ".join(clauses)}
                ORDER BY e.created_at, e.id LIMIT %(limit)s""",
            params,
        )
        return [AuditEvent(**r) for r in cur.fetchall()]
