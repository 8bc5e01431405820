"""GET /agent/export over HTTP against `aurra dev` (docs/api.md, "Export"; docs/portability.md)."""

import json

import httpx

VIM = "User uses Vim"
EMACS = "User has been using Emacs as their daily editor, having moved away from Vim"


def _page(client: httpx.Client, **params: str | int) -> tuple[list[dict], str | None]:
    response = client.get("/agent/export", params=params)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/x-ndjson")
    lines = [json.loads(line) for line in response.text.splitlines()]
    assert lines and lines[-1]["kind"] == "end" and set(lines[-1]) == {"kind", "next_cursor"}
    assert all(line["kind"] != "end" for line in lines[:-1])
    return lines[:-1], lines[-1]["next_cursor"]


def _export(client: httpx.Client, **params: str | int) -> list[dict]:
    records, cursor = _page(client, **params)
    while cursor is not None:
        more, cursor = _page(client, **params, cursor=cursor)
        records += more
    return records


def _seed(client: httpx.Client, user_id: str = "alice") -> dict:
    vim = client.post(
        "/agent/memories",
        json={
            "content": VIM,
            "topic": "preferences",
            "valid_from": "2021-01-01T00:00:00Z",
            "user_id": user_id,
            "metadata": {"n": 1},
        },
    ).json()["memory"]
    emacs = client.post(
        "/agent/memories",
        json={
            "content": EMACS,
            "topic": "preferences",
            "valid_from": "2023-01-01T00:00:00Z",
            "user_id": user_id,
            "auto_supersede": True,
        },
    ).json()
    assert emacs["auto_supersede"]["supersession"]["superseded_id"] == vim["id"]
    return {"vim": vim["id"], "emacs": emacs["memory"]["id"]}


def test_every_version_then_every_event_then_the_end(api):
    client, _ = api()
    ids = _seed(client)
    client.post("/agent/memories", json={"content": "User likes tea", "agent_id": "bot"})
    whole = _export(client)
    versions = [r for r in whole if r["kind"] == "memory_version"]
    events = [r for r in whole if r["kind"] == "audit_event"]
    assert [r["kind"] for r in whole] == ["memory_version"] * len(versions) + ["audit_event"] * len(events)
    # Vim: current then superseded; Emacs; tea.
    assert [(v["id"], v["status"]) for v in versions] == [
        (ids["vim"], "current"),
        (ids["emacs"], "current"),
        (ids["vim"], "superseded"),
        (versions[3]["id"], "current"),
    ]
    old, emacs, new, tea = versions
    assert old["recorded_to"] == new["recorded_at"] and new["recorded_to"] is None
    assert new["valid_to"] == "2023-01-01T00:00:00Z" and new["superseded_by"] == ids["emacs"]
    assert old["metadata"] == {"n": 1} and old["topic"] == "preferences" and old["user_id"] == "alice"
    assert old["valid_from"] == "2021-01-01T00:00:00Z" and tea["agent_id"] == "bot"
    # Every field of the memory object is there (the export serializes the model).
    memory = client.get(f"/agent/memories/{ids['emacs']}").json()
    assert set(memory) | {"kind", "recorded_to"} == set(emacs)
    assert [e["type"] for e in events] == ["auto_supersede"]
    assert events[0]["memory_id"] == ids["emacs"] and events[0]["superseded_id"] == ids["vim"]
    assert events[0] == {"kind": "audit_event", **client.get(f"/agent/audit/{events[0]['id']}").json()}


def test_pages_follow_the_cursor_and_read_one_snapshot(api):
    client, _ = api()
    _seed(client)
    for i in range(3):
        client.post("/agent/memories", json={"content": f"User read book {i}"})
    whole = _export(client)
    first, cursor = _page(client, limit=2)
    assert len(first) == 2 and cursor is not None
    # Written after the first page: not in this export's later pages.
    client.post("/agent/memories", json={"content": "User read a book after the export began"})
    records = first
    while cursor is not None:
        page, cursor = _page(client, limit=2, cursor=cursor)
        assert len(page) <= 2
        records += page
    assert records == whole
    # A cursor replayed (a broken connection) gives the same page again.
    _, second_cursor = _page(client, limit=3)
    assert _page(client, limit=3, cursor=second_cursor) == _page(client, limit=3, cursor=second_cursor)


def test_user_id_keeps_to_one_user(api):
    client, _ = api()
    alice = _seed(client, "alice")
    _seed(client, "bob")
    records = _export(client, user_id="alice")
    assert {r["id"] for r in records if r["kind"] == "memory_version"} == set(alice.values())
    assert {r["memory_id"] for r in records if r["kind"] == "audit_event"} == {alice["emacs"]}


def test_an_export_stays_in_its_tenant(api):
    alice, _ = api()
    mallory, _ = api()
    _seed(alice)
    assert _export(mallory) == []
    _, cursor = _page(alice, limit=1)
    stolen = mallory.get("/agent/export", params={"limit": 1, "cursor": cursor})
    assert stolen.status_code == 422 and stolen.json()["error"]["details"][0]["field"] == "cursor"
    # A cursor of another query of the same tenant (another user_id) is refused too.
    other = alice.get("/agent/export", params={"limit": 1, "cursor": cursor, "user_id": "bob"})
    assert other.status_code == 422


def test_bad_queries_are_422s(api):
    client, _ = api()
    for params in (
        {"limit": 0},
        {"limit": 5001},
        {"limit": "x"},
        {"user_id": "a b"},
        {"since": "x"},
        {"cursor": "not-a-cursor"},
    ):
        response = client.get("/agent/export", params=params)
        assert response.status_code == 422, (params, response.text)
        assert response.json()["error"]["code"] == "validation_error"
