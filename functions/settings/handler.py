"""GET and PATCH /agent/settings: the calling key's settings."""

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.utilities.typing import LambdaContext

from aurra_core import service
from aurra_core.api import create_app, current_caller, documented, json_response, resolve
from aurra_core.models import KeySettings, SettingsPatch
from aurra_core.observability import logger, metrics, tracer

app = create_app()


@app.get("/agent/settings", responses=documented({200: KeySettings}))
@tracer.capture_method
def get_settings() -> Response[KeySettings]:
    return json_response(200, service.get_settings(current_caller(app)))


@app.patch("/agent/settings", responses=documented({200: KeySettings}))
@tracer.capture_method
def update_settings(body: SettingsPatch) -> Response[KeySettings]:
    return json_response(200, service.update_settings(current_caller(app), body))


@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_REST)
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict, context: LambdaContext) -> dict:
    return resolve(app, event, context)
