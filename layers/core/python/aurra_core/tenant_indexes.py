"""Large tenants' own HNSW indexes, kept by a scheduled job.

The shared HNSW index serves a tenant by filtering the whole graph to that tenant's rows,
and its recall falls as the tenant's share of the index falls (measured in BENCHMARKS.md:
10 tenants of 10,000 in one index, recall@3 0.98 even at ef_search 800; the same tenants
with their own index, 1.000 at ef_search 200, in half the time). So each tenant with more
than `min_memories` current memories gets a partial HNSW index over only its current rows.
The index is over `l2_normalize(embedding)`, not `embedding`: the cosine distance is the same,
but only this index can serve an ORDER BY on that expression, so a search that asks for it
cannot fall back to the shared index (at 1M memories, PostgreSQL's cost estimates preferred
the shared one for tenants of 100,000, and recall went back to 0.90). store.find_candidates
asks for it when `has_own_index` says the tenant's index is valid, and plans with the tenant
id as a constant so the index's predicate matches.

Not for every tenant: every index costs planning time on each query of the table and an
insert per write of its tenant, so at most `limit` tenants, the largest, get one, and not a
tenant holding most of the store (the shared index already filters little for it). Tenants
at or under `min_memories` are searched exactly and need no index.

Builds run CONCURRENTLY (writes go on), one job at a time (an advisory lock); a build that
died leaves an invalid index, which the next run drops and rebuilds.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Any
from uuid import UUID

import psycopg
from psycopg import sql

from aurra_core.db import one_row

INDEX_PREFIX = "memory_versions_embedding_t_"  # + the tenant id in hex: 60 characters of 63
DEFAULT_LIMIT = 100
# A tenant holding at least this share of all current memories is served by the shared index.
DOMINANT_SHARE = 0.5
# An indexed tenant keeps its index until it shrinks under half the threshold (no churn
# around the threshold).
KEEP_FRACTION = 0.5
_LOCK = 0x41555252_49445831  # "AURRIDX1"


def index_name(tenant_id: UUID) -> str:
    return f"{INDEX_PREFIX}{tenant_id.hex}"


def indexed_expression(dim: int) -> str:
    """The key of a tenant's own index; a query orders by exactly this to use it."""
    return f"(l2_normalize(embedding)::vector({int(dim)}))"


def has_own_index(conn: psycopg.Connection, tenant_id: UUID) -> bool:
    """Whether the tenant's own index exists and is usable (built, not an interrupted build)."""
    row = conn.execute(
        "SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass(%s)", (index_name(tenant_id),)
    ).fetchone()
    return bool(row and row[0])


@dataclass
class MaintenanceReport:
    ran: bool = True
    built: list[dict[str, Any]] = field(default_factory=list)  # tenant_id, memories, seconds
    dropped: list[dict[str, Any]] = field(default_factory=list)  # tenant_id, reason
    kept: int = 0
    dominant: list[str] = field(default_factory=list)
    over_limit: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def current_counts(conn: psycopg.Connection, above: int) -> tuple[dict[UUID, int], int]:
    """Current memories of each tenant holding more than `above`, and of all tenants."""
    rows = conn.execute(
        """SELECT tenant_id, count(*) FROM memory_versions
           WHERE recorded_to IS NULL AND valid_to IS NULL GROUP BY tenant_id"""
    ).fetchall()
    total = sum(n for _, n in rows)
    return {tenant: n for tenant, n in rows if n > above}, total


def existing_indexes(conn: psycopg.Connection) -> dict[UUID, bool]:
    """Tenant id -> whether its index is valid (an invalid one is a build that died)."""
    rows = conn.execute(
        """SELECT c.relname, i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
           WHERE i.indrelid = 'memory_versions'::regclass AND starts_with(c.relname, %s)
             AND length(c.relname) = %s""",
        (INDEX_PREFIX, len(INDEX_PREFIX) + 32),
    ).fetchall()
    return {UUID(name[len(INDEX_PREFIX) :]): valid for name, valid in rows}


def maintain(
    conninfo: str,
    *,
    min_memories: int | None = None,
    limit: int = DEFAULT_LIMIT,
    maintenance_work_mem: str | None = None,
    statement_timeout_s: int = 0,
) -> MaintenanceReport:
    """Bring the tenants' own indexes in line with their sizes, as the table's owner. By
    default a tenant needs one once the candidate search takes it to HNSW.

    `statement_timeout_s` (0: none) stops a build that would outlast the caller (the
    maintenance function's own timeout): the build fails cleanly and reports, and its
    invalid leftover is dropped and rebuilt by a later run, instead of the function being
    killed mid-statement with nothing logged."""
    from aurra_core.store import HNSW_MIN_TENANT_MEMORIES

    if min_memories is None:
        min_memories = HNSW_MIN_TENANT_MEMORIES
    report = MaintenanceReport()
    with psycopg.connect(conninfo, autocommit=True) as conn:
        if not one_row(conn.execute("SELECT pg_try_advisory_lock(%s)", (_LOCK,)).fetchone())[0]:
            report.ran = False  # another run is at it
            return report
        try:
            if statement_timeout_s:
                conn.execute(
                    sql.SQL("SET statement_timeout = {}").format(sql.Literal(f"{statement_timeout_s}s"))
                )
            if maintenance_work_mem:
                conn.execute(
                    sql.SQL("SET maintenance_work_mem = {}").format(sql.Literal(maintenance_work_mem))
                )
            _maintain(conn, report, min_memories=min_memories, limit=limit)
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (_LOCK,))
    return report


def _maintain(conn: psycopg.Connection, report: MaintenanceReport, *, min_memories: int, limit: int) -> None:
    keep_above = int(min_memories * KEEP_FRACTION)
    counts, total = current_counts(conn, keep_above)
    existing = existing_indexes(conn)

    for tenant, valid in existing.items():
        if not valid:
            _drop(conn, tenant)
            report.dropped.append({"tenant_id": str(tenant), "reason": "invalid (an interrupted build)"})
    indexed = {t for t, valid in existing.items() if valid}

    # Who deserves one: over the threshold (or, already indexed, over the keep threshold), and
    # not holding most of the store unless already indexed; the largest first, up to the limit.
    eligible = []
    for tenant, n in counts.items():
        if tenant in indexed or n > min_memories:
            if tenant not in indexed and total and n / total >= DOMINANT_SHARE:
                report.dominant.append(str(tenant))
                continue
            eligible.append((n, tenant))
    eligible.sort(key=lambda item: (-item[0], str(item[1])))
    wanted = {tenant: n for n, tenant in eligible[:limit]}
    report.over_limit = [str(tenant) for _, tenant in eligible[limit:]]

    for tenant in indexed - wanted.keys():
        _drop(conn, tenant)
        reason = "over the limit" if str(tenant) in report.over_limit else "shrank under the threshold"
        report.dropped.append({"tenant_id": str(tenant), "reason": reason})
    report.kept = len(indexed & wanted.keys())
    dim = one_row(
        conn.execute(
            "SELECT atttypmod FROM pg_attribute WHERE attrelid = 'memory_versions'::regclass AND attname = 'embedding'"
        ).fetchone()
    )[0]
    for tenant, n in sorted(wanted.items(), key=lambda item: -item[1]):
        if tenant in indexed:
            continue
        started = time.perf_counter()
        _build(conn, tenant, dim)
        report.built.append(
            {"tenant_id": str(tenant), "memories": n, "seconds": round(time.perf_counter() - started, 3)}
        )


def _build(conn: psycopg.Connection, tenant: UUID, dim: int) -> None:
    # The predicate is the shared index's plus the tenant: a candidate search for the tenant
    # (tenant_id = constant AND the current-row conditions) implies it. The tenant id is a
    # UUID, quoted as a literal: DDL takes no parameters.
    conn.execute(
        sql.SQL(
            "CREATE INDEX CONCURRENTLY IF NOT EXISTS {} ON memory_versions USING hnsw "
            "({} vector_cosine_ops) WHERE tenant_id = {} AND recorded_to IS NULL AND valid_to IS NULL"
        ).format(sql.Identifier(index_name(tenant)), sql.SQL(indexed_expression(dim)), sql.Literal(tenant))
    )


def _drop(conn: psycopg.Connection, tenant: UUID) -> None:
    conn.execute(sql.SQL("DROP INDEX CONCURRENTLY IF EXISTS {}").format(sql.Identifier(index_name(tenant))))
