"""Asynchronous Level 2 on a real PostgreSQL: the write commits its memory with a job and
answers pending; a worker claims the job, runs the same classification and supersession as a
synchronous write, and records the decision with the job's completion, once, whatever the
redelivery or a worker that died holding the job.

The classifier is scripted (a test double of the classifier port); storage is real."""

from __future__ import annotations

import json
import threading
import time
from datetime import timedelta

import pytest
from pipeline_support import ScriptedClassifier, contradicts_when, deps

from aurra_core.access import keys
from aurra_core.level2_jobs import worker
from aurra_core.models import (
    AuditListQuery,
    BatchWriteRequest,
    Caller,
    EventListQuery,
    EventType,
    MemoryListQuery,
    SettingsPatch,
    SkippedReason,
    SupersedeRequest,
    Verdict,
    WriteRequest,
)
from aurra_core.storage import events, level2_jobs, queries
from aurra_core.storage.level2_jobs import JobRef
from aurra_core.write_path import batch, deferred, supersession
from aurra_core.write_path.pipeline import write_memory


def write(caller, content, classifier=None, auto_supersede="async", **kw):
    request = WriteRequest(content=content, topic="preferences", auto_supersede=auto_supersede, **kw)
    return write_memory(caller, request, deps(classifier or ScriptedClassifier())).result


def settle(caller, db, **changes):
    with db.tenant_transaction(caller.tenant_id) as conn:
        keys.update_key_settings(conn, caller, SettingsPatch.model_validate(changes))


def ref(caller: Caller, result) -> JobRef:
    assert result.auto_supersede.job_id is not None
    return JobRef(job_id=result.auto_supersede.job_id, tenant_id=caller.tenant_id)


def stream(caller, db):
    return events.read_event_page(caller, EventListQuery(limit=500), db).events


def job_row(caller, db, job_id):
    with db.tenant_transaction(caller.tenant_id) as conn:
        return level2_jobs.select_job(conn, caller.tenant_id, job_id)


def audit(caller, db, type_=None):
    query = AuditListQuery(type=type_) if type_ else AuditListQuery()
    return queries.read_audit_page(caller, query, db).events


def current_ids(caller, db):
    page = queries.read_memory_page(caller, MemoryListQuery(limit=100), db, None)
    return {m.id for m in page.memories}


def test_an_async_write_answers_pending_and_the_worker_supersedes_in_order(db, new_key):
    caller, _ = new_key()
    vim = write(caller, "alice uses Vim", user_id="alice", auto_supersede=False).memory
    classifier = ScriptedClassifier(contradicts_when("alice uses Vim"))
    emacs = write(caller, "alice switched to Emacs", classifier, user_id="alice")
    block = emacs.auto_supersede
    assert emacs.created and block.ran is False and block.status == "pending"
    assert block.supersession is None and classifier.calls == []  # nothing decided yet
    body = emacs.model_dump(mode="json")["auto_supersede"]
    assert body["status"] == "pending" and body["job_id"] == str(block.job_id)
    # The job committed with the memory; until the decision both memories are current.
    assert job_row(caller, db, block.job_id)["status"] == "pending"
    assert current_ids(caller, db) == {vim.id, emacs.memory.id}
    before_decision = queries.read_memory_page(caller, MemoryListQuery(limit=100), db, None)

    assert worker.run_job(ref(caller, emacs), deps(classifier)) == deferred.SUPERSEDED
    assert len(classifier.calls) == 1 and [c.id for c in classifier.calls[0][1]] == [vim.id]
    assert current_ids(caller, db) == {emacs.memory.id}
    job = job_row(caller, db, block.job_id)
    assert job["status"] == "done" and job["outcome"] == "superseded"
    (event,) = audit(caller, db, "auto_supersede")
    assert event.id == job["audit_event_id"]
    assert (event.memory_id, event.superseded_id) == (emacs.memory.id, vim.id)
    assert event.details["job_id"] == str(block.job_id) and event.details["mode"] == "async"
    types = [(e.type, e.memory_id) for e in stream(caller, db)]
    assert types == [
        (EventType.MEMORY_CREATED, vim.id),
        (EventType.MEMORY_CREATED, emacs.memory.id),
        (EventType.MEMORY_SUPERSEDED, vim.id),
    ]
    # known_at between the write and the decision: the old memory was still current then.
    first = before_decision.memories[0].recorded_at
    known = max(first, emacs.memory.recorded_at)
    then = queries.read_memory_page(caller, MemoryListQuery(limit=100, known_at=known), db, None)
    assert {m.id for m in then.memories} == {vim.id, emacs.memory.id}


def test_a_candidate_superseded_while_classifying_is_not_acted_on(db, new_key):
    caller, _ = new_key()
    vim = write(caller, "alice uses Vim", auto_supersede=False).memory

    def someone_else_replaces_vim() -> None:
        supersession.supersede(
            caller, vim.id, SupersedeRequest(content="alice uses Helix"), db, deps(None).embedder
        )

    classifier = ScriptedClassifier(
        contradicts_when("alice uses Vim"), before_answer=someone_else_replaces_vim
    )
    emacs = write(caller, "alice switched to Emacs", classifier)
    assert worker.run_job(ref(caller, emacs), deps(classifier)) == deferred.CANDIDATE_CHANGED
    (completed,) = audit(caller, db, "auto_supersede_completed")
    assert completed.details["not_acted_reason"] == "candidate_changed"
    assert completed.memory_id == emacs.memory.id and completed.classifier == Verdict.CONTRADICTS
    last = stream(caller, db)[-1]
    assert last.type == EventType.AUTO_SUPERSEDE_COMPLETED and last.memory_id == emacs.memory.id
    assert last.data["outcome"] == "candidate_changed" and last.data["event_id"] == str(completed.id)
    assert audit(caller, db, "auto_supersede") == []


def test_a_worker_killed_mid_job_leaves_a_lease_that_passes_and_the_decision_is_applied_once(
    db, new_key, configure
):
    caller, _ = new_key()
    write(caller, "alice uses Vim", auto_supersede=False)
    classifier = ScriptedClassifier(contradicts_when("alice uses Vim"))
    emacs = write(caller, "alice switched to Emacs", classifier)
    job_ref = ref(caller, emacs)
    # The first worker claims the job and dies before deciding.
    with db.tenant_transaction(caller.tenant_id) as conn:
        dead = level2_jobs.claim(conn, job_ref, 60)
    assert dead is not None
    assert worker.run_job(job_ref, deps(classifier)) is None  # leased: nobody else takes it
    assert worker.sweep(db, older_than_s=0, at_most=1000).count(job_ref) == 0
    with db.transaction() as conn:  # the lease passes
        conn.execute(
            "UPDATE level2_jobs SET lease_until = clock_timestamp() - interval '1 second' WHERE id = %s",
            (job_ref.job_id,),
        )
    assert job_ref in worker.sweep(db, older_than_s=0, at_most=1000)
    assert worker.run_job(job_ref, deps(classifier)) == deferred.SUPERSEDED
    # The dead worker wakes up and finishes its decision: nothing is applied twice.
    assert deferred.decide(dead, deps(classifier)) is None
    assert len(audit(caller, db, "auto_supersede")) == 1
    superseded = [e for e in stream(caller, db) if e.type == EventType.MEMORY_SUPERSEDED]
    assert len(superseded) == 1
    job = job_row(caller, db, job_ref.job_id)
    assert job["attempts"] == 2 and job["status"] == "done"


class ColdClassifier(ScriptedClassifier):
    """A classifier whose SDK takes `load_s` to load, once, as a model's does in a fresh process."""

    def __init__(self, rule, load_s: float) -> None:
        super().__init__(rule)
        self.load_s, self.loaded = load_s, False
        self._load_lock = threading.Lock()

    def _load(self) -> None:
        with self._load_lock:
            if not self.loaded:
                time.sleep(self.load_s)
                self.loaded = True

    def warm_up(self) -> None:
        self._load()

    def classify(self, new_content, new_topic, candidates, model):
        self._load()
        return super().classify(new_content, new_topic, candidates, model)


def test_a_fresh_worker_loads_its_classifier_before_it_claims_a_job(db, new_key, configure):
    # A worker started after another died mid-job takes up the dead one's jobs first: had its
    # classifier's loading counted against their calls' time limit, they would all end as
    # classifier_error, which is final.
    configure(AURRA_CLASSIFIER_TIMEOUT_S="0.3")
    caller, _ = new_key()
    write(caller, "alice uses Vim", auto_supersede=False)
    classifier = ColdClassifier(contradicts_when("alice uses Vim"), load_s=1.0)
    job_ref = ref(caller, write(caller, "alice switched to Emacs", classifier))
    runner = worker.Worker(deps(classifier), interval_s=0.1, concurrency=1)
    runner.start()
    try:
        until = time.monotonic() + 20
        while job_row(caller, db, job_ref.job_id)["status"] == "pending" and time.monotonic() < until:
            time.sleep(0.05)
    finally:
        runner.stop()
        runner.join(10)
    job = job_row(caller, db, job_ref.job_id)
    assert (job["status"], job["outcome"], job["attempts"]) == ("done", deferred.SUPERSEDED, 1)
    assert len(audit(caller, db, "auto_supersede")) == 1


def test_a_redelivered_nudge_changes_nothing(db, new_key):
    caller, _ = new_key()
    write(caller, "alice uses Vim", auto_supersede=False)
    classifier = ScriptedClassifier(contradicts_when("alice uses Vim"))
    emacs = write(caller, "alice switched to Emacs", classifier)
    assert worker.run_job(ref(caller, emacs), deps(classifier)) == deferred.SUPERSEDED
    before = stream(caller, db)
    assert worker.run_job(ref(caller, emacs), deps(classifier)) is None
    assert len(classifier.calls) == 1 and stream(caller, db) == before


def test_jobs_are_their_tenants_own(db, new_key):
    caller, _ = new_key()
    other, _ = new_key()
    write(caller, "alice uses Vim", auto_supersede=False)
    classifier = ScriptedClassifier(contradicts_when("alice uses Vim"))
    emacs = write(caller, "alice switched to Emacs", classifier)
    job_id = emacs.auto_supersede.job_id
    # A nudge naming another tenant finds nothing to claim, and that tenant cannot read it.
    assert worker.run_job(JobRef(job_id=job_id, tenant_id=other.tenant_id), deps(classifier)) is None
    assert job_row(other, db, job_id) is None
    assert job_row(caller, db, job_id)["status"] == "pending" and classifier.calls == []
    # The other tenant's memories are never candidates, nor its stream touched.
    write(other, "alice uses Vim", auto_supersede=False)
    assert worker.run_job(ref(caller, emacs), deps(classifier)) == deferred.SUPERSEDED
    assert [c.content for c in classifier.calls[0][1]] == ["alice uses Vim"]
    assert [e.type for e in stream(other, db)] == [EventType.MEMORY_CREATED]


def test_a_spent_budget_records_its_outcome_and_keeps_the_write(db, new_key):
    caller, _ = new_key()
    write(caller, "alice uses Vim", auto_supersede=False)
    settle(caller, db, daily_model_calls_limit=0)
    classifier = ScriptedClassifier(contradicts_when("alice uses Vim"))
    emacs = write(caller, "alice switched to Emacs", classifier)
    assert emacs.created and emacs.auto_supersede.status == "pending"
    assert worker.run_job(ref(caller, emacs), deps(classifier)) == "budget_exhausted"
    assert classifier.calls == []
    assert emacs.memory.id in current_ids(caller, db)
    last_two = [(e.type, e.data.get("outcome")) for e in stream(caller, db)[-2:]]
    assert last_two == [
        (EventType.AUTO_SUPERSEDE_COMPLETED, "budget_exhausted"),
        (EventType.BUDGET_EXHAUSTED, None),
    ]
    (completed,) = audit(caller, db, "auto_supersede_completed")
    assert completed.details["skipped_reason"] == "budget_exhausted"


def test_a_proposal_is_queued_by_the_worker(db, new_key):
    caller, _ = new_key()
    vim = write(caller, "alice uses Vim", auto_supersede=False).memory
    classifier = ScriptedClassifier(contradicts_when("alice uses Vim", confidence=0.7))
    emacs = write(caller, "alice switched to Emacs", classifier)
    assert worker.run_job(ref(caller, emacs), deps(classifier)) == deferred.PROPOSED
    (proposal,) = audit(caller, db, "supersession_proposed")
    assert (proposal.memory_id, proposal.superseded_id) == (emacs.memory.id, vim.id)
    assert stream(caller, db)[-1].type == EventType.PROPOSAL_CREATED
    assert current_ids(caller, db) == {vim.id, emacs.memory.id}


def test_async_opens_no_gate(db, new_key, configure):
    caller, _ = new_key()
    write(caller, "alice uses Vim", auto_supersede=False)
    classifier = ScriptedClassifier(contradicts_when("alice uses Vim"))
    excluded = WriteRequest(
        content="alice was diagnosed with flu", topic="health_medical", auto_supersede="async"
    )
    result = write_memory(caller, excluded, deps(classifier)).result
    assert result.auto_supersede.skipped_reason == SkippedReason.EXCLUDED_CATEGORY
    assert result.auto_supersede.job_id is None and result.auto_supersede.status is None
    off = write_memory(
        caller,
        WriteRequest(content="alice uses Emacs", auto_supersede="async"),
        deps(classifier, level2=False),
    )
    assert off.result.auto_supersede.skipped_reason == SkippedReason.LEVEL_2_DISABLED_BY_ENV
    assert off.result.auto_supersede.job_id is None
    # The key's mode only says when an opted-in Level 2 decides: false stays off.
    settle(caller, db, auto_supersede_mode="async")
    declined = write(caller, "alice switched to Emacs", classifier, auto_supersede=False)
    assert declined.auto_supersede.skipped_reason == SkippedReason.AUTO_SUPERSEDE_OFF
    assert declined.auto_supersede.job_id is None
    asked = write(caller, "alice switched to Emacs again", classifier, auto_supersede=True)
    assert asked.auto_supersede.status == "pending" and classifier.calls == []
    # A topic excluded after the write is gated again when the job runs, before any model.
    settle(caller, db, excluded_categories=["preferences"])
    assert worker.run_job(ref(caller, asked), deps(classifier)) == "excluded_category"
    assert classifier.calls == []


def test_a_job_never_compares_with_later_writes_and_its_memory_changed_meanwhile(db, new_key):
    caller, _ = new_key()
    classifier = ScriptedClassifier(contradicts_when("alice uses Vim"))
    emacs = write(caller, "alice switched to Emacs", classifier)
    # Written after the fact: never its candidate (its own write decides about it).
    write(caller, "alice uses Vim", auto_supersede=False)
    assert worker.run_job(ref(caller, emacs), deps(classifier)) == "no_candidates"
    assert classifier.calls == []
    helix = write(caller, "alice switched to Helix", classifier)
    supersession.supersede(
        caller, helix.memory.id, SupersedeRequest(content="alice uses Zed"), db, deps(None).embedder
    )
    assert worker.run_job(ref(caller, helix), deps(classifier)) == deferred.MEMORY_CHANGED


def test_a_batch_writes_a_job_per_fact(db, new_key):
    caller, _ = new_key()
    write(caller, "alice uses Vim", auto_supersede=False)
    classifier = ScriptedClassifier(contradicts_when("alice uses Vim"))
    request = BatchWriteRequest.model_validate(
        {
            "facts": [
                {"content": "alice switched to Emacs", "topic": "preferences"},
                {"content": "bob likes tea"},
            ],
            "auto_supersede": "async",
        }
    )
    results = batch.write_batch(caller, request, deps(classifier)).results
    assert [r.auto_supersede.status for r in results] == ["pending", "pending"]
    assert classifier.calls == []
    outcomes = {worker.run_job(ref(caller, r), deps(classifier)) for r in results}
    assert deferred.SUPERSEDED in outcomes


def test_the_sweeper_waits_for_the_nudge_first(db, new_key, configure):
    caller, _ = new_key()
    emacs = write(caller, "alice switched to Emacs")
    job_ref = ref(caller, emacs)
    assert job_ref not in worker.sweep(db, older_than_s=3600, at_most=1000)
    assert job_ref in worker.sweep(db, older_than_s=0, at_most=1000)
    assert emacs.memory.recorded_at - timedelta(seconds=1) < job_row(caller, db, job_ref.job_id)["created_at"]


@pytest.mark.parametrize("value", ["ASYNC", "later", 1])
def test_auto_supersede_takes_only_true_false_or_async(value):
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        WriteRequest(content="x", auto_supersede=value)


def test_a_messages_write_stores_a_job_per_fact_and_never_compares_facts_of_one_request(db, new_key):
    from dataclasses import replace

    from aurra_core.extractors.factory import get_extractor
    from aurra_core.models import MessagesWriteRequest
    from aurra_core.write_path.pipeline import write_messages

    caller, _ = new_key()
    vim = write(caller, "User uses Vim", auto_supersede=False, user_id="alice").memory
    classifier = ScriptedClassifier(contradicts_when("User uses Vim"))
    request = MessagesWriteRequest.model_validate(
        {
            "messages": [
                {"role": "user", "content": "I moved to Berlin last month, and I switched from Vim to Emacs."}
            ],
            "user_id": "alice",
            "topic": "preferences",
            "auto_supersede": "async",
        }
    )
    outcome = write_messages(caller, request, replace(deps(classifier), extractor_factory=get_extractor))
    facts = outcome.result.facts
    assert len(facts) == 2 and all(f.auto_supersede.status == "pending" for f in facts)
    assert classifier.calls == []
    for fact in facts:
        worker.run_job(ref(caller, fact), deps(classifier))
    fact_ids = {f.memory.id for f in facts}
    # Each fact was compared with alice's memory from before the request, never with the other.
    for _, candidates in classifier.calls:
        assert {c.id for c in candidates} == {vim.id}
    assert vim.id not in current_ids(caller, db)
    (event,) = audit(caller, db, "auto_supersede")
    assert event.superseded_id == vim.id and event.memory_id in fact_ids
    assert event.details["extractor"] == "rules" and "message_index" in event.details


def test_the_mode_setting_takes_sync_or_async_only(db, new_key):
    from pydantic import ValidationError

    caller, _ = new_key()
    with db.tenant_transaction(caller.tenant_id) as conn:
        assert keys.get_key_settings(conn, caller).auto_supersede_mode == "sync"
    settle(caller, db, auto_supersede_mode="async")
    with db.tenant_transaction(caller.tenant_id) as conn:
        assert keys.get_key_settings(conn, caller).auto_supersede_mode == "async"
    for wrong in ("ASYNC", "later", True, 1):
        with pytest.raises(ValidationError):
            SettingsPatch.model_validate({"auto_supersede_mode": wrong})


def test_a_job_whose_decision_keeps_failing_is_given_up_and_the_write_kept(
    db, new_key, configure, monkeypatch
):
    configure(AURRA_LEVEL2_MAX_ATTEMPTS="2")
    caller, _ = new_key()
    write(caller, "alice uses Vim", auto_supersede=False)
    classifier = ScriptedClassifier(contradicts_when("alice uses Vim"))
    emacs = write(caller, "alice switched to Emacs", classifier)
    job_ref = ref(caller, emacs)

    # A classifier failure is an outcome of its own; what fails here is the decision's
    # transaction (a worker that raises), twice, each time leaving the job to its lease.
    def failing_record(*args, **kwargs):
        raise RuntimeError("the decision's transaction failed")

    with monkeypatch.context() as patched:
        patched.setattr(deferred, "_record", failing_record)
        for _ in range(2):
            with pytest.raises(RuntimeError):
                worker.run_job(job_ref, deps(classifier))
            with db.transaction() as conn:  # the lease passes
                conn.execute("UPDATE level2_jobs SET lease_until = NULL WHERE id = %s", (job_ref.job_id,))
    assert job_row(caller, db, job_ref.job_id)["status"] == "pending"
    assert worker.run_job(job_ref, deps(classifier)) == deferred.FAILED
    job = job_row(caller, db, job_ref.job_id)
    assert (job["status"], job["outcome"], job["attempts"]) == ("done", "failed", 3)
    assert emacs.memory.id in current_ids(caller, db)
    last = stream(caller, db)[-1]
    assert last.type == EventType.AUTO_SUPERSEDE_COMPLETED and last.data["outcome"] == "failed"


def test_the_worker_function_loads_its_classifier_before_its_first_job(db, new_key, configure, monkeypatch):
    # The AWS worker (functions/level2_worker) on a cold start: the same warm-up as `aurra worker`.
    from aurra_core import service
    from aurra_local import gateway

    configure(AURRA_CLASSIFIER_TIMEOUT_S="0.3", AURRA_LEVEL2_ENABLED="true")
    caller, _ = new_key()
    write(caller, "alice uses Vim", auto_supersede=False)
    classifier = ColdClassifier(contradicts_when("alice uses Vim"), load_s=1.0)
    job_ref = ref(caller, write(caller, "alice switched to Emacs", classifier))
    monkeypatch.setattr(service, "get_classifier", lambda *args, **kwargs: classifier)
    monkeypatch.setattr(service, "_level2_worker_warm", False)
    body = json.dumps({"job_id": str(job_ref.job_id), "tenant_id": str(job_ref.tenant_id)})
    event = {"Records": [{"messageId": "m1", "receiptHandle": "r1", "body": body, "eventSource": "aws:sqs"}]}
    assert gateway.invoke("level2_worker", event) == {"batchItemFailures": []}
    job = job_row(caller, db, job_ref.job_id)
    assert (job["status"], job["outcome"]) == ("done", deferred.SUPERSEDED)
