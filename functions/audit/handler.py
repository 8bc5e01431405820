"""GET /agent/audit[/{id}]: the append-only audit trail."""

from typing import Annotated
from uuid import UUID

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Path, Query
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.utilities.typing import LambdaContext

from aurra_core import service
from aurra_core.api import IdempotencyKey, create_app, current_caller, documented, json_response, reject_unknown_query, resolve
from aurra_core.models import AuditEvent, AuditPage, RevertResult
from aurra_core.queries import AuditListQuery
from aurra_core.observability import logger, metrics, tracer

app = create_app()


@app.get("/agent/audit", responses=documented({200: AuditPage}))
@tracer.capture_method
def list_audit_events(query: Annotated[AuditListQuery, Query()]) -> Response[AuditPage]:
    reject_unknown_query(app, AuditListQuery)
    return json_response(200, service.list_audit_events(current_caller(app), query))


@app.get("/agent/audit/<event_id>", responses=documented({200: AuditEvent}))
@tracer.capture_method
def get_audit_event(event_id: Annotated[UUID, Path()]) -> Response[AuditEvent]:
    return json_response(200, service.get_audit_event(current_caller(app), event_id))


@app.post("/agent/audit/<event_id>/revert", responses=documented({200: RevertResult}, 409))
@tracer.capture_method
def revert_supersession(event_id: Annotated[UUID, Path()], idempotency_key: IdempotencyKey = None) -> Response[RevertResult]:
    return json_response(*service.revert(current_caller(app), event_id, idempotency_key))


@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_REST)
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict, context: LambdaContext) -> dict:
    return resolve(app, event, context)
