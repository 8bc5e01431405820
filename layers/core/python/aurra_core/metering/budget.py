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

Budgets in dollars (`daily_model_cost_limit_usd`) are kept the same way, in the same statement:
the day's `cost_usd` is what the key's answered calls cost (their receipts' prices) plus a hold
for every call in flight, the most that call can cost at its model's price (its largest prompt
and answer, input priced as a cache write: `write_path.pipeline`). A call is taken only while
its hold fits under the limit, so concurrent calls can never spend past it; once the call
answers, `settle_model_call` replaces its hold with the receipt's price, in the write's own
transaction. A call whose cost is unknown (it failed) keeps its hold. A model without a price
(an OpenAI-compatible endpoint's) holds nothing and costs nothing here: only its calls count.

A batch write takes its calls at once, before its transaction (`reserve_model_calls`: as many
as it has facts Level 2 may classify, or what the limits leave), and gives back what it did not
use, with its calls' settlements, after it (`return_model_calls`). Taken one by one inside the
batch's transaction, each increment would hold the key's counter row until the batch commits:
every other Level 2 write of the key, and every other batch, would wait for the whole batch,
model calls included. A batch that fails still pays for the calls it made.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import Any

import psycopg

from aurra_core.models import Caller

_RESERVE = """
INSERT INTO model_call_counts (api_key_id, day, tenant_id, calls, cost_usd)
SELECT %(budget_key)s, (now() AT TIME ZONE 'UTC')::date, %(budget_tenant)s, 1, %(budget_hold)s::numeric
WHERE ({when}) AND (%(budget_limit)s::integer IS NULL OR %(budget_limit)s::integer >= 1)
    AND (%(budget_cost_limit)s::numeric IS NULL OR %(budget_hold)s::numeric <= %(budget_cost_limit)s::numeric)
ON CONFLICT (api_key_id, day) DO UPDATE SET
    calls = model_call_counts.calls + 1, cost_usd = model_call_counts.cost_usd + %(budget_hold)s::numeric
    WHERE (%(budget_limit)s::integer IS NULL OR model_call_counts.calls < %(budget_limit)s::integer)
      AND (%(budget_cost_limit)s::numeric IS NULL
           OR model_call_counts.cost_usd + %(budget_hold)s::numeric <= %(budget_cost_limit)s::numeric)
RETURNING day
"""


def reserve_sql(when: str = "true") -> str:
    """The reservation's statement, taking the call only `when` (an SQL condition): alone, or
    as a data-modifying CTE of another statement (store.find_candidates: only when the
    candidate list finds a candidate). It returns the day it counted the call on. Parameters:
    `reserve_params`'s."""
    return _RESERVE.format(when=when)


def reserve_params(
    caller: Caller, limit: int | None, cost_limit: float | None = None, hold_usd: float = 0.0
) -> dict[str, Any]:
    """`limit` calls and `cost_limit` dollars a day (None: no limit); `hold_usd` the most the
    call can cost."""
    return {
        "budget_key": caller.api_key_id,
        "budget_tenant": caller.tenant_id,
        "budget_limit": limit,
        "budget_cost_limit": None if cost_limit is None else Decimal(str(cost_limit)),
        "budget_hold": _money(hold_usd),
    }


def _money(value: float) -> Decimal:
    return Decimal(str(value)).quantize(Decimal("0.00000001"))


def reserve_model_call(
    conn: psycopg.Connection,
    caller: Caller,
    limit: int | None,
    cost_limit: float | None = None,
    hold_usd: float = 0.0,
) -> date | None:
    """Take one model call from the key's budget for today, holding `hold_usd` of its dollar
    budget: the day it was counted on, None when the budget is used up."""
    row = conn.execute(reserve_sql(), reserve_params(caller, limit, cost_limit, hold_usd)).fetchone()
    return None if row is None else row[0]


def settle_model_call(conn: psycopg.Connection, caller: Caller, day: date, delta_usd: float) -> None:
    """Add `delta_usd` to the key's spend of `day`: a call's price less its hold, once it answered."""
    if delta_usd == 0:
        return
    conn.execute(
        """UPDATE model_call_counts SET cost_usd = greatest(cost_usd + %s::numeric, 0)
           WHERE api_key_id = %s AND tenant_id = %s AND day = %s""",
        (_money(delta_usd), caller.api_key_id, caller.tenant_id, day),
    )


@dataclass
class PrepaidCalls:
    """Calls a batch took from the key's budget before its transaction: each classification
    takes one (`take`), and its settlement is kept for after the batch (`settle`)."""

    day: date | None
    left: int
    hold_usd: float
    delta_usd: float = 0.0

    def take(self) -> date | None:
        """One call for the next classification: its day, None when the batch's are used up."""
        if self.day is None or self.left <= 0:
            return None
        self.left -= 1
        return self.day

    def settle(self, settlement: tuple[date, float] | None) -> None:
        if settlement is not None:
            self.delta_usd += settlement[1]


def reserve_model_calls(
    conn: psycopg.Connection,
    caller: Caller,
    wanted: int,
    limit: int | None,
    cost_limit: float | None = None,
    hold_usd: float = 0.0,
) -> PrepaidCalls:
    """Take up to `wanted` calls at once, each holding `hold_usd`: as many as the key's limits
    leave today. Its own short transaction: the counter row is locked only for it."""
    if wanted <= 0:
        return PrepaidCalls(None, 0, hold_usd)
    params = reserve_params(caller, limit, cost_limit, hold_usd)
    # The day's counter, created if new, locked and read in one statement.
    row = conn.execute(
        """INSERT INTO model_call_counts AS m (api_key_id, day, tenant_id, calls, cost_usd)
           VALUES (%(budget_key)s, (now() AT TIME ZONE 'UTC')::date, %(budget_tenant)s, 0, 0)
           ON CONFLICT (api_key_id, day) DO UPDATE SET calls = m.calls
           RETURNING day, calls, cost_usd""",
        params,
    ).fetchone()
    assert row is not None  # an upsert's RETURNING always has its row
    day, calls, cost = row
    taken = wanted if limit is None else max(0, min(wanted, limit - calls))
    hold: Decimal = params["budget_hold"]
    if cost_limit is not None:
        room = params["budget_cost_limit"] - cost
        if room < 0:
            taken = 0
        elif hold > 0:
            taken = min(taken, int(room // hold))
    if taken > 0:
        conn.execute(
            """UPDATE model_call_counts SET calls = calls + %(taken)s,
                   cost_usd = cost_usd + %(taken)s * %(budget_hold)s::numeric
               WHERE api_key_id = %(budget_key)s AND day = %(day)s""",
            {**params, "taken": taken, "day": day},
        )
    return PrepaidCalls(day if taken > 0 else None, taken, hold_usd)


def return_model_calls(conn: psycopg.Connection, caller: Caller, prepaid: PrepaidCalls) -> None:
    """Give back the calls a batch did not use, with their holds, and settle the ones it made."""
    if prepaid.day is None or (prepaid.left == 0 and prepaid.delta_usd == 0):
        return
    conn.execute(
        """UPDATE model_call_counts SET calls = greatest(calls - %s, 0),
               cost_usd = greatest(cost_usd + %s::numeric, 0)
           WHERE api_key_id = %s AND tenant_id = %s AND day = %s""",
        (
            prepaid.left,
            _money(prepaid.delta_usd - prepaid.left * prepaid.hold_usd),
            caller.api_key_id,
            caller.tenant_id,
            prepaid.day,
        ),
    )


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


def cost_today(conn: psycopg.Connection, caller: Caller) -> Decimal:
    """The key's spend so far in the current UTC day, holds of calls in flight included."""
    row = conn.execute(
        """SELECT cost_usd FROM model_call_counts
           WHERE api_key_id = %s AND tenant_id = %s AND day = (now() AT TIME ZONE 'UTC')::date""",
        (caller.api_key_id, caller.tenant_id),
    ).fetchone()
    return Decimal(row[0]) if row else Decimal(0)
