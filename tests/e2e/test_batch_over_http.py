"""POST /agent/memories/batch over HTTP against `aurra dev` (docs/api.md, "Batch writes")."""

import httpx

VIM = "User uses Vim"
EMACS = "User has been using Emacs as their daily editor, having moved away from Vim"


def _contents(client: httpx.Client, **params: str) -> list[str]:
    return [
        m["content"]
        for m in client.get("/agent/memories", params={"limit": 100, **params}).json()["memories"]
    ]


def test_results_come_in_the_request_order_with_each_fact_its_own_fields(api):
    client, _ = api()
    facts = [
        {
            "content": "User lives in Berlin",
            "topic": "location",
            "valid_from": "2024-01-01T00:00:00Z",
            "user_id": "alice",
            "metadata": {"n": 1},
        },
        {"content": "User has a cat named Miso", "agent_id": "helper", "valid_from": "2020-06-01T00:00:00Z"},
        {"content": "User prefers tea"},
    ]
    response = client.post("/agent/memories/batch", json={"facts": facts})
    assert response.status_code == 201, response.text
    results = response.json()["results"]
    assert [r["memory"]["content"] for r in results] == [f["content"] for f in facts]
    assert all(r["created"] for r in results)
    first, second, third = (r["memory"] for r in results)
    assert (first["topic"], first["user_id"], first["agent_id"], first["metadata"]) == (
        "location",
        "alice",
        None,
        {"n": 1},
    )
    assert (second["topic"], second["user_id"], second["agent_id"]) == ("general", None, "helper")
    assert second["valid_from"] == "2020-06-01T00:00:00Z"
    assert third["valid_from"] == third["recorded_at"]
    # One transaction: one write, whatever the order the facts were applied in.
    assert {r["auto_supersede"]["skipped_reason"] for r in results} == {"auto_supersede_off"}
    assert sorted(_contents(client)) == sorted(f["content"] for f in facts)


def test_a_backfilled_history_supersedes_itself_in_valid_time_order(api):
    client, _ = api()
    # Sent newest first: applied oldest first, so the Emacs fact supersedes the Vim one.
    response = client.post(
        "/agent/memories/batch",
        json={
            "auto_supersede": True,
            "facts": [
                {
                    "content": EMACS,
                    "topic": "preferences",
                    "valid_from": "2023-05-03T10:00:00Z",
                    "user_id": "al",
                },
                {
                    "content": VIM,
                    "topic": "preferences",
                    "valid_from": "2021-01-01T00:00:00Z",
                    "user_id": "al",
                },
                # Another scope: never a candidate of al's facts.
                {
                    "content": VIM,
                    "topic": "preferences",
                    "valid_from": "2024-01-01T00:00:00Z",
                    "user_id": "bo",
                },
            ],
        },
    )
    assert response.status_code == 201, response.text
    emacs, vim, bo = response.json()["results"]
    assert emacs["auto_supersede"]["supersession"]["superseded_id"] == vim["memory"]["id"]
    assert vim["auto_supersede"]["skipped_reason"] == "no_candidates"
    assert bo["auto_supersede"]["skipped_reason"] == "no_candidates"
    assert _contents(client, user_id="al") == [EMACS]
    assert _contents(client, user_id="al", as_of="2022-01-01T00:00:00Z") == [VIM]
    old = client.get(f"/agent/memories/{vim['memory']['id']}").json()
    assert old["valid_to"] == "2023-05-03T10:00:00Z" and old["superseded_by"] == emacs["memory"]["id"]


def test_a_duplicate_inside_the_batch_is_reported_and_not_stored(api):
    client, _ = api()
    response = client.post(
        "/agent/memories/batch",
        json={"auto_supersede": True, "facts": [{"content": VIM}, {"content": VIM}]},
    )
    assert response.status_code == 201, response.text
    first, second = response.json()["results"]
    assert first["created"] is True
    assert second["created"] is False and second["duplicate_of"] == first["memory"]["id"]
    assert _contents(client) == [VIM]


def test_a_bad_fact_is_a_422_naming_it_and_nothing_is_stored(api):
    client, _ = api()
    facts = [
        {"content": "User likes jazz"},
        {"content": "User likes rock"},
        {"content": "x", "topic": "Not A Topic"},
    ]
    response = client.post("/agent/memories/batch", json={"facts": facts})
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["code"] == "validation_error"
    assert [d["field"] for d in error["details"]] == ["facts[2].topic"]
    facts[1] = {"content": "User likes rock", "auto_supersede": True}  # only the batch asks for Level 2
    response = client.post("/agent/memories/batch", json={"facts": facts[:2]})
    assert response.status_code == 422
    assert [d["field"] for d in response.json()["error"]["details"]] == ["facts[1].auto_supersede"]
    assert _contents(client) == []


def test_a_fact_keeps_its_expiry_and_source_as_a_single_write_does(api):
    client, _ = api()
    facts = [
        {
            "content": "User is in Paris",
            "user_id": "alice",
            "valid_from": "2026-06-01T00:00:00Z",
            "valid_to": "2026-06-12T00:00:00Z",
            "source": {"type": "calendar", "id": "event-81", "uri": "https://cal.example.com/e/81"},
        },
        {
            "content": "User likes jazz",
            "user_id": "alice",
            "source": {"type": "conversation", "id": "conv-8812"},
        },
    ]
    response = client.post("/agent/memories/batch", json={"facts": facts})
    assert response.status_code == 201, response.text
    paris, jazz = (r["memory"] for r in response.json()["results"])
    assert (paris["valid_to"], paris["status"]) == ("2026-06-12T00:00:00Z", "expired")
    assert paris["source"] == {
        "type": "calendar",
        "id": "event-81",
        "conversation_id": None,
        "message_indexes": None,
        "quote": None,
        "uri": "https://cal.example.com/e/81",
    }
    assert jazz["source"]["conversation_id"] == "conv-8812"
    assert _contents(client, as_of="2026-06-05T00:00:00Z") == ["User is in Paris"]
    assert _contents(client, as_of="2026-06-12T00:00:00Z") == []
    assert _contents(client, source_id="event-81", as_of="2026-06-05T00:00:00Z") == ["User is in Paris"]
    assert _contents(client, conversation_id="conv-8812") == ["User likes jazz"]


def test_an_expiry_not_after_the_facts_valid_time_is_a_422_naming_the_fact(api):
    client, _ = api()
    for bad in (
        {
            "content": "User is in Rome",
            "valid_from": "2026-06-01T00:00:00Z",
            "valid_to": "2026-06-01T00:00:00Z",
        },
        {"content": "User is in Rome", "valid_to": "2020-01-01T00:00:00Z"},  # valid from now
        {"content": "User is in Rome", "source": {"type": "calendar", "id": " "}},
    ):
        response = client.post("/agent/memories/batch", json={"facts": [{"content": "User likes jazz"}, bad]})
        assert response.status_code == 422, response.text
        fields = [d["field"] for d in response.json()["error"]["details"]]
        assert fields and all(f.startswith("facts[1].") for f in fields), fields
    assert _contents(client) == []


def test_batch_size_bounds(api):
    client, _ = api()
    empty = client.post("/agent/memories/batch", json={"facts": []})
    assert empty.status_code == 422 and empty.json()["error"]["details"][0]["field"] == "facts"
    many = client.post(
        "/agent/memories/batch", json={"facts": [{"content": f"fact {i}"} for i in range(101)]}
    )
    assert many.status_code == 422 and many.json()["error"]["details"][0]["field"] == "facts"
    assert client.post("/agent/memories/batch", json={"facts": {"content": "x"}}).status_code == 422
    assert client.post("/agent/memories/batch", json=[{"content": "x"}]).status_code == 422
    hundred = client.post(
        "/agent/memories/batch", json={"facts": [{"content": f"fact {i}"} for i in range(100)]}
    )
    assert hundred.status_code == 201 and len(hundred.json()["results"]) == 100


def test_one_idempotency_key_covers_the_batch(api):
    client, _ = api()
    body = {"facts": [{"content": "User likes jazz"}, {"content": "User likes rock"}]}
    headers = {"Idempotency-Key": "batch-1"}
    first = client.post("/agent/memories/batch", json=body, headers=headers)
    again = client.post("/agent/memories/batch", json=body, headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.json() == first.json()
    assert sorted(_contents(client)) == ["User likes jazz", "User likes rock"]
    other = client.post("/agent/memories/batch", json={"facts": body["facts"][:1]}, headers=headers)
    assert other.status_code == 409 and other.json()["error"]["code"] == "conflict"


def test_a_batch_stays_in_its_tenant(api):
    alice, _ = api()
    mallory, _ = api()
    seeded = alice.post("/agent/memories", json={"content": VIM, "topic": "preferences"}).json()["memory"]
    # The same fact in another tenant, Level 2 on: alice's memory is no candidate of it.
    response = mallory.post(
        "/agent/memories/batch",
        json={
            "auto_supersede": True,
            "facts": [{"content": VIM, "topic": "preferences"}, {"content": EMACS}],
        },
    )
    assert response.status_code == 201, response.text
    results = response.json()["results"]
    assert results[0]["created"] is True and results[0]["auto_supersede"]["skipped_reason"] == "no_candidates"
    assert results[1]["auto_supersede"]["supersession"]["superseded_id"] == results[0]["memory"]["id"]
    assert alice.get(f"/agent/memories/{seeded['id']}").json()["status"] == "current"
    assert _contents(alice) == [VIM]
    assert mallory.get(f"/agent/memories/{seeded['id']}").status_code == 404
    # The same Idempotency-Key in two tenants: two batches.
    body = {"facts": [{"content": "User likes jazz"}]}
    assert alice.post("/agent/memories/batch", json=body, headers={"Idempotency-Key": "k"}).status_code == 201
    assert (
        mallory.post("/agent/memories/batch", json=body, headers={"Idempotency-Key": "k"}).status_code == 201
    )
    assert "User likes jazz" in _contents(alice) and "User likes jazz" in _contents(mallory)


def test_source_and_expiry_per_fact_are_stored_returned_and_checked(api):
    client, _ = api()
    facts = [
        {
            "content": "User is at the Lisbon office this week",
            "valid_from": "2026-03-02T00:00:00Z",
            "valid_to": "2026-03-07T00:00:00Z",
            "source": {"type": "calendar", "id": "evt-42", "uri": "https://cal.example.com/evt-42"},
        },
        {"content": "User likes tea", "source": {"type": "crm", "id": "contact-7"}},
    ]
    response = client.post("/agent/memories/batch", json={"facts": facts})
    assert response.status_code == 201, response.text
    trip, tea = (r["memory"] for r in response.json()["results"])
    assert (trip["valid_to"], trip["status"]) == ("2026-03-07T00:00:00Z", "expired")
    source = trip["source"]
    assert (source["type"], source["id"], source["uri"]) == (
        "calendar",
        "evt-42",
        "https://cal.example.com/evt-42",
    )
    assert (tea["source"]["type"], tea["source"]["id"], tea["valid_to"]) == ("crm", "contact-7", None)
    assert client.get(f"/agent/memories/{trip['id']}").json()["source"]["id"] == "evt-42"
    assert _contents(client, as_of="2026-03-04T00:00:00Z") == [trip["content"]]
    assert _contents(client, source_id="contact-7") == ["User likes tea"]

    bad = [
        {"content": "User likes jazz"},
        {"content": "User is away", "valid_from": "2026-05-01T00:00:00Z", "valid_to": "2026-04-01T00:00:00Z"},
        {"content": "User likes rock", "source": {"type": "crm", "id": "c-1", "uri": "not a uri"}},
        {"content": "User likes folk", "source": {"type": "crm"}},
        {"content": "User was away", "valid_to": "2020-01-01T00:00:00Z"},
    ]
    before = sorted(_contents(client))
    refused = client.post("/agent/memories/batch", json={"facts": bad})
    assert refused.status_code == 422, refused.text
    fields = {d["field"] for d in refused.json()["error"]["details"]}
    assert {"facts[1].valid_to", "facts[2].source.uri", "facts[3].source.id"} <= fields, fields
    # Past its valid time only by the clock (no valid_from): refused on its own, named too.
    late = client.post("/agent/memories/batch", json={"facts": [bad[0], bad[4]]})
    assert late.status_code == 422 and late.json()["error"]["details"][0]["field"] == "facts[1].valid_to"
    assert sorted(_contents(client)) == before
