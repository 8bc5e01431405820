"""Retention periods: the maintenance job erases, through the same erasure as the API's, what a
tenant's settings say is kept no longer (docs/privacy.md).

- `memory_retention_days`: memories first recorded longer ago than that, whole.
- `history_retention_days`: memories no longer current for longer than that (superseded, or
  their own expiry passed), whole; and, of the others, the versions closed in transaction time
  that long ago (their earlier states, which `known_at` reads).

Settings belong to keys and memories to tenants: a tenant's period is the shortest set on any
of its keys that is not revoked. Each period that erases something in a run has its receipt
(selector `{"memory_retention_days": N}` or `{"history_retention_days": N}`) and its `erasure`
audit event, with no key (the job asked, not a caller)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

import psycopg

from aurra_core.models import ErasureReceipt
from aurra_core.storage import erasures, store
from aurra_core.storage.db import Database
from aurra_core.write_path import erasure


@dataclass(frozen=True)
class Periods:
    tenant_id: UUID
    history_days: int | None
    memory_days: int | None


def tenant_periods(conn: psycopg.Connection) -> list[Periods]:
    """Every tenant with a period, as the tables' owner sees them (all tenants): the shortest
    of each period over the latest settings of its keys that are not revoked."""
    rows = conn.execute(
        """SELECT k.tenant_id, min(s.history_retention_days), min(s.memory_retention_days)
           FROM api_keys k
           JOIN LATERAL (SELECT history_retention_days, memory_retention_days FROM key_settings
                         WHERE api_key_id = k.id ORDER BY version DESC LIMIT 1) s ON true
           WHERE k.revoked_at IS NULL
           GROUP BY k.tenant_id
           HAVING min(s.history_retention_days) IS NOT NULL OR min(s.memory_retention_days) IS NOT NULL
           ORDER BY k.tenant_id"""
    ).fetchall()
    return [Periods(r[0], r[1], r[2]) for r in rows]


def _recorded_before(conn: psycopg.Connection, tenant_id: UUID, cutoff: datetime) -> list[UUID]:
    rows = conn.execute(
        """SELECT memory_id FROM memory_versions WHERE tenant_id = %s
           GROUP BY memory_id HAVING min(recorded_at) < %s""",
        (tenant_id, cutoff),
    ).fetchall()
    return [r[0] for r in rows]


def _history_before(conn: psycopg.Connection, tenant_id: UUID, cutoff: datetime) -> erasures.Selection:
    """Memories whose believed version ended (superseded or expired) before `cutoff`, and the
    versions of the others closed in transaction time before it."""
    ended = [
        r[0]
        for r in conn.execute(
            """SELECT memory_id FROM memory_versions
               WHERE tenant_id = %s AND recorded_to IS NULL AND valid_to IS NOT NULL AND valid_to < %s""",
            (tenant_id, cutoff),
        ).fetchall()
    ]
    closed = [
        r[0]
        for r in conn.execute(
            """SELECT version_id FROM memory_versions
               WHERE tenant_id = %s AND recorded_to IS NOT NULL AND recorded_to < %s
                 AND NOT (memory_id = ANY(%s))""",
            (tenant_id, cutoff, ended),
        ).fetchall()
    ]
    return erasures.Selection(memories=ended, versions=closed)


def apply_periods(db: Database, periods: Periods) -> list[ErasureReceipt]:
    """One tenant's periods, in one transaction holding its write lock exclusively (as an
    erasure from the API does): a receipt for each period that erased something."""
    receipts = []
    with db.tenant_transaction(periods.tenant_id) as conn:
        now = store.believed_now(conn, periods.tenant_id)
        if periods.memory_days is not None:
            cutoff = now - timedelta(days=periods.memory_days)
            selection = erasures.Selection(
                memories=_recorded_before(conn, periods.tenant_id, cutoff), versions=[]
            )
            if not selection.empty:
                selector = {"memory_retention_days": periods.memory_days}
                receipts.append(erasure.run(conn, periods.tenant_id, None, selector, selection, now))
        if periods.history_days is not None:
            selection = _history_before(conn, periods.tenant_id, now - timedelta(days=periods.history_days))
            if not selection.empty:
                selector = {"history_retention_days": periods.history_days}
                receipts.append(erasure.run(conn, periods.tenant_id, None, selector, selection, now))
    return receipts


def apply_retention(conninfo: str) -> list[dict[str, Any]]:
    """Every tenant's periods (the maintenance job, as the tables' owner, which may act as the
    service role for each tenant in turn): what each erased, for the job's report."""
    with psycopg.connect(conninfo, autocommit=True) as conn:
        every = tenant_periods(conn)
    if not every:
        return []
    db = Database(conninfo, max_size=1)
    try:
        report = []
        for periods in every:
            for receipt in apply_periods(db, periods):
                report.append({"tenant_id": str(periods.tenant_id), **receipt.model_dump(mode="json")})
        return report
    finally:
        db.close()
