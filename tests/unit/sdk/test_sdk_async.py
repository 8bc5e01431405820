"""AsyncAurra: the same surface, requests, errors, retries and pagination as Aurra."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime

import httpx
import pytest
from sdk_fakes import (
    EVENT_ID,
    MEMORY_ID,
    OLD_MEMORY_ID,
    Server,
    error_json,
    event_json,
    make_async_client,
    memory_json,
    settings_json,
    write_json,
)

from aurra import (
    APIConnectionError,
    APIStatusError,
    APITimeoutError,
    AsyncAurra,
    AsyncPager,
    Aurra,
    AuthenticationError,
    ConfigurationError,
    ConflictError,
    InvalidArgumentError,
    NotFoundError,
    RateLimitError,
    ServerError,
    ValidationError,
)
from aurra.models import AuditPage, MemoryPage


def run(coro):
    return asyncio.run(coro)


def public_methods(obj: object) -> set[str]:
    return {name for name in dir(obj) if not name.startswith("_")}


def test_same_surface_as_the_sync_client() -> None:
    sync, async_ = Aurra(api_key="k"), AsyncAurra(api_key="k")
    for resource in ("memories", "settings", "audit", "events"):
        assert public_methods(getattr(sync, resource)) == public_methods(getattr(async_, resource)), resource
    assert public_methods(sync) <= public_methods(async_)
    sync.close()
    run(async_.close())


def test_env_fallback_and_missing_key(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ConfigurationError):
        AsyncAurra()
    monkeypatch.setenv("AURRA_API_KEY", "aurra_env")
    monkeypatch.setenv("AURRA_BASE_URL", "http://127.0.0.1:4000")
    server = Server().reply(200, settings_json())
    client = AsyncAurra(http_client=httpx.AsyncClient(transport=httpx.MockTransport(server)))
    run(client.settings.get())
    assert server.last.headers["Authorization"] == "Bearer aurra_env"
    assert str(server.last.url) == "http://127.0.0.1:4000/agent/settings"


@pytest.mark.parametrize(
    ("status", "cls"),
    [
        (401, AuthenticationError),
        (404, NotFoundError),
        (409, ConflictError),
        (422, ValidationError),
        (429, RateLimitError),
        (500, ServerError),
        (503, ServerError),
    ],
)
def test_error_mapping(status: int, cls: type[APIStatusError]) -> None:
    server = Server()
    server.handler = lambda request: httpx.Response(
        status, json=error_json("some_code", "the server's message")
    )
    client = make_async_client(server)
    with pytest.raises(cls) as caught:
        run(client.memories.get(MEMORY_ID))
    assert str(caught.value) == "the server's message"
    assert caught.value.status_code == status


def test_add_retries_with_one_idempotency_key() -> None:
    server = (
        Server()
        .reply(429, error_json("rate_limited", "slow"), headers={"Retry-After": "1"})
        .fail(httpx.ConnectError("refused"))
        .reply(201, write_json())
    )
    sleeps: list[float] = []
    client = make_async_client(server, sleeps)
    result = run(client.memories.add(content="alice switched to Emacs", topic="preferences"))
    assert (
        str(result.auto_supersede)
        == "AutoSupersedeResult(ran=False, skipped_reason='level_2_disabled_by_env')"
    )
    keys = {r.headers["Idempotency-Key"] for r in server.requests}
    assert len(server.requests) == 3 and len(keys) == 1
    assert sleeps[0] == 1.0 and len(sleeps) == 2


def test_no_retry_on_422() -> None:
    server = Server().reply(422, error_json("validation_error", "min_confidence must be >= 0.85"))
    sleeps: list[float] = []
    client = make_async_client(server, sleeps)
    with pytest.raises(ValidationError, match=r"min_confidence must be >= 0\.85"):
        run(client.settings.update(min_confidence=0.1))
    assert len(server.requests) == 1 and sleeps == []


def test_retries_exhausted() -> None:
    server = Server()
    for _ in range(3):
        server.fail(httpx.ReadTimeout("slow"))
    client = make_async_client(server)
    with pytest.raises(APITimeoutError):
        run(client.settings.get())
    assert len(server.requests) == 3


def test_connection_error_without_retries() -> None:
    client = make_async_client(Server().fail(httpx.ConnectError("refused")), max_retries=0)
    with pytest.raises(APIConnectionError):
        run(client.settings.get())


def test_async_iterator_walks_three_pages() -> None:
    server = Server()
    server.reply(200, {"memories": [memory_json("m1"), memory_json("m2")], "next_cursor": "c2"})
    server.reply(200, {"memories": [memory_json("m3")], "next_cursor": "c3"})
    server.reply(200, {"memories": [memory_json("m4")], "next_cursor": None})
    client = make_async_client(server)

    async def collect() -> list[str]:
        pager = client.memories.list(as_of=datetime(2026, 4, 1, tzinfo=UTC))
        assert isinstance(pager, AsyncPager)
        return [m.id async for m in pager]

    assert run(collect()) == ["m1", "m2", "m3", "m4"]
    assert [dict(r.url.params) for r in server.requests] == [
        {"as_of": "2026-04-01T00:00:00Z"},
        {"as_of": "2026-04-01T00:00:00Z", "cursor": "c2"},
        {"as_of": "2026-04-01T00:00:00Z", "cursor": "c3"},
    ]


def test_async_pages_and_audit_and_search() -> None:
    server = Server()
    server.reply(200, {"events": [event_json("e1")], "next_cursor": "c2"})
    server.reply(200, {"events": [event_json("e2")], "next_cursor": None})
    server.reply(200, {"memories": [memory_json(score=0.9)], "next_cursor": None})
    client = make_async_client(server)

    async def go() -> tuple[list[AuditPage], list[float | None]]:
        pages = [p async for p in client.audit.list(memory_id=MEMORY_ID).pages()]
        scores = [m.score async for m in client.memories.search("editor")]
        return pages, scores

    pages, scores = run(go())
    assert [p.next_cursor for p in pages] == ["c2", None]
    assert scores == [0.9]
    assert dict(server.last.url.params) == {"q": "editor"}


def test_every_async_call_sends_the_right_request() -> None:
    server = Server()
    server.reply(200, {"memories": [], "next_cursor": "c2"})
    server.reply(200, {"memories": [], "next_cursor": None})
    server.reply(200, memory_json())
    server.reply(200, {"memory_id": MEMORY_ID, "chain": [memory_json()], "versions": []})
    server.reply(201, {"memory": memory_json(), "superseded": memory_json(OLD_MEMORY_ID)})
    server.reply(200, settings_json())
    server.reply(200, {"events": [], "next_cursor": None})
    server.reply(200, event_json())
    server.reply(200, {"event": event_json(type="revert"), "restored": memory_json(OLD_MEMORY_ID)})
    client = make_async_client(server)

    async def go() -> None:
        page = await client.memories.list_page(topic="preferences", limit=3)
        assert isinstance(page, MemoryPage) and page.next_cursor == "c2"
        await client.memories.search_page("editor", cursor="c2")
        await client.memories.get(uuid.UUID(MEMORY_ID), known_at="2026-04-02T00:00:00Z")
        await client.memories.history(MEMORY_ID)
        await client.memories.supersede(OLD_MEMORY_ID, content="alice uses Emacs", idempotency_key="k7")
        await client.settings.get()
        await client.audit.list_page(type="revert")
        await client.audit.get(EVENT_ID)
        await client.audit.revert(EVENT_ID)

    run(go())
    seen = [(r.method, r.url.path, dict(r.url.params)) for r in server.requests]
    assert seen == [
        ("GET", "/agent/memories", {"topic": "preferences", "limit": "3"}),
        ("GET", "/agent/memories", {"q": "editor", "cursor": "c2"}),
        ("GET", f"/agent/memories/{MEMORY_ID}", {"known_at": "2026-04-02T00:00:00Z"}),
        ("GET", f"/agent/memories/{MEMORY_ID}/history", {}),
        ("POST", f"/agent/memories/{OLD_MEMORY_ID}/supersede", {}),
        ("GET", "/agent/settings", {}),
        ("GET", "/agent/audit", {"type": "revert"}),
        ("GET", f"/agent/audit/{EVENT_ID}", {}),
        ("POST", f"/agent/audit/{EVENT_ID}/revert", {}),
    ]
    assert server.body(4) == {"content": "alice uses Emacs"}
    assert server.requests[4].headers["Idempotency-Key"] == "k7"
    assert "Idempotency-Key" in server.requests[8].headers


def test_client_side_checks_raise_before_sending() -> None:
    server = Server()
    client = make_async_client(server)
    with pytest.raises(InvalidArgumentError, match="timezone-aware"):
        run(client.memories.add(content="x", valid_from=datetime(2026, 1, 1)))
    with pytest.raises(InvalidArgumentError):
        client.memories.list(known_at=datetime(2026, 1, 1))
    with pytest.raises(InvalidArgumentError):
        run(client.memories.supersede(OLD_MEMORY_ID))
    assert server.requests == []


def test_context_manager_closes_an_owned_client() -> None:
    async def go() -> httpx.AsyncClient:
        async with AsyncAurra(api_key="k", base_url="http://x.test") as client:
            assert repr(client) == "AsyncAurra(base_url='http://x.test')"
            return client._transport.http

    assert run(go()).is_closed


def test_a_passed_http_client_is_left_open() -> None:
    http = httpx.AsyncClient(transport=httpx.MockTransport(Server()))

    async def go() -> None:
        client = AsyncAurra(api_key="k", base_url="http://x.test", http_client=http)
        await client.aclose()

    run(go())
    assert not http.is_closed


def test_real_sleep_is_the_default() -> None:
    client = AsyncAurra(api_key="k", base_url="http://x.test")
    assert client._transport.sleep is asyncio.sleep
    run(client.close())
