"""A key's webhooks (the `webhooks` setting): read without their secrets, replaced whole."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import psycopg

from aurra_core.errors import ValidationFailed
from aurra_core.models import Caller, EventType, WebhookConfig, WebhookView


def read(conn: psycopg.Connection, caller: Caller) -> list[WebhookView]:
    rows = conn.execute(
        "SELECT url, events FROM webhook_endpoints WHERE api_key_id = %s AND tenant_id = %s ORDER BY position",
        (caller.api_key_id, caller.tenant_id),
    ).fetchall()
    return [WebhookView(url=url, events=[EventType(e) for e in events]) for url, events in rows]


def replace(conn: psycopg.Connection, caller: Caller, webhooks: list[WebhookConfig]) -> None:
    """The key's webhooks become `webhooks`. A webhook without a secret keeps the one its URL
    had; a new URL without one is a 422."""
    known: dict[str, str] = dict(
        conn.execute(
            "SELECT url, secret FROM webhook_endpoints WHERE api_key_id = %s AND tenant_id = %s",
            (caller.api_key_id, caller.tenant_id),
        ).fetchall()
    )
    rows: list[tuple[Any, ...]] = []
    seen: set[str] = set()
    for i, hook in enumerate(webhooks):
        if hook.url in seen:
            problem = "each webhook URL once (name every event type it wants in its `events`)"
            raise ValidationFailed(problem, [{"field": f"webhooks[{i}].url", "problem": problem}])
        seen.add(hook.url)
        secret = hook.secret or known.get(hook.url)
        if secret is None:
            problem = "a new webhook URL needs its secret (whsec_...)"
            raise ValidationFailed(problem, [{"field": f"webhooks[{i}].secret", "problem": problem}])
        rows.append(
            (caller.api_key_id, i, caller.tenant_id, hook.url, [e.value for e in hook.events], secret)
        )
    conn.execute(
        "DELETE FROM webhook_endpoints WHERE api_key_id = %s AND tenant_id = %s",
        (caller.api_key_id, caller.tenant_id),
    )
    with conn.cursor() as cur:
        cur.executemany(
            """INSERT INTO webhook_endpoints (api_key_id, position, tenant_id, url, events, secret)
               VALUES (%s, %s, %s, %s, %s, %s)""",
            rows,
        )


def secret_of(conn: psycopg.Connection, tenant_id: UUID, api_key_id: UUID, url: str) -> str | None:
    row = conn.execute(
        "SELECT secret FROM webhook_endpoints WHERE tenant_id = %s AND api_key_id = %s AND url = %s LIMIT 1",
        (tenant_id, api_key_id, url),
    ).fetchone()
    return None if row is None else str(row[0])
