"""Erasure on the real PostgreSQL: each selector erases exactly its memories (content,
embedding, metadata, quote, reasons, rejected text, stored responses) from every table, leaves
every other scope and tenant as it was, answers a repeat with its receipt, and the database
still refuses every ordinary UPDATE and DELETE of facts and events."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import psycopg
import pytest
from erasure_support import hits, seed_scope, tenant_state, token
from pipeline_support import ScriptedClassifier, deps
from test_messages_write import write_conversation

from aurra_core import service
from aurra_core.embedders import LexicalEmbedder
from aurra_core.errors import Gone, NotFound
from aurra_core.models import (
    AuditListQuery,
    ErasureRequest,
    MemoryListQuery,
    PointInTime,
    SupersedeRequest,
    WriteBody,
    WriteRequest,
)
from aurra_core.storage import queries, store
from aurra_core.storage.db import SERVICE_ROLE
from aurra_core.storage.ids import new_id
from aurra_core.write_path import erasure
from aurra_core.write_path.pipeline import write_memory

pytestmark = pytest.mark.integration

PAST = datetime(2000, 1, 1, tzinfo=UTC)
FUTURE = datetime.now(UTC) + timedelta(days=365)


def erase(caller, **selector):
    return service.create_erasure(caller, ErasureRequest(**selector))


def visible_ids(caller, db) -> set:
    """Every memory any list or search of the tenant returns, at every point of both time axes
    a reader could ask about (now, long ago, the far future), superseded ones included."""
    seen = set()
    for known_at in (None, PAST, FUTURE):
        for as_of in (None, PAST, FUTURE):
            for q in (None, "User moved likes"):
                for include_superseded in (False, True):
                    page = queries.read_memory_page(
                        caller,
                        MemoryListQuery(
                            q=q,
                            known_at=known_at,
                            as_of=as_of,
                            include_superseded=include_superseded,
                            limit=100,
                        ),
                        db,
                        LexicalEmbedder(384),
                    )
                    seen |= {m.id for m in page.memories}
    return seen


def test_erasing_a_user_leaves_no_trace_of_their_content_and_touches_nothing_else(db, new_key):
    caller, _ = new_key()
    other_tenant, _ = new_key()
    alice = seed_scope(caller, user_id="alice", label="al")
    bob = seed_scope(caller, user_id="bob", label="bo")
    elsewhere = seed_scope(other_tenant, user_id="alice", label="el")  # the same user id, another tenant
    # an Idempotency-Key response that holds alice's content
    _, kept = service.write_memory(
        caller, WriteBody(content=f"User owns {token('alk')}", user_id="alice"), "alice-1"
    )
    alice.strings.append(kept.memory.content.split()[-1])
    alice.memory_ids.append(kept.memory.id)
    bob_before, other_before = (
        tenant_state(db, caller.tenant_id, "bob"),
        tenant_state(db, other_tenant.tenant_id),
    )
    assert set(hits(db, alice.strings)) == set(alice.strings)

    status, receipt = erase(caller, user_id="alice")

    assert status == 201
    assert receipt.selector == {"user_id": "alice"}
    # 5 memories: 4 seeded (the duplicate wrote none) and the idempotent one; 6 versions (the
    # superseded one has two); the supersession and the duplicate's events, and the proposal
    assert receipt.counts.model_dump() == {
        "memories": 5,
        "versions": 6,
        "audit_events": 2,
        "proposals": 1,
        "idempotency_records": 1,
    }
    assert hits(db, alice.strings) == {}, "no table holds any of alice's content"
    assert set(hits(db, bob.strings + elsewhere.strings)) == set(bob.strings + elsewhere.strings)
    assert not visible_ids(caller, db) & set(alice.memory_ids)
    assert set(bob.memory_ids) <= visible_ids(caller, db)
    for memory_id in alice.memory_ids:
        with pytest.raises(Gone) as gone:
            service.get_memory(caller, memory_id, PointInTime())
        assert gone.value.status_code == 410 and gone.value.details[0]["erasure_id"] == str(receipt.id)
        with pytest.raises(Gone):
            service.memory_history(caller, memory_id, PointInTime(known_at=PAST + timedelta(days=1)))
    # the audit trail keeps content-free events, and the erasure
    events = queries.read_audit_page(caller, AuditListQuery(user_id="alice"), db).events
    assert events[0].type == "erasure"
    assert events[0].details == {
        "erasure_id": str(receipt.id),
        "selector": {"user_id": "alice"},
        "counts": receipt.counts.model_dump(),
    }
    for event in events[1:]:
        assert event.reason is None and event.details["erased"] is True, event
        assert event.classifier is not None and event.model == "quoting-model"
    # every other scope and tenant exactly as before
    assert tenant_state(db, caller.tenant_id, "bob") == bob_before
    assert tenant_state(db, other_tenant.tenant_id) == other_before


def test_a_repeat_answers_200_with_the_same_receipt_and_the_receipt_reads_back(db, new_key):
    caller, _ = new_key()
    seed_scope(caller, user_id="carol", label="ca")
    first_status, first = erase(caller, user_id="carol")
    again_status, again = erase(caller, user_id="carol")
    assert (first_status, again_status) == (201, 200) and again == first
    assert service.get_erasure(caller, first.id) == first
    # something new in the scope: a new receipt
    write_memory(
        caller, WriteRequest(content="User plays chess", user_id="carol"), deps(ScriptedClassifier())
    )
    status, third = erase(caller, user_id="carol")
    assert status == 201 and third.id != first.id and third.counts.memories == 1
    # a scope that never had a memory: a receipt that says so, then 200 with it
    empty_status, empty = erase(caller, user_id="nobody")
    assert empty_status == 201 and empty.counts.memories == 0
    assert erase(caller, user_id="nobody") == (200, empty)


def test_a_receipt_and_a_memory_of_another_tenant_are_404_and_nothing_is_touched(db, new_key):
    alice, _ = new_key()
    bob, _ = new_key()
    bobs = seed_scope(bob, user_id="bob", label="bt")
    _, receipt = erase(bob, user_id="nobody")
    before = tenant_state(db, bob.tenant_id)
    with pytest.raises(NotFound):
        service.get_erasure(alice, receipt.id)
    for memory_id in bobs.memory_ids:
        with pytest.raises(NotFound):
            erase(alice, memory_id=memory_id)
    erase(alice, user_id="bob")
    erase(alice, tenant=True)
    assert tenant_state(db, bob.tenant_id) == before


def test_memory_id_erases_its_whole_lineage_and_nothing_beside_it(db, new_key):
    caller, _ = new_key()
    other, _ = new_key()
    clf = ScriptedClassifier()
    a = write_memory(caller, WriteRequest(content="User uses Vim", user_id="u"), deps(clf)).result.memory
    _, b = service.supersede_memory(caller, a.id, SupersedeRequest(content="User uses Emacs"))
    _, c = service.supersede_memory(caller, b.memory.id, SupersedeRequest(content="User uses VS Code"))
    # a link undone by a revert is still the lineage's history (readable at an earlier known_at)
    d = write_memory(caller, WriteRequest(content="User uses Helix", user_id="u"), deps(clf)).result.memory
    _, linked = service.supersede_memory(caller, c.memory.id, SupersedeRequest(superseded_by=d.id))
    service.revert_supersession(caller, linked.superseded.superseded_event_id)
    beside = write_memory(
        caller, WriteRequest(content="User uses Nano", user_id="u"), deps(clf)
    ).result.memory
    seed_scope(other, user_id="u", label="ou")
    before = tenant_state(db, other.tenant_id)

    status, receipt = erase(caller, memory_id=b.memory.id)  # the middle of the chain

    assert status == 201 and receipt.selector == {"memory_id": str(b.memory.id)}
    assert receipt.counts.memories == 4
    assert visible_ids(caller, db) == {beside.id}
    # any memory of the lineage, erased again: 200 with this receipt
    assert erase(caller, memory_id=a.id) == (200, receipt)
    assert erase(caller, memory_id=d.id) == (200, receipt)
    assert tenant_state(db, other.tenant_id) == before
    events = queries.read_audit_page(caller, AuditListQuery(memory_id=b.memory.id), db).events
    assert events[0].type == "erasure" and all(e.details.get("erased") for e in events[1:])


def test_user_and_agent_erases_that_agents_memories_of_the_user_only(db, new_key):
    caller, _ = new_key()
    planner = seed_scope(caller, user_id="dana", agent_id="planner", label="pl")
    coach = seed_scope(caller, user_id="dana", agent_id="coach", label="co")
    unscoped_agent = seed_scope(caller, user_id="dana", label="ua")
    status, receipt = erase(caller, user_id="dana", agent_id="planner")
    assert status == 201 and receipt.selector == {"user_id": "dana", "agent_id": "planner"}
    assert hits(db, planner.strings) == {}
    assert set(hits(db, coach.strings + unscoped_agent.strings)) == set(
        coach.strings + unscoped_agent.strings
    )
    assert not visible_ids(caller, db) & set(planner.memory_ids)


def test_conversation_and_source_selectors_erase_exactly_their_memories(db, new_key):
    caller, _ = new_key()
    other, _ = new_key()
    said, other_said = token("cv"), token("ot")
    conversation = [{"role": "user", "content": f"I moved to {said}."}]
    for who in (caller, other):
        write_conversation(who, ScriptedClassifier(), messages=conversation, conversation_id="conv-1")
    write_conversation(
        caller,
        ScriptedClassifier(),
        messages=[{"role": "user", "content": f"I moved to {other_said}."}],
        conversation_id="conv-2",
    )
    quoted = token("sq")
    _, doc = service.write_memory(
        caller,
        WriteBody(
            content=f"User signed {quoted}",
            source={"type": "doc", "id": "doc-9", "uri": f"https://x.test/{quoted}"},
        ),
    )
    status, receipt = erase(caller, conversation_id="conv-1")
    assert status == 201 and receipt.counts.memories == 1
    assert set(hits(db, [said])) == {said}, "the other tenant's conversation-1 is untouched"
    assert hits(db, [said])[said] == ["memory_versions"]
    with db.transaction() as conn:
        owners = {
            r[0]
            for r in conn.execute(
                "SELECT tenant_id FROM memory_versions WHERE content LIKE %s", (f"%{said}%",)
            )
        }
    assert owners == {other.tenant_id}
    assert set(hits(db, [other_said])) == {other_said}
    # the conversation's tombstone keeps ids, and the audit trail finds the erasure by them
    events = queries.read_audit_page(caller, AuditListQuery(conversation_id="conv-1"), db).events
    assert [e.type for e in events] == ["erasure"]
    status, by_source = erase(caller, source_id="doc-9")
    assert status == 201 and by_source.counts.memories == 1
    assert hits(db, [quoted]) == {}
    with pytest.raises(Gone):
        service.get_memory(caller, doc.memory.id, PointInTime())


def test_erasing_the_tenant_empties_it_and_no_other(db, new_key):
    caller, _ = new_key()
    other, _ = new_key()
    mine = [seed_scope(caller, user_id=u, label=u) for u in ("te", "tf")]
    mine.append(seed_scope(caller, label="tu"))
    theirs = seed_scope(other, user_id="te", label="th")
    service.write_memory(caller, WriteBody(messages=[{"role": "user", "content": "Hello!"}]), "nothing-kept")
    before = tenant_state(db, other.tenant_id)
    status, receipt = erase(caller, tenant=True)
    assert status == 201 and receipt.selector == {"tenant": True}
    assert receipt.counts.memories == 12 and receipt.counts.idempotency_records == 1
    assert hits(db, [s for seeded in mine for s in seeded.strings]) == {}
    assert visible_ids(caller, db) == set()
    assert set(hits(db, theirs.strings)) == set(theirs.strings)
    assert tenant_state(db, other.tenant_id) == before
    with db.transaction() as conn:
        assert (
            conn.execute(
                "SELECT count(*) FROM idempotency_records WHERE tenant_id = %s", (caller.tenant_id,)
            ).fetchone()[0]
            == 0
        )
    assert erase(caller, tenant=True) == (200, receipt)


def test_a_replayed_idempotent_write_after_an_erasure_writes_again_and_replays_nothing_erased(db, new_key):
    caller, _ = new_key()
    secret = token("ir")
    body = WriteBody(content=f"User's locker code is {secret}", user_id="ivy")
    _, first = service.write_memory(caller, body, "locker")
    erase(caller, user_id="ivy")
    assert hits(db, [secret]) == {}
    status, again = service.write_memory(caller, body, "locker")
    assert status == 201 and again.memory.id != first.memory.id


def test_an_answer_recorded_after_an_erasure_that_erased_its_memory_is_not_kept(db, new_key, monkeypatch):
    """The write commits, then an erasure of its memory commits, then the Idempotency-Key
    record would store the answer (the content): it is dropped instead."""
    from aurra_core.write_path import pipeline

    caller, _ = new_key()
    secret = token("rc")
    real_write = pipeline.write_memory

    def write_then_erase(*args, **kwargs):
        outcome = real_write(*args, **kwargs)
        erasure.erase(caller, ErasureRequest(user_id="rey"), db)
        return outcome

    monkeypatch.setattr(pipeline, "write_memory", write_then_erase)
    service.write_memory(caller, WriteBody(content=f"User's PIN is {secret}", user_id="rey"), "pin")
    monkeypatch.undo()
    assert hits(db, [secret]) == {}
    with db.transaction() as conn:
        assert (
            conn.execute(
                "SELECT count(*) FROM idempotency_records WHERE tenant_id = %s", (caller.tenant_id,)
            ).fetchone()[0]
            == 0
        )


def test_a_write_in_flight_lands_before_the_erasure_and_is_erased(db, new_key):
    caller, _ = new_key()
    inside, release = threading.Event(), threading.Event()
    secret = token("wf")

    def slow_write():
        with store.write_transaction(db, caller.tenant_id) as (conn, now):
            store.insert_version(
                conn,
                memory_id=new_id(),
                tenant_id=caller.tenant_id,
                content=f"User hid {secret}",
                topic="general",
                metadata={},
                embedding=LexicalEmbedder(384).embed("x"),
                valid_from=now,
                valid_to=None,
                superseded_by=None,
                supersedes=None,
                recorded_at=now,
                scope=store.Scope("wes"),
            )
            inside.set()
            release.wait(10)

    writer = threading.Thread(target=slow_write)
    writer.start()
    assert inside.wait(10)
    result = {}
    eraser = threading.Thread(target=lambda: result.update(receipt=erase(caller, user_id="wes")[1]))
    eraser.start()
    eraser.join(1.0)
    assert eraser.is_alive(), "the erasure waits for the write in flight"
    release.set()
    writer.join(10)
    eraser.join(10)
    assert result["receipt"].counts.memories == 1
    assert hits(db, [secret]) == {}


def test_a_write_after_the_erasure_began_waits_for_it_and_stays(db, new_key, monkeypatch):
    caller, _ = new_key()
    seed_scope(caller, user_id="xan", label="xa")
    erasing, release = threading.Event(), threading.Event()
    real = store.believed_now

    def locked_then_wait(conn, tenant_id):
        now = real(conn, tenant_id)
        erasing.set()
        release.wait(10)
        return now

    monkeypatch.setattr(store, "believed_now", locked_then_wait)
    result = {}
    eraser = threading.Thread(
        target=lambda: result.update(receipt=erasure.erase(caller, ErasureRequest(user_id="xan"), db)[1])
    )
    eraser.start()
    assert erasing.wait(10)
    monkeypatch.setattr(store, "believed_now", real)
    written = {}
    writer = threading.Thread(
        target=lambda: written.update(
            outcome=write_memory(
                caller, WriteRequest(content="User kept this", user_id="xan"), deps(ScriptedClassifier())
            )
        )
    )
    writer.start()
    writer.join(1.0)
    assert writer.is_alive(), "the write waits for the erasure"
    release.set()
    eraser.join(10)
    writer.join(10)
    assert result["receipt"].counts.memories == 4
    assert visible_ids(caller, db) == {written["outcome"].result.memory.id}


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"user_id": "a", "conversation_id": "c"},
        {"memory_id": "0192f0c4-0000-7000-8000-000000000001", "tenant": True},
        {"agent_id": "planner"},
        {"tenant": False},
        {"tenant": "true"},
        {"tenant": 1},
        {"user_id": "has spaces"},
        {"source_id": ""},
        {"source_id": "  "},
        {"memory_id": "not-a-uuid"},
        {"user_id": "a", "everything": True},
    ],
)
def test_another_shape_of_selector_is_refused(body):
    with pytest.raises(ValueError):
        ErasureRequest.model_validate(body)


# ---------------------------------------------------------------- what the database allows


def _refused(
    db, statement, params=(), *, role=None, erasure_flag=None, error=psycopg.errors.InsufficientPrivilege
):
    with pytest.raises(error), db.transaction() as conn:
        if role:
            conn.execute("SELECT set_config('role', %s, true)", (role,))
        if erasure_flag:
            conn.execute("SELECT set_config('aurra.erasure_id', %s, true)", (erasure_flag,))
        conn.execute(statement, params)


def test_the_database_still_refuses_every_ordinary_update_and_delete(db, new_key):
    caller, _ = new_key()
    seed_scope(caller, user_id="ola", label="ol")
    seed_scope(caller, user_id="gone", label="go")
    t = caller.tenant_id
    # a real erasure's id: its tombstones exist, but of other memories than ola's
    _, receipt = erase(caller, user_id="gone")
    flag = str(receipt.id)
    for erasing in (None, flag):
        # as the owner: content, embedding, metadata never change; versions are never deleted
        _refused(
            db, "UPDATE memory_versions SET content = 'x' WHERE tenant_id = %s", (t,), erasure_flag=erasing
        )
        _refused(
            db, "UPDATE memory_versions SET metadata = '{}' WHERE tenant_id = %s", (t,), erasure_flag=erasing
        )
        _refused(db, "DELETE FROM memory_versions WHERE tenant_id = %s", (t,), erasure_flag=erasing)
        # events: not deleted, not changed, not even in the shape of a scrub, unless the
        # erasure in progress tombstoned their memory
        _refused(db, "DELETE FROM audit_events WHERE tenant_id = %s", (t,), erasure_flag=erasing)
        _refused(
            db,
            """UPDATE audit_events SET reason = NULL, details = aurra_content_free_details(details, %s::uuid)
               WHERE tenant_id = %s AND reason IS NOT NULL""",
            (flag, t),
            erasure_flag=erasing,
        )
        _refused(db, "UPDATE erasures SET counts = '{}' WHERE tenant_id = %s", (t,), erasure_flag=erasing)
        _refused(db, "DELETE FROM memory_tombstones WHERE tenant_id = %s", (t,), erasure_flag=erasing)
    # as the service: no right to any of it, and the erasure function only for its own tenant
    for statement in (
        "DELETE FROM memory_versions WHERE tenant_id = %s",
        "UPDATE memory_versions SET content = 'x' WHERE tenant_id = %s",
        "UPDATE audit_events SET reason = NULL WHERE tenant_id = %s",
        "INSERT INTO memory_tombstones (version_id, memory_id, tenant_id, valid_from, recorded_at, erasure_id, erased_at) "
        "SELECT version_id, memory_id, tenant_id, valid_from, recorded_at, gen_random_uuid(), now() FROM memory_versions WHERE tenant_id = %s",
    ):
        _refused(db, statement, (t,), role=SERVICE_ROLE)
    other, _ = new_key()
    with pytest.raises(psycopg.errors.InsufficientPrivilege), db.tenant_transaction(other.tenant_id) as conn:
        conn.execute("SELECT * FROM aurra_erase(gen_random_uuid(), %s, NULL, NULL, 'infinity')", (t,))
    with pytest.raises(psycopg.errors.InsufficientPrivilege), db.tenant_transaction(None) as conn:
        conn.execute("SELECT * FROM aurra_erase(gen_random_uuid(), %s, NULL, NULL, 'infinity')", (t,))
    # and nothing changed
    assert len(visible_ids(caller, db)) == 4


def test_the_erasure_flag_does_not_outlive_the_erasure(db, new_key):
    caller, _ = new_key()
    seed_scope(caller, user_id="pia", label="pi")
    seed_scope(caller, user_id="quin", label="qu")
    with db.tenant_transaction(caller.tenant_id) as conn:
        store.believed_now(conn, caller.tenant_id)
        ids = erasure.erasures.memories_where(conn, caller.tenant_id, "user_id", "pia")
        erasure.erasures.erase(conn, new_id(), caller.tenant_id, erasure.erasures.Selection(ids, []))
        assert conn.execute("SELECT aurra_erasure_in_progress()").fetchone()[0] is None
    with pytest.raises(psycopg.errors.InsufficientPrivilege), db.transaction() as conn:
        conn.execute(
            "DELETE FROM memory_versions WHERE tenant_id = %s AND user_id = 'quin'", (caller.tenant_id,)
        )


def test_row_level_security_keeps_each_tenant_to_its_own_tombstones_and_receipts(db, new_key):
    alice, _ = new_key()
    bob, _ = new_key()
    for caller, user in ((alice, "al"), (bob, "bo")):
        seed_scope(caller, user_id=user, label=user)
        erase(caller, user_id=user)
    for table in ("memory_tombstones", "erasures"):
        with db.tenant_transaction(bob.tenant_id) as conn:
            # no tenant filter in the statement: the policy alone
            assert {r[0] for r in conn.execute(f"SELECT tenant_id FROM {table}")} == {bob.tenant_id}, table
        with db.tenant_transaction(None) as conn:
            assert conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == 0, table
