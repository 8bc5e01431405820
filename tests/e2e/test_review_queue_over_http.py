"""The review queue, a revert that sticks, receipts and budgets, end to end: `aurra dev` with
the Claude classifier, its real SDK talking HTTP to a scripted local fake of the Messages API."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from dev_server import DevServer, start_dev_server
from scripted_model import ScriptedModel

from aurra_core.metering import cost_usd


@pytest.fixture(scope="module")
def model() -> Iterator[ScriptedModel]:
    fake = ScriptedModel()
    # Vim -> Emacs: a contradiction the classifier is unsure of (0.7): a proposal.
    fake.script("Emacs", "Vim", "contradicts", 0.7)
    # Tea -> coffee: a confident contradiction; a restatement of coffee is a weak duplicate.
    fake.script("coffee", "coffee", "duplicate", 0.6)
    fake.script("coffee", "tea", "contradicts", 0.95)
    yield fake
    fake.close()


@pytest.fixture(scope="module")
def server(
    pg_url: str, tmp_path_factory: pytest.TempPathFactory, model: ScriptedModel
) -> Iterator[DevServer]:
    dev = start_dev_server(
        pg_url,
        tmp_path_factory.mktemp("aurra-dev-claude"),
        AURRA_CLASSIFIER="anthropic",
        ANTHROPIC_BASE_URL=model.url,
        ANTHROPIC_API_KEY="test-key-for-the-local-fake",
    )
    yield dev
    dev.process.terminate()
    dev.process.wait(10)


@pytest.fixture
def client(server: DevServer, new_key) -> Iterator[httpx.Client]:
    _, raw = new_key()
    with httpx.Client(base_url=server.base_url, headers={"Authorization": f"Bearer {raw}"}, timeout=30) as c:
        yield c


def write(client: httpx.Client, content: str) -> httpx.Response:
    return client.post(
        "/agent/memories", json={"content": content, "topic": "preferences", "auto_supersede": True}
    )


def current_ids(client: httpx.Client) -> set[str]:
    return {m["id"] for m in client.get("/agent/memories").json()["memories"]}


def open_queue(client: httpx.Client) -> list[dict]:
    params = {"type": "supersession_proposed", "status": "open"}
    return client.get("/agent/audit", params=params).json()["events"]


def test_a_proposal_is_queued_then_approved(client: httpx.Client, model: ScriptedModel) -> None:
    vim = write(client, "Alice edits code in Vim").json()["memory"]
    response = write(client, "Alice edits code in Emacs these days")
    assert response.status_code == 201, response.text
    body = response.json()
    auto, emacs = body["auto_supersede"], body["memory"]
    assert auto["decision"]["classifier"] == "contradicts" and auto["decision"]["confidence"] == 0.7
    assert auto["decision"]["not_acted_reason"] == "below_min_confidence"
    assert auto["supersession"] is None and auto["proposal"]["superseded_id"] == vim["id"]
    assert current_ids(client) == {vim["id"], emacs["id"]}

    # The receipt says exactly what the model reported, priced at the key's model.
    reported = model.answers[-1]
    assert reported.new_fact == "Alice edits code in Emacs these days"
    usage = auto["usage"]
    assert (usage["input_tokens"], usage["output_tokens"]) == (reported.input_tokens, reported.output_tokens)
    assert usage["model_calls"] == 1 and usage["latency_ms"] >= 0
    assert usage["cost_usd"] == cost_usd(reported.model, reported.input_tokens, reported.output_tokens) > 0

    (proposal,) = open_queue(client)
    assert proposal["id"] == auto["proposal"]["audit_event_id"] and proposal["status"] == "open"
    assert (proposal["memory_id"], proposal["superseded_id"]) == (emacs["id"], vim["id"])

    approved = client.post(f"/agent/audit/{proposal['id']}/approve")
    assert approved.status_code == 201, approved.text
    result = approved.json()
    assert result["event"]["type"] == "proposal_approved"
    assert result["superseded"]["id"] == vim["id"] and result["superseded"]["status"] == "superseded"
    assert result["memory"]["supersedes"] == vim["id"]
    assert open_queue(client) == []
    assert current_ids(client) == {emacs["id"]}
    retired = client.get(f"/agent/memories/{vim['id']}").json()
    assert retired["superseded_event_id"] == result["event"]["id"]
    assert client.get(f"/agent/audit/{proposal['id']}").json()["status"] == "approved"
    assert client.post(f"/agent/audit/{proposal['id']}/approve").status_code == 409
    assert client.post(f"/agent/audit/{proposal['id']}/dismiss").status_code == 409


def test_a_revert_then_the_same_write_again_leaves_the_restored_memory_current(client: httpx.Client) -> None:
    tea = write(client, "Bob drinks tea every morning").json()["memory"]
    coffee = write(client, "Bob drinks coffee every morning").json()
    assert coffee["auto_supersede"]["supersession"]["superseded_id"] == tea["id"]
    event_id = coffee["auto_supersede"]["supersession"]["audit_event_id"]
    reverted = client.post(f"/agent/audit/{event_id}/revert")
    assert reverted.status_code == 200, reverted.text
    assert client.get(f"/agent/memories/{tea['id']}").json()["superseded_event_id"] is None

    again = write(client, "Bob drinks coffee every morning")
    assert again.status_code == 201, again.text
    auto = again.json()["auto_supersede"]
    assert auto["decision"]["candidate_id"] == tea["id"] and auto["decision"]["confidence"] == 0.95
    assert auto["decision"]["not_acted_reason"] == "reverted_before"
    assert auto["supersession"] is None and auto["proposal"] is None
    restored = client.get(f"/agent/memories/{tea['id']}").json()
    assert restored["status"] == "current" and restored["superseded_by"] is None
    assert tea["id"] in current_ids(client)
    # What was known between the supersession and the revert still names the event.
    then = client.get(
        f"/agent/memories/{tea['id']}", params={"known_at": coffee["memory"]["recorded_at"]}
    ).json()
    assert then["superseded_event_id"] == event_id


def test_a_key_with_a_limit_of_two_is_classified_twice(client: httpx.Client, model: ScriptedModel) -> None:
    assert (
        client.patch("/agent/settings", json={"daily_model_calls_limit": 2}).json()["daily_model_calls_limit"]
        == 2
    )
    write(client, "Carol writes code in Vim")  # nothing to compare yet: no model call
    before = len(model.answers)
    results = [
        write(client, f"Carol writes code in Vim on laptop {i}").json()["auto_supersede"] for i in range(3)
    ]
    assert [r["ran"] for r in results] == [True, True, False]
    assert [r["skipped_reason"] for r in results] == [None, None, "budget_exhausted"]
    assert results[2]["usage"] is None and results[2]["decision"] is None
    assert len(model.answers) == before + 2
