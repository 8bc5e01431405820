"""GET and PATCH /agent/settings: the calling key's settings; its webhooks' deliveries and replays."""

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
from aurra_core.models import DeliveryListQuery, DeliveryPage, KeySettings, SettingsPatch, WebhookDelivery
from aurra_core.runtime.cold_start import imports_done
from aurra_core.runtime.observability import tracer

app = create_app()


@app.get("/agent/settings", responses=documented({200: KeySettings}))
@tracer.capture_method
def get_settings() -> Response[KeySettings]:
    return json_response(200, service.get_settings(current_caller(app)))


@app.patch("/agent/settings", responses=documented({200: KeySettings}))
@tracer.capture_method
def update_settings(body: SettingsPatch) -> Response[KeySettings]:
    return json_response(200, service.update_settings(current_caller(app), body))


@app.get("/agent/webhooks/deliveries", responses=documented({200: DeliveryPage}))
@tracer.capture_method
def list_deliveries(query: Annotated[DeliveryListQuery, Query()]) -> Response[DeliveryPage]:
    reject_unknown_query(app, DeliveryListQuery)
    return json_response(200, service.list_webhook_deliveries(current_caller(app), query))


@app.post("/agent/webhooks/deliveries/<delivery_id>/replay", responses=documented({202: WebhookDelivery}))
@tracer.capture_method
def replay_delivery(delivery_id: Annotated[UUID, Path()]) -> Response[WebhookDelivery]:
    return json_response(202, service.replay_webhook_delivery(current_caller(app), delivery_id))


lambda_handler = lambda_entry(app)

imports_done()
