"""List calls follow next_cursor across pages; the single-page calls stop at one."""

from __future__ import annotations

import httpx
import pytest
from sdk_fakes import Server, event_json, make_client, memory_json

from aurra import Pager, UnexpectedResponseError
from aurra.models import AuditPage, MemoryPage


def three_memory_pages(server: Server) -> None:
    server.reply(200, {"memories": [memory_json("m1"), memory_json("m2")], "next_cursor": "c2"})
    server.reply(200, {"memories": [memory_json("m3")], "next_cursor": "c3"})
    server.reply(200, {"memories": [memory_json("m4")], "next_cursor": None})


def test_iterator_walks_three_pages(client, server) -> None:
    three_memory_pages(server)
    pager = client.memories.list(topic="preferences", limit=2)
    assert isinstance(pager, Pager)
    assert server.requests == []  # nothing is fetched until iteration starts
    assert [m.id for m in pager] == ["m1", "m2", "m3", "m4"]
    assert [dict(r.url.params) for r in server.requests] == [
        {"topic": "preferences", "limit": "2"},
        {"topic": "preferences", "limit": "2", "cursor": "c2"},
        {"topic": "preferences", "limit": "2", "cursor": "c3"},
    ]


def test_iteration_is_lazy_page_by_page(client, server) -> None:
    three_memory_pages(server)
    iterator = iter(client.memories.list())
    assert next(iterator).id == "m1"
    assert next(iterator).id == "m2"
    assert len(server.requests) == 1
    assert next(iterator).id == "m3"
    assert len(server.requests) == 2


def test_pages_yields_page_objects(client, server) -> None:
    three_memory_pages(server)
    pages = list(client.memories.list().pages())
    assert all(isinstance(p, MemoryPage) for p in pages)
    assert [p.next_cursor for p in pages] == ["c2", "c3", None]


def test_search_iterator_follows_cursors(client, server) -> None:
    three_memory_pages(server)
    assert len(list(client.memories.search("editor"))) == 4
    assert all(dict(r.url.params)["q"] == "editor" for r in server.requests)


def test_manual_paging_with_list_page(client, server) -> None:
    three_memory_pages(server)
    seen, cursor = [], None
    while True:
        page = client.memories.list_page(cursor=cursor)
        seen += [m.id for m in page.memories]
        cursor = page.next_cursor
        if cursor is None:
            break
    assert seen == ["m1", "m2", "m3", "m4"]


def test_empty_cursor_string_ends_iteration(client, server) -> None:
    server.reply(200, {"memories": [memory_json("m1")], "next_cursor": ""})
    assert [m.id for m in client.memories.list()] == ["m1"]
    assert len(server.requests) == 1


def test_a_repeated_cursor_is_an_error_not_an_endless_loop(client, server) -> None:
    server.reply(200, {"memories": [memory_json("m1")], "next_cursor": "c2"})
    server.reply(200, {"memories": [memory_json("m2")], "next_cursor": "c2"})
    with pytest.raises(UnexpectedResponseError, match="same next_cursor"):
        list(client.memories.list())


def test_audit_iterator_walks_three_pages(client, server) -> None:
    server.reply(200, {"events": [event_json("e1")], "next_cursor": "c2"})
    server.reply(200, {"events": [event_json("e2"), event_json("e3")], "next_cursor": "c3"})
    server.reply(200, {"events": [event_json("e4")], "next_cursor": None})
    events = list(client.audit.list(type="auto_supersede"))
    assert [e.id for e in events] == ["e1", "e2", "e3", "e4"]
    assert [dict(r.url.params).get("cursor") for r in server.requests] == [None, "c2", "c3"]
    assert all(dict(r.url.params)["type"] == "auto_supersede" for r in server.requests)


def test_audit_list_page(client, server) -> None:
    server.reply(200, {"events": [event_json("e1")], "next_cursor": "c2"})
    page = client.audit.list_page(limit=1)
    assert isinstance(page, AuditPage)
    assert page.next_cursor == "c2" and len(server.requests) == 1


def test_each_iteration_starts_from_the_first_page() -> None:
    server = Server()
    server.handler = lambda request: httpx.Response(
        200, json={"memories": [memory_json("m1")], "next_cursor": None}
    )
    client = make_client(server)
    pager = client.memories.list()
    assert len(list(pager)) == 1 and len(list(pager)) == 1
    assert len(server.requests) == 2
