"""The Lambda authorizer: `Authorization: Bearer <key>` -> tenant id and key id.

It allows every route (so API Gateway can cache the answer across routes) and names the
key as the usage identifier, so usage plans meter and throttle per customer key.
"""

import gc

gc.disable()  # until imports_done() below: aurra_core/runtime/cold_start.py says why

from aws_lambda_powertools.utilities.data_classes import event_source
from aws_lambda_powertools.utilities.data_classes.api_gateway_authorizer_event import (
    APIGatewayAuthorizerResponse,
    APIGatewayAuthorizerTokenEvent,
)
from aws_lambda_powertools.utilities.typing import LambdaContext

from aurra_core import service
from aurra_core.errors import Unauthorized
from aurra_core.runtime.cold_start import imports_done
from aurra_core.runtime.observability import logger, tracer

# API Gateway answers 401 only for this exact message; anything else becomes a 500.
UNAUTHORIZED = "Unauthorized"


def _bearer_key(header: str | None) -> str:
    # Only spaces and tabs around the parts: str.strip() also takes \x0b, \x1c or \x85, which
    # must reach the key check, where nothing but the key's own alphabet passes.
    scheme, _, key = (header or "").strip(" \t").partition(" ")
    if scheme.lower() != "bearer" or not key.strip(" \t"):
        raise Unauthorized("missing or malformed Authorization header")
    return key.strip(" \t")


@logger.inject_lambda_context
@tracer.capture_lambda_handler
@event_source(data_class=APIGatewayAuthorizerTokenEvent)
def lambda_handler(event: APIGatewayAuthorizerTokenEvent, context: LambdaContext) -> dict:
    try:
        caller = service.authenticate(_bearer_key(event.authorization_token))
    except Unauthorized as exc:
        logger.info("request refused", extra={"reason": exc.message})
        raise Exception(UNAUTHORIZED) from None  # noqa: TRY002 - the message is API Gateway's protocol
    policy = APIGatewayAuthorizerResponse.from_route_arn(
        event.method_arn,
        principal_id=str(caller.api_key_id),
        context={"tenant_id": str(caller.tenant_id), "api_key_id": str(caller.api_key_id)},
        usage_identifier_key=str(caller.api_key_id),
    )
    policy.allow_all_routes()
    return policy.asdict()


imports_done()
