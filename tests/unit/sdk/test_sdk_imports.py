"""A large import's index in the Python SDK (`client.imports`): the requests it sends, the typed
answer it returns, the argument checks made before any request, sync and async."""

from __future__ import annotations

import asyncio

import pytest
from sdk_fakes import Server, make_async_client

from aurra import ImportIndexing, InvalidArgumentError, NotFoundError

DEFERRED = {"indexing": "deferred", "reason": "new memories enter no index until the tenant's own is built"}


def test_announce_sends_the_count_and_whether_level2_is_asked_for(client, server) -> None:
    server.reply(200, DEFERRED)
    server.reply(200, {"indexing": "shared", "reason": "an import with Level 2 ..."})
    answer = client.imports.announce(250_000)
    assert isinstance(answer, ImportIndexing) and answer.indexing == "deferred"
    assert (server.last.method, server.last.url.path) == ("POST", "/agent/imports")
    assert server.body() == {"facts": 250_000, "auto_supersede": False}
    assert client.imports.announce(10, auto_supersede=True).indexing == "shared"
    assert server.body() == {"facts": 10, "auto_supersede": True}
    assert "Idempotency-Key" not in server.last.headers  # announcing again answers the same


def test_announce_sends_the_largest_scope_only_when_given(client, server) -> None:
    server.reply(200, DEFERRED)
    client.imports.announce(20_000, auto_supersede=True, largest_scope=20)
    assert server.body() == {"facts": 20_000, "auto_supersede": True, "largest_scope": 20}


@pytest.mark.parametrize("largest", [0, -3, 11, 2.5, "4", True])
def test_a_largest_scope_outside_one_to_facts_sends_nothing(client, server, largest) -> None:
    with pytest.raises(InvalidArgumentError, match="largest_scope"):
        client.imports.announce(10, auto_supersede=True, largest_scope=largest)
    assert server.requests == []


def test_build_index_and_indexing(client, server) -> None:
    server.reply(202, {"indexing": "building", "reason": "being built"})
    server.reply(200, {"indexing": "own", "reason": "its own index"})
    assert client.imports.build_index().indexing == "building"
    assert (server.last.method, server.last.url.path, server.body()) == ("POST", "/agent/imports/index", {})
    assert client.imports.indexing().indexing == "own"
    assert (server.last.method, server.last.url.path) == ("GET", "/agent/imports/index")


@pytest.mark.parametrize("facts", [0, -1, 1.5, "10", True, None])
def test_a_count_that_is_no_positive_whole_number_sends_nothing(client, server, facts) -> None:
    with pytest.raises(InvalidArgumentError):
        client.imports.announce(facts)
    assert server.requests == []


def test_a_server_without_the_routes_is_a_not_found(client, server) -> None:
    server.reply(404, {"error": {"code": "not_found", "message": "no route"}})
    with pytest.raises(NotFoundError):
        client.imports.announce(5_000)


def test_async_imports() -> None:
    server = Server()
    server.reply(200, DEFERRED)
    server.reply(202, DEFERRED)
    server.reply(200, {"indexing": "own", "reason": "its own index"})

    async def go():
        async with make_async_client(server) as client:
            return [
                (await client.imports.announce(3_000, auto_supersede=True, largest_scope=3)).indexing,
                (await client.imports.build_index()).indexing,
                (await client.imports.indexing()).indexing,
            ]

    assert asyncio.run(go()) == ["deferred", "deferred", "own"]
    assert server.body(0) == {"facts": 3_000, "auto_supersede": True, "largest_scope": 3}
    assert [(r.method, r.url.path) for r in server.requests] == [
        ("POST", "/agent/imports"),
        ("POST", "/agent/imports/index"),
        ("GET", "/agent/imports/index"),
    ]
