"""Fakes for the SDK unit tests: canned API bodies and a recording server behind httpx.MockTransport."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx

from aurra import AsyncAurra, Aurra

API_KEY = "aurra_test_key"
BASE_URL = "http://aurra.test"

MEMORY_ID = "0192f0c4-0000-7000-8000-000000000001"
OLD_MEMORY_ID = "0192ef00-0000-7000-8000-000000000002"
EVENT_ID = "0192f0c4-0000-7000-8000-0000000000e1"


def memory_json(id: str = MEMORY_ID, **overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": id,
        "content": "alice switched to Emacs",
        "topic": "preferences",
        "metadata": {},
        "valid_from": "2026-05-03T10:00:00Z",
        "valid_to": None,
        "superseded_by": None,
        "supersedes": None,
        "recorded_at": "2026-05-03T10:00:00.123Z",
        "status": "current",
    }
    body.update(overrides)
    return body


def settings_json(**overrides: Any) -> dict[str, Any]:
    body = {
        "auto_supersede_default": False,
        "excluded_categories": ["health_medical", "legal_status"],
        "min_confidence": 0.85,
        "classifier_model": "claude-haiku-4-5-20251001",
    }
    body.update(overrides)
    return body


def write_json(**overrides: Any) -> dict[str, Any]:
    body = {
        "created": True,
        "memory": memory_json(),
        "auto_supersede": {
            "ran": False,
            "skipped_reason": "level_2_disabled_by_env",
            "candidates_examined": 0,
            "decision": None,
            "supersession": None,
        },
    }
    body.update(overrides)
    return body


def event_json(id: str = EVENT_ID, **overrides: Any) -> dict[str, Any]:
    body = {
        "id": id,
        "type": "auto_supersede",
        "created_at": "2026-05-03T10:00:01Z",
        "api_key_id": "0192f0c4-0000-7000-8000-0000000000k1",
        "memory_id": MEMORY_ID,
        "superseded_id": OLD_MEMORY_ID,
        "classifier": "contradicts",
        "confidence": 0.92,
        "reason": "The new fact directly replaces the editor preference.",
        "model": "claude-haiku-4-5-20251001",
        "candidates_examined": 3,
        "details": {},
    }
    body.update(overrides)
    return body


def error_json(code: str, message: str, details: Any = None) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "details": details if details is not None else []}}


Responder = Callable[[httpx.Request], httpx.Response]


class Server:
    """Answers requests from a queue (or one handler) and records every request it saw."""

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []
        self._queue: list[httpx.Response | Exception | Responder] = []
        self.handler: Responder | None = None

    def reply(self, status: int = 200, body: Any = None, headers: dict[str, str] | None = None) -> Server:
        self._queue.append(httpx.Response(status, json=body, headers=headers))
        return self

    def reply_raw(self, response: httpx.Response) -> Server:
        self._queue.append(response)
        return self

    def fail(self, error: Exception) -> Server:
        self._queue.append(error)
        return self

    def __call__(self, request: httpx.Request) -> httpx.Response:
        request.read()
        self.requests.append(request)
        if self._queue:
            item = self._queue.pop(0)
        elif self.handler is not None:
            item = self.handler
        else:
            raise AssertionError(f"unexpected request {request.method} {request.url}")
        if isinstance(item, Exception):
            raise item
        if callable(item) and not isinstance(item, httpx.Response):
            return item(request)
        return item

    @property
    def last(self) -> httpx.Request:
        return self.requests[-1]

    def body(self, index: int = -1) -> Any:
        return json.loads(self.requests[index].content)


def make_client(server: Server, sleeps: list[float] | None = None, **kwargs: Any) -> Aurra:
    kwargs.setdefault("api_key", API_KEY)
    kwargs.setdefault("base_url", BASE_URL)
    client = Aurra(http_client=httpx.Client(transport=httpx.MockTransport(server)), **kwargs)
    recorded = sleeps if sleeps is not None else []
    client._transport.sleep = recorded.append  # retries must not really sleep in tests
    return client


def make_async_client(server: Server, sleeps: list[float] | None = None, **kwargs: Any) -> AsyncAurra:
    kwargs.setdefault("api_key", API_KEY)
    kwargs.setdefault("base_url", BASE_URL)
    client = AsyncAurra(http_client=httpx.AsyncClient(transport=httpx.MockTransport(server)), **kwargs)
    recorded = sleeps if sleeps is not None else []

    async def fake_sleep(seconds: float) -> None:
        recorded.append(seconds)

    client._transport.sleep = fake_sleep
    return client


class FakeAurraServer:
    """Just enough of the API, with state, to run the launch example: settings and writes."""

    def __init__(self) -> None:
        self.settings = settings_json()
        self.memories: list[dict[str, Any]] = []
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if request.headers.get("Authorization") != f"Bearer {API_KEY}":
            return httpx.Response(401, json=error_json("unauthorized", "invalid API key"))
        route = (request.method, request.url.path)
        if route == ("GET", "/agent/settings"):
            return httpx.Response(200, json=self.settings)
        if route == ("PATCH", "/agent/settings"):
            patch = json.loads(request.content)
            if patch.get("min_confidence", 1.0) < 0.85:
                return httpx.Response(
                    422,
                    json=error_json(
                        "validation_error",
                        "min_confidence must be >= 0.85",
                        [{"field": "min_confidence", "problem": "must be >= 0.85"}],
                    ),
                )
            self.settings.update(patch)
            return httpx.Response(200, json=self.settings)
        if route == ("POST", "/agent/memories"):
            body = json.loads(request.content)
            memory = memory_json(
                f"0192f0c4-0000-7000-8000-{len(self.memories):012d}",
                content=body["content"],
                topic=body.get("topic", "general"),
            )
            self.memories.append(memory)
            return httpx.Response(201, json=write_json(memory=memory))
        return httpx.Response(404, json=error_json("not_found", "no such route"))
