"""Idempotency-Key: Powertools' Idempotency utility on a persistence layer of our own in
PostgreSQL, so a retried write never writes twice and no second datastore is needed."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from contextvars import ContextVar
from functools import cache
from typing import Any
from uuid import UUID

import psycopg
from aws_lambda_powertools.utilities.idempotency import IdempotencyConfig
from aws_lambda_powertools.utilities.idempotency.exceptions import (
    IdempotencyAlreadyInProgressError,
    IdempotencyItemAlreadyExistsError,
    IdempotencyItemNotFoundError,
    IdempotencyPersistenceLayerError,
    IdempotencyValidationError,
)
from aws_lambda_powertools.utilities.idempotency.persistence.base import BasePersistenceLayer
from aws_lambda_powertools.utilities.idempotency.persistence.datarecord import DataRecord
from psycopg.rows import dict_row

from aurra_core.errors import Conflict, ServiceUnavailable
from aurra_core.models import Caller
from aurra_core.runtime import invocation
from aurra_core.runtime.observability import logger
from aurra_core.runtime.powertools_internals import run_idempotent, validate_payload
from aurra_core.storage import erasures, idempotency_claim, store
from aurra_core.storage.db import Database, get_database

EXPIRES_AFTER_S = 24 * 3600
# A call that committed but could not record its answer (the database went away just after the
# commit) tries again on a fresh connection, until its invocation would time out (the claim's
# in-progress expiry) less a moment to answer in, or for this long when it has no time limit.
# Its record is marked committed, so it is never run again: without its answer every retry of
# the key would be told "in progress" until the record expires, a day later.
RECORD_ANSWER_FOR_S = 30.0
ANSWER_MARGIN_S = 1.0

# The tenant of the call in progress in this context: its record names it (an erasure of the
# whole tenant deletes them all).
_tenant: ContextVar[UUID | None] = ContextVar("aurra_idempotency_tenant", default=None)
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")

_CONFIG = IdempotencyConfig(
    event_key_jmespath="[tenant_id, key]",
    payload_validation_jmespath="body",
    raise_on_no_idempotency_key=True,
    expires_after_seconds=EXPIRES_AFTER_S,
    use_local_cache=False,
)


class PostgresPersistenceLayer(BasePersistenceLayer):
    def __init__(self, db: Callable[[], Database] = get_database) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # Powertools does not annotate it
        self._db = db

    @staticmethod
    def _record(row: dict[str, Any]) -> DataRecord:
        return DataRecord(
            idempotency_key=row["idempotency_key"],
            status=row["status"],
            expiry_timestamp=row["expiry"],
            in_progress_expiry_timestamp=row["in_progress_expiry"],
            response_data=row["response_data"],
            payload_hash=row["payload_hash"],
        )

    def _get_record(self, idempotency_key: str) -> DataRecord:
        with self._db().tenant_transaction(None) as conn, conn.cursor(row_factory=dict_row) as cur:
            cur.execute("SELECT * FROM idempotency_records WHERE idempotency_key = %s", (idempotency_key,))
            row = cur.fetchone()
        if row is None:
            raise IdempotencyItemNotFoundError
        return self._record(row)

    def _put_record(self, data_record: DataRecord) -> None:
        now = time.time()
        # One statement decides: a new key, an expired record or a stale in-progress one is
        # (re)claimed; anything else is left alone and reported back to the caller.
        with self._db().tenant_transaction(None) as conn, conn.cursor(row_factory=dict_row) as cur:
            cur.execute(
                """INSERT INTO idempotency_records AS r
                       (idempotency_key, status, expiry, in_progress_expiry, payload_hash, response_data, tenant_id)
                   VALUES (%(key)s, %(status)s, %(expiry)s, %(in_progress_expiry)s, %(payload_hash)s, NULL,
                           %(tenant_id)s)
                   ON CONFLICT (idempotency_key) DO UPDATE
                       SET status = EXCLUDED.status, expiry = EXCLUDED.expiry,
                           in_progress_expiry = EXCLUDED.in_progress_expiry,
                           payload_hash = EXCLUDED.payload_hash, response_data = NULL,
                           created_at = clock_timestamp(), tenant_id = EXCLUDED.tenant_id
                       WHERE r.expiry < %(now)s
                          OR (r.status = 'INPROGRESS' AND r.in_progress_expiry IS NOT NULL
                              AND r.in_progress_expiry < %(now_ms)s)
                   RETURNING idempotency_key""",
                {
                    "key": data_record.idempotency_key,
                    "status": data_record.status,
                    "expiry": data_record.expiry_timestamp,
                    "in_progress_expiry": data_record.in_progress_expiry_timestamp,
                    "payload_hash": data_record.payload_hash,
                    "now": int(now),
                    "now_ms": int(now * 1000),
                    "tenant_id": _tenant.get(),
                },
            )
            if cur.fetchone() is not None:
                # The call's writing transaction commits this record with its write.
                idempotency_claim.claim(data_record.idempotency_key, data_record.in_progress_expiry_timestamp)
                return
            cur.execute(
                "SELECT * FROM idempotency_records WHERE idempotency_key = %s", (data_record.idempotency_key,)
            )
            existing = cur.fetchone()
        old = self._record(existing) if existing else None
        if old is not None:
            validate_payload(self, data_record, old)
        raise IdempotencyItemAlreadyExistsError(old_data_record=old)

    def _update_record(self, data_record: DataRecord) -> None:
        tenant_id = _tenant.get()
        with self._db().tenant_transaction(tenant_id) as conn:
            if tenant_id is not None and data_record.response_data:
                # The call's answer is stored after its write committed, in a transaction of its
                # own: an erasure may have come in between (it found this record still without
                # an answer). Under the tenant's write lock an erasure is wholly before or after
                # this; an answer naming a memory erased before is not stored (a retry runs
                # again), one stored before is deleted by the erasure.
                store.hold_write_lock(conn, tenant_id)
                named = [UUID(found) for found in set(_UUID.findall(data_record.response_data))]
                if erasures.erased_among(conn, tenant_id, named):
                    conn.execute(
                        "DELETE FROM idempotency_records WHERE idempotency_key = %s",
                        (data_record.idempotency_key,),
                    )
                    return
            conn.execute(
                """UPDATE idempotency_records SET status = %s, expiry = %s, response_data = %s, payload_hash = %s
                   WHERE idempotency_key = %s""",
                (
                    data_record.status,
                    data_record.expiry_timestamp,
                    data_record.response_data,
                    data_record.payload_hash,
                    data_record.idempotency_key,
                ),
            )

    def _delete_record(self, data_record: DataRecord) -> None:
        # The call failed: free the key so the client's retry can run it again. Only the
        # record as this call claimed it: not one its write committed (the commit went through
        # though the call saw an error), nor one a retry has taken over since.
        claimed = idempotency_claim.current()
        with self._db().tenant_transaction(None) as conn:
            if claimed is not None and claimed[0] == data_record.idempotency_key:
                conn.execute(
                    """DELETE FROM idempotency_records WHERE idempotency_key = %s
                                AND in_progress_expiry IS NOT DISTINCT FROM %s::bigint""",
                    claimed,
                )
            else:
                conn.execute(
                    "DELETE FROM idempotency_records WHERE idempotency_key = %s",
                    (data_record.idempotency_key,),
                )


@cache
def _persistence(operation: str) -> PostgresPersistenceLayer:
    # One layer per operation: Powertools keeps the key prefix on the layer instance.
    return PostgresPersistenceLayer()


def run_once(
    operation: str, caller: Caller, key: str | None, body: Any, call: Callable[[], dict[str, Any]]
) -> dict[str, Any]:
    """Run `call` once per (tenant, operation, key); a retry with the same body gets the first
    response, a different body or a request still in progress gets a 409."""
    if key is None:
        return call()
    context = invocation.get_context()
    if context is not None:  # an in-progress record expires when the invocation would time out
        _CONFIG.register_lambda_context(context)
    done: dict[str, Any] = {}
    idempotency_claim.clear()
    tenant = _tenant.set(caller.tenant_id)

    def call_and_keep() -> dict[str, Any]:
        response = call()
        done["response"] = response
        return response

    payload = {"tenant_id": str(caller.tenant_id), "key": key, "body": body}
    try:
        return run_idempotent(  # type: ignore[no-any-return]
            call_and_keep,
            payload,
            config=_CONFIG,
            persistence_store=_persistence(operation),
            key_prefix=f"aurra.{operation}",
        )
    except IdempotencyValidationError as exc:
        raise Conflict("this Idempotency-Key was already used with a different request body") from exc
    except IdempotencyAlreadyInProgressError as exc:
        raise Conflict("a request with this Idempotency-Key is still in progress; retry shortly") from exc
    except IdempotencyPersistenceLayerError as exc:
        if "response" in done:
            # The call committed; only recording its answer failed (the database went away
            # just after). Record it again once the database answers, then say what happened
            # (an error would invite a retry, and the retry needs the answer recorded).
            committed: dict[str, Any] = done["response"]
            if not _record_answer(operation, payload, committed):
                logger.warning("idempotency record not completed", extra={"operation": operation})
            return committed
        if isinstance(exc.__cause__, (ServiceUnavailable, psycopg.OperationalError)):
            raise ServiceUnavailable("the database is not reachable right now; retry shortly") from exc
        raise
    finally:
        idempotency_claim.clear()
        _tenant.reset(tenant)


def _record_answer(operation: str, payload: dict[str, Any], response: dict[str, Any]) -> bool:
    """Record a committed call's answer on its key, retrying while the database is unreachable
    (each try borrows a connection afresh: the one that failed was cut), within the call's time
    (RECORD_ANSWER_FOR_S); whether it was recorded."""
    claimed = idempotency_claim.current()
    until = time.time() + RECORD_ANSWER_FOR_S
    if claimed is not None and claimed[1] is not None:
        until = min(until, claimed[1] / 1000 - ANSWER_MARGIN_S)
    delay, tries = 0.05, 1
    while True:
        tries += 1
        try:
            _persistence(operation).save_success(data=payload, result=response)
            logger.info("idempotency answer recorded again", extra={"operation": operation, "tries": tries})
            return True
        except (ServiceUnavailable, psycopg.OperationalError):
            if time.time() + delay > until:
                return False
            time.sleep(delay)
            delay = min(delay * 2, 1.0)
        except Exception:  # noqa: BLE001 - the call committed: answer it, whatever went wrong here
            logger.exception("idempotency answer not recorded", extra={"operation": operation})
            return False
