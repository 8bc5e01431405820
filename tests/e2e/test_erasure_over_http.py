"""Provenance, expiry and erasure end to end over `aurra dev`: the routes, their statuses and
error envelopes as a client sees them, and another tenant kept out of every new route."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest


def test_a_users_memories_are_erased_with_a_receipt_and_read_as_gone(api):
    client, _ = api()
    said = f"Zanzibar{uuid.uuid4().hex[:8]}"
    written = client.post(
        "/agent/memories",
        json={
            "messages": [{"role": "user", "content": f"I moved to {said} last month."}],
            "user_id": "alice",
            "conversation_id": "conv-1",
        },
    )
    assert written.status_code == 201, written.text
    fact = written.json()["facts"][0]["memory"]
    assert fact["source"]["conversation_id"] == "conv-1" and said in fact["source"]["quote"]
    assert written.json()["extraction"]["conversation_id"] == "conv-1"
    bob = client.post("/agent/memories", json={"content": "User likes tea", "user_id": "bob"}).json()[
        "memory"
    ]
    listed = client.get("/agent/memories", params={"conversation_id": "conv-1"}).json()["memories"]
    assert [m["id"] for m in listed] == [fact["id"]]

    created = client.post("/agent/erasures", json={"user_id": "alice"})
    assert created.status_code == 201, created.text
    receipt = created.json()
    assert set(receipt) == {"id", "selector", "created_at", "counts", "status"}
    assert receipt["status"] == "completed"
    assert receipt["selector"] == {"user_id": "alice"} and receipt["counts"]["memories"] == 1
    assert set(receipt["counts"]) == {
        "memories",
        "versions",
        "audit_events",
        "proposals",
        "idempotency_records",
    }

    repeated = client.post("/agent/erasures", json={"user_id": "alice"})
    assert repeated.status_code == 200 and repeated.json() == receipt
    assert client.get(f"/agent/erasures/{receipt['id']}").json() == receipt

    gone = client.get(f"/agent/memories/{fact['id']}")
    assert gone.status_code == 410
    error = gone.json()["error"]
    assert error["code"] == "gone" and error["details"][0]["erasure_id"] == receipt["id"]
    assert client.get(f"/agent/memories/{fact['id']}/history").status_code == 410
    everything = client.get("/agent/memories", params={"include_superseded": "true", "q": said}).json()
    assert [m["id"] for m in everything["memories"]] == [bob["id"]]
    assert said not in client.get("/agent/audit").text
    events = client.get("/agent/audit", params={"type": "erasure"}).json()["events"]
    assert [e["details"]["erasure_id"] for e in events] == [receipt["id"]]


def test_erasure_routes_never_cross_tenants(api):
    owner, _ = api()
    stranger, _ = api()
    memory = owner.post("/agent/memories", json={"content": "User owns a boat"}).json()["memory"]
    receipt = owner.post("/agent/erasures", json={"user_id": "nobody"}).json()
    refused = stranger.post("/agent/erasures", json={"memory_id": memory["id"]})
    assert refused.status_code == 404 and refused.json()["error"]["code"] == "not_found"
    assert stranger.get(f"/agent/erasures/{receipt['id']}").status_code == 404
    assert stranger.post("/agent/erasures", json={"tenant": True}).status_code == 201
    assert owner.get(f"/agent/memories/{memory['id']}").status_code == 200


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"user_id": "alice", "tenant": True},
        {"agent_id": "planner"},
        {"tenant": False},
        {"memory_id": "not-a-uuid"},
        {"conversation_id": "with space"},
        {"user_id": "alice", "colour": "red"},
    ],
)
def test_another_shape_is_a_422_envelope(api, body):
    client, _ = api()
    response = client.post("/agent/erasures", json=body)
    assert response.status_code == 422, response.text
    assert response.json()["error"]["code"] == "validation_error"


def test_bad_bodies_and_ids_are_4xx_never_500(api):
    client, _ = api()
    not_json = client.post("/agent/erasures", content=b"{", headers={"Content-Type": "application/json"})
    assert not_json.status_code == 400
    assert client.get("/agent/erasures/not-a-uuid").status_code == 422
    assert client.get(f"/agent/erasures/{uuid.uuid4()}").status_code == 404
    unknown = client.post("/agent/erasures", json={"memory_id": str(uuid.uuid4())})
    assert unknown.status_code == 404
    refused = client.post(
        "/agent/memories", json={"content": "User is in Oslo", "valid_to": "2001-01-01T00:00:00Z"}
    )
    assert refused.status_code == 422 and refused.json()["error"]["details"][0]["field"] == "valid_to"
    wrong_form = client.post("/agent/memories", json={"content": "x", "conversation_id": "c"})
    assert wrong_form.status_code == 422


def test_an_expiry_written_over_http_reads_back(api):
    client, _ = api()
    until = (datetime.now(UTC) + timedelta(days=2)).isoformat().replace("+00:00", "Z")
    memory = client.post(
        "/agent/memories",
        json={"content": "User is in Paris", "valid_to": until, "source": {"type": "calendar", "id": "ev-1"}},
    ).json()["memory"]
    assert memory["status"] == "current" and memory["valid_to"] == until
    assert memory["source"] == {
        "type": "calendar",
        "id": "ev-1",
        "conversation_id": None,
        "message_indexes": None,
        "quote": None,
        "uri": None,
    }
    later = (datetime.now(UTC) + timedelta(days=3)).isoformat().replace("+00:00", "Z")
    assert client.get("/agent/memories", params={"as_of": later}).json()["memories"] == []
    assert [
        m["id"] for m in client.get("/agent/memories", params={"source_id": "ev-1"}).json()["memories"]
    ] == [memory["id"]]


def test_the_python_sdk_erases_and_reads_gone(dev_server, new_key):
    from aurra import Aurra, GoneError

    _, raw = new_key()
    with Aurra(api_key=raw, base_url=dev_server.base_url) as client:
        written = client.memories.add(
            "User keeps a diary", user_id="sam", source={"type": "note", "id": "n-1"}
        ).memory
        assert written.source.id == "n-1"
        receipt = client.erasures.create(user_id="sam")
        assert receipt.created is True and receipt.counts.memories == 1
        again = client.erasures.create(user_id="sam")
        assert again.created is False and again.id == receipt.id
        assert client.erasures.get(receipt.id).counts == receipt.counts
        with pytest.raises(GoneError) as gone:
            client.memories.get(written.id)
        assert gone.value.erasure_id == receipt.id
        client.settings.update(history_retention_days=30)
        assert client.settings.get().history_retention_days == 30
