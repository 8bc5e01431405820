"""Messages writes and scopes over HTTP against `aurra dev`: the documented example, Level 2
in the right user's scope, BYO-LLM through a local OpenAI-compatible endpoint, a failed
extraction that stores nothing, and the retry with the same Idempotency-Key."""

from __future__ import annotations

import httpx
import pytest
from dev_server import start_dev_server

from tests.fakes.chat_completions import ANSWERING_MODEL, FakeChatCompletions

pytestmark = pytest.mark.integration

# The per-request example of the docs, sent as written.
EXAMPLE = {
    "messages": [
        {"role": "user", "content": "I moved to Berlin last month, and I switched from Vim to Emacs."},
        {"role": "assistant", "content": "Noted!"},
    ],
    "user_id": "alice",
    "auto_supersede": True,
}


def memories(client: httpx.Client, **params: str) -> list[dict]:
    response = client.get("/agent/memories", params={"limit": "100", **params})
    assert response.status_code == 200, response.text
    return response.json()["memories"]


def test_the_documented_example_supersedes_in_the_right_users_scope(api):
    client, _ = api()
    for user in ("alice", "bob"):
        seeded = client.post(
            "/agent/memories", json={"content": "User uses Vim", "topic": "preferences", "user_id": user}
        )
        assert seeded.status_code == 201 and seeded.json()["memory"]["user_id"] == user
    alice_vim = memories(client, user_id="alice")[0]["id"]

    response = client.post("/agent/memories", json=EXAMPLE)
    assert response.status_code == 201, response.text
    body = response.json()
    assert [f["memory"]["content"] for f in body["facts"]] == [
        "User moved to Berlin last month",
        "User switched from Vim to Emacs",
    ]
    assert body["extraction"]["extractor"] == "rules" and body["extraction"]["facts_found"] == 2
    assert body["extraction"]["facts_dropped"] == 0
    assert all(f["memory"]["user_id"] == "alice" and f["memory"]["agent_id"] is None for f in body["facts"])
    assert all(
        set(f["auto_supersede"]) >= {"ran", "skipped_reason", "decision", "supersession"}
        for f in body["facts"]
    )
    emacs = body["facts"][1]
    assert emacs["auto_supersede"]["supersession"]["superseded_id"] == alice_vim

    assert {m["content"] for m in memories(client, user_id="alice")} == {
        "User moved to Berlin last month",
        "User switched from Vim to Emacs",
    }
    bob = memories(client, user_id="bob")
    assert [(m["content"], m["status"]) for m in bob] == [("User uses Vim", "current")]
    events = client.get("/agent/audit", params={"user_id": "alice"}).json()["events"]
    assert [e["superseded_id"] for e in events] == [alice_vim]
    assert client.get("/agent/audit", params={"user_id": "bob"}).json()["events"] == []


def test_nothing_to_keep_is_a_200(api):
    client, _ = api()
    response = client.post("/agent/memories", json={"messages": [{"role": "user", "content": "Hi! Thanks!"}]})
    assert response.status_code == 200 and response.json()["facts"] == []


def test_messages_are_validated_field_by_field(api):
    client, _ = api()
    cases = [
        ({"messages": [{"role": "robot", "content": "x"}]}, "messages.0.role"),
        ({"messages": [{"role": "user", "content": ""}]}, "messages.0.content"),
        ({"messages": [{"role": "user", "content": "x" * 8001}]}, "messages.0.content"),
        ({"messages": [{"role": "user", "content": "x"}] * 51}, "messages"),
        ({"messages": []}, "messages"),
        (
            {"messages": [{"role": "user", "content": "x", "created_at": "2026-04-01T00:00:00"}]},
            "messages.0.created_at",
        ),
        ({"messages": [{"role": "user", "content": "x", "name": "bob"}]}, "messages.0.name"),
        ({"messages": [{"role": "user", "content": "x"}], "user_id": "not ok"}, "user_id"),
    ]
    for body, field in cases:
        response = client.post("/agent/memories", json=body)
        assert response.status_code == 422, (body, response.text)
        error = response.json()["error"]
        assert error["code"] == "validation_error"
        assert field in [d["field"] for d in error["details"]], (field, error)
    both = client.post(
        "/agent/memories", json={"content": "x", "messages": [{"role": "user", "content": "y"}]}
    )
    assert (
        both.status_code == 422 and "exactly one of content and messages" in both.json()["error"]["message"]
    )
    neither = client.post("/agent/memories", json={"topic": "general"})
    assert neither.status_code == 422
    assert memories(client) == []


def test_another_tenant_never_sees_a_users_memories(api):
    mine, _ = api()
    theirs, _ = api()
    assert mine.post("/agent/memories", json=EXAMPLE).status_code == 201
    assert memories(theirs, user_id="alice") == []
    assert theirs.get("/agent/audit", params={"user_id": "alice"}).json()["events"] == []
    seeded = theirs.post("/agent/memories", json={**EXAMPLE, "messages": EXAMPLE["messages"][:1]})
    assert all(f["auto_supersede"]["skipped_reason"] == "no_candidates" for f in seeded.json()["facts"])


@pytest.fixture
def byo_llm(pg_url, new_key, tmp_path):
    """`aurra dev` with AURRA_CLASSIFIER=openai (and so the openai extractor) against a local
    OpenAI-compatible endpoint."""
    endpoint = FakeChatCompletions()
    server = start_dev_server(
        pg_url,
        tmp_path / "aurra-dev",
        AURRA_CLASSIFIER="openai",
        AURRA_OPENAI_BASE_URL=endpoint.base_url,
        AURRA_OPENAI_MODEL="gpt-4o-mini",
        AURRA_OPENAI_API_KEY="sk-local",
        AURRA_CLASSIFIER_TIMEOUT_S="1",
        AURRA_EXTRACTOR_TIMEOUT_S="1",
    )
    _, raw = new_key()
    client = httpx.Client(base_url=server.base_url, headers={"Authorization": f"Bearer {raw}"}, timeout=30)
    yield client, endpoint
    client.close()
    server.process.terminate()
    server.process.wait(10)
    endpoint.close()


def test_byo_llm_extracts_and_supersedes_as_claude_would(byo_llm):
    client, endpoint = byo_llm
    first = client.post(
        "/agent/memories",
        json={"content": "User uses Vim", "topic": "general", "user_id": "alice", "auto_supersede": True},
    )
    assert first.status_code == 201
    response = client.post(
        "/agent/memories",
        json={
            "messages": [{"role": "user", "content": "I use Emacs now. I live in Oslo."}],
            "user_id": "alice",
            "auto_supersede": True,
        },
    )
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["extraction"]["extractor"] == "openai" and body["extraction"]["model"] == ANSWERING_MODEL
    switched = body["facts"][0]
    assert switched["memory"]["content"] == "User use Emacs now"  # the fake endpoint's grammar
    supersession = switched["auto_supersede"]["supersession"]
    assert supersession, switched["auto_supersede"]
    assert supersession["superseded_id"] == first.json()["memory"]["id"]
    assert supersession["model"] == ANSWERING_MODEL
    event = client.get(f"/agent/audit/{supersession['audit_event_id']}").json()
    assert event["model"] == ANSWERING_MODEL and event["details"]["provider"] == "openai"
    tools = [r["body"]["tool_choice"]["function"]["name"] for r in endpoint.requests]
    assert tools[0] == "record_facts" and set(tools[1:]) == {"record_verdicts"}
    # The receipts: tokens as the endpoint reported them; a model without a known price costs null.
    extraction_usage = body["extraction"]["usage"]
    assert (extraction_usage["input_tokens"], extraction_usage["output_tokens"]) == (1500, 60)
    assert extraction_usage["model_calls"] == 1 and extraction_usage["cost_usd"] is None
    assert switched["auto_supersede"]["usage"]["input_tokens"] == 1500


def test_a_failed_extraction_is_a_503_with_nothing_stored_and_the_retry_stores_once(byo_llm):
    client, endpoint = byo_llm
    body = {"messages": [{"role": "user", "content": "I adopted a dog. I live in Quito."}], "user_id": "zoe"}
    headers = {"Idempotency-Key": "conversation-42"}
    endpoint.mode = "500"
    failed = client.post("/agent/memories", json=body, headers=headers)
    assert failed.status_code == 503, failed.text
    assert failed.headers["Retry-After"]
    assert failed.json()["error"]["code"] == "unavailable"
    assert memories(client, user_id="zoe") == []

    endpoint.mode = "ok"
    retried = client.post("/agent/memories", json=body, headers=headers)
    assert retried.status_code == 201, retried.text
    again = client.post("/agent/memories", json=body, headers=headers)
    assert again.status_code == 201 and again.json() == retried.json()
    assert sorted(m["content"] for m in memories(client, user_id="zoe")) == [
        "User adopted a dog",
        "User live in Quito",
    ]
    extractions = [
        r for r in endpoint.requests if r["body"]["tool_choice"]["function"]["name"] == "record_facts"
    ]
    assert len(extractions) == 1 + 2, "two attempts of the failed call (one retry), one of the stored one"


def test_a_spent_budget_is_a_429_naming_it_and_stores_nothing(api):
    client, _ = api()
    assert client.patch("/agent/settings", json={"daily_model_calls_limit": 1}).status_code == 200
    first = client.post("/agent/memories", json={**EXAMPLE, "user_id": "bea"})
    assert first.status_code == 201, first.text
    # The extraction took the day's one call: the offline extractor's receipt costs nothing.
    assert first.json()["extraction"]["usage"]["model_calls"] == 1
    assert first.json()["extraction"]["usage"]["cost_usd"] == 0
    spent = client.post("/agent/memories", json={**EXAMPLE, "user_id": "cid"})
    assert spent.status_code == 429, spent.text
    error = spent.json()["error"]
    assert error["code"] == "rate_limited" and "daily_model_calls_limit" in error["message"]
    assert 0 < int(spent.headers["Retry-After"]) <= 86_400
    assert memories(client, user_id="cid") == []
    # A content write is never refused for the budget: it is stored, unclassified. (Its fact
    # names the city the extraction stored, so it has a candidate to classify: the budget, not
    # the candidate search, is what skips it.)
    content = client.post(
        "/agent/memories",
        json={"content": "User moved from Berlin to Lisbon", "user_id": "bea", "auto_supersede": True},
    )
    assert content.status_code == 201
    assert content.json()["auto_supersede"]["skipped_reason"] == "budget_exhausted"


def test_facts_beyond_the_cap_are_counted_as_dropped_not_lost_in_silence(api):
    """50 messages of two facts each: 100 facts found, the first 50 stored, 50 said dropped."""
    client, _ = api()
    conversation = [
        {"role": "user", "content": f"I moved to Town{i} last month, and I use Tool{i} now."}
        for i in range(50)
    ]
    response = client.post("/agent/memories", json={"messages": conversation})
    assert response.status_code == 201, response.text
    body = response.json()
    stored = [f["memory"]["content"] for f in body["facts"]]
    assert len(stored) == 50 and all(f["created"] for f in body["facts"])
    assert stored[:2] == ["User moved to Town0 last month", "User uses Tool0 now"]
    assert stored[-1] == "User uses Tool24 now"  # in the conversation's order, up to the cap
    assert body["extraction"]["facts_found"] == 50 and body["extraction"]["facts_dropped"] == 50
    assert len(memories(client)) == 50
