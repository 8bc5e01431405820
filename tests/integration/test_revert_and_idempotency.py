"""Revert and Idempotency-Key on a real PostgreSQL."""

import threading
import time
from datetime import UTC, datetime

import psycopg
import pytest

from aurra_core import service
from aurra_core.errors import Conflict, NotFound, ValidationFailed
from aurra_core.models import AuditListQuery, AuditType, PointInTime, SupersedeRequest, WriteRequest
from aurra_core.storage import queries, store


def write(caller, content, key=None, **kw):
    return service.write_memory(caller, WriteRequest(content=content, **kw), key)


def test_revert_restores_the_old_memory_and_keeps_both_histories(db, new_key):
    caller, _ = new_key()
    _, vim = write(caller, "alice uses Vim", valid_from="2026-01-01T00:00:00Z")
    _, sup = service.supersede_memory(caller, vim.memory.id, SupersedeRequest(content="alice uses Emacs"))
    event = queries.read_audit_page(caller, AuditListQuery(type=AuditType.MANUAL_SUPERSEDE), db).events[0]
    before_revert = datetime.now(UTC)
    status, result = service.revert_supersession(caller, event.id)
    assert status == 200
    assert (
        result.restored.id == vim.memory.id
        and result.restored.status == "current"
        and result.restored.valid_to is None
    )
    assert result.event.type == AuditType.REVERT and result.event.details["reverted_event_id"] == str(
        event.id
    )
    newer = queries.read_memory(caller, sup.memory.id, PointInTime(), db)
    assert newer.status == "current" and newer.supersedes is None
    # The superseded state is still what we knew before the revert.
    then = queries.read_memory(caller, vim.memory.id, PointInTime(known_at=before_revert), db)
    assert then.superseded_by == sup.memory.id
    history = queries.read_memory_history(caller, vim.memory.id, PointInTime(), db)
    assert [v.status for v in history.versions] == ["current", "superseded", "current"]
    with pytest.raises(Conflict, match="already reverted"):
        service.revert_supersession(caller, event.id)
    with pytest.raises(
        ValidationFailed, match=r"^a revert event is not a supersession and cannot be reverted$"
    ):
        service.revert_supersession(caller, result.event.id)


def test_revert_of_an_automatic_supersession(db, new_key, configure):
    configure(AURRA_LEVEL2_ENABLED="true")
    caller, _ = new_key()
    _, old = write(caller, "alice uses Vim", topic="preferences")
    _, new = write(caller, "alice switched to Emacs", topic="preferences", auto_supersede=True)
    event_id = new.auto_supersede.supersession.audit_event_id
    _, result = service.revert_supersession(caller, event_id)
    assert result.restored.id == old.memory.id and result.event.superseded_id == new.memory.id


def test_revert_conflicts_when_the_old_memory_moved_on(db, new_key):
    caller, _ = new_key()
    _, a = write(caller, "fact a")
    _, b = write(caller, "fact b")
    _, c = write(caller, "fact c")
    service.supersede_memory(caller, a.memory.id, SupersedeRequest(superseded_by=b.memory.id))
    first = queries.read_audit_page(caller, AuditListQuery(), db).events[0]
    service.revert_supersession(caller, first.id)
    service.supersede_memory(caller, a.memory.id, SupersedeRequest(superseded_by=c.memory.id))
    # The first supersession's revert event exists; a fresh attempt on it is "already reverted";
    # and the second supersession, if its newer memory was replaced, is a conflict too.
    with pytest.raises(Conflict):
        service.revert_supersession(caller, first.id)
    with pytest.raises(NotFound):
        service.revert_supersession(new_key()[0], first.id)


def test_concurrent_reverts_of_one_event_have_one_winner(db, new_key):
    caller, _ = new_key()
    _, a = write(caller, "fact a")
    service.supersede_memory(caller, a.memory.id, SupersedeRequest(content="fact b"))
    event = queries.read_audit_page(caller, AuditListQuery(), db).events[0]
    outcomes, barrier = [], threading.Barrier(4)

    def attempt():
        barrier.wait()
        try:
            outcomes.append(service.revert_supersession(caller, event.id)[0])
        except Conflict:
            outcomes.append(409)

    threads = [threading.Thread(target=attempt) for _ in range(4)]
    [t.start() for t in threads]
    [t.join(30) for t in threads]
    assert sorted(outcomes) == [200, 409, 409, 409]


def test_idempotent_write_runs_once_and_replays(db, new_key):
    caller, _ = new_key()
    first = write(caller, "alice uses Vim", key="k-1")
    again = write(caller, "alice uses Vim", key="k-1")
    assert first == again
    with db.transaction() as conn:
        assert store.count_current(conn, caller.tenant_id) == 1
    with pytest.raises(Conflict, match="different request body"):
        write(caller, "alice uses Emacs", key="k-1")
    # Keys are per tenant: another tenant's same key is its own.
    other, _ = new_key()
    assert write(other, "alice uses Vim", key="k-1")[1].memory.id != first[1].memory.id
    # And per operation: the same key on a supersede is not the write's.
    status, sup = service.supersede_memory(
        caller, first[1].memory.id, SupersedeRequest(content="alice uses Emacs"), "k-1"
    )
    assert status == 201
    assert service.supersede_memory(
        caller, first[1].memory.id, SupersedeRequest(content="alice uses Emacs"), "k-1"
    ) == (status, sup)


def test_a_failed_call_frees_its_key(db, new_key):
    caller, _ = new_key()
    missing = "0192f0c4-0000-7000-8000-000000000001"
    for _ in range(2):
        with pytest.raises(NotFound):
            service.supersede_memory(caller, missing, SupersedeRequest(content="x"), "k-fail")


def test_a_request_in_progress_makes_a_concurrent_retry_409(db, new_key, monkeypatch):
    caller, _ = new_key()
    from aurra_core.write_path import pipeline as write_pipeline

    real = write_pipeline.write_memory
    started, release = threading.Event(), threading.Event()

    def slow(*args, **kwargs):
        started.set()
        release.wait(10)
        return real(*args, **kwargs)

    monkeypatch.setattr(write_pipeline, "write_memory", slow)
    results = []
    t = threading.Thread(target=lambda: results.append(write(caller, "slow fact", key="k-slow")))
    t.start()
    assert started.wait(10)
    with pytest.raises(Conflict, match="in progress"):
        write(caller, "slow fact", key="k-slow")
    release.set()
    t.join(10)
    assert results and results[0][0] == 201
    assert write(caller, "slow fact", key="k-slow") == results[0]


def _cut_every_connection(pg_url: str) -> int:
    """pg_terminate_backend on every client backend but this one, and wait until they are gone."""
    with psycopg.connect(pg_url, autocommit=True) as admin:
        pids = [
            row[0]
            for row in admin.execute(
                """SELECT pid FROM pg_stat_activity WHERE datname = current_database()
                   AND pid <> pg_backend_pid() AND backend_type = 'client backend'"""
            ).fetchall()
        ]
        for pid in pids:
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        deadline = time.monotonic() + 10
        while admin.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE pid = ANY(%s)", (pids,)
        ).fetchone() != (0,):
            assert time.monotonic() < deadline, f"backends {pids} outlived pg_terminate_backend"
            time.sleep(0.02)
    return len(pids)


def test_a_write_cut_off_before_its_answer_is_recorded_still_replays_it(pg_url, db, new_key, monkeypatch):
    """The write commits (its key's record marked committed with it), then its connection is
    cut before its answer is recorded: the answer is recorded on a fresh connection, so a retry
    with the key gets the first response, not a 409 "still in progress" until the record
    expires a day later (the soak found a key stuck so)."""
    from aurra_core.write_path.idempotency import PostgresPersistenceLayer

    caller, _ = new_key()
    real = PostgresPersistenceLayer._update_record
    tries: list[str] = []

    def cut_first(self, data_record):
        if not tries:
            assert _cut_every_connection(pg_url) > 0
        try:
            real(self, data_record)
        except Exception as exc:
            tries.append(type(exc).__name__)
            raise
        tries.append("recorded")

    monkeypatch.setattr(PostgresPersistenceLayer, "_update_record", cut_first)
    first = write(caller, "alice uses Vim", key="k-cut")
    assert first[0] == 201
    monkeypatch.undo()
    assert write(caller, "alice uses Vim", key="k-cut") == first
    assert tries[0] == "ConnectionLost" and tries[-1] == "recorded", tries
    with db.transaction() as conn:
        assert store.count_current(conn, caller.tenant_id) == 1
