"""The change stream (GET /agent/events) on a real PostgreSQL: every change writes its event in
its own transaction, ids only; a cursor walk sees each event once, in commit order, even when
transactions overlap; a tenant sees only its own events.

The classifier is scripted (a test double of the classifier port); storage is real."""

from __future__ import annotations

import threading
from contextlib import ExitStack

import pytest
from pipeline_support import ScriptedClassifier, deps

from aurra_core import service
from aurra_core.access import keys
from aurra_core.errors import ValidationFailed
from aurra_core.models import (
    Caller,
    EventListQuery,
    EventType,
    Scope,
    SettingsPatch,
    SupersedeRequest,
    Verdict,
    WriteRequest,
)
from aurra_core.storage import events
from aurra_core.write_path.pipeline import write_memory


def scripted(verdicts: dict[str, tuple[Verdict, float]]) -> ScriptedClassifier:
    return ScriptedClassifier(lambda new, c: verdicts.get(c.content, (Verdict.NEW_FACT, 0.6)))


def put(caller, content, classifier=None, **kw):
    request = WriteRequest(content=content, topic="preferences", auto_supersede=True, **kw)
    if classifier is None:
        return write_memory(caller, request, deps(ScriptedClassifier(), level2=False)).result
    return write_memory(caller, request, deps(classifier)).result


def page(caller: Caller, db, **query):
    return events.read_event_page(caller, EventListQuery(**query), db)


def walk(caller: Caller, db, limit: int = 500, **query):
    """Every event from the start, page by page; (events, last cursor)."""
    found, cursor = [], None
    while True:
        got = page(caller, db, limit=limit, after=cursor, **query)
        found += got.events
        if not got.events:
            return found, got.next_cursor
        cursor = got.next_cursor


def test_each_change_writes_its_event_with_ids_only(db, new_key):
    caller, _ = new_key()
    vim = put(caller, "alice uses Vim", user_id="alice").memory
    out = put(
        caller, "alice uses Emacs", scripted({"alice uses Vim": (Verdict.CONTRADICTS, 0.95)}), user_id="alice"
    )
    supersession = out.auto_supersede.supersession
    assert supersession is not None and supersession.superseded_id == vim.id
    _, reverted = service.revert_supersession(caller, supersession.audit_event_id)
    plain = put(caller, "alice drinks tea", scripted({}), user_id="alice")  # Level 2 ran, acted on nothing

    found, _ = walk(caller, db)
    assert [(e.type, e.memory_id) for e in found] == [
        (EventType.MEMORY_CREATED, vim.id),
        (EventType.MEMORY_CREATED, out.memory.id),
        (EventType.MEMORY_SUPERSEDED, vim.id),
        (EventType.MEMORY_REVERTED, vim.id),
        (EventType.MEMORY_CREATED, plain.memory.id),
        (EventType.AUTO_SUPERSEDE_COMPLETED, plain.memory.id),
    ]
    superseded = found[2]
    assert superseded.data == {
        "event_id": str(supersession.audit_event_id),
        "superseded_by": str(out.memory.id),
        "by": "auto",
    }
    assert found[3].data["event_id"] == str(reverted.event.id)
    assert found[3].data["reverted_event_id"] == str(supersession.audit_event_id)
    assert all(e.user_id == "alice" and e.agent_id is None for e in found)
    assert len({e.id for e in found}) == len(found)
    assert [e.created_at for e in found] == sorted(e.created_at for e in found)
    stream = "".join(e.model_dump_json() for e in found)
    for word in ("Vim", "Emacs", "tea", "alice uses"):
        assert word not in stream


def test_proposals_manual_supersession_and_a_spent_budget(db, new_key):
    caller, _ = new_key()
    vim = put(caller, "bob uses Vim", agent_id="coder").memory
    out = put(
        caller, "bob likes Emacs", scripted({"bob uses Vim": (Verdict.CONTRADICTS, 0.6)}), agent_id="coder"
    )
    proposal_id = out.auto_supersede.proposal.audit_event_id
    service.dismiss_proposal(caller, proposal_id)
    _, manual = service.supersede_memory(caller, out.memory.id, SupersedeRequest(content="bob likes Helix"))
    with db.tenant_transaction(caller.tenant_id) as conn:
        keys.update_key_settings(conn, caller, SettingsPatch.model_validate({"daily_model_calls_limit": 0}))
    spent = put(caller, "bob uses Nano", scripted({}), agent_id="coder").memory

    found, _ = walk(caller, db, types="proposal.created,proposal.resolved,memory.superseded,budget.exhausted")
    assert [(e.type, e.memory_id) for e in found] == [
        (EventType.PROPOSAL_CREATED, vim.id),
        (EventType.PROPOSAL_RESOLVED, vim.id),
        (EventType.MEMORY_SUPERSEDED, out.memory.id),
        (EventType.BUDGET_EXHAUSTED, spent.id),
    ]
    assert found[0].data == {
        "event_id": str(proposal_id),
        "proposed_by": str(out.memory.id),
        "kind": "supersession",
    }
    assert found[1].data["resolution"] == "dismissed" and found[1].data["proposal_id"] == str(proposal_id)
    assert found[1].data["kind"] == "supersession"
    assert found[2].data["superseded_by"] == str(manual.memory.id) and found[2].data["by"] == "manual"
    assert all(e.agent_id == "coder" and e.user_id is None for e in found)


def test_a_cursor_walk_in_small_pages_sees_each_event_once_and_polls_from_its_end(db, new_key):
    caller, _ = new_key()
    written = [put(caller, f"fact number {i}").memory.id for i in range(7)]
    found, end = walk(caller, db, limit=2)
    assert [e.memory_id for e in found] == written
    assert page(caller, db, after=end).events == []
    later = put(caller, "one more fact").memory.id
    assert [e.memory_id for e in page(caller, db, after=end).events] == [later]
    # A filtered page that finds nothing still moves past what it read.
    empty = page(caller, db, types="memory.reverted")
    assert (
        empty.events == [] and page(caller, db, types="memory.reverted", after=empty.next_cursor).events == []
    )


def test_bad_queries_are_422(db, new_key):
    caller, _ = new_key()
    other, _ = new_key()
    put(caller, "carol uses Vim")
    with pytest.raises(ValidationFailed, match="types"):
        page(caller, db, types="memory.created,memory.deleted")
    cursor = page(caller, db, types="memory.created").next_cursor
    with pytest.raises(ValidationFailed, match="cursor"):
        page(caller, db, after=cursor)  # another filter's cursor
    with pytest.raises(ValidationFailed, match="cursor"):
        page(other, db, after=cursor, types="memory.created")  # another tenant's
    with pytest.raises(ValidationFailed, match="cursor"):
        page(caller, db, after="not-a-cursor")


def test_a_tenant_sees_only_its_own_events(db, new_key):
    alice, _ = new_key()
    bob, _ = new_key()
    put(alice, "alice uses Vim")
    mine = put(bob, "bob uses Vim").memory.id
    assert [e.memory_id for e in walk(bob, db)[0]] == [mine]
    # Below the code's own filter, row-level security: bob's confinement reads none of alice's.
    with db.tenant_transaction(bob.tenant_id) as conn:
        assert events.select_events(conn, alice.tenant_id, after=0, up_to=10**9, types=None, limit=50) == []
        assert events.last_seq(conn, alice.tenant_id) == 0


def _event(db, caller, stack: ExitStack, memory_marker):
    conn = stack.enter_context(db.tenant_transaction(caller.tenant_id))
    events.insert_event(
        conn, caller.tenant_id, EventType.MEMORY_CREATED, scope=Scope(), memory_id=memory_marker, data={}
    )


def test_overlapping_transactions_are_read_in_commit_order_and_none_is_skipped(db, new_key):
    """T1 writes its event first and commits last: a reader that read T2's event (a cursor past
    it) still reads T1's after T1 commits, and in commit order. With numbers given at insert
    (a sequence, an ordered id) T1's would sort before T2's and the cursor would skip it."""
    import uuid

    caller, _ = new_key()
    first, second, third = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
    t1, t2 = ExitStack(), ExitStack()
    _event(db, caller, t1, first)
    _event(db, caller, t2, second)
    t2.close()  # T2 commits first
    seen = page(caller, db)
    assert [e.memory_id for e in seen.events] == [second]
    t1.close()
    after = page(caller, db, after=seen.next_cursor)
    assert [e.memory_id for e in after.events] == [first]
    # A transaction that rolls back leaves no event and no gap.
    with pytest.raises(RuntimeError), db.tenant_transaction(caller.tenant_id) as conn:
        events.insert_event(
            conn, caller.tenant_id, EventType.MEMORY_CREATED, scope=Scope(), memory_id=uuid.uuid4(), data={}
        )
        raise RuntimeError("rolled back")
    with ExitStack() as t3:
        _event(db, caller, t3, third)
    found, _ = walk(caller, db)
    assert [e.memory_id for e in found] == [second, first, third]
    with db.tenant_transaction(caller.tenant_id) as conn:
        seqs = [
            r[0]
            for r in conn.execute(
                "SELECT seq FROM change_events WHERE tenant_id = %s ORDER BY seq", (caller.tenant_id,)
            )
        ]
    assert seqs == [1, 2, 3]


def test_concurrent_writers_and_a_polling_reader_agree_on_every_event(db, new_key):
    caller, _ = new_key()
    polled: list = []
    done = threading.Event()

    def reader() -> None:
        cursor = None
        while True:
            finished = done.is_set()
            got = page(caller, db, after=cursor, limit=3)
            polled.extend(got.events)
            cursor = got.next_cursor
            if finished and not got.events:
                return

    def writer(n: int) -> None:
        for i in range(6):
            put(caller, f"writer {n} fact {i}")

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    watcher = threading.Thread(target=reader)
    watcher.start()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    done.set()
    watcher.join(timeout=60)
    final, _ = walk(caller, db)
    assert len(final) == 24
    assert [e.id for e in polled] == [e.id for e in final]


def test_an_erasure_writes_erasure_completed_in_its_own_transaction(db, new_key, monkeypatch):
    from aurra_core.models import ErasureRequest, PointInTime
    from aurra_core.write_path import erasure

    caller, _ = new_key()
    kept = put(caller, "alice uses Vim", user_id="alice").memory
    put(caller, "bob uses Emacs", user_id="bob")

    # the event fails: the erasure is undone with it (one transaction), nothing is half-done
    original = events.insert_event

    def fail_after(*args, **kwargs):
        original(*args, **kwargs)
        raise RuntimeError("test: the transaction fails after the event")

    monkeypatch.setattr(erasure.events, "insert_event", fail_after)
    with pytest.raises(RuntimeError):
        service.create_erasure(caller, ErasureRequest(user_id="alice"))
    monkeypatch.undo()
    assert service.get_memory(caller, kept.id, PointInTime()).content == "alice uses Vim"
    assert EventType.ERASURE_COMPLETED not in {e.type for e in walk(caller, db)[0]}

    status, receipt = service.create_erasure(caller, ErasureRequest(user_id="alice"))
    assert status == 201
    found, cursor = walk(caller, db, types="erasure.completed")
    (event,) = found
    assert (event.user_id, event.agent_id, event.memory_id) == ("alice", None, None)
    assert event.data == {
        "erasure_id": str(receipt.id),
        "selector": {"user_id": "alice"},
        "counts": receipt.counts.model_dump(),
    }
    assert "Vim" not in event.model_dump_json()
    # the same selector again erases nothing new: the earlier receipt, no second event
    assert service.create_erasure(caller, ErasureRequest(user_id="alice"))[0] == 200
    assert page(caller, db, after=cursor, types="erasure.completed").events == []
