"""Delivering the change stream to webhooks, at least once.

Fan-out: per tenant, the events numbered past the tenant's webhook cursor become one delivery
row per matching webhook, and the cursor moves, in one transaction (the numbers are gap-free
and in commit order, storage/events.py, so none is skipped or fanned out twice).

Sending: a pending delivery is due at its `next_attempt_at` unless an earlier event of the same
memory is still pending for the same webhook (order per memory). It is POSTed, signed (Standard
Webhooks: signing.py), with `webhook-id` the event's id (the same on every retry and replay, for
the receiver to drop repeats). A 2xx delivers it; anything else is retried after an exponential
delay with jitter (`webhook_retry_base_s` doubling, at most an hour) until `webhook_retry_for_s`
(24 hours) after it was made, then dead-lettered. A replay makes it pending again, now.

Addresses: the URL's host is resolved, every address checked, and the connection made to the
checked address (no second lookup a DNS change could turn): never a private, loopback,
link-local or otherwise non-global address unless `webhooks_allow_private` (`aurra dev`). No
redirects are followed; a short timeout.

The worker reads across tenants as the owner role (as maintenance does); every statement names
its tenant. `aurra dev` runs it in a thread (`Worker`).
"""

from __future__ import annotations

import http.client
import random
import socket
import ssl
import threading
import time
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit
from uuid import UUID

import psycopg
from psycopg.rows import dict_row

from aurra_core.errors import NotFound, ServiceUnavailable
from aurra_core.models import (
    Caller,
    ChangeEvent,
    DeliveryListQuery,
    DeliveryPage,
    WebhookDelivery,
    is_public_address,
)
from aurra_core.runtime.config import get_config
from aurra_core.runtime.observability import logger
from aurra_core.storage import cursors
from aurra_core.storage.db import Database
from aurra_core.webhooks import endpoints, signing

MAX_DELAY_S = 3600.0
DELIVERIES_ENDPOINT = "GET /agent/webhooks/deliveries"
_COLUMNS = """id, event_id, event_type, memory_id, url, status, attempts, created_at, next_attempt_at,
    last_attempt_at, last_status, last_error, delivered_at, event_seq"""


class Refused(Exception):
    """A URL the worker will not connect to."""


# ---------------------------------------------------------------- fan-out


def fan_out(conn: psycopg.Connection, tenant_id: UUID) -> int:
    """The tenant's events past its webhook cursor as deliveries; the number made."""
    conn.execute(
        "INSERT INTO webhook_cursors (tenant_id, last_seq) VALUES (%s, 0) ON CONFLICT DO NOTHING",
        (tenant_id,),
    )
    row = conn.execute(
        "SELECT last_seq FROM webhook_cursors WHERE tenant_id = %s FOR UPDATE", (tenant_id,)
    ).fetchone()
    after = int(row[0]) if row else 0
    counter = conn.execute(
        "SELECT last_seq FROM change_event_counters WHERE tenant_id = %s", (tenant_id,)
    ).fetchone()
    up_to = int(counter[0]) if counter else 0
    if up_to <= after:
        return 0
    made = conn.execute(
        """INSERT INTO webhook_deliveries (tenant_id, api_key_id, url, event_id, event_seq, event_type, memory_id)
           SELECT e.tenant_id, w.api_key_id, w.url, e.id, e.seq, e.type, e.memory_id
           FROM change_events e
           JOIN webhook_endpoints w ON w.tenant_id = e.tenant_id AND e.type = ANY(w.events)
           JOIN api_keys k ON k.id = w.api_key_id AND k.tenant_id = e.tenant_id AND k.revoked_at IS NULL
           WHERE e.tenant_id = %s AND e.seq > %s AND e.seq <= %s""",
        (tenant_id, after, up_to),
    ).rowcount
    conn.execute("UPDATE webhook_cursors SET last_seq = %s WHERE tenant_id = %s", (up_to, tenant_id))
    return made


def fan_out_all(db: Database) -> int:
    with db.transaction() as conn:
        behind = [
            r[0]
            for r in conn.execute(
                """SELECT c.tenant_id FROM change_event_counters c
                   LEFT JOIN webhook_cursors w ON w.tenant_id = c.tenant_id
                   WHERE c.last_seq > coalesce(w.last_seq, 0)"""
            ).fetchall()
        ]
    made = 0
    for tenant_id in behind:
        with db.transaction() as conn:
            made += fan_out(conn, tenant_id)
    return made


# ---------------------------------------------------------------- sending


def _check_address(address: str) -> None:
    if not is_public_address(address):
        raise Refused(f"refused: {address} is not a public address")


def post(url: str, body: bytes, headers: dict[str, str]) -> int:
    """POST `body` to `url` through an address checked first; the response's status."""
    config = get_config()
    parts = urlsplit(url)
    host = parts.hostname or ""
    https = parts.scheme == "https"
    if not https and not config.webhooks_allow_private:
        raise Refused("refused: not https")
    port = parts.port or (443 if https else 80)
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise Refused(f"the host does not resolve: {exc}") from None
    addresses = [str(info[4][0]) for info in infos]
    if not config.webhooks_allow_private:
        for address in addresses:
            _check_address(address)
    timeout = config.webhook_timeout_s
    sock = socket.create_connection((addresses[0], port), timeout=timeout)
    connection: http.client.HTTPConnection
    if https:
        context = ssl.create_default_context()
        connection = http.client.HTTPSConnection(host, port, timeout=timeout, context=context)
        sock = context.wrap_socket(sock, server_hostname=host)
    else:
        connection = http.client.HTTPConnection(host, port, timeout=timeout)
    connection.sock = sock
    try:
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        connection.request(
            "POST",
            path,
            body=body,
            headers={**headers, "Content-Type": "application/json", "User-Agent": "Aurra-Webhooks/1"},
        )
        response = connection.getresponse()
        response.read(64 * 1024)
        return int(response.status)
    finally:
        connection.close()


def _delay(attempts: int) -> float:
    """Exponential from the base, at most an hour, with full jitter on its upper half."""
    base = get_config().webhook_retry_base_s
    delay = min(base * 2.0 ** max(attempts - 1, 0), MAX_DELAY_S)
    jitter: float = random.uniform(0.5, 1.0)
    return delay * jitter


def send_one(db: Database) -> bool:
    """Attempt the next due delivery, if any; whether one was attempted."""
    with db.transaction() as conn:
        with conn.cursor(row_factory=dict_row) as cur:
            cur.execute(
                f"""SELECT tenant_id, api_key_id, clock_timestamp() AS now, {_COLUMNS} FROM webhook_deliveries d
                    WHERE status = 'pending' AND next_attempt_at <= clock_timestamp()
                      AND NOT EXISTS (
                          SELECT 1 FROM webhook_deliveries p
                          WHERE p.tenant_id = d.tenant_id AND p.api_key_id = d.api_key_id AND p.url = d.url
                            AND p.memory_id = d.memory_id AND p.status = 'pending' AND p.event_seq < d.event_seq)
                    ORDER BY next_attempt_at, event_seq LIMIT 1 FOR UPDATE SKIP LOCKED"""
            )
            row = cur.fetchone()
            if row is None:
                return False
            cur.execute(
                """SELECT id, type, created_at, user_id, agent_id, memory_id, data FROM change_events
                   WHERE tenant_id = %s AND id = %s""",
                (row["tenant_id"], row["event_id"]),
            )
            event = ChangeEvent(**cur.fetchone() or {})
        secret = endpoints.secret_of(conn, row["tenant_id"], row["api_key_id"], row["url"])
        status_code: int | None = None
        error: str | None = None
        if secret is None:
            error = "the webhook was removed from the key's settings"
        else:
            body = event.model_dump_json().encode()
            try:
                status_code = post(
                    row["url"], body, signing.headers(secret, str(event.id), int(time.time()), body)
                )
                if not 200 <= status_code < 300:
                    error = f"HTTP {status_code}"
            except Exception as exc:  # noqa: BLE001 - any failure of one attempt is that attempt's error
                error = (str(exc) or type(exc).__name__)[:500]
        attempts = row["attempts"] + 1
        now: datetime = row["now"]
        if error is None:
            conn.execute(
                """UPDATE webhook_deliveries SET status = 'delivered', attempts = %s, last_attempt_at = %s,
                       last_status = %s, last_error = NULL, delivered_at = clock_timestamp() WHERE id = %s""",
                (attempts, now, status_code, row["id"]),
            )
            return True
        retry_at = now + timedelta(seconds=_delay(attempts))
        dead = secret is None or retry_at > row["created_at"] + timedelta(
            seconds=get_config().webhook_retry_for_s
        )
        conn.execute(
            """UPDATE webhook_deliveries SET status = %s, attempts = %s, last_attempt_at = %s, last_status = %s,
                   last_error = %s, next_attempt_at = %s WHERE id = %s""",
            ("dead" if dead else "pending", attempts, now, status_code, error, retry_at, row["id"]),
        )
        logger.info(
            "webhook delivery failed", extra={"delivery_id": str(row["id"]), "dead": dead, "error": error}
        )
        return True


def run_once(db: Database, *, max_sends: int = 100) -> int:
    """Fan out, then send what is due (at most `max_sends`); the number of attempts."""
    fan_out_all(db)
    sent = 0
    while sent < max_sends and send_one(db):
        sent += 1
    return sent


class Worker(threading.Thread):
    """`aurra dev`'s in-process delivery: `run_once` every `interval_s`, until stopped. While
    the database is unreachable it says so once, tries again less often (up to
    `OUTAGE_INTERVAL_S`) and says when deliveries resume: not a traceback every round."""

    OUTAGE_INTERVAL_S = 5.0

    def __init__(self, db: Database, interval_s: float = 0.25) -> None:
        super().__init__(name="aurra-webhooks", daemon=True)
        self.db, self.interval_s, self.stopping = db, interval_s, threading.Event()

    def run(self) -> None:
        wait, unreachable = self.interval_s, False
        while not self.stopping.is_set():
            try:
                run_once(self.db)
            except ServiceUnavailable:
                if not unreachable:
                    logger.warning("webhook deliveries paused: the database is not reachable")
                unreachable, wait = True, min(wait * 2, self.OUTAGE_INTERVAL_S)
            except Exception:  # noqa: BLE001 - the worker outlives a bad round
                logger.exception("webhook delivery round failed")
            else:
                if unreachable:
                    # As loud as the pause it ends, so a quiet log (aurra dev's) shows both.
                    logger.warning("webhook deliveries resumed")
                wait, unreachable = self.interval_s, False
            self.stopping.wait(wait)


# ---------------------------------------------------------------- the API's reads and replay


class DeliveryCursor(cursors.CursorPosition):
    s: int
    id: UUID


def _delivery(row: dict[str, Any]) -> WebhookDelivery:
    row = dict(row)
    row.pop("event_seq", None)
    if row["status"] != "pending":
        row["next_attempt_at"] = None
    return WebhookDelivery(**row)


def list_deliveries(caller: Caller, query: DeliveryListQuery, db: Database) -> DeliveryPage:
    fp = cursors.fingerprint(status=query.status)
    params: dict[str, Any] = {"tenant_id": caller.tenant_id, "limit": query.limit + 1}
    clauses = ["tenant_id = %(tenant_id)s"]
    if query.status is not None:
        clauses.append("status = %(status)s")
        params["status"] = query.status
    if query.cursor is not None:
        position = cursors.decode(
            query.cursor,
            DeliveryCursor,
            tenant_id=caller.tenant_id,
            endpoint=DELIVERIES_ENDPOINT,
            expected_fingerprint=fp,
        )
        clauses.append("(event_seq, id) < (%(seq)s, %(id)s)")
        params["seq"], params["id"] = position.s, position.id
    with db.tenant_transaction(caller.tenant_id) as conn, conn.cursor(row_factory=dict_row) as cur:
        cur.execute(
            f"""SELECT {_COLUMNS} FROM webhook_deliveries WHERE {" AND ".join(clauses)}
                ORDER BY event_seq DESC, id DESC LIMIT %(limit)s""",
            params,
        )
        rows = cur.fetchall()
    page = rows[: query.limit]
    next_cursor = None
    if len(rows) > query.limit:
        last = page[-1]
        next_cursor = cursors.encode(
            DeliveryCursor(f=fp, s=last["event_seq"], id=last["id"]),
            tenant_id=caller.tenant_id,
            endpoint=DELIVERIES_ENDPOINT,
        )
    return DeliveryPage(deliveries=[_delivery(r) for r in page], next_cursor=next_cursor)


def replay(caller: Caller, delivery_id: UUID, db: Database) -> WebhookDelivery:
    """The delivery pending again, due now, with a fresh retry window (the same webhook-id)."""
    with db.tenant_transaction(caller.tenant_id) as conn, conn.cursor(row_factory=dict_row) as cur:
        cur.execute(
            f"""UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = clock_timestamp(),
                    created_at = clock_timestamp()
                WHERE tenant_id = %s AND id = %s RETURNING {_COLUMNS}""",
            (caller.tenant_id, delivery_id),
        )
        row = cur.fetchone()
    if row is None:
        raise NotFound("webhook delivery not found")
    return _delivery(row)
