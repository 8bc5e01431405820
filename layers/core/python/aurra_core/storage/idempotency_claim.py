"""The Idempotency-Key record a call claimed, bound to the call's writing transaction.

Powertools records a call's answer after the call returns, in a transaction of its own. If the
database goes away between the two, the write is committed but its record stays in progress,
and once the in-progress time runs out a retry with the same key would carry the call out
again: a second write for one Idempotency-Key. So the writing transaction itself marks the
record committed (a committed record never expires while in progress, so it is never run
again), and it may only do so while the record is still this call's: if a retry took it over,
the write is refused rather than done twice.

Light on purpose: the store calls `bind` on every write, and the idempotency utility (which
brings boto3) loads only when a request has a key.
"""

from __future__ import annotations

from contextvars import ContextVar

import psycopg

from aurra_core.errors import Conflict

# The in-progress expiry (epoch ms) of a record whose call committed: a time that never comes.
COMMITTED = 2**62

# (record key, the in-progress expiry it was claimed with) for the call running in this context.
_claim: ContextVar[tuple[str, int | None] | None] = ContextVar("aurra_idempotency_claim", default=None)


def claim(key: str, in_progress_expiry: int | None) -> None:
    _claim.set((key, in_progress_expiry))


def current() -> tuple[str, int | None] | None:
    return _claim.get()


def clear() -> None:
    _claim.set(None)


def bind(conn: psycopg.Connection) -> None:
    """In a writing transaction of an idempotent call: commit its record with the write."""
    claimed = _claim.get()
    if claimed is None:
        return
    key, expiry = claimed
    row = conn.execute(
        """UPDATE idempotency_records SET in_progress_expiry = %s
           WHERE idempotency_key = %s AND status = 'INPROGRESS'
             AND in_progress_expiry IS NOT DISTINCT FROM %s::bigint
           RETURNING 1""",
        (COMMITTED, key, expiry),
    ).fetchone()
    if row is None:
        raise Conflict(
            "a retry with this Idempotency-Key took this request over; it is not carried out twice"
        )
