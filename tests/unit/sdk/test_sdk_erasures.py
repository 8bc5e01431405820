"""Erasure, provenance, expiry and retention in the Python SDK: the requests it sends, the typed
results and errors it returns, its own refusals before sending, sync and async."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest
from sdk_fakes import MEMORY_ID, Server, error_json, make_async_client, memory_json, settings_json, write_json

from aurra import ErasureReceipt, GoneError, InvalidArgumentError, NotFoundError, Source

ERASURE_ID = "0193a2b4-0000-7000-8000-0000000000f1"


def receipt_json(**overrides) -> dict:
    body = {
        "id": ERASURE_ID,
        "selector": {"user_id": "alice"},
        "created_at": "2026-12-03T10:00:00.123456Z",
        "counts": {"memories": 3, "versions": 5, "audit_events": 4, "proposals": 1, "idempotency_records": 2},
    }
    body.update(overrides)
    return body


def test_create_posts_exactly_the_selector_and_says_whether_it_erased(client, server) -> None:
    server.reply(201, receipt_json())
    server.reply(200, receipt_json())
    first = client.erasures.create(user_id="alice")
    again = client.erasures.create(user_id="alice")
    assert [(r.method, r.url.path) for r in server.requests] == [("POST", "/agent/erasures")] * 2
    assert server.body(0) == {"user_id": "alice"}
    assert isinstance(first, ErasureReceipt) and first.counts.proposals == 1
    assert (first.created, again.created) == (True, False)
    assert first.created_at == datetime(2026, 12, 3, 10, 0, 0, 123456, tzinfo=UTC)
    assert "Idempotency-Key" not in server.last.headers  # idempotent by itself


def test_a_large_erasure_still_running_is_created_and_says_so(client, server) -> None:
    server.reply(202, receipt_json(status="running"))
    server.reply(201, receipt_json(status="completed"))
    running = client.erasures.create(user_id="alice")
    done = client.erasures.create(user_id="alice")
    assert (running.status, running.created) == ("running", True)
    assert (done.status, done.created) == ("completed", True)
    assert server.body(0) == server.body(1) == {"user_id": "alice"}


@pytest.mark.parametrize(
    ("kwargs", "body"),
    [
        ({"memory_id": MEMORY_ID}, {"memory_id": MEMORY_ID}),
        ({"user_id": "alice", "agent_id": "planner"}, {"user_id": "alice", "agent_id": "planner"}),
        ({"conversation_id": "conv-1"}, {"conversation_id": "conv-1"}),
        ({"source_id": "doc-9"}, {"source_id": "doc-9"}),
        ({"tenant": True}, {"tenant": True}),
    ],
)
def test_every_selector_is_sent_as_the_api_reads_it(client, server, kwargs, body) -> None:
    server.reply(201, receipt_json(selector=body))
    assert client.erasures.create(**kwargs).selector == body
    assert server.body() == body


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"user_id": "a", "tenant": True},
        {"agent_id": "planner"},
        {"tenant": False},
        {"memory_id": MEMORY_ID, "source_id": "s"},
    ],
)
def test_another_shape_is_refused_before_anything_is_sent(client, server, kwargs) -> None:
    with pytest.raises(InvalidArgumentError):
        client.erasures.create(**kwargs)
    assert server.requests == []


def test_get_reads_a_receipt_and_a_stranger_is_not_found(client, server) -> None:
    server.reply(200, receipt_json())
    server.reply(404, error_json("not_found", "erasure not found"))
    receipt = client.erasures.get(ERASURE_ID)
    assert server.requests[0].url.path == f"/agent/erasures/{ERASURE_ID}"
    assert receipt.id == ERASURE_ID and receipt.created is None
    with pytest.raises(NotFoundError):
        client.erasures.get(ERASURE_ID)


def test_reading_an_erased_memory_raises_gone_with_the_erasure(client, server) -> None:
    details = [{"field": "id", "problem": "erased", "erasure_id": ERASURE_ID}]
    server.reply(410, error_json("gone", "memory was erased", details))
    with pytest.raises(GoneError) as gone:
        client.memories.get(MEMORY_ID)
    assert gone.value.status_code == 410 and gone.value.code == "gone"
    assert gone.value.erasure_id == ERASURE_ID


def test_the_async_client_erases_and_reads_receipts() -> None:
    server = Server()
    server.reply(201, receipt_json(selector={"tenant": True}))
    server.reply(200, receipt_json(selector={"tenant": True}))

    async def go():
        async with make_async_client(server) as client:
            return await client.erasures.create(tenant=True), await client.erasures.get(ERASURE_ID)

    created, read = asyncio.run(go())
    assert created.created is True and read.selector == {"tenant": True}


def test_writes_carry_source_conversation_and_expiry_and_reads_carry_source(client, server) -> None:
    source = {
        "type": "conversation",
        "id": "conv-1",
        "conversation_id": "conv-1",
        "message_indexes": [0],
        "quote": "I use Emacs now",
        "uri": None,
    }
    server.reply(201, write_json(memory=memory_json(source=source, valid_to="2026-06-01T00:00:00Z")))
    written = client.memories.add(
        "User uses Emacs",
        source={"type": "email", "id": "m-1", "uri": "https://mail.test/m-1"},
        valid_to=datetime(2026, 6, 1, tzinfo=UTC),
    )
    assert server.body()["source"] == {"type": "email", "id": "m-1", "uri": "https://mail.test/m-1"}
    assert server.body()["valid_to"] == "2026-06-01T00:00:00Z"
    assert isinstance(written.memory.source, Source) and written.memory.source.message_indexes == [0]
    server.reply(
        201,
        {
            "facts": [],
            "extraction": {
                "extractor": "rules",
                "model": "m",
                "facts_found": 0,
                "prompt_version": "v",
                "conversation_id": "conv-1",
            },
        },
    )
    result = client.memories.add(
        messages=[{"role": "user", "content": "I use Emacs now."}], conversation_id="conv-1"
    )
    assert server.body()["conversation_id"] == "conv-1" and result.extraction.conversation_id == "conv-1"
    with pytest.raises(InvalidArgumentError):
        client.memories.add("x", conversation_id="conv-1")
    with pytest.raises(InvalidArgumentError):
        client.memories.add(messages=[{"role": "user", "content": "y"}], source={"type": "t", "id": "i"})


def test_lists_and_the_audit_filter_by_conversation_and_source(client, server) -> None:
    server.reply(200, {"memories": [], "next_cursor": None})
    server.reply(200, {"memories": [], "next_cursor": None})
    server.reply(200, {"events": [], "next_cursor": None})
    list(client.memories.list(conversation_id="conv-1"))
    list(client.memories.search("editor", source_id="doc-9"))
    list(client.audit.list(conversation_id="conv-1", source_id="doc-9"))
    assert dict(server.requests[0].url.params) == {"conversation_id": "conv-1"}
    assert dict(server.requests[1].url.params) == {"q": "editor", "source_id": "doc-9"}
    assert dict(server.requests[2].url.params) == {"conversation_id": "conv-1", "source_id": "doc-9"}


def test_retention_periods_are_settings_where_none_is_a_value(client, server) -> None:
    server.reply(200, settings_json(history_retention_days=30, memory_retention_days=None))
    updated = client.settings.update(history_retention_days=30, memory_retention_days=None)
    assert server.body() == {"history_retention_days": 30, "memory_retention_days": None}
    assert (updated.history_retention_days, updated.memory_retention_days) == (30, None)
