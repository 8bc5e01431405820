"""A large erasure in batches on the real PostgreSQL: the same result as one transaction (no
content anywhere, the same counts), a crash between batches leaving a `running` receipt that a
retry or the maintenance job completes, a write landing between batches kept, and each tenant
kept to its own progress."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from erasure_support import hits, seed_scope, tenant_state, token
from test_erasure import visible_ids

from aurra_core import service
from aurra_core.errors import Gone, NotFound
from aurra_core.models import AuditListQuery, ErasureRequest, PointInTime, WriteBody
from aurra_core.storage import queries
from aurra_core.write_path import erasure

pytestmark = pytest.mark.integration


def seeded_user(caller, user_id: str, label: str):
    """seed_scope's five writes and an Idempotency-Key response holding the user's content:
    5 memories, 6 versions, 2 events, 1 proposal, 1 record."""
    seeded = seed_scope(caller, user_id=user_id, label=label)
    _, kept = service.write_memory(
        caller, WriteBody(content=f"User owns {token(label)}", user_id=user_id), f"{label}-key"
    )
    seeded.strings.append(kept.memory.content.split()[-1])
    seeded.memory_ids.append(kept.memory.id)
    return seeded


EXPECTED = {"memories": 5, "versions": 6, "audit_events": 2, "proposals": 1, "idempotency_records": 1}


def progress_rows(db, erasure_id) -> tuple[int, int]:
    """The owner's view of a run's progress and list: (progress rows, pending memories)."""
    with db.transaction() as conn:
        return (
            conn.execute("SELECT count(*) FROM erasures_running WHERE id = %s", (erasure_id,)).fetchone()[0],
            conn.execute(
                "SELECT count(*) FROM erasure_pending WHERE erasure_id = %s", (erasure_id,)
            ).fetchone()[0],
        )


def crash_after_first_batch(monkeypatch) -> list:
    """erase_batch as a function that times out after its first batch: the run's id is kept."""
    started: list = []
    real = erasure.erase_batch

    def first_then_crash(db, tenant_id, erasure_id, size):
        if started:
            raise TimeoutError("the function's time ran out")
        started.append(erasure_id)
        return real(db, tenant_id, erasure_id, size)

    monkeypatch.setattr(erasure, "erase_batch", first_then_crash)
    return started


def test_in_batches_the_counts_and_the_traces_are_those_of_one_transaction(db, new_key):
    caller, _ = new_key()
    alice = seeded_user(caller, "alice", "ba")
    bob = seeded_user(caller, "bob", "bb")
    bob_before = tenant_state(db, caller.tenant_id, "bob")

    status, receipt = erasure.erase(caller, ErasureRequest(user_id="alice"), db, batch_memories=2)

    assert status == 201 and receipt.status == "completed"
    assert receipt.counts.model_dump() == EXPECTED
    assert hits(db, alice.strings) == {}
    assert set(hits(db, bob.strings)) == set(bob.strings)
    assert tenant_state(db, caller.tenant_id, "bob") == bob_before
    assert not visible_ids(caller, db) & set(alice.memory_ids)
    assert progress_rows(db, receipt.id) == (0, 0)
    # One erasure event, with the final counts; the receipt reads back as it was answered.
    events = queries.read_audit_page(caller, AuditListQuery(type="erasure"), db).events
    assert [e.details for e in events] == [
        {"erasure_id": str(receipt.id), "selector": {"user_id": "alice"}, "counts": EXPECTED}
    ]
    assert service.get_erasure(caller, receipt.id) == receipt
    assert erasure.erase(caller, ErasureRequest(user_id="alice"), db, batch_memories=2) == (200, receipt)


def test_a_crash_between_batches_leaves_it_running_and_a_retry_completes_it(db, new_key, monkeypatch):
    caller, _ = new_key()
    other, _ = new_key()
    alice = seeded_user(caller, "alice", "ca")
    started = crash_after_first_batch(monkeypatch)
    with pytest.raises(TimeoutError):
        erasure.erase(caller, ErasureRequest(user_id="alice"), db, batch_memories=2)
    monkeypatch.undo()
    [erasure_id] = started

    running = service.get_erasure(caller, erasure_id)
    assert running.status == "running" and running.selector == {"user_id": "alice"}
    assert running.counts.memories == 2 and running.counts.versions >= 2
    # What the first batch erased is gone, and names the running erasure.
    erased = {m for m in alice.memory_ids if m not in visible_ids(caller, db)}
    assert len(erased) == 2
    for memory_id in erased:
        with pytest.raises(Gone) as gone:
            service.get_memory(caller, memory_id, PointInTime())
        assert gone.value.details[0]["erasure_id"] == str(erasure_id)
    # Another tenant sees nothing of it, and its own erasure of the same selector is its own.
    with pytest.raises(NotFound):
        service.get_erasure(other, erasure_id)
    status, theirs = service.create_erasure(other, ErasureRequest(user_id="alice"))
    assert status == 201 and theirs.id != erasure_id and theirs.counts.memories == 0
    assert service.get_erasure(caller, erasure_id).status == "running"
    # A write of the user landing between batches began after the erasure: it stays.
    _, later = service.write_memory(
        caller, WriteBody(content=f"User met {token('cl')}", user_id="alice"), None
    )

    status, receipt = service.create_erasure(caller, ErasureRequest(user_id="alice"))

    assert status == 201 and receipt.id == erasure_id and receipt.status == "completed"
    assert receipt.counts.model_dump() == EXPECTED
    assert receipt.created_at == running.created_at
    assert hits(db, alice.strings) == {}
    assert later.memory.id in visible_ids(caller, db)
    assert progress_rows(db, erasure_id) == (0, 0)
    assert service.get_erasure(caller, erasure_id) == receipt


def test_a_memory_of_a_running_erasure_asked_again_completes_it(db, new_key, monkeypatch):
    caller, _ = new_key()
    alice = seeded_user(caller, "alice", "ma")
    started = crash_after_first_batch(monkeypatch)
    with pytest.raises(TimeoutError):
        erasure.erase(caller, ErasureRequest(user_id="alice"), db, batch_memories=2)
    monkeypatch.undo()
    erased = next(m for m in alice.memory_ids if m not in visible_ids(caller, db))

    status, receipt = service.create_erasure(caller, ErasureRequest(memory_id=erased))

    assert status == 201 and receipt.id == started[0] and receipt.status == "completed"
    assert hits(db, alice.strings) == {}


def test_the_maintenance_job_completes_an_erasure_left_running(db, new_key, monkeypatch, pg_url):
    caller, _ = new_key()
    alice = seeded_user(caller, "alice", "ja")
    started = crash_after_first_batch(monkeypatch)
    with pytest.raises(TimeoutError):
        erasure.erase(caller, ErasureRequest(user_id="alice"), db, batch_memories=2)
    monkeypatch.undo()

    # Not yet: the request that started it may still be running its batches.
    assert erasure.complete_abandoned(pg_url, datetime.now(UTC)) == []
    done = erasure.complete_abandoned(
        pg_url, datetime.now(UTC) + erasure.ABANDONED_AFTER + timedelta(seconds=1)
    )

    assert [(d["tenant_id"], d["id"], d["status"]) for d in done] == [
        (str(caller.tenant_id), str(started[0]), "completed")
    ]
    assert done[0]["counts"] == EXPECTED
    assert hits(db, alice.strings) == {}
    assert service.get_erasure(caller, started[0]).status == "completed"


def test_the_whole_tenant_in_batches_deletes_its_records_and_keeps_a_later_write(db, new_key, monkeypatch):
    caller, _ = new_key()
    other, _ = new_key()
    mine = [seeded_user(caller, user, user) for user in ("ta", "tb")]
    theirs = seeded_user(other, "ta", "tc")
    before = tenant_state(db, other.tenant_id)
    started = crash_after_first_batch(monkeypatch)
    with pytest.raises(TimeoutError):
        erasure.erase(caller, ErasureRequest(tenant=True), db, batch_memories=3)
    monkeypatch.undo()
    _, later = service.write_memory(caller, WriteBody(content=f"User met {token('tl')}"), "after-start")

    status, receipt = erasure.erase(caller, ErasureRequest(tenant=True), db, batch_memories=3)

    assert status == 201 and receipt.id == started[0]
    assert receipt.counts.memories == 10 and receipt.counts.versions == 12
    # The tenant's records from before it began; the later write's stays, so its retry replays.
    assert receipt.counts.idempotency_records == 2
    _, replayed = service.write_memory(caller, WriteBody(content=later.memory.content), "after-start")
    assert replayed.memory.id == later.memory.id
    assert hits(db, [s for seeded in mine for s in seeded.strings]) == {}
    assert visible_ids(caller, db) == {later.memory.id}
    assert set(hits(db, theirs.strings)) == set(theirs.strings)
    assert tenant_state(db, other.tenant_id) == before


def test_a_request_out_of_time_answers_202_running_and_the_next_one_goes_on(db, new_key):
    caller, _ = new_key()
    alice = seeded_user(caller, "alice", "ra")
    request = ErasureRequest(user_id="alice")

    # No time at all: each request erases one batch and answers with the running receipt.
    answers = []
    while not answers or answers[-1][0] == 202:
        answers.append(erasure.erase(caller, request, db, batch_memories=2, budget_s=0))
    assert [status for status, _ in answers] == [202, 202, 201]
    assert len({receipt.id for _, receipt in answers}) == 1
    assert [r.counts.memories for _, r in answers] == [2, 4, 5]
    assert [r.status for _, r in answers] == ["running", "running", "completed"]
    assert answers[-1][1].counts.model_dump() == EXPECTED
    assert hits(db, alice.strings) == {}
    assert erasure.erase(caller, request, db, batch_memories=2, budget_s=0) == (200, answers[-1][1])


def test_in_batches_erasure_completed_is_sent_once_with_the_final_counts(db, new_key, monkeypatch):
    from test_change_events import walk

    caller, _ = new_key()
    seeded_user(caller, "alice", "bc")
    started = crash_after_first_batch(monkeypatch)
    with pytest.raises(TimeoutError):
        erasure.erase(caller, ErasureRequest(user_id="alice"), db, batch_memories=2)
    # between batches: nothing is complete, so nothing says it is
    assert started and walk(caller, db, types="erasure.completed")[0] == []
    monkeypatch.undo()

    status, receipt = erasure.erase(caller, ErasureRequest(user_id="alice"), db, batch_memories=2)

    assert status == 201 and receipt.counts.model_dump() == EXPECTED
    (event,) = walk(caller, db, types="erasure.completed")[0]
    assert (event.user_id, event.memory_id) == ("alice", None)
    assert event.data == {"erasure_id": str(receipt.id), "selector": {"user_id": "alice"}, "counts": EXPECTED}
