"""POST /agent/memories: store a fact, or the facts of a conversation, with automatic
supersession when asked for; POST /agent/memories/batch: up to 100 facts as one unit;
POST /agent/imports and /agent/imports/index: a large import's index, deferred to its end."""

import gc

gc.disable()  # until imports_done() below: aurra_core/runtime/cold_start.py says why

from typing import Any

from aws_lambda_powertools.event_handler import Response

from aurra_core import service
from aurra_core.api.handlers import (
    IdempotencyKey,
    create_app,
    current_caller,
    documented,
    json_response,
    lambda_entry,
)
from aurra_core.models import (
    BatchWriteRequest,
    BatchWriteResult,
    ImportAnnouncement,
    ImportIndexing,
    MessagesWriteResult,
    WriteBody,
    WriteResult,
)
from aurra_core.runtime.cold_start import imports_done
from aurra_core.runtime.observability import tracer

service.load_write_path()
app = create_app()


@app.post(
    "/agent/memories",
    status_code=201,
    responses=documented(
        {201: WriteResult | MessagesWriteResult, 200: WriteResult | MessagesWriteResult}, 409
    ),
)
@tracer.capture_method
# Response[Any], not the union: the body is already a validated model's dump (json_response),
# and Powertools would build a validator of the union for it on the first request (~2 ms of a
# cold start) and run the body through it again on every request; the document takes both
# shapes from `responses`.
def write_memory(body: WriteBody, idempotency_key: IdempotencyKey = None) -> Response[Any]:
    return json_response(*service.write_memory(current_caller(app), body, idempotency_key))


@app.post("/agent/memories/batch", status_code=201, responses=documented({201: BatchWriteResult}, 409))
@tracer.capture_method
def write_batch(body: BatchWriteRequest, idempotency_key: IdempotencyKey = None) -> Response[Any]:
    return json_response(*service.write_batch(current_caller(app), body, idempotency_key))


@app.post("/agent/imports", responses=documented({200: ImportIndexing}))
@tracer.capture_method
def announce_import(body: ImportAnnouncement) -> Response[ImportIndexing]:
    return json_response(200, service.announce_import(current_caller(app), body))


@app.post("/agent/imports/index", responses=documented({200: ImportIndexing, 202: ImportIndexing}))
@tracer.capture_method
def build_import_index() -> Response[ImportIndexing]:
    return json_response(*service.build_import_index(current_caller(app)))


@app.get("/agent/imports/index", responses=documented({200: ImportIndexing}))
@tracer.capture_method
def import_indexing() -> Response[ImportIndexing]:
    return json_response(200, service.import_indexing_state(current_caller(app)))


lambda_handler = lambda_entry(app)

imports_done()
