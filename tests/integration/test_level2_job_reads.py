"""GET /agent/jobs[/{id}] on a real PostgreSQL: a tenant's asynchronous Level 2 jobs, pending,
running while a worker's lease holds, and done with their outcome; filters, pages, and never
another tenant's job or any content (an erased memory's job still lists, content-free).

The classifier is scripted (a test double of the classifier port); storage is real."""

from __future__ import annotations

import pytest
from pipeline_support import ScriptedClassifier, contradicts_when, deps

from aurra_core.errors import NotFound, ValidationFailed
from aurra_core.level2_jobs import worker
from aurra_core.models import AuditListQuery, ErasureRequest, JobListQuery, WriteRequest
from aurra_core.storage import level2_jobs, queries
from aurra_core.storage.level2_jobs import JobRef
from aurra_core.write_path import erasure
from aurra_core.write_path.pipeline import write_memory


def write(caller, content, classifier=None, auto_supersede="async", **kw):
    request = WriteRequest(content=content, topic="preferences", auto_supersede=auto_supersede, **kw)
    return write_memory(caller, request, deps(classifier or ScriptedClassifier())).result


def jobs(caller, db, **query):
    return queries.read_job_page(caller, JobListQuery(**query), db)


def test_a_job_reads_pending_then_running_then_done_with_its_outcome(db, new_key):
    caller, _ = new_key()
    vim = write(caller, "alice uses Vim", user_id="alice", agent_id="planner", auto_supersede=False).memory
    classifier = ScriptedClassifier(contradicts_when("alice uses Vim"))
    emacs = write(caller, "alice switched to Emacs", classifier, user_id="alice", agent_id="planner")
    job_id = emacs.auto_supersede.job_id
    assert job_id is not None

    (job,) = jobs(caller, db).jobs
    assert (job.id, job.memory_id, job.status, job.attempts) == (job_id, emacs.memory.id, "pending", 0)
    assert (job.user_id, job.agent_id) == ("alice", "planner")
    assert job.completed_at is None and job.outcome is None and job.audit_event_id is None
    assert queries.read_job(caller, job_id, db) == job

    # Claimed: running while the lease holds; still listed as pending (not decided yet).
    with db.tenant_transaction(caller.tenant_id) as conn:
        assert level2_jobs.claim(conn, JobRef(job_id=job_id, tenant_id=caller.tenant_id), 60) is not None
    running = queries.read_job(caller, job_id, db)
    assert (running.status, running.attempts) == ("running", 1)
    assert [j.id for j in jobs(caller, db, status="pending").jobs] == [job_id]
    with db.transaction() as conn:  # the worker died: its lease passes, and the job is pending again
        conn.execute(
            "UPDATE level2_jobs SET lease_until = clock_timestamp() - interval '1 second' WHERE id = %s",
            (job_id,),
        )
    assert queries.read_job(caller, job_id, db).status == "pending"

    assert worker.run_job(JobRef(job_id=job_id, tenant_id=caller.tenant_id), deps(classifier)) == "superseded"
    done = queries.read_job(caller, job_id, db)
    assert (done.status, done.outcome, done.attempts) == ("done", "superseded", 2)
    assert done.completed_at is not None and done.completed_at >= done.created_at
    (event,) = queries.read_audit_page(caller, AuditListQuery(type="auto_supersede"), db).events
    assert done.audit_event_id == event.id and event.superseded_id == vim.id
    assert jobs(caller, db, status="pending").jobs == []
    assert [j.id for j in jobs(caller, db, status="done").jobs] == [job_id]
    body = done.model_dump_json()
    assert "Emacs" not in body and "Vim" not in body


def test_filters_and_pages(db, new_key):
    caller, _ = new_key()
    written = [
        write(caller, f"fact {i} of {user}", user_id=user).auto_supersede.job_id
        for i, user in enumerate(["alice", "bob", "alice", "bob", "alice"])
    ]
    newest_first = list(reversed(written))
    seen, cursor = [], None
    while True:
        page = jobs(caller, db, limit=2, cursor=cursor)
        seen += [j.id for j in page.jobs]
        cursor = page.next_cursor
        if cursor is None:
            break
        assert len(page.jobs) == 2
    assert seen == newest_first

    alice = jobs(caller, db, user_id="alice", limit=2)
    assert [j.id for j in alice.jobs] == [written[4], written[2]] and alice.next_cursor
    rest = jobs(caller, db, user_id="alice", limit=2, cursor=alice.next_cursor)
    assert [j.id for j in rest.jobs] == [written[0]] and rest.next_cursor is None
    # A cursor belongs to its filters.
    with pytest.raises(ValidationFailed):
        jobs(caller, db, user_id="bob", limit=2, cursor=alice.next_cursor)
    with pytest.raises(ValidationFailed):
        jobs(caller, db, cursor="not-a-cursor")

    memory_id = queries.read_job(caller, written[1], db).memory_id
    assert [j.id for j in jobs(caller, db, memory_id=memory_id).jobs] == [written[1]]
    assert jobs(caller, db, status="done").jobs == []


def test_another_tenant_sees_no_job(db, new_key):
    caller, _ = new_key()
    other, _ = new_key()
    job_id = write(caller, "alice uses Emacs", user_id="alice").auto_supersede.job_id
    memory_id = queries.read_job(caller, job_id, db).memory_id
    with pytest.raises(NotFound):
        queries.read_job(other, job_id, db)
    assert jobs(other, db).jobs == []
    assert jobs(other, db, memory_id=memory_id).jobs == []
    assert jobs(other, db, user_id="alice").jobs == []
    # Nor can one tenant's cursor page through another's jobs.
    for _ in range(2):
        write(caller, "alice uses Helix", user_id="alice")
    cursor = jobs(caller, db, limit=1).next_cursor
    assert cursor is not None
    with pytest.raises(ValidationFailed):
        jobs(other, db, limit=1, cursor=cursor)


def test_an_erased_memorys_job_still_lists_with_its_scope_and_no_content(db, new_key):
    caller, _ = new_key()
    result = write(caller, "carol's secret hobby is lockpicking", user_id="carol", agent_id="diary")
    job_id = result.auto_supersede.job_id
    erasure.erase(caller, ErasureRequest(memory_id=result.memory.id), db)
    job = queries.read_job(caller, job_id, db)
    assert (job.memory_id, job.user_id, job.agent_id) == (result.memory.id, "carol", "diary")
    assert [j.id for j in jobs(caller, db, user_id="carol").jobs] == [job_id]
    assert "lockpicking" not in job.model_dump_json()
