"""Asynchronous Level 2's jobs in the Python SDK (`client.jobs`): the requests it sends, the
typed jobs and pages it returns, pagination by cursor, a 404 as NotFoundError, sync and async."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from sdk_fakes import MEMORY_ID, Server, error_json, make_async_client

from aurra import Job, JobPage, NotFoundError

JOB_ID = "0193a2b4-0000-7000-8000-0000000000a1"
OTHER_JOB_ID = "0193a2b4-0000-7000-8000-0000000000a2"
AUDIT_ID = "0193a2b4-0000-7000-8000-0000000000e1"


def job_json(id: str = JOB_ID, **overrides) -> dict:
    body = {
        "id": id,
        "memory_id": MEMORY_ID,
        "user_id": "alice",
        "agent_id": None,
        "status": "pending",
        "attempts": 0,
        "created_at": "2026-12-03T10:00:00.123456Z",
        "completed_at": None,
        "outcome": None,
        "audit_event_id": None,
    }
    body.update(overrides)
    return body


def test_get_reads_one_job(client, server) -> None:
    server.reply(
        200,
        job_json(
            status="done",
            attempts=1,
            completed_at="2026-12-03T10:00:01Z",
            outcome="superseded",
            audit_event_id=AUDIT_ID,
        ),
    )
    job = client.jobs.get(JOB_ID)
    assert (server.last.method, server.last.url.path) == ("GET", f"/agent/jobs/{JOB_ID}")
    assert isinstance(job, Job) and (job.status, job.outcome, job.audit_event_id) == (
        "done",
        "superseded",
        AUDIT_ID,
    )
    assert job.created_at == datetime(2026, 12, 3, 10, 0, 0, 123456, tzinfo=UTC)
    assert job.completed_at == datetime(2026, 12, 3, 10, 0, 1, tzinfo=UTC)


def test_a_job_of_no_one_or_another_tenant_is_not_found(client, server) -> None:
    server.reply(404, error_json("not_found", "job not found"))
    try:
        client.jobs.get(JOB_ID)
    except NotFoundError as error:
        assert error.status_code == 404
    else:
        raise AssertionError("a 404 must raise NotFoundError")


def test_list_sends_the_filters_and_follows_the_cursor(client, server) -> None:
    server.reply(200, {"jobs": [job_json()], "next_cursor": "c1"})
    server.reply(200, {"jobs": [job_json(OTHER_JOB_ID, status="running", attempts=1)], "next_cursor": None})
    jobs = list(client.jobs.list(status="pending", user_id="alice", memory_id=MEMORY_ID, limit=1))
    assert [(j.id, j.status) for j in jobs] == [(JOB_ID, "pending"), (OTHER_JOB_ID, "running")]
    first, second = (dict(r.url.params) for r in server.requests)
    assert first == {"status": "pending", "user_id": "alice", "memory_id": MEMORY_ID, "limit": "1"}
    assert second == {**first, "cursor": "c1"}
    assert all(r.url.path == "/agent/jobs" for r in server.requests)


def test_list_page_is_one_page(client, server) -> None:
    server.reply(200, {"jobs": [], "next_cursor": None})
    page = client.jobs.list_page(status="done", cursor="c9")
    assert isinstance(page, JobPage) and page.jobs == [] and page.next_cursor is None
    assert dict(server.last.url.params) == {"status": "done", "cursor": "c9"}


def test_async_jobs() -> None:
    server = Server()
    server.reply(200, {"jobs": [job_json()], "next_cursor": None})
    server.reply(200, job_json())

    async def go():
        async with make_async_client(server) as client:
            listed = [job async for job in client.jobs.list(status="pending")]
            return listed, await client.jobs.get(JOB_ID)

    listed, read = asyncio.run(go())
    assert [j.id for j in listed] == [JOB_ID] and read.id == JOB_ID
    assert [r.url.path for r in server.requests] == ["/agent/jobs", f"/agent/jobs/{JOB_ID}"]
