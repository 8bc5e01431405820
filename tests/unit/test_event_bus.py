"""The change stream's EventBridge adapter against moto's EventBridge: each entry is the event as
GET /agent/events shows it, ten to a call, the entries a call fails (and failed calls) sent
again, and the count of delivered entries stops at the first that never went."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from typing import Any

import boto3
import pytest
from moto import mock_aws

from aurra_core.models import ChangeEvent, EventType
from aurra_core.webhooks import event_bus

TENANT = uuid.UUID("0193a000-0000-7000-8000-000000000001")
BUS = "aurra-test"


@pytest.fixture(autouse=True)
def aws(monkeypatch):
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-west-1")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    with mock_aws():
        yield boto3.client("events")


class Refusing:
    """moto's client, except that the entries named in `refuse` (by their position in the whole
    list, on the given attempt numbers) are answered as EventBridge answers entries it throttled,
    and never reach the bus."""

    def __init__(self, client: Any, refuse: dict[int, set[int]]) -> None:
        self.client, self.refuse, self.calls = client, refuse, []

    def put_events(self, Entries: list[dict[str, Any]]) -> dict[str, Any]:  # noqa: N803 - boto3's name
        self.calls.append([json.loads(e["Detail"])["data"]["n"] for e in Entries])
        attempt = len(self.calls)
        refused = {
            i
            for i, e in enumerate(Entries)
            if json.loads(e["Detail"])["data"]["n"] in self.refuse.get(attempt, set())
        }
        taken = [e for i, e in enumerate(Entries) if i not in refused]
        answers = iter(self.client.put_events(Entries=taken)["Entries"] if taken else [])
        results = [
            {"ErrorCode": "ThrottlingException", "ErrorMessage": "test"} if i in refused else next(answers)
            for i in range(len(Entries))
        ]
        return {"FailedEntryCount": len(refused), "Entries": results}


def events(count: int) -> list[ChangeEvent]:
    return [
        ChangeEvent(
            id=uuid.uuid4(),
            type=EventType.MEMORY_CREATED,
            created_at=datetime(2026, 12, 3, 12, 0, n % 60, tzinfo=UTC),
            user_id="alice",
            agent_id=None,
            memory_id=uuid.uuid4(),
            data={"n": n},
        )
        for n in range(count)
    ]


def entries(count: int) -> list[dict[str, Any]]:
    return [event_bus.entry(e, tenant_id=TENANT, stage="test", bus_name=BUS) for e in events(count)]


def test_an_entry_is_the_event_as_the_stream_shows_it() -> None:
    (event,) = events(1)
    entry = event_bus.entry(event, tenant_id=TENANT, stage="prod", bus_name="aurra-prod")
    assert entry["EventBusName"] == "aurra-prod"
    assert entry["Source"] == "aurra.prod" and entry["DetailType"] == "memory.created"
    assert json.loads(entry["Detail"]) == json.loads(event.model_dump_json())
    assert set(json.loads(entry["Detail"])) == {
        "id",
        "type",
        "created_at",
        "user_id",
        "agent_id",
        "memory_id",
        "data",
    }
    assert entry["Time"] == event.created_at
    assert entry["Resources"] == [f"aurra:prod:tenant/{TENANT}"]


def test_entries_go_ten_to_a_call_and_all_are_counted(aws) -> None:
    aws.create_event_bus(Name=BUS)
    client = Refusing(aws, {})
    bus = event_bus.EventBridgeBus(bus_name=BUS, stage="test", client=client, sleep=lambda s: None)
    assert bus.put(entries(23)) == 23
    assert client.calls == [list(range(10)), list(range(10, 20)), list(range(20, 23))]


def test_the_entries_a_call_refused_are_sent_again_alone_and_in_order(aws) -> None:
    aws.create_event_bus(Name=BUS)
    client = Refusing(aws, {1: {2, 5}, 2: {5}})
    slept: list[float] = []
    bus = event_bus.EventBridgeBus(bus_name=BUS, stage="test", client=client, sleep=slept.append)
    assert bus.put(entries(12)) == 12
    assert client.calls == [list(range(10)), [2, 5], [5], [10, 11]]
    assert slept == [0.2, 0.4]  # backoff doubling between attempts of one batch


def test_an_entry_that_never_goes_ends_the_count_before_it(aws) -> None:
    aws.create_event_bus(Name=BUS)
    always = {13}
    client = Refusing(aws, {attempt: always for attempt in range(1, 10)})
    bus = event_bus.EventBridgeBus(bus_name=BUS, stage="test", client=client, sleep=lambda s: None)
    # 0-12 went; 13 never did, so the caller's cursor stops after 12 (14-19 went, and go again
    # next time: at least once); the batch after is not sent at all
    assert bus.put(entries(25)) == 13
    assert client.calls[1:] == [list(range(10, 20))] + [[13]] * (event_bus.ATTEMPTS - 1)
    assert [n for call in client.calls for n in call if n >= 20] == []


def test_a_failed_call_is_made_again(aws) -> None:
    """The bus does not exist at the first call (moto refuses it whole), then does."""
    bus = event_bus.EventBridgeBus(
        bus_name=BUS, stage="test", client=aws, sleep=lambda s: aws.create_event_bus(Name=BUS)
    )
    assert bus.put(entries(3)) == 3


def test_a_bus_that_never_takes_anything_delivers_nothing(aws) -> None:
    bus = event_bus.EventBridgeBus(bus_name="missing", stage="test", client=aws, sleep=lambda s: None)
    assert bus.put(entries(3)) == 0
