"""GET /agent/memories[/{id}[/history]]: list, search, get and history on both time axes."""

from typing import Annotated
from uuid import UUID

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Path, Query
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.utilities.typing import LambdaContext

from aurra_core import service
from aurra_core.api import create_app, current_caller, documented, json_response, reject_unknown_query, resolve
from aurra_core.models import History, Memory, MemoryPage
from aurra_core.queries import MemoryListQuery, PointInTime
from aurra_core.observability import logger, metrics, tracer

app = create_app()


@app.get("/agent/memories", responses=documented({200: MemoryPage}))
@tracer.capture_method
def list_memories(query: Annotated[MemoryListQuery, Query()]) -> Response[MemoryPage]:
    reject_unknown_query(app, MemoryListQuery)
    return json_response(200, service.list_memories(current_caller(app), query))


@app.get("/agent/memories/<memory_id>", responses=documented({200: Memory}))
@tracer.capture_method
def get_memory(memory_id: Annotated[UUID, Path()], when: Annotated[PointInTime, Query()]) -> Response[Memory]:
    reject_unknown_query(app, PointInTime)
    return json_response(200, service.get_memory(current_caller(app), memory_id, when))


@app.get("/agent/memories/<memory_id>/history", responses=documented({200: History}))
@tracer.capture_method
def memory_history(memory_id: Annotated[UUID, Path()], when: Annotated[PointInTime, Query()]) -> Response[History]:
    reject_unknown_query(app, PointInTime)
    return json_response(200, service.memory_history(current_caller(app), memory_id, when))


@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_REST)
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict, context: LambdaContext) -> dict:
    return resolve(app, event, context)
