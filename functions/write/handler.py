"""POST /agent/memories: store a fact, with automatic supersession when asked for."""

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.utilities.typing import LambdaContext

from aurra_core import service
from aurra_core.api import IdempotencyKey, create_app, current_caller, documented, json_response, resolve
from aurra_core.models import WriteRequest, WriteResult
from aurra_core.observability import logger, metrics, tracer

app = create_app()


@app.post("/agent/memories", status_code=201, responses=documented({201: WriteResult, 200: WriteResult}, 409))
@tracer.capture_method
def write_memory(body: WriteRequest, idempotency_key: IdempotencyKey = None) -> Response[WriteResult]:
    return json_response(*service.write(current_caller(app), body, idempotency_key))


@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_REST)
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict, context: LambdaContext) -> dict:
    return resolve(app, event, context)
