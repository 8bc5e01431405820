"""GET /agent/memories[/{id}[/history]]: list, search, get and history on both time axes;
GET /agent/export: everything the tenant recorded, as NDJSON."""

import gc

gc.disable()  # until imports_done() below: aurra_core/runtime/cold_start.py says why

from typing import Annotated
from uuid import UUID

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Path, Query

from aurra_core import service
from aurra_core.api.handlers import (
    RESPONSE_HEADERS,
    create_app,
    current_caller,
    documented,
    json_response,
    lambda_entry,
    reject_unknown_query,
)
from aurra_core.models import ExportQuery, History, Memory, MemoryListQuery, MemoryPage, PointInTime
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


NDJSON = "application/x-ndjson"


@app.get(
    "/agent/export",
    responses={
        **documented({}),
        200: {
            "description": 'OK: one JSON object per line, the last one {"kind": "end", "next_cursor": ...}',
            "content": {NDJSON: {"schema": {"type": "string"}}},
        },
    },
)
@tracer.capture_method
def export(query: Annotated[ExportQuery, Query()]) -> Response[str]:
    reject_unknown_query(app, ExportQuery)
    body = service.export(current_caller(app), query)
    return Response(status_code=200, content_type=NDJSON, body=body, headers=dict(RESPONSE_HEADERS))


lambda_handler = lambda_entry(app)

imports_done()
