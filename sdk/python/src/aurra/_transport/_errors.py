"""Turn a non-2xx answer or a transport failure into the SDK's typed errors."""

from __future__ import annotations

from typing import Any

import httpx

from aurra._transport._retry import parse_retry_after
from aurra.errors import (
    APIConnectionError,
    APIStatusError,
    APITimeoutError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    GoneError,
    NotFoundError,
    PayloadTooLargeError,
    PermissionDeniedError,
    RateLimitError,
    ServerError,
    ValidationError,
)

_ERRORS_BY_STATUS: dict[int, type[APIStatusError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    410: GoneError,
    413: PayloadTooLargeError,
    422: ValidationError,
    429: RateLimitError,
}

# Used when a body carries no envelope (e.g. a gateway answered before the service did).
_DEFAULT_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    409: "conflict",
    410: "gone",
    413: "payload_too_large",
    422: "validation_error",
    429: "rate_limited",
    500: "internal",
}

# The service's own id first, then the ones the API gateway in front of it adds.
_REQUEST_ID_HEADERS = ("x-request-id", "x-amzn-requestid", "apigw-requestid")


def _json_or_none(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return None


def _message(envelope: dict[str, Any], body: Any, response: httpx.Response) -> str:
    """The service's message; else a gateway's `{"message": ...}`; else the body text; else the status."""
    for candidate in (envelope.get("message"), body.get("message") if isinstance(body, dict) else None):
        if isinstance(candidate, str) and candidate:
            return candidate
    text = response.text.strip()[:200]
    return text or f"HTTP {response.status_code} {response.reason_phrase}".strip()


def error_from_response(response: httpx.Response) -> APIStatusError:
    status = response.status_code
    body = _json_or_none(response)
    envelope = body.get("error") if isinstance(body, dict) else None
    if not isinstance(envelope, dict):
        envelope = {}

    code = envelope.get("code") if isinstance(envelope.get("code"), str) else None
    code = code or _DEFAULT_CODES.get(status) or ("internal" if status >= 500 else None)
    request_id = next((response.headers[h] for h in _REQUEST_ID_HEADERS if h in response.headers), None)

    cls = _ERRORS_BY_STATUS.get(status) or (ServerError if status >= 500 else APIStatusError)
    kwargs: dict[str, Any] = {
        "status_code": status,
        "code": code,
        "details": envelope.get("details"),
        "request_id": request_id,
        "response": response,
    }
    if cls is RateLimitError:
        kwargs["retry_after"] = parse_retry_after(response.headers)
    return cls(_message(envelope, body, response), **kwargs)


def error_from_transport(error: httpx.HTTPError, request: httpx.Request) -> APIConnectionError:
    where = f"{request.method} {request.url}"
    if isinstance(error, httpx.TimeoutException):
        return APITimeoutError(f"Request to Aurra timed out: {where}")
    return APIConnectionError(f"Could not reach Aurra: {where}: {error or type(error).__name__}")
