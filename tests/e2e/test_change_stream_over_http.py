"""GET /agent/events over HTTP against `aurra dev`: the Vim-to-Emacs supersession as the
change stream tells it, cursors, the 422 envelope, and tenants kept apart."""

import httpx

EMACS = "User has been using Emacs as their daily editor, having moved away from Vim"


def envelope(response: httpx.Response, status: int, code: str, field: str) -> None:
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["code"] == code and [d["field"] for d in error["details"]] == [field], error


def test_a_supersession_reaches_the_change_stream_without_content(api):
    client, _ = api()
    vim = client.post("/agent/memories", json={"content": "User uses Vim", "topic": "preferences"}).json()
    emacs = client.post(
        "/agent/memories", json={"content": EMACS, "topic": "preferences", "auto_supersede": True}
    ).json()
    assert emacs["auto_supersede"]["supersession"]["superseded_id"] == vim["memory"]["id"]

    first = client.get("/agent/events", params={"limit": 2})
    assert first.status_code == 200, first.text
    rest = client.get("/agent/events", params={"after": first.json()["next_cursor"]}).json()
    events = first.json()["events"] + rest["events"]
    assert [(e["type"], e["memory_id"]) for e in events] == [
        ("memory.created", vim["memory"]["id"]),
        ("memory.created", emacs["memory"]["id"]),
        ("memory.superseded", vim["memory"]["id"]),
    ]
    assert events[2]["data"]["superseded_by"] == emacs["memory"]["id"]
    assert events[2]["data"]["event_id"] == emacs["auto_supersede"]["supersession"]["audit_event_id"]
    assert set(events[0]) == {"id", "type", "created_at", "user_id", "agent_id", "memory_id", "data"}
    assert "Vim" not in first.text + str(rest) and "Emacs" not in first.text + str(rest)
    # Polling from the end: nothing new, and a cursor to keep.
    end = client.get("/agent/events", params={"after": rest["next_cursor"]}).json()
    assert end["events"] == [] and end["next_cursor"]

    only = client.get("/agent/events", params={"types": "memory.superseded"}).json()
    assert [e["id"] for e in only["events"]] == [events[2]["id"]]


def test_bad_queries_answer_422_with_the_envelope(api):
    client, _ = api()
    envelope(client.get("/agent/events", params={"limit": 0}), 422, "validation_error", "limit")
    envelope(client.get("/agent/events", params={"limit": 501}), 422, "validation_error", "limit")
    envelope(client.get("/agent/events", params={"types": "memory.nope"}), 422, "validation_error", "types")
    envelope(client.get("/agent/events", params={"after": "forged"}), 422, "validation_error", "cursor")
    envelope(client.get("/agent/events", params={"since": "x"}), 422, "validation_error", "since")


def test_another_tenant_sees_none_of_the_events_and_cannot_use_the_cursor(api):
    alice, _ = api()
    bob, _ = api()
    alice.post("/agent/memories", json={"content": "User uses Vim"})
    cursor = alice.get("/agent/events").json()["next_cursor"]
    assert bob.get("/agent/events").json()["events"] == []
    envelope(bob.get("/agent/events", params={"after": cursor}), 422, "validation_error", "cursor")
