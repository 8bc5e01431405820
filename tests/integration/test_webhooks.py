"""Webhook settings and delivery on a real PostgreSQL: the secret is write-only, a URL outside
`aurra dev` must be https and public, the fan-out makes each delivery once, deliveries keep
the order of a memory's events, and no tenant sees another's webhooks or deliveries. The
receiver is a stand-in for `delivery.post` (the HTTP side is tested over loopback in
tests/e2e/test_webhooks_over_http.py)."""

from __future__ import annotations

import base64
import json
import time
from uuid import UUID

import pytest
from pipeline_support import ScriptedClassifier, deps
from pydantic import ValidationError

from aurra_core import service
from aurra_core.access import keys
from aurra_core.errors import NotFound, ValidationFailed
from aurra_core.models import DeliveryListQuery, SettingsPatch, SupersedeRequest, WriteRequest
from aurra_core.webhooks import delivery, signing
from aurra_core.write_path.pipeline import write_memory
from aurra_local import gateway

SECRET = "whsec_" + base64.b64encode(b"integration-webhook-secret-bytes").decode()


def put(caller, content):
    return write_memory(
        caller, WriteRequest(content=content), deps(ScriptedClassifier(), level2=False)
    ).result


def set_hooks(db, caller, hooks):
    with db.tenant_transaction(caller.tenant_id) as conn:
        return keys.update_key_settings(conn, caller, SettingsPatch.model_validate({"webhooks": hooks}))


@pytest.fixture
def sent(monkeypatch):
    """Every POST the worker makes, answered `answer[0]`."""
    calls: list[tuple[str, bytes, dict[str, str]]] = []
    answer = [200]

    def fake_post(url, body, headers):
        calls.append((url, body, headers))
        return answer[0]

    monkeypatch.setattr(delivery, "post", fake_post)
    return calls, answer


def drain(db):
    """Fan out, then attempt what is due, until nothing is."""
    while delivery.run_once(db):
        pass


def test_the_secret_is_write_only_and_never_audited(db, new_key, configure):
    configure(AURRA_WEBHOOKS_ALLOW_PRIVATE="false")
    caller, _ = new_key()
    hook = {
        "url": "https://hooks.example.com/a",
        "events": ["memory.created", "memory.created"],
        "secret": SECRET,
    }
    settings = set_hooks(db, caller, [hook])
    assert [w.model_dump(mode="json") for w in settings.webhooks] == [
        {"url": "https://hooks.example.com/a", "events": ["memory.created"], "secret_set": True}
    ]
    assert SECRET not in service.get_settings(caller).model_dump_json()
    # The same URL without its secret keeps it; a new URL needs one.
    set_hooks(db, caller, [{"url": "https://hooks.example.com/a", "events": ["memory.superseded"]}])
    with pytest.raises(ValidationFailed) as refused:
        set_hooks(db, caller, [{"url": "https://hooks.example.com/b", "events": ["memory.created"]}])
    assert refused.value.details[0]["field"] == "webhooks[0].secret"
    twice = [{"url": "https://hooks.example.com/a", "events": ["memory.created"], "secret": SECRET}] * 2
    with pytest.raises(ValidationFailed) as refused:
        set_hooks(db, caller, twice)
    assert refused.value.details[0]["field"] == "webhooks[1].url"
    with db.tenant_transaction(caller.tenant_id) as conn:
        audited = conn.execute(
            "SELECT details::text FROM audit_events WHERE tenant_id = %s AND type = 'settings_updated'",
            (caller.tenant_id,),
        ).fetchall()
        stored = conn.execute(
            "SELECT secret FROM webhook_endpoints WHERE tenant_id = %s", (caller.tenant_id,)
        ).fetchall()
    assert len(audited) == 2 and all(SECRET not in text and "whsec_" not in text for (text,) in audited)
    assert stored == [(SECRET,)]


@pytest.mark.parametrize(
    "url",
    [
        "http://hooks.example.com/a",
        "https://127.0.0.1/a",
        "https://10.0.0.5/a",
        "https://[::1]/a",
        "https://169.254.169.254/latest",
        "https://localhost/a",
        "https://user:pw@hooks.example.com/a",
        "ftp://x/a",
        "https://[64:ff9b::a9fe:a9fe]/latest",
        "https://[2002:a00:1::1]/a",
        "https://[::a00:1]/a",
        "https://224.0.0.1/a",
    ],
)
def test_outside_dev_a_url_must_be_https_and_public(url, configure):
    configure(AURRA_WEBHOOKS_ALLOW_PRIVATE="false")
    with pytest.raises(ValidationError):
        SettingsPatch.model_validate(
            {"webhooks": [{"url": url, "events": ["memory.created"], "secret": SECRET}]}
        )


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:9/a\x00",
        "http://127.0.0.1:9/a\r\nX-Injected: 1",
        "http://127.0.0.1:9/a b",
        "http://127.0.0.1:9/\x85",
    ],
)
def test_a_url_with_whitespace_or_control_characters_is_a_422_not_a_500(url, new_key, configure):
    """Even where local receivers are allowed: a NUL reached the database (500), and CR LF was
    stored as given."""
    configure(AURRA_WEBHOOKS_ALLOW_PRIVATE="true")
    _, raw = new_key()
    response = gateway.handle(
        "PATCH",
        "/agent/settings",
        {"Authorization": f"Bearer {raw}", "Content-Type": "application/json"},
        json.dumps({"webhooks": [{"url": url, "events": ["memory.created"], "secret": SECRET}]}).encode(),
    )
    assert response["statusCode"] == 422, response
    assert json.loads(response["body"])["error"]["details"][0]["field"] == "webhooks[0].url"


def test_dev_takes_a_local_http_receiver_and_at_most_five(configure):
    configure(AURRA_WEBHOOKS_ALLOW_PRIVATE="true")
    SettingsPatch.model_validate(
        {"webhooks": [{"url": "http://127.0.0.1:9/a", "events": ["memory.created"], "secret": SECRET}]}
    )
    six = [
        {"url": f"https://h.example.com/{i}", "events": ["memory.created"], "secret": SECRET}
        for i in range(6)
    ]
    with pytest.raises(ValidationError):
        SettingsPatch.model_validate({"webhooks": six})


def test_each_event_is_delivered_once_signed_and_in_order_per_memory(db, new_key, configure, sent):
    configure(
        AURRA_WEBHOOKS_ALLOW_PRIVATE="true",
        AURRA_WEBHOOK_RETRY_BASE_S="0.001",
        AURRA_WEBHOOK_RETRY_FOR_S="3600",
    )
    calls, answer = sent
    caller, _ = new_key()
    drain(db)  # what other tests left
    calls.clear()
    set_hooks(
        db,
        caller,
        [
            {
                "url": "http://127.0.0.1:9/hook",
                "events": ["memory.created", "memory.superseded"],
                "secret": SECRET,
            }
        ],
    )
    vim = put(caller, "alice uses Vim").memory
    answer[0] = 503  # the receiver is down: vim's next event must wait behind the first
    drain_once = delivery.run_once(db, max_sends=1)
    assert drain_once == 1
    service.supersede_memory(caller, vim.id, SupersedeRequest(content="alice uses Emacs"))
    delivery.fan_out_all(db)
    with db.transaction() as conn:
        rows = conn.execute(
            "SELECT event_type, status, attempts FROM webhook_deliveries WHERE tenant_id = %s ORDER BY event_seq",
            (caller.tenant_id,),
        ).fetchall()
    assert rows == [
        ("memory.created", "pending", 1),
        ("memory.created", "pending", 0),
        ("memory.superseded", "pending", 0),
    ]
    answer[0] = 200
    time.sleep(0.05)
    drain(db)
    delivery.fan_out_all(db)  # again: nothing new
    mine = [(json.loads(body), headers) for _, body, headers in calls]
    vim_events = [e["type"] for e, _ in mine if e["memory_id"] == str(vim.id)]
    assert vim_events == [
        "memory.created",
        "memory.created",
        "memory.superseded",
    ]  # first try failed, retried first
    page = delivery.list_deliveries(caller, DeliveryListQuery(), db)
    assert sorted(d.status for d in page.deliveries) == ["delivered"] * 3
    assert len(page.deliveries) == 3
    for _, raw_body, raw_headers in calls:
        event = json.loads(raw_body)
        assert raw_headers["webhook-id"] == event["id"]
        stamp = int(raw_headers["webhook-timestamp"])
        assert raw_headers["webhook-signature"] == signing.sign(SECRET, event["id"], stamp, raw_body)
        assert "Vim" not in raw_body.decode() and "Emacs" not in raw_body.decode()


def test_an_unexpected_failure_of_an_attempt_is_recorded_and_retried(db, new_key, configure, monkeypatch):
    configure(AURRA_WEBHOOKS_ALLOW_PRIVATE="true", AURRA_WEBHOOK_RETRY_BASE_S="60")
    monkeypatch.setattr(delivery, "post", lambda url, body, headers: 200)
    drain(db)  # what other tests left

    def broken(url, body, headers):
        raise UnicodeError("label too long")

    monkeypatch.setattr(delivery, "post", broken)
    caller, _ = new_key()
    set_hooks(db, caller, [{"url": "http://127.0.0.1:9/x", "events": ["memory.created"], "secret": SECRET}])
    put(caller, "alice uses Vim")
    assert delivery.run_once(db) == 1
    (failed,) = delivery.list_deliveries(caller, DeliveryListQuery(), db).deliveries
    assert (failed.status, failed.attempts, failed.last_error) == ("pending", 1, "label too long")
    assert failed.next_attempt_at is not None and failed.next_attempt_at > failed.last_attempt_at


def test_no_tenant_reads_or_replays_another_tenants_deliveries(db, new_key, configure, sent):
    configure(AURRA_WEBHOOKS_ALLOW_PRIVATE="true")
    alice, _ = new_key()
    bob, _ = new_key()
    set_hooks(db, alice, [{"url": "http://127.0.0.1:9/a", "events": ["memory.created"], "secret": SECRET}])
    put(alice, "alice uses Vim")
    drain(db)
    (mine,) = delivery.list_deliveries(alice, DeliveryListQuery(), db).deliveries
    assert delivery.list_deliveries(bob, DeliveryListQuery(), db).deliveries == []
    with pytest.raises(NotFound):
        delivery.replay(bob, mine.id, db)
    assert service.get_settings(bob).webhooks == []
    # Below the code's filters, row-level security: bob's confinement reads none of alice's rows.
    with db.tenant_transaction(bob.tenant_id) as conn:
        for table in ("webhook_endpoints", "webhook_deliveries"):
            assert conn.execute(
                f"SELECT count(*) FROM {table} WHERE tenant_id = %s", (alice.tenant_id,)
            ).fetchone() == (0,)
    replayed = delivery.replay(alice, mine.id, db)
    assert replayed.status == "pending" and isinstance(replayed.id, UUID)
