"""Asynchronous Level 2 end to end: `aurra dev` (its own embedded PostgreSQL, its Level 2 and
webhook workers in process) answers an async write at once with a pending job; the worker
decides after the answer, and the decision reaches a receiver on loopback as a signed
`memory.superseded` event that the Python SDK's verifier accepts."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest
from dev_server import start_dev_server
from test_webhooks_over_http import SECRET, Receiver, client_of, wait_for

from aurra import Aurra, webhooks


@pytest.fixture
def own_server(tmp_path: Path):
    server = start_dev_server(
        "",
        tmp_path / "data",
        AURRA_DATABASE_URL="",  # its own embedded database: no other server's workers
        AURRA_WEBHOOK_WORKER="true",
        AURRA_LEVEL2_WORKER="true",
    )
    yield server
    server.process.terminate()
    server.process.wait(20)


def test_an_async_write_answers_pending_and_its_supersession_arrives_signed(own_server):
    receiver = Receiver()
    client = client_of(own_server)
    subscribed = client.patch(
        "/agent/settings",
        json={
            "webhooks": [
                {
                    "url": receiver.url,
                    "events": ["memory.superseded", "auto_supersede.completed"],
                    "secret": SECRET,
                }
            ]
        },
    )
    assert subscribed.status_code == 200, subscribed.text
    vim = client.post("/agent/memories", json={"content": "alice uses Vim", "user_id": "alice"}).json()
    answer = client.post(
        "/agent/memories",
        json={"content": "alice switched to Emacs", "user_id": "alice", "auto_supersede": "async"},
    )
    assert answer.status_code == 201, answer.text
    emacs = answer.json()
    block = emacs["auto_supersede"]
    assert block["ran"] is False and block["status"] == "pending" and block["job_id"]
    assert block["supersession"] is None and emacs["memory"]["status"] == "current"

    wait_for(lambda: receiver.received, timeout=60)
    headers, body = receiver.received[0]
    event = webhooks.verify(body, headers, SECRET)
    assert event.type == "memory.superseded" and event.memory_id == vim["memory"]["id"]
    assert event.data["superseded_by"] == emacs["memory"]["id"]
    assert b"Vim" not in body and b"Emacs" not in body
    # The decision came after the answer: its audit event names the job, later than the write.
    decision = client.get(f"/agent/audit/{event.data['event_id']}").json()
    assert decision["type"] == "auto_supersede" and decision["details"]["job_id"] == block["job_id"]
    assert datetime.fromisoformat(decision["created_at"]) > datetime.fromisoformat(
        emacs["memory"]["recorded_at"]
    )
    assert client.get(f"/agent/memories/{vim['memory']['id']}").json()["status"] == "superseded"
    # The job reads done, naming the decision's audit event: over HTTP and through the SDK.
    job = client.get(f"/agent/jobs/{block['job_id']}").json()
    assert (job["status"], job["outcome"], job["audit_event_id"]) == (
        "done",
        "superseded",
        event.data["event_id"],
    )
    assert (job["memory_id"], job["user_id"], job["attempts"]) == (emacs["memory"]["id"], "alice", 1)
    with Aurra(api_key=own_server.dev_key, base_url=own_server.base_url) as sdk:
        assert sdk.jobs.get(block["job_id"]).outcome == "superseded"
        assert [j.id for j in sdk.jobs.list(status="done")] == [block["job_id"]]
        assert list(sdk.jobs.list(status="pending")) == []
    # Nothing unacted-on to report: no auto_supersede.completed was sent.
    assert [e["type"] for e in receiver.events()] == ["memory.superseded"]


def test_an_async_write_that_acts_on_nothing_reports_completed(own_server):
    client = client_of(own_server)
    client.post("/agent/memories", json={"content": "bob drinks tea", "user_id": "bob"})
    answer = client.post(
        "/agent/memories", json={"content": "bob has a dog", "user_id": "bob", "auto_supersede": "async"}
    ).json()
    job_id = answer["auto_supersede"]["job_id"]

    def completed():
        page = client.get("/agent/events", params={"types": "auto_supersede.completed"}).json()["events"]
        return [e for e in page if e["data"].get("job_id") == job_id]

    (event,) = wait_for(completed, timeout=60)
    assert event["memory_id"] == answer["memory"]["id"]
    assert event["data"]["outcome"] in ("not_acted", "no_candidates")
    audit = client.get(f"/agent/audit/{event['data']['event_id']}").json()
    assert audit["type"] == "auto_supersede_completed" and audit["memory_id"] == answer["memory"]["id"]


def test_aurra_worker_decides_the_jobs_of_a_database_it_is_pointed_at(pg_url, new_key, configure):
    """`aurra worker --database-url URL`, a process of its own, decides a job another process
    wrote, and stops on SIGTERM."""
    import os
    import subprocess
    import sys

    from aurra_core import service
    from aurra_core.models import PointInTime, WriteRequest

    configure(AURRA_LEVEL2_ENABLED="true")
    caller, _ = new_key()
    _, vim = service.write_memory(caller, WriteRequest(content="carol uses Vim", user_id="carol"))
    _, emacs = service.write_memory(
        caller, WriteRequest(content="carol switched to Emacs", user_id="carol", auto_supersede="async")
    )
    assert emacs.auto_supersede.status == "pending"
    environment = {k: v for k, v in os.environ.items() if k != "AURRA_DATABASE_URL"}
    worker = subprocess.Popen(
        [sys.executable, "-m", "aurra_local.cli", "worker", "--database-url", pg_url, "--interval", "0.2"],
        env={**environment, "AURRA_LEVEL2_ENABLED": "true"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert "aurra worker: deciding Level 2 jobs" in (worker.stdout.readline() if worker.stdout else "")
        wait_for(
            lambda: service.get_memory(caller, vim.memory.id, PointInTime()).status == "superseded",
            timeout=60,
        )
        assert service.get_memory(caller, vim.memory.id, PointInTime()).superseded_by == emacs.memory.id
    finally:
        worker.terminate()
        assert worker.wait(20) == 0
