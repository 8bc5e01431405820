"""GET and PATCH /agent/settings: the calling key's settings."""

import gc

gc.disable()  # until imports_done() below: aurra_core/runtime/cold_start.py says why

from aws_lambda_powertools.event_handler import Response

from aurra_core import service
from aurra_core.api.handlers import create_app, current_caller, documented, json_response, lambda_entry
from aurra_core.models import KeySettings, SettingsPatch
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


lambda_handler = lambda_entry(app)

imports_done()
