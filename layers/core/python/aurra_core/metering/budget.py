"""Per-key budgets of model calls per UTC day, counted in PostgreSQL.

One conditional statement reserves a call: it inserts the day's counter or increments it, but
only while it is below the limit. PostgreSQL serializes the increments of one row and
re-checks the condition on the row it finally updates, so concurrent writers can never take
more calls than the limit, on any number of connections or Lambda instances. Calls are
counted whether or not the key has a limit, so a limit set later in the day applies to the
day's calls so far.

A reservation's transaction commits without waiting for its WAL flush (`Database.tenant_transaction`
with `flush_on_commit=False`): its commit was the second disk flush of every Level 2 write,
before the model call, and cost as much as the floor's own insert (bench/notes/write-latency.md). What the
budget needs is unchanged: the increment is taken under the row's lock with the limit checked,
and is visible to every other writer the moment the commit returns, before the call starts.
It is durable once the write that follows commits (that commit waits for the WAL up to itself,
the reservation's record included) or within a few hundred milliseconds. Only a crash of the
database in between can forget it, and then the write fails with it: at most one call per write
in flight at the crash goes uncounted.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg

from aurra_core.models import Caller

_RESERVE = """
INSERT INTO model_call_counts (api_key_id, day, tenant_id, calls)
SELECT %(budget_key)s, (now() AT TIME ZONE 'UTC')::date, %(budget_tenant)s, 1
WHERE ({when}) AND (%(budget_limit)s::integer IS NULL OR %(budget_limit)s::integer >= 1)
ON CONFLICT (api_key_id, day) DO UPDATE SET calls = model_call_counts.calls + 1
    WHERE %(budget_limit)s::integer IS NULL OR model_call_counts.calls < %(budget_limit)s::integer
RETURNING calls
"""


def reserve_sql(when: str = "true") -> str:
    """The reservation's statement, taking the call only `when` (an SQL condition): alone, or
    as a data-modifying CTE of another statement (store.find_candidates: only when the
    candidate list finds a candidate). Parameters: `reserve_params`'s."""
    return _RESERVE.format(when=when)


def reserve_params(caller: Caller, limit: int | None) -> dict[str, Any]:
    return {"budget_key": caller.api_key_id, "budget_tenant": caller.tenant_id, "budget_limit": limit}


def reserve_model_call(conn: psycopg.Connection, caller: Caller, limit: int | None) -> bool:
    """Take one model call from the key's budget for today; False when it is used up."""
    row = conn.execute(reserve_sql(), reserve_params(caller, limit)).fetchone()
    return row is not None


def seconds_until_budget_resets(now: datetime | None = None) -> int:
    """Seconds until the next UTC day, when every key's budget starts again."""
    now = now or datetime.now(UTC)
    midnight = (now.astimezone(UTC) + timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)
    return max(1, int((midnight - now).total_seconds() + 0.999))


def calls_today(conn: psycopg.Connection, caller: Caller) -> int:
    """The key's model calls counted so far in the current UTC day."""
    row = conn.execute(
        """SELECT calls FROM model_call_counts
           WHERE api_key_id = %s AND tenant_id = %s AND day = (now() AT TIME ZONE 'UTC')::date""",
        (caller.api_key_id, caller.tenant_id),
    ).fetchone()
    return row[0] if row else 0
