"""Every non-2xx answer and transport failure becomes a typed AurraError."""

from __future__ import annotations

import httpx
import pytest
from sdk_fakes import Server, error_json, make_client

import aurra
from aurra import (
    APIConnectionError,
    APIStatusError,
    APITimeoutError,
    AurraError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    NotFoundError,
    PayloadTooLargeError,
    PermissionDeniedError,
    RateLimitError,
    ServerError,
    UnexpectedResponseError,
    ValidationError,
)

CASES = [
    (400, "bad_request", "body is not JSON", BadRequestError),
    (401, "unauthorized", "invalid API key", AuthenticationError),
    (403, "forbidden", "forbidden", PermissionDeniedError),
    (404, "not_found", "memory not found", NotFoundError),
    (409, "conflict", "memory is already superseded", ConflictError),
    (413, "payload_too_large", "body too large", PayloadTooLargeError),
    (422, "validation_error", "min_confidence must be >= 0.85", ValidationError),
    (429, "rate_limited", "slow down", RateLimitError),
    (500, "internal", "internal error", ServerError),
    (502, "internal", "bad gateway", ServerError),
    (503, "unavailable", "unavailable", ServerError),
    (504, "internal", "gateway timeout", ServerError),
    (501, "internal", "not implemented", ServerError),
    (418, "teapot", "short and stout", APIStatusError),
]


@pytest.mark.parametrize(("status", "code", "message", "cls"), CASES)
def test_status_maps_to_error_class(status: int, code: str, message: str, cls: type[APIStatusError]) -> None:
    server = Server()
    # Answer every attempt the same way so retried statuses still end in the error.
    server.handler = lambda request: httpx.Response(
        status, json=error_json(code, message), headers={"x-request-id": "req-123"}
    )
    client = make_client(server)
    with pytest.raises(cls) as caught:
        client.settings.get()
    error = caught.value
    assert type(error) is cls
    assert isinstance(error, AurraError) and isinstance(error, APIStatusError)
    assert error.status_code == status
    assert error.code == code
    assert error.message == message
    assert str(error) == message
    assert error.request_id == "req-123"
    assert error.response is not None and error.response.status_code == status


def test_validation_error_carries_the_server_message_and_details(client, server) -> None:
    details = [{"field": "min_confidence", "problem": "must be >= 0.85"}]
    server.reply(422, error_json("validation_error", "min_confidence must be >= 0.85", details))
    with pytest.raises(ValidationError) as caught:
        client.settings.update(min_confidence=0.5)
    assert str(caught.value) == "min_confidence must be >= 0.85"
    assert caught.value.details == details
    assert caught.value.code == "validation_error"
    assert "ValidationError(status_code=422, code='validation_error'" in repr(caught.value)
    # Never retried: a 4xx other than 429 is final.
    assert len(server.requests) == 1


def test_error_without_envelope_falls_back_to_gateway_message_and_default_code() -> None:
    server = Server().reply(401, {"message": "Unauthorized"}, headers={"x-amzn-RequestId": "gw-1"})
    client = make_client(server)
    with pytest.raises(AuthenticationError) as caught:
        client.settings.get()
    assert caught.value.message == "Unauthorized"
    assert caught.value.code == "unauthorized"
    assert caught.value.request_id == "gw-1"
    assert caught.value.details == []


def test_error_with_non_json_body_uses_the_text() -> None:
    server = Server()
    server.handler = lambda request: httpx.Response(502, text="<html>Bad Gateway</html>")
    client = make_client(server)
    with pytest.raises(ServerError) as caught:
        client.settings.get()
    assert caught.value.message == "<html>Bad Gateway</html>"
    assert caught.value.code == "internal"
    assert caught.value.request_id is None


def test_error_with_empty_body_says_the_status() -> None:
    client = make_client(Server().reply_raw(httpx.Response(404)))
    with pytest.raises(NotFoundError) as caught:
        client.memories.get("x")
    assert str(caught.value) == "HTTP 404 Not Found"


def test_rate_limit_error_has_retry_after() -> None:
    server = Server()
    server.handler = lambda request: httpx.Response(
        429, json=error_json("rate_limited", "slow down"), headers={"Retry-After": "7"}
    )
    client = make_client(server, max_retries=0)
    with pytest.raises(RateLimitError) as caught:
        client.settings.get()
    assert caught.value.retry_after == 7.0


def test_rate_limit_error_without_header_has_no_retry_after() -> None:
    client = make_client(Server().reply(429, error_json("rate_limited", "slow down")), max_retries=0)
    with pytest.raises(RateLimitError) as caught:
        client.settings.get()
    assert caught.value.retry_after is None


def test_connection_failure_is_api_connection_error() -> None:
    client = make_client(Server().fail(httpx.ConnectError("connection refused")), max_retries=0)
    with pytest.raises(APIConnectionError) as caught:
        client.settings.get()
    assert not isinstance(caught.value, APITimeoutError)
    assert "connection refused" in str(caught.value)
    assert isinstance(caught.value.__cause__, httpx.ConnectError)


@pytest.mark.parametrize(
    "error", [httpx.ReadTimeout("read"), httpx.ConnectTimeout("connect"), httpx.PoolTimeout("pool")]
)
def test_timeouts_are_api_timeout_errors(error: Exception) -> None:
    client = make_client(Server().fail(error), max_retries=0)
    with pytest.raises(APITimeoutError) as caught:
        client.settings.get()
    assert isinstance(caught.value, APIConnectionError)


def test_success_with_non_json_body_is_unexpected_response() -> None:
    client = make_client(Server().reply_raw(httpx.Response(200, text="hello")))
    with pytest.raises(UnexpectedResponseError) as caught:
        client.settings.get()
    assert caught.value.status_code == 200


def test_success_with_wrong_shape_is_unexpected_response() -> None:
    client = make_client(Server().reply(200, {"auto_supersede_default": "maybe"}))
    with pytest.raises(UnexpectedResponseError, match="does not match the API contract"):
        client.settings.get()


def test_every_public_error_is_an_aurra_error() -> None:
    for name in aurra.errors.__all__:
        assert issubclass(getattr(aurra, name), AurraError), name
