"""GET /agent/memories[/{id}[/history]]: list, search, get and history on both time axes."""

import gc

gc.disable()  # until imports_done() below: aurra_core/runtime/cold_start.py says why

from typing import Annotated
from uuid import UUID

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Path, Query

from aurra_core import service
from aurra_core.api.handlers import (
    create_app,
    current_caller,
    documented,
    json_response,
    lambda_entry,
    reject_unknown_query,
)
from aurra_core.models import History, Memory, MemoryListQuery, MemoryPage, PointInTime
from aurra_core.runtime.cold_start import imports_done
from aurra_core.runtime.observability import tracer

app = create_app()


@app.get("/agent/memories", responses=documented({200: MemoryPage}))
@tracer.capture_method
def list_memories(query: Annotated[MemoryListQuery, Query()]) -> Response[MemoryPage]:
    reject_unknown_query(app, MemoryListQuery)
    return json_response(200, service.list_memories(current_caller(app), query))


@app.get("/agent/memories/<memory_id>", responses=documented({200: Memory}, 410))
@tracer.capture_method
def get_memory(memory_id: Annotated[UUID, Path()], when: Annotated[PointInTime, Query()]) -> Response[Memory]:
    reject_unknown_query(app, PointInTime)
    return json_response(200, service.get_memory(current_caller(app), memory_id, when))


@app.get("/agent/memories/<memory_id>/history", responses=documented({200: History}, 410))
@tracer.capture_method
def memory_history(
    memory_id: Annotated[UUID, Path()], when: Annotated[PointInTime, Query()]
) -> Response[History]:
    reject_unknown_query(app, PointInTime)
    return json_response(200, service.memory_history(current_caller(app), memory_id, when))


lambda_handler = lambda_entry(app)

imports_done()
