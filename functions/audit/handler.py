"""GET /agent/audit[/{id}]: the append-only audit trail; reverts, and the review queue's
approvals and dismissals. GET /agent/events: the change stream, in commit order. GET
/agent/jobs[/{id}]: asynchronous Level 2's decisions, pending and done."""

import gc

gc.disable()  # until imports_done() below: aurra_core/runtime/cold_start.py says why

from typing import Annotated
from uuid import UUID

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Path, Query

from aurra_core import service
from aurra_core.api.handlers import (
    IdempotencyKey,
    create_app,
    current_caller,
    documented,
    json_response,
    lambda_entry,
    reject_unknown_query,
)
from aurra_core.models import (
    ApproveResult,
    AuditEvent,
    AuditListQuery,
    AuditPage,
    DismissResult,
    EventListQuery,
    EventPage,
    JobListQuery,
    JobPage,
    Level2Job,
    RevertResult,
)
from aurra_core.runtime.cold_start import imports_done
from aurra_core.runtime.observability import tracer

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


@app.post("/agent/audit/<event_id>/revert", responses=documented({200: RevertResult}, 409, 410))
@tracer.capture_method
def revert_supersession(
    event_id: Annotated[UUID, Path()], idempotency_key: IdempotencyKey = None
) -> Response[RevertResult]:
    return json_response(*service.revert_supersession(current_caller(app), event_id, idempotency_key))


@app.post("/agent/audit/<event_id>/approve", responses=documented({201: ApproveResult}, 409, 410))
@tracer.capture_method
def approve_proposal(
    event_id: Annotated[UUID, Path()], idempotency_key: IdempotencyKey = None
) -> Response[ApproveResult]:
    return json_response(*service.approve_proposal(current_caller(app), event_id, idempotency_key))


@app.post("/agent/audit/<event_id>/dismiss", responses=documented({200: DismissResult}, 409))
@tracer.capture_method
def dismiss_proposal(
    event_id: Annotated[UUID, Path()], idempotency_key: IdempotencyKey = None
) -> Response[DismissResult]:
    return json_response(*service.dismiss_proposal(current_caller(app), event_id, idempotency_key))


@app.get("/agent/events", responses=documented({200: EventPage}))
@tracer.capture_method
def list_events(query: Annotated[EventListQuery, Query()]) -> Response[EventPage]:
    reject_unknown_query(app, EventListQuery)
    return json_response(200, service.list_events(current_caller(app), query))


@app.get("/agent/jobs", responses=documented({200: JobPage}))
@tracer.capture_method
def list_jobs(query: Annotated[JobListQuery, Query()]) -> Response[JobPage]:
    reject_unknown_query(app, JobListQuery)
    return json_response(200, service.list_jobs(current_caller(app), query))


@app.get("/agent/jobs/<job_id>", responses=documented({200: Level2Job}))
@tracer.capture_method
def get_job(job_id: Annotated[UUID, Path()]) -> Response[Level2Job]:
    return json_response(200, service.get_job(current_caller(app), job_id))


lambda_handler = lambda_entry(app)

imports_done()
