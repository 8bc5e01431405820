"""Scheduled upkeep: erasures left running between batches, completed; the tenants' retention periods (aurra_core.write_path.retention, each
erasure with its receipt); after erasures, the VACUUM that takes their old row versions off the
tables' pages and the rebuild of the full-text indexes, and expired Idempotency-Key records
(aurra_core.storage.erasures); large tenants' own HNSW indexes (aurra_core.storage.tenant_indexes)."""

import gc

gc.disable()  # until imports_done() below: aurra_core/runtime/cold_start.py says why

import time
from datetime import UTC, datetime

import psycopg
from aws_lambda_powertools.utilities.typing import LambdaContext
from psycopg import sql

from aurra_core.runtime.cold_start import imports_done
from aurra_core.runtime.config import get_config
from aurra_core.runtime.observability import logger
from aurra_core.storage import erasures
from aurra_core.storage.db import resolve_conninfo
from aurra_core.storage.index_build_requests import TENANT_INDEXES_EVENT
from aurra_core.storage.tenant_indexes import maintain
from aurra_core.write_path import erasure, retention


def _time_left_s(context: LambdaContext) -> float:
    return context.get_remaining_time_in_millis() / 1000


@logger.inject_lambda_context
def lambda_handler(event: dict, context: LambdaContext) -> dict:
    """Invoked by an EventBridge schedule (the event carries nothing it needs), or by the write
    function after a large import (`index_build_requests.TENANT_INDEXES_EVENT`): then the
    tenants' own indexes only, so the import's is built without waiting for the schedule."""
    config = get_config()
    conninfo = resolve_conninfo(config)
    if isinstance(event, dict) and event.get("aurra") == TENANT_INDEXES_EVENT["aurra"]:
        report = _tenant_indexes(conninfo, context)
        logger.info("tenant indexes maintained on request", extra={"report": report})
        return report
    # First the retention periods' erasures and what erasures left behind (a VACUUM is minutes
    # at most), then the indexes, whose calibrations take whatever time is left.
    # Erasures a request left running between batches (it stopped: a timeout) are completed first.
    completed = erasure.complete_abandoned(conninfo, datetime.now(UTC))
    retained = retention.apply_retention(conninfo)
    with psycopg.connect(conninfo, autocommit=True) as conn:
        if config.maintenance_statement_timeout_s:
            conn.execute(
                sql.SQL("SET statement_timeout = {}").format(
                    sql.Literal(f"{config.maintenance_statement_timeout_s}s")
                )
            )
        purged = erasures.purge_expired_idempotency_records(conn, time.time())
        cleaned = erasures.vacuum_after_erasures(conn, reindex_interval_h=config.erasure_reindex_interval_h)
        upkeep = {"idempotency_records_purged": purged, **cleaned}
    report = _tenant_indexes(conninfo, context)
    report["erasures"] = upkeep
    report["retention"] = retained
    report["erasures_completed"] = completed
    logger.info("tenant indexes maintained", extra={"report": report})
    for calibration in report["calibrated"]:
        if not calibration["reached"]:
            logger.warning("an own index stays under the target recall@3", extra={"calibration": calibration})
    return report


def _tenant_indexes(conninfo: str, context: LambdaContext) -> dict:
    config = get_config()
    return maintain(
        conninfo,
        limit=config.tenant_index_limit,
        statement_timeout_s=config.maintenance_statement_timeout_s,
        # Calibrations stop short of the function's timeout (a minute of 15; the next run goes on).
        time_limit_s=_time_left_s(context) - min(60.0, _time_left_s(context) / 10),
    ).as_dict()


imports_done()
