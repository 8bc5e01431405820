"""Asynchronous Level 2's jobs (migration 0020): written with the memory they decide about,
claimed with a lease, completed once in the transaction of the decision. Ids only, never
content."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any
from uuid import UUID

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from aurra_core.storage.ids import new_id

if TYPE_CHECKING:
    from pgvector import Vector


@dataclass(frozen=True)
class JobRef:
    """What a nudge carries (a queue message, the dev worker's wake-up): enough to claim the
    job in its tenant's own transaction."""

    job_id: UUID
    tenant_id: UUID


@dataclass(frozen=True)
class Job:
    id: UUID
    tenant_id: UUID
    api_key_id: UUID
    memory_id: UUID
    written_at: datetime
    provenance: dict[str, Any]
    attempts: int


def insert_job(
    conn: psycopg.Connection,
    *,
    tenant_id: UUID,
    api_key_id: UUID,
    memory_id: UUID,
    written_at: datetime,
    provenance: dict[str, Any],
) -> UUID:
    """A pending job, in the write's transaction: it commits with the memory or not at all."""
    job_id = new_id()
    conn.execute(
        """INSERT INTO level2_jobs (id, tenant_id, api_key_id, memory_id, written_at, provenance)
           VALUES (%s, %s, %s, %s, %s, %s)""",
        (job_id, tenant_id, api_key_id, memory_id, written_at, Jsonb(provenance)),
    )
    return job_id


def insert_job_unless_excluded(
    conn: psycopg.Connection,
    *,
    tenant_id: UUID,
    api_key_id: UUID,
    memory_id: UUID,
    written_at: datetime,
    provenance: dict[str, Any],
    topic: str,
) -> UUID | None:
    """`insert_job`, unless `topic` is among the key's excluded categories (its latest
    settings): the topic gate and the job in one statement. None when the topic is excluded."""
    job_id = new_id()
    row = conn.execute(
        """INSERT INTO level2_jobs (id, tenant_id, api_key_id, memory_id, written_at, provenance)
           SELECT %(id)s, %(tenant)s, %(key)s, %(memory)s, %(written)s, %(provenance)s
           WHERE NOT EXISTS (
               SELECT 1 FROM (SELECT excluded_categories FROM key_settings
                              WHERE api_key_id = %(key)s AND tenant_id = %(tenant)s
                              ORDER BY version DESC LIMIT 1) AS latest
               WHERE %(topic)s::text = ANY(latest.excluded_categories))
           RETURNING id""",
        {
            "id": job_id,
            "tenant": tenant_id,
            "key": api_key_id,
            "memory": memory_id,
            "written": written_at,
            "provenance": Jsonb(provenance),
            "topic": topic,
        },
    ).fetchone()
    return None if row is None else job_id


def claim(conn: psycopg.Connection, ref: JobRef, lease_s: float) -> Job | None:
    """Lease the job for `lease_s` seconds when it is pending and not leased (or its lease has
    passed: a worker died holding it); None otherwise (done, leased, or not this tenant's).
    A claim skips a row another claim holds locked rather than waiting for it."""
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(
            """UPDATE level2_jobs SET attempts = attempts + 1,
                   lease_until = clock_timestamp() + make_interval(secs => %(lease)s)
               WHERE id = (SELECT id FROM level2_jobs
                           WHERE tenant_id = %(tenant)s AND id = %(id)s AND status = 'pending'
                             AND (lease_until IS NULL OR lease_until < clock_timestamp())
                           FOR UPDATE SKIP LOCKED)
               RETURNING id, tenant_id, api_key_id, memory_id, written_at, provenance, attempts""",
            {"lease": lease_s, "tenant": ref.tenant_id, "id": ref.job_id},
        )
        row = cur.fetchone()
    return Job(**row) if row else None


def lock_pending(conn: psycopg.Connection, tenant_id: UUID, job_id: UUID) -> bool:
    """Lock the job for its completion; whether it is still pending (a worker whose lease
    passed may find another one has completed it: then it applies nothing)."""
    row = conn.execute(
        "SELECT status FROM level2_jobs WHERE tenant_id = %s AND id = %s FOR UPDATE", (tenant_id, job_id)
    ).fetchone()
    return row is not None and row[0] == "pending"


def complete(
    conn: psycopg.Connection, tenant_id: UUID, job_id: UUID, outcome: str, audit_event_id: UUID | None
) -> None:
    """Mark the job done with its outcome, in the transaction of the decision it records."""
    conn.execute(
        """UPDATE level2_jobs SET status = 'done', completed_at = clock_timestamp(), lease_until = NULL,
               outcome = %s, audit_event_id = %s
           WHERE tenant_id = %s AND id = %s""",
        (outcome, audit_event_id, tenant_id, job_id),
    )


def due(conn: psycopg.Connection, older_than_s: float, at_most: int) -> list[JobRef]:
    """Pending jobs, of any tenant, unclaimed or with a passed lease, made at least
    `older_than_s` ago (the sweeper: their nudge was lost, or their worker died)."""
    rows = conn.execute(
        "SELECT job_id, tenant_id FROM aurra_level2_jobs_due(make_interval(secs => %s), %s)",
        (older_than_s, at_most),
    ).fetchall()
    return [JobRef(job_id=r[0], tenant_id=r[1]) for r in rows]


def stored_embedding(conn: psycopg.Connection, tenant_id: UUID, memory_id: UUID) -> Vector | None:
    """The believed version's embedding (computed by the write: the job never embeds again)."""
    row = conn.execute(
        "SELECT embedding FROM memory_versions WHERE tenant_id = %s AND memory_id = %s AND recorded_to IS NULL",
        (tenant_id, memory_id),
    ).fetchone()
    return None if row is None else row[0]


def first_recorded_since(conn: psycopg.Connection, tenant_id: UUID, since: datetime) -> list[UUID]:
    """Current memories first recorded at or after `since`: a job's fact itself, the other
    facts of its request, and every later write, which its decision never compares with."""
    rows = conn.execute(
        """SELECT DISTINCT v.memory_id FROM memory_versions v
           WHERE v.tenant_id = %(tenant)s AND v.recorded_at >= %(since)s AND v.recorded_to IS NULL
             AND NOT EXISTS (SELECT 1 FROM memory_versions o
                             WHERE o.tenant_id = v.tenant_id AND o.memory_id = v.memory_id
                               AND o.recorded_at < %(since)s)""",
        {"tenant": tenant_id, "since": since},
    ).fetchall()
    return [r[0] for r in rows]


def select_job(conn: psycopg.Connection, tenant_id: UUID, job_id: UUID) -> dict[str, Any] | None:
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(
            """SELECT id, memory_id, status, attempts, outcome, audit_event_id, created_at, completed_at
               FROM level2_jobs WHERE tenant_id = %s AND id = %s""",
            (tenant_id, job_id),
        )
        return cur.fetchone()


# What the API shows of a job: its memory's scope (from a version, or from the tombstones an
# erasure left), and `running` for a pending job whose lease still holds. No content.
_API_SELECT = """
    SELECT j.id, j.memory_id, s.user_id, s.agent_id,
           CASE WHEN j.status = 'done' THEN 'done'
                WHEN j.lease_until > clock_timestamp() THEN 'running'
                ELSE 'pending' END AS status,
           j.attempts, j.created_at, j.completed_at, j.outcome, j.audit_event_id
    FROM level2_jobs j
    LEFT JOIN LATERAL (
        SELECT v.user_id, v.agent_id FROM memory_versions v
        WHERE v.tenant_id = j.tenant_id AND v.memory_id = j.memory_id
        UNION ALL
        SELECT t.user_id, t.agent_id FROM memory_tombstones t
        WHERE t.tenant_id = j.tenant_id AND t.memory_id = j.memory_id
        LIMIT 1) s ON true"""


def select_jobs(
    conn: psycopg.Connection,
    tenant_id: UUID,
    *,
    job_id: UUID | None = None,
    status: str | None = None,
    memory_id: UUID | None = None,
    user_id: str | None = None,
    before: tuple[datetime, UUID] | None = None,
    limit: int = 1,
) -> list[dict[str, Any]]:
    """The tenant's jobs as the API shows them, newest first; `status` is the stored one
    (pending or done)."""
    clauses = ["j.tenant_id = %(tenant)s"]
    params: dict[str, Any] = {"tenant": tenant_id, "limit": limit}
    for name, value, clause in (
        ("id", job_id, "j.id = %(id)s"),
        ("status", status, "j.status = %(status)s"),
        ("memory", memory_id, "j.memory_id = %(memory)s"),
        ("user", user_id, "s.user_id = %(user)s"),
    ):
        if value is not None:
            clauses.append(clause)
            params[name] = value
    if before is not None:
        clauses.append("(j.created_at, j.id) < (%(at)s, %(before_id)s)")
        params["at"], params["before_id"] = before
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(
            f"""{_API_SELECT} WHERE {" AND ".join(clauses)}
                ORDER BY j.created_at DESC, j.id DESC LIMIT %(limit)s""",
            params,
        )
        return cur.fetchall()
