"""What every HTTP handler shares: the resolver, the caller from the authorizer's context,
the checks that run before routing, and the one place domain errors become the envelope."""

import base64
import json
import traceback
from collections.abc import Callable
from typing import Annotated, Any

import psycopg
from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response, content_types
from aws_lambda_powertools.event_handler.exceptions import NotFoundError
from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError
from aws_lambda_powertools.event_handler.openapi.params import Header
from aws_lambda_powertools.logging import correlation_paths
from pydantic import BaseModel

from aurra_core.errors import (
    AurraError,
    BadRequest,
    BudgetExhausted,
    PayloadTooLarge,
    ServiceUnavailable,
    Unauthorized,
    ValidationFailed,
)
from aurra_core.metering.budget import seconds_until_budget_resets
from aurra_core.models import Caller, build_models
from aurra_core.request_json import parse_body
from aurra_core.runtime import invocation
from aurra_core.runtime.config import get_config
from aurra_core.runtime.observability import logger, metrics, tracer
from aurra_core.runtime.powertools_internals.resolver import PerThreadResolver


class ErrorBody(BaseModel):
    code: str
    message: str
    details: list[dict[str, Any]]


class ErrorEnvelope(BaseModel):
    """Every non-2xx body of the API."""

    error: ErrorBody


_ERROR_DESCRIPTIONS = {
    400: "The body is not JSON",
    401: "Missing or invalid API key",
    404: "Not found, or not this tenant's",
    408: "The request head did not arrive whole within aurra dev's --header-timeout (aurra dev only)",
    409: "Conflict with the current state, or a reused Idempotency-Key",
    410: "Gone: the memory was erased (details name the erasure)",
    413: "The body is too large",
    422: "Validation failed (validation_error), or a write carries credentials its key's secrets setting refuses (sensitive_content)",
    429: "Rate limited",
    431: "Request headers over 32 KiB (aurra dev; API Gateway refuses them before any handler)",
    500: "Internal error",
    503: "The database or fact extraction is unavailable; nothing was written; retry after Retry-After seconds",
}


def documented(success: dict[int, Any], *errors: int) -> dict[int, dict[str, Any]]:
    """A route's OpenAPI responses, for `responses=`: its successes (a model, or a union of
    models when a route answers in more than one shape) and every error it can give."""
    responses: dict[int, dict[str, Any]] = {
        code: {
            "description": {200: "OK", 202: "Accepted"}.get(code, "Created"),
            "content": {"application/json": {"model": model}},
        }
        for code, model in success.items()
    }
    for code in sorted({400, 401, 404, 408, 413, 422, 429, 431, 500, 503, *errors}):
        responses[code] = {
            "description": _ERROR_DESCRIPTIONS[code],
            "content": {"application/json": {"model": ErrorEnvelope}},
        }
    return responses


# The optional header that makes a retried write, supersede or revert run only once.
IdempotencyKey = Annotated[str | None, Header(alias="Idempotency-Key", min_length=1, max_length=128)]


# On every answer of the API: a tenant's data is never cached by a browser or a proxy, and a
# browser never sniffs a JSON body into something it would run.
RESPONSE_HEADERS = {"X-Content-Type-Options": "nosniff", "Cache-Control": "no-store"}


def envelope(
    status: int,
    code: str,
    message: str,
    details: list[dict[str, Any]] | None = None,
    headers: dict[str, str] | None = None,
) -> Response[str]:
    return Response(
        status_code=status,
        content_type=content_types.APPLICATION_JSON,
        body=json.dumps({"error": {"code": code, "message": message, "details": details or []}}),
        headers={**RESPONSE_HEADERS, **(headers or {})},
    )


def json_response(status: int, model: BaseModel) -> Response[Any]:
    return Response(
        status_code=status,
        content_type=content_types.APPLICATION_JSON,
        body=model.model_dump(mode="json"),
        headers=dict(RESPONSE_HEADERS),
    )


def _problem(error: dict[str, Any]) -> tuple[str, str]:
    loc = [str(part) for part in error.get("loc", ()) if part not in ("body", "query", "path")]
    if len(loc) > 1 and loc[0] in ("facts", "webhooks") and loc[1].isdigit():
        # A batch's fact and a key's webhook are named as the client indexes them (and as the
        # checks made after validation name them): facts[3].content, webhooks[0].url.
        loc[:2] = [f"{loc[0]}[{loc[1]}]"]
    message = str(error.get("msg", "invalid value")).removeprefix("Value error, ")
    return ".".join(loc) or "body", message


def _domain_error(exc: AurraError) -> Response[str]:
    headers = None
    if isinstance(exc, ServiceUnavailable):
        headers = {"Retry-After": "2"}
    elif isinstance(exc, BudgetExhausted):
        # A daily budget comes back at 00:00 UTC.
        headers = {"Retry-After": str(seconds_until_budget_resets())}
    return envelope(exc.status_code, exc.code, exc.message, exc.details, headers)


def _validation_error(exc: RequestValidationError) -> Response[str]:
    errors = exc.errors()
    if any(e.get("type") == "json_invalid" for e in errors):
        return envelope(400, "bad_request", "request body is not valid JSON")
    details = []
    for error in errors:
        field, problem = _problem(error)
        details.append({"field": field, "problem": problem})
    first = details[0] if details else {"field": "body", "problem": "invalid request"}
    message = first["problem"] if first["problem"] != "Field required" else f"{first['field']} is required"
    if first["problem"] == "Extra inputs are not permitted":
        message = f"unknown field: {first['field']}"
    return envelope(422, "validation_error", message, details)


def _route_not_found(_: NotFoundError) -> Response[str]:
    return envelope(404, "not_found", "no such route")


def _database_unavailable(exc: psycopg.OperationalError) -> Response[str]:
    logger.warning("database unavailable", extra={"error": type(exc).__name__})
    return envelope(
        503,
        "unavailable",
        "the database is not reachable right now; retry shortly",
        headers={"Retry-After": "2"},
    )


def _unexpected(exc: Exception) -> Response[str]:
    # Where it failed, never what it said: an error's message can quote a request's content or
    # a stored row (a constraint's "Failing row contains (...)", a model's validation input).
    logger.error(
        "unhandled error",
        extra={"error": type(exc).__name__, "traceback": traceback.format_tb(exc.__traceback__)[-8:]},
    )
    return envelope(500, "internal", "internal error")


# Every foreign key of the schema names the caller: its tenant (`<table>_tenant_id_fkey`) or
# its API key (`<table>_api_key_id_fkey`); tests/integration/test_tenancy.py holds the schema
# to that. A statement that breaks one was made for a caller that does not exist, which the
# authorizer never passes on but an event written by hand can (the events/ fixtures under
# `aurra invoke`, as shipped): the same 404 as a read of that key's settings.
_CALLER_FOREIGN_KEYS = ("_tenant_id_fkey", "_api_key_id_fkey")


def _unknown_caller(exc: psycopg.errors.ForeignKeyViolation) -> Response[str]:
    constraint = exc.diag.constraint_name or ""
    if not constraint.endswith(_CALLER_FOREIGN_KEYS):
        return _unexpected(exc)
    logger.warning("no such tenant or API key", extra={"constraint": constraint})
    return envelope(404, "not_found", "API key not found")


def create_app() -> APIGatewayRestResolver:
    # Bodies are parsed by parse_body: objects only, nesting bounded, numbers kept checkable.
    app = PerThreadResolver(enable_validation=True, json_body_deserializer=parse_body)
    # Each route's models built before Powertools builds its validation adapters on the
    # route's first call, which then reuse them (models.build_models says why).
    app.prepare_route = build_models
    app.exception_handler(AurraError)(_domain_error)
    app.exception_handler(RequestValidationError)(_validation_error)
    app.exception_handler(psycopg.OperationalError)(_database_unavailable)
    app.exception_handler(psycopg.errors.ForeignKeyViolation)(_unknown_caller)
    app.exception_handler(Exception)(_unexpected)
    app.not_found(_route_not_found)
    return app


def current_caller(app: APIGatewayRestResolver) -> Caller:
    """The tenant and key the authorizer resolved; API Gateway passes them in the request context."""
    context = (app.current_event.raw_event.get("requestContext") or {}).get("authorizer") or {}
    try:
        return Caller(tenant_id=context["tenant_id"], api_key_id=context["api_key_id"])
    except (KeyError, ValueError) as exc:
        raise Unauthorized("missing or invalid API key") from exc


def reject_unknown_query(app: APIGatewayRestResolver, model: type[BaseModel] | None = None) -> None:
    """A query parameter the route does not take is a 422, not silently ignored (a typo such as
    `asof=` would otherwise answer a different question than the caller asked)."""
    allowed = set(model.model_fields) if model else set()
    unknown = sorted(set(app.current_event.query_string_parameters or {}) - allowed)
    if unknown:
        raise ValidationFailed(
            f"unknown query parameter: {unknown[0]!r}",
            [{"field": name, "problem": "unknown query parameter"} for name in unknown],
        )


def _precheck(event: dict[str, Any]) -> None:
    body = event.get("body")
    if not body:
        return
    raw = body.encode("utf-8", "surrogatepass") if isinstance(body, str) else body
    if event.get("isBase64Encoded"):
        try:
            raw = base64.b64decode(raw, validate=True)
        except ValueError as exc:
            raise BadRequest("request body is not valid base64") from exc
    if len(raw) > get_config().max_body_bytes:
        raise PayloadTooLarge(f"request body must be at most {get_config().max_body_bytes} bytes")
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadRequest("request body must be UTF-8 JSON") from exc
    headers = {k.lower(): v for k, v in (event.get("headers") or {}).items()}
    content_type = (headers.get("content-type") or "application/json").split(";")[0].strip().lower()
    if content_type != "application/json" and not content_type.endswith("+json"):
        raise BadRequest("request body must be JSON (content-type: application/json)")


def resolve(app: APIGatewayRestResolver, event: dict[str, Any], context: Any) -> dict[str, Any]:
    """Run the checks the resolver cannot (size, content type), then route."""
    invocation.set_context(context)
    try:
        _precheck(event)
    except AurraError as exc:
        response = _domain_error(exc)
        return {
            "statusCode": response.status_code,
            "headers": {
                "Content-Type": content_types.APPLICATION_JSON,
                **RESPONSE_HEADERS,
                **response.headers,
            },
            "body": response.body,
            "isBase64Encoded": False,
        }
    return app.resolve(event, context)


def lambda_entry(app: APIGatewayRestResolver) -> Callable[[dict[str, Any], Any], dict[str, Any]]:
    """The Lambda entry point of an HTTP handler module: logging with the request's
    correlation id, tracing and metrics around `resolve`."""

    @logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_REST)
    @tracer.capture_lambda_handler
    @metrics.log_metrics
    def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
        return resolve(app, event, context)

    return lambda_handler


__all__ = [
    "create_app",
    "current_caller",
    "documented",
    "envelope",
    "json_response",
    "lambda_entry",
    "reject_unknown_query",
    "resolve",
]
