"""POST /agent/memories/{id}/supersede: manual supersession (Level 1)."""

import gc

gc.disable()  # until imports_done() below: aurra_core/runtime/cold_start.py says why

from typing import Annotated
from uuid import UUID

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Path

from aurra_core import service
from aurra_core.api.handlers import (
    IdempotencyKey,
    create_app,
    current_caller,
    documented,
    json_response,
    lambda_entry,
)
from aurra_core.models import SupersedeRequest, SupersedeResult
from aurra_core.runtime.cold_start import imports_done
from aurra_core.runtime.observability import tracer

app = create_app()


@app.post(
    "/agent/memories/<memory_id>/supersede",
    status_code=201,
    responses=documented({201: SupersedeResult}, 409, 410),
)
@tracer.capture_method
def supersede_memory(
    memory_id: Annotated[UUID, Path()], body: SupersedeRequest, idempotency_key: IdempotencyKey = None
) -> Response[SupersedeResult]:
    return json_response(*service.supersede_memory(current_caller(app), memory_id, body, idempotency_key))


lambda_handler = lambda_entry(app)

imports_done()
