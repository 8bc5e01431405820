"""A local stand-in for API Gateway: it turns an HTTP request into a REST proxy event, runs
the authorizer and then the route's handler, exactly as the deployed API does."""

from __future__ import annotations

import base64
import json
import re
import sys
import threading
import time
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from aurra_local import lambda_functions

_catalog = lambda_functions.catalog()
# (method, resource, function) for every route, and every function: from functions/__init__.py.
ROUTES: list[tuple[str, str, str]] = list(_catalog.ROUTES)
FUNCTIONS: tuple[str, ...] = tuple(_catalog.FUNCTIONS)
API_ID = "aurralocal"
STAGE = "local"
ACCOUNT = "000000000000"
REGION = "us-east-1"


def _pattern(resource: str) -> re.Pattern[str]:
    return re.compile("^" + re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", resource) + "$")


_COMPILED = [(method, resource, function, _pattern(resource)) for method, resource, function in ROUTES]


@dataclass
class LambdaContext:
    """What Lambda hands a handler as its context, enough for Powertools."""

    function_name: str
    aws_request_id: str
    memory_limit_in_mb: int = 1024
    function_version: str = "$LATEST"
    time_left_s: float = 30.0

    @property
    def invoked_function_arn(self) -> str:
        return f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:aurra-{self.function_name}"

    def get_remaining_time_in_millis(self) -> int:
        return int(self.time_left_s * 1000)


def invoke(function: str, event: dict[str, Any], time_left_s: float = 30.0) -> Any:
    context = LambdaContext(function_name=function, aws_request_id=str(uuid.uuid4()), time_left_s=time_left_s)
    return lambda_functions.load_handler(function).lambda_handler(event, context)


def match(method: str, path: str) -> tuple[str, str, dict[str, str]] | None:
    for route_method, resource, function, pattern in _COMPILED:
        found = pattern.match(path)
        if found and route_method == method:
            return resource, function, found.groupdict()
    return None


def _error(status: int, code: str, message: str) -> dict[str, Any]:
    # The deployed API's gateway responses carry the same headers (infra/components/api.py).
    from aurra_core.api.handlers import RESPONSE_HEADERS

    return {
        "statusCode": status,
        "headers": {"Content-Type": "application/json", **RESPONSE_HEADERS},
        "body": json.dumps({"error": {"code": code, "message": message, "details": []}}),
    }


def proxy_event(
    method: str,
    target: str,
    headers: dict[str, str],
    body: bytes | None,
    resource: str,
    path_parameters: dict[str, str],
    authorizer: dict[str, Any] | None,
) -> dict[str, Any]:
    url = urlsplit(target)
    query = parse_qsl(url.query, keep_blank_values=True)
    multi: dict[str, list[str]] = {}
    for name, value in query:
        multi.setdefault(name, []).append(value)
    text_body, is_b64 = None, False
    if body:
        try:
            text_body = body.decode("utf-8")
        except UnicodeDecodeError:
            text_body, is_b64 = base64.b64encode(body).decode(), True
    now = datetime.now(UTC)
    return {
        "resource": resource,
        "path": url.path,
        "httpMethod": method,
        "headers": dict(headers),
        "multiValueHeaders": {k: [v] for k, v in headers.items()},
        "queryStringParameters": {k: v[-1] for k, v in multi.items()} or None,
        "multiValueQueryStringParameters": multi or None,
        "pathParameters": path_parameters or None,
        "stageVariables": None,
        "requestContext": {
            "accountId": ACCOUNT,
            "apiId": API_ID,
            "resourceId": "local",
            "resourcePath": resource,
            "httpMethod": method,
            "path": f"/{STAGE}{url.path}",
            "stage": STAGE,
            "protocol": "HTTP/1.1",
            "requestId": str(uuid.uuid4()),
            "requestTime": now.strftime("%d/%b/%Y:%H:%M:%S +0000"),
            "requestTimeEpoch": int(now.timestamp() * 1000),
            "identity": {
                "sourceIp": "127.0.0.1",
                "userAgent": headers.get("User-Agent", ""),
                "apiKey": (authorizer or {}).get("api_key_id"),
            },
            "authorizer": authorizer,
        },
        "body": text_body,
        "isBase64Encoded": is_b64,
    }


class AuthorizerFailure(Exception):
    """The authorizer failed (rather than refused): API Gateway's AUTHORIZER_FAILURE."""


def authorize(method: str, resource: str, authorization: str | None) -> dict[str, Any] | None:
    """Run the authorizer as API Gateway would; None when it refuses."""
    if not authorization:
        return None
    arn = f"arn:aws:execute-api:{REGION}:{ACCOUNT}:{API_ID}/{STAGE}/{method}{resource}"
    try:
        policy = invoke(
            "authorizer", {"type": "TOKEN", "authorizationToken": authorization, "methodArn": arn}
        )
    except Exception as exc:
        # Only the exact message "Unauthorized" is a refusal (401); any other error (the
        # database is down, say) is an authorizer failure, as API Gateway tells them apart.
        if str(exc) == "Unauthorized":
            return None
        raise AuthorizerFailure(type(exc).__name__) from exc
    return {"principalId": policy["principalId"], **policy.get("context", {}), "integrationLatency": 0}


class Throttle:
    """A usage plan's per-key throttle (token bucket), as API Gateway applies it before the
    integration runs. Off unless `aurra dev --throttle-rps` sets a rate."""

    def __init__(self, rate_per_s: float = 0.0, burst: int = 0) -> None:
        self.rate = rate_per_s
        self.burst = max(burst, 1)
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def allow(self, key_id: str) -> bool:
        if self.rate <= 0:
            return True
        now = time.monotonic()
        with self._lock:
            tokens, last = self._buckets.get(key_id, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - last) * self.rate)
            if tokens < 1.0:
                self._buckets[key_id] = (tokens, now)
                return False
            self._buckets[key_id] = (tokens - 1.0, now)
            return True


throttle = Throttle()


def handle(method: str, target: str, headers: dict[str, str], body: bytes | None) -> dict[str, Any]:
    """One HTTP request in, one API Gateway proxy response out."""
    started = time.perf_counter()
    path = urlsplit(target).path.rstrip("/") or "/"
    found = match(method, path)
    if found is None:
        return _error(404, "not_found", "no such route")
    resource, function, params = found
    lowered = {k.lower(): v for k, v in headers.items()}
    try:
        authorizer = authorize(method, resource, lowered.get("authorization"))
    except AuthorizerFailure as exc:
        # The deployed API's AUTHORIZER_FAILURE gateway response (infra/components/api.py), and
        # what the authorizer raised in the log, as the integration's failures are (server.py).
        sys.stderr.write(f"authorizer failed: {exc}\n")
        response = _error(503, "unavailable", "the service is unavailable right now; retry shortly")
        response["headers"]["Retry-After"] = "2"
        return response
    if authorizer is None:
        return _error(401, "unauthorized", "missing or invalid API key")
    if not throttle.allow(authorizer["api_key_id"]):
        return _error(429, "rate_limited", "too many requests for this API key; slow down")
    event = proxy_event(method, target, headers, body, resource, params, authorizer)
    response = invoke(function, event)
    response.setdefault("headers", {})["X-Aurra-Latency-Ms"] = f"{(time.perf_counter() - started) * 1000:.1f}"
    return response
