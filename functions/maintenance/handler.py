"""Scheduled upkeep of large tenants' own HNSW indexes (aurra_core.storage.tenant_indexes)."""

import gc

gc.disable()  # until imports_done() below: aurra_core/runtime/cold_start.py says why

from aws_lambda_powertools.utilities.typing import LambdaContext

from aurra_core.runtime.cold_start import imports_done
from aurra_core.runtime.config import get_config
from aurra_core.runtime.observability import logger
from aurra_core.storage.db import resolve_conninfo
from aurra_core.storage.tenant_indexes import maintain


def _time_left_s(context: LambdaContext) -> float:
    return context.get_remaining_time_in_millis() / 1000


@logger.inject_lambda_context
def lambda_handler(event: dict, context: LambdaContext) -> dict:
    """Invoked by an EventBridge schedule; the event carries nothing it needs."""
    config = get_config()
    report = maintain(
        resolve_conninfo(config),
        limit=config.tenant_index_limit,
        statement_timeout_s=config.maintenance_statement_timeout_s,
        # Calibrations stop short of the function's timeout (a minute of 15; the next run goes on).
        time_limit_s=_time_left_s(context) - min(60.0, _time_left_s(context) / 10),
    ).as_dict()
    logger.info("tenant indexes maintained", extra={"report": report})
    for calibration in report["calibrated"]:
        if not calibration["reached"]:
            logger.warning("an own index stays under the target recall@3", extra={"calibration": calibration})
    return report


imports_done()
