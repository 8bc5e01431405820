"""POST /agent/erasures and GET /agent/erasures/{id}: erase memories, with a receipt."""

import gc

gc.disable()  # until imports_done() below: aurra_core/runtime/cold_start.py says why

from typing import Annotated
from uuid import UUID

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Path

from aurra_core import service
from aurra_core.api.handlers import create_app, current_caller, documented, json_response, lambda_entry
from aurra_core.models import ErasureReceipt, ErasureRequest
from aurra_core.runtime.cold_start import imports_done
from aurra_core.runtime.observability import tracer

app = create_app()


@app.post(
    "/agent/erasures",
    status_code=201,
    responses=documented({201: ErasureReceipt, 200: ErasureReceipt, 202: ErasureReceipt}, 410),
)
@tracer.capture_method
def create_erasure(body: ErasureRequest) -> Response[ErasureReceipt]:
    return json_response(*service.create_erasure(current_caller(app), body))


@app.get("/agent/erasures/<erasure_id>", responses=documented({200: ErasureReceipt}))
@tracer.capture_method
def get_erasure(erasure_id: Annotated[UUID, Path()]) -> Response[ErasureReceipt]:
    return json_response(200, service.get_erasure(current_caller(app), erasure_id))


lambda_handler = lambda_entry(app)

imports_done()
