"""`client.events.list()` walks the change stream until a page comes back empty and keeps the
cursor to resume from; `list_page` is one page."""

from __future__ import annotations

import asyncio

import pytest
from sdk_fakes import Server, make_async_client, settings_json

from aurra import DeliveryPage, InvalidArgumentError, Webhook, WebhookDelivery
from aurra.models import ChangeEvent, EventPage


def change(event_id: str) -> dict:
    return {
        "id": event_id,
        "type": "memory.superseded",
        "created_at": "2026-05-03T10:00:00Z",
        "user_id": "alice",
        "agent_id": None,
        "memory_id": "m1",
        "data": {"superseded_by": "m2", "event_id": "a1"},
    }


def test_list_walks_until_caught_up_and_keeps_the_cursor(client, server: Server) -> None:
    server.reply(200, {"events": [change("e1"), change("e2")], "next_cursor": "c2"})
    server.reply(200, {"events": [change("e3")], "next_cursor": "c3"})
    server.reply(200, {"events": [], "next_cursor": "c3"})
    stream = client.events.list(types=["memory.superseded", "memory.reverted"], limit=2)
    found = list(stream)
    assert [e.id for e in found] == ["e1", "e2", "e3"] and isinstance(found[0], ChangeEvent)
    assert found[0].data == {"superseded_by": "m2", "event_id": "a1"}
    assert stream.next_cursor == "c3"
    assert [dict(r.url.params) for r in server.requests] == [
        {"types": "memory.superseded,memory.reverted", "limit": "2"},
        {"types": "memory.superseded,memory.reverted", "limit": "2", "after": "c2"},
        {"types": "memory.superseded,memory.reverted", "limit": "2", "after": "c3"},
    ]
    assert all(r.url.path == "/agent/events" for r in server.requests)


def test_list_page_is_one_page(client, server: Server) -> None:
    server.reply(200, {"events": [change("e1")], "next_cursor": "c1"})
    page = client.events.list_page(after="c0")
    assert isinstance(page, EventPage) and page.next_cursor == "c1"
    assert dict(server.last.url.params) == {"after": "c0"}


def test_webhooks_are_a_setting_whose_secret_is_never_read_back(client, server: Server) -> None:
    hook = {"url": "https://hooks.example.com/aurra", "events": ["memory.superseded"]}
    server.reply(200, {**settings_json(), "webhooks": [{**hook, "secret_set": True}]})
    updated = client.settings.update(webhooks=[{**hook, "secret": "whsec_" + "A" * 32}])
    assert server.body() == {"webhooks": [{**hook, "secret": "whsec_" + "A" * 32}]}
    assert updated.webhooks == [Webhook(url=hook["url"], events=["memory.superseded"], secret_set=True)]
    server.reply(200, settings_json())  # a server that has none to report
    assert client.settings.update(webhooks=[]).webhooks == []
    assert server.body() == {"webhooks": []}
    for wrong in (hook, "https://hooks.example.com/aurra", ["https://hooks.example.com/aurra"]):
        with pytest.raises(InvalidArgumentError):  # the list replaces the key's: a list of mappings
            client.settings.update(webhooks=wrong)  # type: ignore[arg-type]
    assert len(server.requests) == 2


DELIVERY = {
    "id": "d-1",
    "event_id": "e-1",
    "event_type": "memory.superseded",
    "memory_id": "m-1",
    "url": "https://hooks.example.com/aurra",
    "status": "dead",
    "attempts": 14,
    "created_at": "2026-05-03T10:00:00Z",
    "next_attempt_at": None,
    "last_attempt_at": "2026-05-04T10:00:00Z",
    "last_status": 500,
    "last_error": "HTTP 500",
    "delivered_at": None,
}


def test_deliveries_are_listed_and_replayed(client, server: Server) -> None:
    server.reply(200, {"deliveries": [DELIVERY], "next_cursor": None})
    page = client.webhooks.deliveries(status="dead", limit=10)
    assert server.requests[0].url.path == "/agent/webhooks/deliveries"
    assert dict(server.requests[0].url.params) == {"status": "dead", "limit": "10"}
    (dead,) = page.deliveries
    assert (dead.id, dead.status, dead.attempts, dead.last_status, dead.next_attempt_at) == (
        "d-1",
        "dead",
        14,
        500,
        None,
    )
    server.reply(202, {**DELIVERY, "status": "pending", "next_attempt_at": "2026-05-05T10:00:00Z"})
    replayed = client.webhooks.replay("d-1")
    assert (server.requests[1].method, server.requests[1].url.path) == (
        "POST",
        "/agent/webhooks/deliveries/d-1/replay",
    )
    assert replayed.status == "pending" and isinstance(replayed, WebhookDelivery)

    async def go() -> DeliveryPage:
        async with make_async_client(server) as async_client:
            return await async_client.webhooks.deliveries()

    server.reply(200, {"deliveries": [], "next_cursor": None})
    assert asyncio.run(go()).deliveries == []
    assert dict(server.requests[2].url.params) == {}
