"""POST /agent/memories/{id}/supersede: manual supersession (Level 1)."""

from typing import Annotated
from uuid import UUID

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Path
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.utilities.typing import LambdaContext

from aurra_core import service
from aurra_core.api import IdempotencyKey, create_app, current_caller, documented, json_response, resolve
from aurra_core.models import SupersedeRequest, SupersedeResult
from aurra_core.observability import logger, metrics, tracer

app = create_app()


@app.post("/agent/memories/<memory_id>/supersede", status_code=201, responses=documented({201: SupersedeResult}, 409))
@tracer.capture_method
def supersede_memory(memory_id: Annotated[UUID, Path()], body: SupersedeRequest,
                     idempotency_key: IdempotencyKey = None) -> Response[SupersedeResult]:
    return json_response(*service.supersede(current_caller(app), memory_id, body, idempotency_key))


@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_REST)
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict, context: LambdaContext) -> dict:
    return resolve(app, event, context)
