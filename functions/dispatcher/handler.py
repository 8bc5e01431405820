"""The change stream's dispatcher: every minute (an EventBridge schedule), the outbox's events
to the stage's event bus and to the tenants' webhooks (aurra_core.webhooks.dispatcher)."""

import gc

gc.disable()  # until imports_done() below: aurra_core/runtime/cold_start.py says why

from aws_lambda_powertools.utilities.typing import LambdaContext

from aurra_core.runtime.cold_start import imports_done
from aurra_core.runtime.observability import logger, metrics
from aurra_core.webhooks.dispatcher import run


@logger.inject_lambda_context
@metrics.log_metrics
def lambda_handler(event: dict, context: LambdaContext) -> dict:
    """The schedule's event carries nothing it needs."""
    return run(time_left_s=lambda: context.get_remaining_time_in_millis() / 1000)


imports_done()
