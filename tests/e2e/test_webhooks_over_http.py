"""Webhooks end to end: `aurra dev` (its own embedded PostgreSQL, so no other server's worker
delivers its events) sends the change stream to a receiver on loopback, signed; the SDK's
verifier accepts what it receives; a failing receiver is retried, dead-lettered and replayed."""

from __future__ import annotations

import base64
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from dev_server import DevServer, start_dev_server

from aurra import webhooks

EMACS = "User has been using Emacs as their daily editor, having moved away from Vim"
SECRET = "whsec_" + base64.b64encode(b"aurra-e2e-webhook-secret-32-bytes!").decode()


class Receiver:
    """An HTTP receiver on loopback that records each request and answers `status`."""

    def __init__(self) -> None:
        self.received: list[tuple[dict[str, str], bytes]] = []
        self.status = 200
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.received.append((dict(self.headers.items()), body))
                self.send_response(receiver.status)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks/aurra"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def events(self) -> list[dict[str, Any]]:
        return [json.loads(body) for _, body in self.received]


def wait_for(check, timeout: float = 30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if found := check():
            return found
        time.sleep(0.1)
    raise AssertionError("timed out")


@pytest.fixture
def own_server(tmp_path: Path):
    server = start_dev_server(
        "",
        tmp_path / "data",
        AURRA_DATABASE_URL="",  # its own embedded database
        AURRA_WEBHOOK_WORKER="true",
        AURRA_WEBHOOK_RETRY_BASE_S="0.2",
        AURRA_WEBHOOK_RETRY_FOR_S="2",
    )
    yield server
    server.process.terminate()
    server.process.wait(20)


def client_of(server: DevServer) -> httpx.Client:
    return httpx.Client(
        base_url=server.base_url, headers={"Authorization": f"Bearer {server.dev_key}"}, timeout=30
    )


def test_a_supersession_arrives_signed_and_a_failing_receiver_is_dead_lettered_then_replayed(own_server):
    receiver = Receiver()
    client = client_of(own_server)
    settings = client.patch(
        "/agent/settings",
        json={"webhooks": [{"url": receiver.url, "events": ["memory.superseded"], "secret": SECRET}]},
    )
    assert settings.status_code == 200, settings.text
    assert settings.json()["webhooks"] == [
        {"url": receiver.url, "events": ["memory.superseded"], "secret_set": True}
    ]
    assert SECRET not in settings.text and SECRET not in client.get("/agent/settings").text
    assert SECRET not in client.get("/agent/audit").text

    vim = client.post("/agent/memories", json={"content": "User uses Vim", "topic": "preferences"}).json()
    emacs = client.post(
        "/agent/memories", json={"content": EMACS, "topic": "preferences", "auto_supersede": True}
    ).json()
    assert emacs["auto_supersede"]["supersession"]["superseded_id"] == vim["memory"]["id"]

    wait_for(lambda: receiver.received)
    headers, body = receiver.received[0]
    event = webhooks.verify(body, headers, SECRET)
    assert event.type == "memory.superseded" and event.memory_id == vim["memory"]["id"]
    assert event.data["superseded_by"] == emacs["memory"]["id"]
    assert headers["webhook-id"] == event.id
    assert b"Vim" not in body and b"Emacs" not in body
    # Only the subscribed type: the two memory.created events were not sent.
    time.sleep(0.5)
    assert [e["type"] for e in receiver.events()] == ["memory.superseded"]
    with pytest.raises(webhooks.WebhookVerificationError):
        webhooks.verify(body.replace(b"superseded", b"supersedes"), headers, SECRET)
    delivered = client.get("/agent/webhooks/deliveries").json()["deliveries"]
    assert [(d["status"], d["attempts"], d["event_id"]) for d in delivered] == [("delivered", 1, event.id)]

    # The receiver fails: retried with backoff, then dead-lettered (2 s here, 24 h by default).
    receiver.status = 500
    client.patch(
        "/agent/settings",
        json={"webhooks": [{"url": receiver.url, "events": ["memory.superseded", "memory.reverted"]}]},
    )  # the same URL keeps its secret
    revert = client.post(f"/agent/audit/{event.data['event_id']}/revert")
    assert revert.status_code == 200
    helix = client.post(
        f"/agent/memories/{vim['memory']['id']}/supersede", json={"content": "User uses Helix"}
    )
    assert helix.status_code == 201

    def dead():
        found = client.get("/agent/webhooks/deliveries", params={"status": "dead"}).json()["deliveries"]
        return found if len(found) == 2 else None

    # Newest first; in order per memory, the revert's delivery was settled before the next began.
    failed, first = wait_for(dead, timeout=60)
    assert (first["event_type"], failed["event_type"]) == ("memory.reverted", "memory.superseded")
    assert first["memory_id"] == failed["memory_id"] == vim["memory"]["id"]
    # The revert's delivery was retried with backoff. The supersession's waited behind it (in
    # order per memory) for about the whole window, which counts from its creation: on a loaded
    # host its first attempt may already be past the window, and it is dead-lettered there.
    assert first["attempts"] >= 2 and failed["attempts"] >= 1
    assert failed["last_status"] == 500 and failed["last_error"] == "HTTP 500"
    failed_attempts = [e for e in receiver.events() if e["id"] == failed["event_id"]]
    assert len(failed_attempts) == failed["attempts"]
    sent_order = [e["type"] for e in receiver.events()[1:]]
    assert sent_order == ["memory.reverted"] * first["attempts"] + ["memory.superseded"] * failed["attempts"]
    webhooks.verify(receiver.received[-1][1], receiver.received[-1][0], SECRET)

    # Replay once the receiver is back: delivered, with the same webhook-id.
    receiver.status = 204
    replayed = client.post(f"/agent/webhooks/deliveries/{failed['id']}/replay")
    assert replayed.status_code == 202 and replayed.json()["status"] == "pending"

    def delivered_again():
        found = client.get("/agent/webhooks/deliveries").json()["deliveries"]
        return [d for d in found if d["id"] == failed["id"] and d["status"] == "delivered"] or None

    (done,) = wait_for(delivered_again)
    assert done["attempts"] == failed["attempts"] + 1
    assert receiver.received[-1][0]["webhook-id"] == failed["event_id"]


def test_webhook_settings_and_deliveries_are_the_key_and_tenant_own(api, db, monkeypatch, dev_server):
    alice, _ = api()
    bob, _ = api()
    refused = alice.patch(
        "/agent/settings", json={"webhooks": [{"url": "https://example.com/a", "events": ["memory.created"]}]}
    )
    assert (
        refused.status_code == 422 and refused.json()["error"]["details"][0]["field"] == "webhooks[0].secret"
    )
    too_many = [
        {"url": f"https://example.com/{i}", "events": ["memory.created"], "secret": SECRET} for i in range(6)
    ]
    assert alice.patch("/agent/settings", json={"webhooks": too_many}).status_code == 422
    bad_type = [{"url": "https://example.com/a", "events": ["memory.deleted"], "secret": SECRET}]
    assert alice.patch("/agent/settings", json={"webhooks": bad_type}).status_code == 422
    bad_secret = [{"url": "https://example.com/a", "events": ["memory.created"], "secret": "hunter2"}]
    assert alice.patch("/agent/settings", json={"webhooks": bad_secret}).status_code == 422
    ok = alice.patch(
        "/agent/settings",
        json={"webhooks": [{"url": "https://example.com/a", "events": ["memory.created"], "secret": SECRET}]},
    )
    assert ok.status_code == 200
    assert bob.get("/agent/settings").json()["webhooks"] == []
    alice.post("/agent/memories", json={"content": "User uses Vim"})
    assert bob.get("/agent/webhooks/deliveries").json()["deliveries"] == []
    # The session's servers run no worker: one round in this process, with no network.
    from aurra_core.webhooks import delivery

    monkeypatch.setattr(delivery, "post", lambda url, body, headers: 200)
    delivery.run_once(db)
    listed = alice.get("/agent/webhooks/deliveries").json()["deliveries"]
    assert [(d["event_type"], d["status"]) for d in listed] == [("memory.created", "delivered")]
    # The same through the Python SDK: the webhook as a setting, the deliveries, a replay.
    from aurra import Aurra, NotFoundError, Webhook

    def sdk(http: httpx.Client) -> Aurra:
        return Aurra(
            api_key=http.headers["Authorization"].removeprefix("Bearer "), base_url=dev_server.base_url
        )

    with sdk(alice) as alice_sdk, sdk(bob) as bob_sdk:
        assert alice_sdk.settings.get().webhooks == [
            Webhook(url="https://example.com/a", events=["memory.created"])
        ]
        page = alice_sdk.webhooks.deliveries(status="delivered")
        assert [(d.id, d.event_type, d.attempts) for d in page.deliveries] == [
            (listed[0]["id"], "memory.created", 1)
        ]
        assert alice_sdk.webhooks.deliveries(status="dead").deliveries == []
        with pytest.raises(NotFoundError):
            bob_sdk.webhooks.replay(listed[0]["id"])
        replayed = alice_sdk.webhooks.replay(listed[0]["id"])
        assert (replayed.id, replayed.status) == (listed[0]["id"], "pending")
        assert bob_sdk.webhooks.deliveries().deliveries == []
    replay = bob.post(f"/agent/webhooks/deliveries/{listed[0]['id']}/replay")
    assert replay.status_code == 404 and replay.json()["error"]["code"] == "not_found"
    assert alice.post("/agent/webhooks/deliveries/not-an-id/replay").status_code == 422
    assert alice.get("/agent/webhooks/deliveries", params={"status": "lost"}).status_code == 422
