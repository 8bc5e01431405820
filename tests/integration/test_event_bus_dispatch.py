"""The dispatcher on a real PostgreSQL, publishing to moto's EventBridge: each tenant's events
reach the bus in commit order, each once per walk of its cursor, exactly as GET /agent/events
shows them; an event the bus refuses holds the cursor before it and goes again next round
(never skipped); an event committed while a round publishes waits for the next; the lag the
alarm watches is the age of the oldest event not yet on the bus; and the same loop delivers
webhooks with the delivery code `aurra dev` runs."""

from __future__ import annotations

import base64
import itertools
import json
from pathlib import Path
from typing import Any
from uuid import UUID

import boto3
import pytest
from moto import mock_aws
from pipeline_support import ScriptedClassifier, deps

from aurra_core.access import keys
from aurra_core.models import EventListQuery, SettingsPatch, SupersedeRequest, WriteRequest
from aurra_core.runtime.config import get_config
from aurra_core.service import supersede_memory
from aurra_core.storage import events
from aurra_core.webhooks import delivery, dispatcher, event_bus
from aurra_core.write_path.pipeline import write_memory

BUS = "aurra-test"


def put(caller, content):
    return write_memory(
        caller, WriteRequest(content=content), deps(ScriptedClassifier(), level2=False)
    ).result


class Recorder:
    """moto's client, recording what reached the bus; the events whose ids are in `refuse` are
    answered as throttled (and never reach it); `during` runs inside the first call."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.delivered: list[dict[str, Any]] = []
        self.refuse: set[str] = set()
        self.during: Any = None

    def put_events(self, Entries: list[dict[str, Any]]) -> dict[str, Any]:  # noqa: N803 - boto3's name
        if self.during is not None:
            during, self.during = self.during, None
            during()
        refused = [json.loads(e["Detail"])["id"] in self.refuse for e in Entries]
        taken = [e for e, r in zip(Entries, refused, strict=True) if not r]
        answers = iter(self.client.put_events(Entries=taken)["Entries"] if taken else [])
        results = []
        for entry, was_refused in zip(Entries, refused, strict=True):
            if was_refused:
                results.append({"ErrorCode": "ThrottlingException", "ErrorMessage": "test"})
                continue
            answer = next(answers)
            if "EventId" in answer:
                self.delivered.append(entry)
            results.append(answer)
        return {"FailedEntryCount": sum(refused), "Entries": results}

    def of(self, tenant_id: UUID) -> list[dict[str, Any]]:
        resource = event_bus.tenant_resource("test", tenant_id)
        return [json.loads(e["Detail"]) for e in self.delivered if e["Resources"] == [resource]]


@pytest.fixture
def bus(monkeypatch):
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-west-1")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    with mock_aws():
        client = boto3.client("events")
        client.create_event_bus(Name=BUS)
        recorder = Recorder(client)
        yield (
            recorder,
            event_bus.EventBridgeBus(bus_name=BUS, stage="test", client=recorder, sleep=lambda s: None),
        )


def drain(db, eventbridge) -> None:
    """Rounds until one publishes nothing: the session's database holds other tests' tenants,
    some with more events than a round takes of a tenant (EVENTS_PER_ROUND)."""
    for _ in range(1000):
        if not event_bus.publish(db, eventbridge).published:
            return
    raise AssertionError("the outbox did not drain")


# The lag after a drain: other tests' background work (a dev server's worker) may commit an event
# of another tenant meanwhile, which is seconds old at most; a backlog would be minutes old.
DRAINED_LAG_S = 5.0


def stream(caller, db) -> list[dict[str, Any]]:
    """The tenant's whole stream as GET /agent/events shows it."""
    page = events.read_event_page(caller, EventListQuery(limit=500), db)
    return [json.loads(e.model_dump_json()) for e in page.events]


def test_each_tenants_events_reach_the_bus_once_in_commit_order_as_the_stream_shows_them(db, new_key, bus):
    recorder, eventbridge = bus
    alice, _ = new_key()
    bob, _ = new_key()
    first = put(alice, "alice uses Vim").memory
    put(bob, "bob likes tea")
    put(alice, "alice lives in Lyon")
    supersede_memory(alice, first.id, SupersedeRequest(content="alice uses Emacs"))

    event_bus.publish(db, eventbridge)
    assert recorder.of(alice.tenant_id) == stream(alice, db)
    assert [e["type"] for e in recorder.of(alice.tenant_id)] == [
        "memory.created",
        "memory.created",
        "memory.created",
        "memory.superseded",
    ]
    assert recorder.of(bob.tenant_id) == stream(bob, db)
    sent = json.dumps(recorder.delivered, default=str)
    assert "Vim" not in sent and "tea" not in sent  # ids only, never content
    assert {e["DetailType"] for e in recorder.delivered} <= {t.value for t in events.EventType}
    assert {e["Source"] for e in recorder.delivered} == {"aurra.test"}

    # walked once: a second round publishes nothing of theirs (the session's database is shared
    # with other tests' tenants, whose later events it may publish), a new change only itself
    before = recorder.of(alice.tenant_id) + recorder.of(bob.tenant_id)
    event_bus.publish(db, eventbridge)
    assert recorder.of(alice.tenant_id) + recorder.of(bob.tenant_id) == before
    put(alice, "alice drinks coffee")
    drain(db, eventbridge)
    assert recorder.of(alice.tenant_id) == stream(alice, db)
    assert event_bus.oldest_unpublished_age_s(db) < DRAINED_LAG_S


def test_a_refused_event_holds_the_cursor_and_goes_again_next_round(db, new_key, bus):
    recorder, eventbridge = bus
    drain(db, eventbridge)  # other tests' tenants out of the way
    caller, _ = new_key()
    for n in range(5):
        put(caller, f"fact number {n}")
    ids = [e["id"] for e in stream(caller, db)]
    recorder.refuse = {ids[2]}

    report = event_bus.publish(db, eventbridge)
    assert str(caller.tenant_id) in report.stalled
    got = [e["id"] for e in recorder.of(caller.tenant_id)]
    # 0 and 1 went and the cursor is past them; 3 and 4 went too, but the cursor is not
    assert got == [ids[0], ids[1], ids[3], ids[4]]
    assert event_bus.oldest_unpublished_age_s(db) > 0

    recorder.refuse = set()
    event_bus.publish(db, eventbridge)
    got = [e["id"] for e in recorder.of(caller.tenant_id)]
    assert got == [ids[0], ids[1], ids[3], ids[4], ids[2], ids[3], ids[4]]  # at least once, none skipped
    drain(db, eventbridge)
    assert len(recorder.of(caller.tenant_id)) == 7  # and the walk is done
    assert event_bus.oldest_unpublished_age_s(db) < DRAINED_LAG_S


def test_an_event_committed_while_a_round_publishes_waits_for_the_next(db, new_key, bus):
    recorder, eventbridge = bus
    drain(db, eventbridge)
    caller, _ = new_key()
    put(caller, "alice uses Vim")
    recorder.during = lambda: put(caller, "alice lives in Lyon")
    event_bus.publish(db, eventbridge)
    assert len(recorder.of(caller.tenant_id)) == 1
    event_bus.publish(db, eventbridge)
    assert recorder.of(caller.tenant_id) == stream(caller, db)
    assert len(stream(caller, db)) == 2


def test_the_dispatcher_publishes_and_delivers_webhooks_in_one_loop(db, new_key, bus, configure, monkeypatch):
    configure(AURRA_WEBHOOKS_ALLOW_PRIVATE="false", AURRA_WEBHOOKS_ENABLED="true")
    recorder, eventbridge = bus
    posted: list[tuple[str, bytes]] = []
    monkeypatch.setattr(delivery, "post", lambda url, body, headers: posted.append((url, body)) or 204)
    caller, _ = new_key()
    secret = "whsec_" + base64.b64encode(b"dispatcher-webhook-secret-bytes!").decode()
    with db.tenant_transaction(caller.tenant_id) as conn:
        keys.update_key_settings(
            conn,
            caller,
            SettingsPatch.model_validate(
                {
                    "webhooks": [
                        {"url": "https://hooks.example.com/a", "events": ["memory.created"], "secret": secret}
                    ]
                }
            ),
        )
    memory = put(caller, "alice uses Vim").memory

    clock = itertools.chain([0.0, 0.0], itertools.repeat(100.0))  # one round, then out of time
    result = dispatcher.drain(
        db, eventbridge, get_config(), run_for_s=90, clock=lambda: next(clock), sleep=lambda s: None
    )
    assert result["rounds"] == 1 and result["outbox_lag_s"] == 0.0
    (event,) = recorder.of(caller.tenant_id)
    assert event["memory_id"] == str(memory.id)
    mine = [body for url, body in posted if url == "https://hooks.example.com/a"]
    assert [json.loads(body) for body in mine] == [event]  # the same event, the same shape


def test_without_webhooks_the_deployment_refuses_to_set_one(configure):
    configure(AURRA_WEBHOOKS_ALLOW_PRIVATE="false", AURRA_WEBHOOKS_ENABLED="false")
    with pytest.raises(ValueError, match="does not deliver webhooks"):
        SettingsPatch.model_validate(
            {
                "webhooks": [
                    {"url": "https://hooks.example.com/a", "events": ["memory.created"], "secret": None}
                ]
            }
        )
    SettingsPatch.model_validate({"webhooks": []})  # removing them all is still fine


def test_a_deployed_stage_takes_webhooks_on_443_only(configure):
    configure(AURRA_WEBHOOKS_ALLOW_PRIVATE="false", AURRA_WEBHOOKS_ENABLED="true")
    with pytest.raises(ValueError, match="443"):
        SettingsPatch.model_validate(
            {"webhooks": [{"url": "https://hooks.example.com:8443/a", "events": ["memory.created"]}]}
        )
    SettingsPatch.model_validate(
        {"webhooks": [{"url": "https://hooks.example.com:443/a", "events": ["memory.created"]}]}
    )


def test_the_dispatcher_function_publishes_from_its_configuration(db, new_key, configure, monkeypatch):
    """The Lambda handler on its scheduled event, configured as the stack configures it (the bus
    by name; the database from the environment), against moto."""
    from aurra_local.gateway import LambdaContext
    from aurra_local.lambda_functions import load_handler

    configure(AURRA_EVENT_BUS_NAME=BUS, AURRA_STAGE="test", AURRA_WEBHOOKS_ENABLED="false")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-west-1")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    caller, _ = new_key()
    put(caller, "alice uses Vim")

    class OneRound(LambdaContext):
        def get_remaining_time_in_millis(self) -> int:
            return 10_000  # within the 10 s kept for the last round: one round

    scheduled = json.loads((Path(__file__).parents[2] / "events" / "scheduled_dispatcher.json").read_text())
    with mock_aws():
        boto3.client("events").create_event_bus(Name=BUS)
        handler = load_handler("dispatcher").lambda_handler
        result = handler(scheduled, OneRound(function_name="dispatcher", aws_request_id="dispatch-test"))
    assert result["rounds"] == 1 and result["published"] >= 1 and result["outbox_lag_s"] == 0.0
    with db.transaction() as conn:
        (cursor,) = conn.execute(
            "SELECT last_seq FROM event_bus_cursors WHERE tenant_id = %s", (caller.tenant_id,)
        ).fetchone()
        assert cursor == events.last_seq(conn, caller.tenant_id) == 1


def test_a_stage_without_webhooks_answers_a_422_envelope_through_the_settings_function(new_key, configure):
    """PATCH /agent/settings through the settings Lambda handler, as API Gateway calls it."""
    from aurra_local import gateway

    configure(AURRA_WEBHOOKS_ALLOW_PRIVATE="false", AURRA_WEBHOOKS_ENABLED="false")
    caller, _ = new_key()
    secret = "whsec_" + base64.b64encode(b"dispatcher-webhook-secret-bytes!").decode()
    body = {
        "webhooks": [{"url": "https://hooks.example.com/a", "events": ["memory.created"], "secret": secret}]
    }
    event = gateway.proxy_event(
        "PATCH",
        "/agent/settings",
        {"Content-Type": "application/json"},
        json.dumps(body).encode(),
        "/agent/settings",
        {},
        {
            "principalId": str(caller.api_key_id),
            "tenant_id": str(caller.tenant_id),
            "api_key_id": str(caller.api_key_id),
        },
    )
    response = gateway.invoke("settings", event)
    assert response["statusCode"] == 422, response
    error = json.loads(response["body"])["error"]
    assert error["code"] == "validation_error"
    assert [d["field"] for d in error["details"]] == ["webhooks[0].url"]
    assert "does not deliver webhooks" in error["details"][0]["problem"]
    assert secret not in response["body"]
