"""The change stream on an EventBridge bus: each tenant's events past its cursor
(`event_bus_cursors`, migration 0022), in commit order, as `PutEvents` entries.

An entry is the event exactly as GET /agent/events shows it (`detail`; ids only, never memory
content), its type as `detail-type`, `aurra.<stage>` as `source`, the event's time as `time`,
and its tenant as the one resource (`aurra:<stage>:tenant/<id>`), so a rule can choose a
tenant's events. Entries go ten to a call; the entries a call fails are sent again (with a
short backoff) up to `ATTEMPTS` times. The cursor moves past the events delivered in order and
stops at the first that was not: the next round starts there, so an event is never skipped,
and one published after a failed neighbour may be published again (at least once: a consumer
drops repeats by the event's `id`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

import psycopg

from aurra_core.models import ChangeEvent
from aurra_core.runtime.observability import logger
from aurra_core.storage import events
from aurra_core.storage.db import Database

# PutEvents takes at most 10 entries a call.
ENTRIES_PER_CALL = 10
ATTEMPTS = 4
# Events read for one tenant in one transaction (the cursor row is locked meanwhile).
EVENTS_PER_ROUND = 100


def source(stage: str) -> str:
    return f"aurra.{stage}"


def tenant_resource(stage: str, tenant_id: UUID) -> str:
    return f"aurra:{stage}:tenant/{tenant_id}"


def entry(event: ChangeEvent, *, tenant_id: UUID, stage: str, bus_name: str) -> dict[str, Any]:
    return {
        "EventBusName": bus_name,
        "Source": source(stage),
        "DetailType": event.type.value,
        "Detail": event.model_dump_json(),
        "Time": event.created_at,
        "Resources": [tenant_resource(stage, tenant_id)],
    }


@dataclass
class EventBridgeBus:
    """One stage's bus through a boto3 `events` client (made on first use unless given)."""

    bus_name: str
    stage: str
    client: Any = None
    sleep: Callable[[float], None] = time.sleep
    backoff_s: float = 0.2

    def _client(self) -> Any:
        if self.client is None:
            import boto3

            self.client = boto3.client("events")
        return self.client

    def put(self, entries: Sequence[dict[str, Any]]) -> int:
        """Send `entries` in order; how many of them, from the first, were all accepted."""
        for start in range(0, len(entries), ENTRIES_PER_CALL):
            batch = list(entries[start : start + ENTRIES_PER_CALL])
            pending = list(range(len(batch)))
            for attempt in range(ATTEMPTS):
                if attempt:
                    self.sleep(self.backoff_s * 2 ** (attempt - 1))
                try:
                    answer = self._client().put_events(Entries=[batch[i] for i in pending])
                except Exception as exc:  # noqa: BLE001 - a failed call fails its entries, to be retried
                    logger.warning("PutEvents failed", extra={"error": type(exc).__name__})
                    continue
                results = answer.get("Entries", [])
                failed = [i for i, result in zip(pending, results, strict=False) if "EventId" not in result]
                failed += pending[len(results) :]
                if failed:
                    logger.warning(
                        "PutEvents refused entries",
                        extra={
                            "codes": sorted({r.get("ErrorCode", "") for r in results if "EventId" not in r})
                        },
                    )
                pending = failed
                if not pending:
                    break
            if pending:
                return start + pending[0]
        return len(entries)


@dataclass
class PublishReport:
    published: int = 0
    tenants: int = 0
    # Tenants whose cursor stopped at an event the bus did not take this round.
    stalled: list[str] = field(default_factory=list)


def _tenants_behind(db: Database) -> list[UUID]:
    with db.transaction() as conn:
        return [
            r[0]
            for r in conn.execute(
                """SELECT c.tenant_id FROM change_event_counters c
                   LEFT JOIN event_bus_cursors b ON b.tenant_id = c.tenant_id
                   WHERE c.last_seq > coalesce(b.last_seq, 0) ORDER BY c.tenant_id"""
            ).fetchall()
        ]


def _publish_tenant(conn: psycopg.Connection, bus: EventBridgeBus, tenant_id: UUID) -> tuple[int, bool]:
    """One round of a tenant's events: (published, whether all read were)."""
    conn.execute(
        "INSERT INTO event_bus_cursors (tenant_id, last_seq) VALUES (%s, 0) ON CONFLICT DO NOTHING",
        (tenant_id,),
    )
    # SKIP LOCKED: another dispatcher (a late invocation) already has this tenant.
    row = conn.execute(
        "SELECT last_seq FROM event_bus_cursors WHERE tenant_id = %s FOR UPDATE SKIP LOCKED", (tenant_id,)
    ).fetchone()
    if row is None:
        return 0, True
    after = int(row[0])
    rows = events.select_events(
        conn,
        tenant_id,
        after=after,
        up_to=events.last_seq(conn, tenant_id),
        types=None,
        limit=EVENTS_PER_ROUND,
    )
    if not rows:
        return 0, True
    entries = [entry(e, tenant_id=tenant_id, stage=bus.stage, bus_name=bus.bus_name) for _, e in rows]
    delivered = bus.put(entries)
    if delivered:
        conn.execute(
            "UPDATE event_bus_cursors SET last_seq = %s WHERE tenant_id = %s",
            (rows[delivered - 1][0], tenant_id),
        )
    return delivered, delivered == len(rows)


def publish(db: Database, bus: EventBridgeBus) -> PublishReport:
    """One round over every tenant with events past its cursor (at most EVENTS_PER_ROUND each)."""
    report = PublishReport()
    for tenant_id in _tenants_behind(db):
        with db.transaction() as conn:
            published, complete = _publish_tenant(conn, bus, tenant_id)
        report.published += published
        report.tenants += 1
        if not complete:
            report.stalled.append(str(tenant_id))
    return report


def oldest_unpublished_age_s(db: Database) -> float:
    """Seconds since the oldest event not yet on the bus was committed (0 when none is)."""
    with db.transaction() as conn:
        row = conn.execute(
            """SELECT coalesce(extract(epoch FROM clock_timestamp() - min(first.created_at)), 0)
               FROM change_event_counters c
               LEFT JOIN event_bus_cursors b ON b.tenant_id = c.tenant_id
               CROSS JOIN LATERAL (
                   SELECT e.created_at FROM change_events e
                   WHERE e.tenant_id = c.tenant_id AND e.seq > coalesce(b.last_seq, 0)
                   ORDER BY e.seq LIMIT 1) first
               WHERE c.last_seq > coalesce(b.last_seq, 0)"""
        ).fetchone()
    return float(row[0]) if row else 0.0
