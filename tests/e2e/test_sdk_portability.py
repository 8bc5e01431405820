"""The Python SDK's batch writes and export against `aurra dev`."""

import asyncio
from datetime import UTC, datetime

import pytest

VIM = "User uses Vim"
EMACS = "User has been using Emacs as their daily editor, having moved away from Vim"


def test_add_batch_and_export_with_the_sync_client(dev_server, new_key):
    from aurra import Aurra
    from aurra.errors import InvalidArgumentError, ValidationError

    _, raw = new_key()
    client = Aurra(api_key=raw, base_url=dev_server.base_url)
    result = client.memories.add_batch(
        [
            {"content": EMACS, "topic": "preferences", "valid_from": datetime(2023, 5, 3, tzinfo=UTC)},
            {"content": VIM, "topic": "preferences", "valid_from": "2021-01-01T00:00:00Z", "user_id": None},
        ],
        auto_supersede=True,
    )
    emacs, vim = result.results
    assert emacs.memory.content == EMACS and vim.memory.content == VIM
    assert emacs.auto_supersede.supersession is not None
    assert emacs.auto_supersede.supersession.superseded_id == vim.memory.id

    with pytest.raises(ValidationError) as caught:
        client.memories.add_batch([{"content": "ok"}, {"content": "bad", "topic": "No Topic"}])
    assert caught.value.details[0]["field"] == "facts[1].topic"

    records = list(client.export(limit=1))
    # An expiry as an aware datetime, and a source, as memories.add takes them.
    (paris,) = client.memories.add_batch(
        [
            {
                "content": "User is in Paris",
                "user_id": "al",
                "valid_to": datetime(2099, 6, 12, tzinfo=UTC),
                "source": {"type": "calendar", "id": "event-81"},
            }
        ]
    ).results
    assert paris.memory.valid_to == datetime(2099, 6, 12, tzinfo=UTC)
    assert paris.memory.source is not None and paris.memory.source.id == "event-81"
    with pytest.raises(InvalidArgumentError):  # a naive datetime is refused before sending
        client.memories.add_batch([{"content": "User is in Rome", "valid_to": datetime(2099, 6, 12)}])
    versions = [r for r in records if r["kind"] == "memory_version"]
    assert [(v["content"], v["status"]) for v in versions] == [
        (VIM, "current"),
        (EMACS, "current"),
        (VIM, "superseded"),
    ]
    assert [r["kind"] for r in records[3:]] == ["audit_event"]
    page = client.export_page(limit=2)
    assert len(page.records) == 2 and page.next_cursor is not None
    assert client.export_page(limit=2, cursor=page.next_cursor) == client.export_page(
        limit=2, cursor=page.next_cursor
    )
    client.close()


def test_add_batch_refuses_what_the_api_would_before_sending(dev_server, new_key):
    from aurra import Aurra
    from aurra.errors import InvalidArgumentError

    _, raw = new_key()
    with Aurra(api_key=raw, base_url=dev_server.base_url) as client:
        for facts in ([], [{"content": str(i)} for i in range(101)], {"content": "x"}, ["x"]):
            with pytest.raises(InvalidArgumentError):
                client.memories.add_batch(facts)  # type: ignore[arg-type]
        with pytest.raises(InvalidArgumentError):
            client.memories.add_batch([{"content": "x", "valid_from": datetime(2024, 1, 1)}])  # no zone
        assert list(client.export()) == []


def test_add_batch_and_export_with_the_async_client(dev_server, new_key):
    from aurra import AsyncAurra

    _, raw = new_key()

    async def run() -> list[dict]:
        async with AsyncAurra(api_key=raw, base_url=dev_server.base_url) as client:
            result = await client.memories.add_batch([{"content": "User likes tea", "user_id": "al"}])
            assert result.results[0].created is True
            return [record async for record in client.export(user_id="al", limit=1)]

    records = asyncio.run(run())
    assert [(r["kind"], r["content"], r["user_id"]) for r in records] == [
        ("memory_version", "User likes tea", "al")
    ]


def test_add_batch_takes_each_facts_source_and_expiry(dev_server, new_key):
    from aurra import Aurra, BatchFact
    from aurra.errors import InvalidArgumentError, ValidationError

    _, raw = new_key()
    with Aurra(api_key=raw, base_url=dev_server.base_url) as client:
        facts: list[BatchFact] = [
            {
                "content": "User is at the Lisbon office this week",
                "valid_from": datetime(2026, 3, 2, tzinfo=UTC),
                "valid_to": datetime(2026, 3, 7, tzinfo=UTC),
                "source": {"type": "calendar", "id": "evt-42", "uri": None},
            },
            {
                "content": "User likes tea",
                "source": {"type": "crm", "id": "c-7", "uri": "https://crm.example.com/c-7"},
            },
        ]
        trip, tea = (r.memory for r in client.memories.add_batch(facts).results)
        assert trip.valid_to == datetime(2026, 3, 7, tzinfo=UTC) and trip.status == "expired"
        assert trip.source is not None and (trip.source.type, trip.source.id, trip.source.uri) == (
            "calendar",
            "evt-42",
            None,
        )
        assert tea.source is not None and tea.source.uri == "https://crm.example.com/c-7"
        with pytest.raises(InvalidArgumentError):
            client.memories.add_batch([{"content": "x", "valid_to": datetime(2030, 1, 1)}])  # no zone
        with pytest.raises(ValidationError) as caught:
            client.memories.add_batch(
                [{"content": "x", "valid_from": "2026-05-01T00:00:00Z", "valid_to": "2026-04-01T00:00:00Z"}]
            )
        assert caught.value.details[0]["field"] == "facts[0].valid_to"
