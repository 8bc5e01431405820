"""Asynchronous Level 2's worker: each SQS message names a job (written with its memory by a
write); the job is claimed, decided and recorded (aurra_core.level2_jobs). A message that fails
is reported as a partial batch failure, so the queue redelivers it alone (and after its
retries, to the dead-letter queue); a decision is applied once whatever the redelivery.
Invoked by the schedule instead, it is the sweeper: pending jobs nobody holds whose message was
lost are sent to the queue again."""

import gc

gc.disable()  # until imports_done() below: aurra_core/runtime/cold_start.py says why

from typing import Any

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.typing import LambdaContext

from aurra_core import service
from aurra_core.models import Level2JobMessage
from aurra_core.runtime.cold_start import imports_done
from aurra_core.runtime.observability import logger

service.load_write_path()
processor = BatchProcessor(event_type=EventType.SQS)


def record_handler(record: SQSRecord) -> None:
    message = Level2JobMessage.model_validate_json(record.body)
    outcome = service.run_level2_job(message.job_id, message.tenant_id)
    logger.info("level 2 job", extra={"job_id": str(message.job_id), "outcome": outcome or "nothing to do"})


@logger.inject_lambda_context
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    if "Records" in event:
        # A job's classification has a time limit: the classifier's SDK is loaded before the
        # first job, not within its limit (which would end it `classifier_error`, for good).
        service.warm_up_level2_worker()
        return process_partial_response(
            event=event, record_handler=record_handler, processor=processor, context=context
        )
    nudged = service.sweep_level2_jobs()
    logger.info("level 2 sweep", extra={"nudged": nudged})
    return {"nudged": nudged}


imports_done()
