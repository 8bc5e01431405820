"""Scheduled upkeep of large tenants' own HNSW indexes (aurra_core.tenant_indexes)."""

from aws_lambda_powertools.utilities.typing import LambdaContext

from aurra_core.config import get_config
from aurra_core.db import resolve_conninfo
from aurra_core.observability import logger
from aurra_core.tenant_indexes import maintain


@logger.inject_lambda_context
def lambda_handler(event: dict, context: LambdaContext) -> dict:
    """Invoked by an EventBridge schedule; the event carries nothing it needs."""
    config = get_config()
    report = maintain(
        resolve_conninfo(config),
        limit=config.tenant_index_limit,
        statement_timeout_s=config.maintenance_statement_timeout_s,
    ).as_dict()
    logger.info("tenant indexes maintained", extra={"report": report})
    return report
