"""POST /agent/memories: store a fact, or the facts of a conversation, with automatic
supersession when asked for."""

from aws_lambda_powertools.event_handler import Response

from aurra_core import service
from aurra_core.api import IdempotencyKey, create_app, current_caller, documented, json_response, lambda_entry
from aurra_core.models import MessagesWriteResult, WriteBody, WriteResult
from aurra_core.observability import tracer

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
def write_memory(
    body: WriteBody, idempotency_key: IdempotencyKey = None
) -> Response[WriteResult | MessagesWriteResult]:
    return json_response(*service.write_memory(current_caller(app), body, idempotency_key))


lambda_handler = lambda_entry(app)
