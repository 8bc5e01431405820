"""Retries: which answers are retried, how often, how long we wait, and that a retried write keeps its key."""

from __future__ import annotations

import email.utils
import time
import uuid

import httpx
import pytest
from sdk_fakes import (
    EVENT_ID,
    MEMORY_ID,
    OLD_MEMORY_ID,
    Server,
    error_json,
    event_json,
    make_client,
    memory_json,
    settings_json,
    write_json,
)

from aurra import (
    APIConnectionError,
    APITimeoutError,
    Aurra,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    NotFoundError,
    RateLimitError,
    ServerError,
    ValidationError,
)
from aurra._transport._retry import RetryPolicy, parse_retry_after


@pytest.mark.parametrize("status", [429, 500, 502, 503, 504])
def test_retryable_status_then_success(status: int) -> None:
    server = Server().reply(status, error_json("x", "try again")).reply(200, settings_json())
    sleeps: list[float] = []
    client = make_client(server, sleeps)
    assert client.settings.get().min_confidence == 0.85
    assert len(server.requests) == 2
    assert len(sleeps) == 1


@pytest.mark.parametrize(
    ("status", "cls"),
    [(400, BadRequestError), (404, NotFoundError), (409, ConflictError), (422, ValidationError)],
)
def test_no_retry_on_other_4xx(status: int, cls: type[Exception]) -> None:
    server = Server().reply(status, error_json("x", "no")).reply(200, settings_json())
    sleeps: list[float] = []
    client = make_client(server, sleeps)
    with pytest.raises(cls):
        client.settings.get()
    assert len(server.requests) == 1
    assert sleeps == []


def test_no_retry_on_401() -> None:
    server = Server().reply(401, error_json("unauthorized", "bad key"))
    client = make_client(server)
    with pytest.raises(AuthenticationError):
        client.settings.get()
    assert len(server.requests) == 1


def test_retries_are_bounded_by_max_retries() -> None:
    server = Server()
    server.handler = lambda request: httpx.Response(503, json=error_json("unavailable", "down"))
    sleeps: list[float] = []
    client = make_client(server, sleeps, max_retries=3)
    with pytest.raises(ServerError):
        client.settings.get()
    assert len(server.requests) == 4  # the first try and three retries
    assert len(sleeps) == 3


def test_default_max_retries_is_two() -> None:
    server = Server()
    server.handler = lambda request: httpx.Response(500, json=error_json("internal", "boom"))
    client = make_client(server)
    assert client.max_retries == 2
    with pytest.raises(ServerError):
        client.settings.get()
    assert len(server.requests) == 3


def test_max_retries_zero_never_retries() -> None:
    server = Server().reply(503, error_json("unavailable", "down"))
    sleeps: list[float] = []
    client = make_client(server, sleeps, max_retries=0)
    with pytest.raises(ServerError):
        client.settings.get()
    assert len(server.requests) == 1 and sleeps == []


def test_add_retried_keeps_one_idempotency_key_and_body() -> None:
    server = (
        Server()
        .reply(503, error_json("unavailable", "down"))
        .fail(httpx.ReadTimeout("read timed out"))
        .reply(201, write_json())
    )
    client = make_client(server)
    result = client.memories.add(content="alice switched to Emacs", topic="preferences")
    assert result.created
    keys = [r.headers.get("Idempotency-Key") for r in server.requests]
    assert len(keys) == 3
    assert len(set(keys)) == 1
    uuid.UUID(keys[0])  # a generated key is a uuid4
    assert uuid.UUID(keys[0]).version == 4
    assert {r.content for r in server.requests} == {server.requests[0].content}


def test_each_add_call_gets_its_own_key() -> None:
    server = Server().reply(201, write_json()).reply(201, write_json())
    client = make_client(server)
    client.memories.add(content="a")
    client.memories.add(content="a")
    assert server.requests[0].headers["Idempotency-Key"] != server.requests[1].headers["Idempotency-Key"]


def test_given_idempotency_key_is_used_on_every_attempt() -> None:
    server = Server().reply(500, error_json("internal", "boom")).reply(201, write_json())
    client = make_client(server)
    client.memories.add(content="a", idempotency_key="my-key-1")
    assert [r.headers["Idempotency-Key"] for r in server.requests] == ["my-key-1", "my-key-1"]


def test_supersede_and_revert_send_a_stable_idempotency_key() -> None:
    server = (
        Server()
        .reply(502, error_json("internal", "gw"))
        .reply(201, {"memory": memory_json(), "superseded": memory_json(OLD_MEMORY_ID)})
        .reply(503, error_json("unavailable", "down"))
        .reply(200, {"event": event_json(type="revert"), "restored": memory_json(OLD_MEMORY_ID)})
    )
    client = make_client(server)
    client.memories.supersede(OLD_MEMORY_ID, superseded_by=MEMORY_ID)
    client.audit.revert(EVENT_ID)
    keys = [r.headers["Idempotency-Key"] for r in server.requests]
    assert keys[0] == keys[1] and keys[2] == keys[3] and keys[0] != keys[2]


def test_reads_send_no_idempotency_key(client, server) -> None:
    server.reply(200, settings_json())
    client.settings.get()
    assert "Idempotency-Key" not in server.last.headers


def test_connection_errors_are_retried_then_raised() -> None:
    server = Server()
    for _ in range(3):
        server.fail(httpx.ConnectError("refused"))
    sleeps: list[float] = []
    client = make_client(server, sleeps)
    with pytest.raises(APIConnectionError):
        client.settings.get()
    assert len(server.requests) == 3 and len(sleeps) == 2


def test_timeout_then_success() -> None:
    server = Server().fail(httpx.ReadTimeout("slow")).reply(200, settings_json())
    client = make_client(server)
    assert client.settings.get().classifier_model == "claude-haiku-4-5-20251001"
    assert len(server.requests) == 2


def test_timeouts_exhausted_raise_timeout_error() -> None:
    server = Server()
    for _ in range(2):
        server.fail(httpx.WriteTimeout("slow"))
    client = make_client(server, max_retries=1)
    with pytest.raises(APITimeoutError):
        client.settings.get()


def test_unsupported_protocol_is_not_retried() -> None:
    server = Server().fail(httpx.UnsupportedProtocol("nope"))
    client = make_client(server)
    with pytest.raises(APIConnectionError):
        client.settings.get()
    assert len(server.requests) == 1


def test_retry_after_seconds_is_honoured() -> None:
    server = (
        Server()
        .reply(429, error_json("rate_limited", "slow"), headers={"Retry-After": "3"})
        .reply(200, settings_json())
    )
    sleeps: list[float] = []
    make_client(server, sleeps).settings.get()
    assert sleeps == [3.0]


def test_retry_after_is_bounded() -> None:
    server = (
        Server()
        .reply(503, error_json("unavailable", "x"), headers={"Retry-After": "86400"})
        .reply(200, settings_json())
    )
    sleeps: list[float] = []
    make_client(server, sleeps).settings.get()
    assert sleeps == [RetryPolicy(max_retries=2).max_retry_after]


def test_exhausted_429_raises_rate_limit_error() -> None:
    server = Server()
    server.handler = lambda request: httpx.Response(429, json=error_json("rate_limited", "slow"))
    client = make_client(server)
    with pytest.raises(RateLimitError):
        client.settings.get()
    assert len(server.requests) == 3


def test_backoff_grows_exponentially_with_bounded_jitter() -> None:
    low = RetryPolicy(max_retries=10, rand=lambda: 0.0)
    high = RetryPolicy(max_retries=10, rand=lambda: 1.0)
    assert [low.delay(n) for n in range(3)] == [0.25, 0.5, 1.0]
    assert [high.delay(n) for n in range(3)] == [0.5, 1.0, 2.0]
    assert high.delay(20) == high.max_delay  # capped
    jittered = RetryPolicy(max_retries=10)
    for attempt in range(6):
        base = min(jittered.max_delay, jittered.initial_delay * 2**attempt)
        assert base / 2 <= jittered.delay(attempt) <= base


def test_backoff_delays_are_passed_to_sleep() -> None:
    server = Server()
    server.handler = lambda request: httpx.Response(500, json=error_json("internal", "boom"))
    sleeps: list[float] = []
    client = make_client(server, sleeps, max_retries=2)
    with pytest.raises(ServerError):
        client.settings.get()
    assert 0.25 <= sleeps[0] <= 0.5 and 0.5 <= sleeps[1] <= 1.0


def test_parse_retry_after_forms() -> None:
    assert parse_retry_after(httpx.Headers({"Retry-After": "2.5"})) == 2.5
    assert parse_retry_after(httpx.Headers({"Retry-After": "-4"})) == 0.0
    assert parse_retry_after(httpx.Headers({"Retry-After": "soon"})) is None
    assert parse_retry_after(httpx.Headers({})) is None
    in_ten = email.utils.formatdate(time.time() + 10, usegmt=True)
    seconds = parse_retry_after(httpx.Headers({"Retry-After": in_ten}))
    assert seconds is not None and 8 <= seconds <= 10
    past = email.utils.formatdate(time.time() - 100, usegmt=True)
    assert parse_retry_after(httpx.Headers({"Retry-After": past})) == 0.0


def test_real_sleep_is_the_default() -> None:
    client = Aurra(api_key="k", base_url="http://x.test")
    assert client._transport.sleep is time.sleep
    client.close()
