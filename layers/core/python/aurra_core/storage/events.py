"""The change stream: the outbox that migration 0019's triggers fill in the transaction of each
change, and its reads in commit order (GET /agent/events; webhooks read the same rows).

Every event takes its tenant's next sequence number at COMMIT, under the lock of the tenant's
counter row (migration 0019): the numbers a reader sees are gap-free and in commit order, so a
cursor is just the last number read. Events carry ids only, never memory content.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from aurra_core.errors import ValidationFailed
from aurra_core.models import Caller, ChangeEvent, EventListQuery, EventPage, EventType, Scope
from aurra_core.storage import cursors
from aurra_core.storage.db import Database

EVENTS_ENDPOINT = "GET /agent/events"


class EventCursor(cursors.CursorPosition):
    """Where the next page of the change stream starts: after the tenant's event number `s`."""

    s: int


def event_statement(
    tenant_id: UUID,
    type: EventType,
    *,
    scope: Scope,
    memory_id: UUID | None,
    data: dict[str, Any],
) -> tuple[str, tuple[Any, ...]]:
    """`insert_event`'s statement and parameters, for sending with another statement in one
    round trip (store.insert_version's `then`)."""
    return (
        """INSERT INTO change_events (tenant_id, type, user_id, agent_id, memory_id, data)
           VALUES (%s, %s, %s, %s, %s, %s)""",
        (tenant_id, type.value, scope.user_id, scope.agent_id, memory_id, Jsonb(data)),
    )


def insert_event(
    conn: psycopg.Connection,
    tenant_id: UUID,
    type: EventType,
    *,
    scope: Scope,
    memory_id: UUID | None,
    data: dict[str, Any],
) -> None:
    """An event the triggers cannot see (no audit event or memory row of its own says it), in
    the caller's transaction: it commits with the change it describes, or not at all."""
    conn.execute(*event_statement(tenant_id, type, scope=scope, memory_id=memory_id, data=data))


def last_seq(conn: psycopg.Connection, tenant_id: UUID) -> int:
    """The tenant's last committed event number (0 before the first): every number up to it is
    committed and visible, since the next is given only after this one's commit."""
    row = conn.execute(
        "SELECT last_seq FROM change_event_counters WHERE tenant_id = %s", (tenant_id,)
    ).fetchone()
    return int(row[0]) if row else 0


def select_events(
    conn: psycopg.Connection,
    tenant_id: UUID,
    *,
    after: int,
    up_to: int,
    types: list[EventType] | None,
    limit: int,
) -> list[tuple[int, ChangeEvent]]:
    """The tenant's events numbered after `after` and up to `up_to`, of `types` (all when None),
    in commit order, each with its number."""
    params: dict[str, Any] = {"tenant_id": tenant_id, "after": after, "up_to": up_to, "limit": limit}
    typed = ""
    if types is not None:
        typed = "AND type = ANY(%(types)s)"
        params["types"] = [t.value for t in types]
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(
            f"""SELECT seq, id, type, created_at, user_id, agent_id, memory_id, data FROM change_events
                WHERE tenant_id = %(tenant_id)s AND seq > %(after)s AND seq <= %(up_to)s {typed}
                ORDER BY seq LIMIT %(limit)s""",
            params,
        )
        return [(r.pop("seq"), ChangeEvent(**r)) for r in cur.fetchall()]


def parse_types(text: str | None) -> list[EventType] | None:
    """The types a comma-separated `types` names (sorted, no repeats), None for all; a 422
    naming `types` for an unknown one."""
    if text is None:
        return None
    chosen: set[EventType] = set()
    for name in text.split(","):
        try:
            chosen.add(EventType(name.strip()))
        except ValueError:
            known = ", ".join(t.value for t in EventType)
            problem = f"unknown event type {name.strip()!r}; known: {known}"
            raise ValidationFailed("types is not valid", [{"field": "types", "problem": problem}]) from None
    return sorted(chosen)


def read_event_page(caller: Caller, query: EventListQuery, db: Database) -> EventPage:
    """One page of the change stream after the cursor `query.after` (from the oldest kept when
    absent). `next_cursor` is always given: past the page's last event, or past every event
    committed when the page was read if the page is not full (so a filtered walk does not read
    the events it skipped again)."""
    types = parse_types(query.types)
    fp = cursors.fingerprint(types=None if types is None else [t.value for t in types])
    after = 0
    if query.after is not None:
        position = cursors.decode(
            query.after,
            EventCursor,
            tenant_id=caller.tenant_id,
            endpoint=EVENTS_ENDPOINT,
            expected_fingerprint=fp,
        )
        after = position.s
    with db.tenant_transaction(caller.tenant_id) as conn:
        up_to = last_seq(conn, caller.tenant_id)
        rows = select_events(conn, caller.tenant_id, after=after, up_to=up_to, types=types, limit=query.limit)
    position_after = rows[-1][0] if len(rows) == query.limit else max(up_to, after)
    next_cursor = cursors.encode(
        EventCursor(f=fp, s=position_after), tenant_id=caller.tenant_id, endpoint=EVENTS_ENDPOINT
    )
    return EventPage(events=[event for _, event in rows], next_cursor=next_cursor)
