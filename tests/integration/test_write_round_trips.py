"""What a write saves in round trips, and that it keeps its guarantees while saving them: the
candidate step's one transaction (the key's settings, candidates, budget), the pool's check of
idle connections only, the cached search strategy, and the write clock read with the tenant's
write lock. On a real PostgreSQL."""

from __future__ import annotations

import threading
import time
import uuid

import psycopg
import pytest
from pipeline_support import ScriptedClassifier, contradicts_when, deps
from vectors import near, unit

from aurra_core import metering
from aurra_core.access import keys
from aurra_core.errors import NotFound
from aurra_core.models import UNSCOPED, Caller, SettingsPatch, SkippedReason, Verdict, WriteRequest
from aurra_core.storage import db as database
from aurra_core.storage import store
from aurra_core.storage.db import Database
from aurra_core.write_path.pipeline import write_memory


def _request(content: str, auto_supersede: bool | None = True) -> WriteRequest:
    return WriteRequest(content=content, topic="preferences", auto_supersede=auto_supersede)


# ---------------------------------------------------------------- the candidate step's transaction


def test_a_write_that_no_setting_can_open_to_level_2_never_reads_the_keys_settings(db, new_key, monkeypatch):
    caller, _ = new_key()

    def no_read(conn, who):
        raise AssertionError("the key's settings were read")

    monkeypatch.setattr(keys, "get_key_settings", no_read)
    classifier = ScriptedClassifier()
    off = write_memory(caller, _request("alice uses Vim"), deps(classifier, level2=False)).result
    not_asked = write_memory(caller, _request("alice uses Vim", False), deps(classifier)).result
    assert off.created and off.auto_supersede.skipped_reason == SkippedReason.LEVEL_2_DISABLED_BY_ENV
    assert not_asked.created and not_asked.auto_supersede.skipped_reason == SkippedReason.AUTO_SUPERSEDE_OFF
    assert classifier.calls == []


def test_the_keys_settings_still_decide_a_level_2_write(db, new_key):
    caller, _ = new_key()
    with db.tenant_transaction(caller.tenant_id) as conn:
        keys.update_key_settings(
            conn, caller, SettingsPatch.model_validate({"auto_supersede_default": False})
        )
    classifier = ScriptedClassifier(lambda new, c: (Verdict.SUPPLEMENTS, 0.7))
    write_memory(caller, _request("alice uses Vim"), deps(classifier))
    by_default = write_memory(caller, _request("alice uses Vim at work", None), deps(classifier)).result
    assert by_default.auto_supersede.skipped_reason == SkippedReason.AUTO_SUPERSEDE_OFF
    # A change takes effect on the next write (the settings are read by every Level 2 write).
    with db.tenant_transaction(caller.tenant_id) as conn:
        keys.update_key_settings(conn, caller, SettingsPatch.model_validate({"auto_supersede_default": True}))
    assert write_memory(
        caller, _request("alice uses Vim at home", None), deps(classifier)
    ).result.auto_supersede.ran


def test_a_caller_naming_another_tenants_key_reads_no_settings_and_writes_nothing(db, new_key):
    alice, _ = new_key()
    mallory, _ = new_key()
    crossed = Caller(tenant_id=mallory.tenant_id, api_key_id=alice.api_key_id)
    with pytest.raises(NotFound):
        write_memory(crossed, _request("mallory uses Emacs"), deps(ScriptedClassifier()))
    with db.tenant_transaction(mallory.tenant_id) as conn:
        assert store.count_current(conn, mallory.tenant_id) == 0


def test_the_call_is_reserved_in_the_candidate_transaction_and_committed_before_the_call(db, new_key, pg_url):
    caller, _ = new_key()
    seen: list[int] = []

    def count_from_elsewhere() -> None:
        # Another connection sees the reservation while the classifier runs: it committed first.
        with psycopg.connect(pg_url) as other:
            seen.append(metering.calls_today(other, caller))

    classifier = ScriptedClassifier(
        lambda new, c: (Verdict.SUPPLEMENTS, 0.7), before_answer=count_from_elsewhere
    )
    write_memory(caller, _request("alice uses Vim"), deps(classifier))
    result = write_memory(caller, _request("alice uses Vim at work"), deps(classifier)).result
    assert result.auto_supersede.ran and seen == [1]


def test_the_reservation_commits_without_waiting_for_its_flush_and_the_write_waits(db, new_key, monkeypatch):
    """The reservation's transaction commits asynchronously (it is visible at once: above); the
    write's transaction, which stores the fact, still waits for its flush."""
    caller, _ = new_key()
    seen: dict[str, str] = {}
    reserve, insert = store.find_candidates, store.insert_version

    def reserving(conn, *args, **kwargs):
        # The candidates' statement takes the call, when it finds a candidate.
        found = reserve(conn, *args, **kwargs)
        if kwargs["reservation"].taken:
            seen["reservation"] = conn.execute("SHOW synchronous_commit").fetchone()[0]
        return found

    def inserting(conn, **kwargs):
        seen["write"] = conn.execute("SHOW synchronous_commit").fetchone()[0]
        return insert(conn, **kwargs)

    monkeypatch.setattr(store, "find_candidates", reserving)
    monkeypatch.setattr(store, "insert_version", inserting)
    classifier = ScriptedClassifier(lambda new, c: (Verdict.SUPPLEMENTS, 0.7))
    write_memory(caller, _request("alice uses Vim"), deps(classifier))
    write_memory(caller, _request("alice uses Vim at work"), deps(classifier))
    assert seen == {"reservation": "off", "write": "on"}


# ---------------------------------------------------------------- the write clock and the tenant's lock


def test_a_writers_clock_is_read_once_its_tenant_lock_is_granted(db, new_key, pg_url):
    caller, _ = new_key()
    stamps: list = []

    def write() -> None:
        with store.write_transaction(db, caller.tenant_id) as (_, now):
            stamps.append(now)

    with psycopg.connect(pg_url) as reader:
        # What queries.believed_now holds while it reads its instant.
        reader.execute("SELECT pg_advisory_xact_lock(%s)", (store._tenant_lock_key(caller.tenant_id),))
        writer = threading.Thread(target=write)
        writer.start()
        time.sleep(0.3)
        assert not stamps  # the writer waits for the lock
        released = reader.execute("SELECT clock_timestamp()").fetchone()[0]
        reader.commit()
    writer.join(timeout=10)
    assert stamps and stamps[0] > released


def test_a_writer_transaction_is_confined_to_its_tenant_from_its_first_statement(db, new_key):
    alice, _ = new_key()
    mallory, _ = new_key()
    written = write_memory(alice, _request("alice uses Vim"), deps(ScriptedClassifier(), level2=False))
    with store.write_transaction(db, mallory.tenant_id) as (conn, _):
        assert conn.execute("SELECT current_user").fetchone()[0] == database.SERVICE_ROLE
        # Row-level security: not even a count of another tenant's rows, whatever the filter says.
        assert conn.execute("SELECT count(*) FROM memory_versions").fetchone()[0] == 0
        assert store.select_memories_by_id(conn, alice.tenant_id, [written.result.memory.id]) == []
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            store.insert_version(
                conn,
                memory_id=uuid.uuid4(),
                tenant_id=alice.tenant_id,
                content="mallory writes into alice",
                topic="general",
                metadata={},
                embedding=unit(5),
                valid_from=_now(db),
                valid_to=None,
                superseded_by=None,
                supersedes=None,
                recorded_at=_now(db),
            )


def test_a_write_without_a_target_is_stamped_after_the_lock_and_before_its_commit(db, new_key):
    caller, _ = new_key()
    before = _now(db)
    created = write_memory(caller, _request("alice uses Vim"), deps(ScriptedClassifier(), level2=False))
    after = _now(db)
    assert before < created.result.memory.recorded_at < after


def _now(db):
    with db.transaction() as conn:
        return conn.execute("SELECT clock_timestamp()").fetchone()[0]


# ---------------------------------------------------------------- the pool checks idle connections


@pytest.fixture
def checks(monkeypatch) -> list:
    made: list = []
    original = database.ConnectionPool.check_connection

    def counted(conn):
        made.append(conn)
        original(conn)

    monkeypatch.setattr(database.ConnectionPool, "check_connection", staticmethod(counted))
    return made


def test_a_connection_used_a_moment_ago_is_lent_without_a_check(pg_url, checks):
    pool = Database(pg_url, max_size=1)
    try:
        for _ in range(3):
            with pool.transaction() as conn:
                conn.execute("SELECT 1")
        assert len(checks) == 1  # the new connection's first loan only
    finally:
        pool.close()


def test_an_idle_connection_is_checked_and_a_dead_one_replaced(pg_url, checks, monkeypatch):
    monkeypatch.setattr(database, "CHECK_AFTER_IDLE_S", 0.2)
    pool = Database(pg_url, max_size=1)
    try:
        with pool.transaction() as conn:
            first = conn.execute("SELECT pg_backend_pid()").fetchone()[0]
        with psycopg.connect(pg_url, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (first,))
        time.sleep(0.3)
        # Idle past the limit: checked, found dead, replaced; the transaction succeeds.
        with pool.transaction() as conn:
            second = conn.execute("SELECT pg_backend_pid()").fetchone()[0]
        assert second != first and len(checks) >= 2
    finally:
        pool.close()


# ---------------------------------------------------------------- the cached search strategy


@pytest.fixture
def small_threshold(monkeypatch):
    monkeypatch.setattr(store, "HNSW_MIN_TENANT_MEMORIES", 4)
    store.forget_strategies()
    yield
    store.forget_strategies()


def _put(db, caller, count: int, axis: int) -> None:
    with db.tenant_transaction(caller.tenant_id) as conn:
        for i in range(count):
            now = store.write_clock(conn)
            store.insert_version(
                conn,
                memory_id=uuid.uuid4(),
                tenant_id=caller.tenant_id,
                content=f"fact {axis}-{i}",
                topic="general",
                metadata={},
                embedding=near(unit(axis), seed=1000 * axis + i, weight=0.95 - 0.05 * i),
                valid_from=now,
                valid_to=None,
                superseded_by=None,
                supersedes=None,
                recorded_at=now,
            )


def _find(db, caller, axis: int) -> list:
    with db.tenant_transaction(caller.tenant_id) as conn:
        found = store.find_candidates(
            conn,
            caller.tenant_id,
            unit(axis),
            scope=UNSCOPED,
            excluded_topics=[],
            limit=3,
            min_similarity=0.0,
        )
    return [row for row, _ in found]


def test_each_tenant_has_its_own_strategy_and_never_finds_anothers_memories(
    db, new_key, small_threshold, monkeypatch
):
    large, _ = new_key()
    small, _ = new_key()
    _put(db, large, 8, axis=1)
    _put(db, small, 2, axis=1)  # the same direction: only the tenant filters tell them apart
    counted: list = []
    count_current = store.count_current
    monkeypatch.setattr(
        store, "count_current", lambda *a, **k: counted.append(a[1]) or count_current(*a, **k)
    )
    for _ in range(3):
        assert {r.tenant_id for r in _find(db, large, 1)} == {large.tenant_id}
        found_small = _find(db, small, 1)
        assert {r.tenant_id for r in found_small} == {small.tenant_id} and len(found_small) == 2
    # Counted once per tenant, then reused; each tenant's own answer.
    assert sorted(map(str, counted)) == sorted([str(large.tenant_id), str(small.tenant_id)])
    assert store._strategies[(large.tenant_id, None, None)][1] == "hnsw"
    assert store._strategies[(small.tenant_id, None, None)][1] == "exact"


def test_a_stale_strategy_still_finds_the_nearest_and_expires(db, new_key, small_threshold, monkeypatch):
    caller, _ = new_key()
    _put(db, caller, 2, axis=2)
    assert len(_find(db, caller, 2)) == 2  # cached: exact
    _put(db, caller, 6, axis=3)  # past the threshold now, but the cached answer says exact
    nearest = _find(db, caller, 3)
    assert [r.content for r in nearest] == ["fact 3-0", "fact 3-1", "fact 3-2"]
    assert store._strategies[(caller.tenant_id, None, None)][1] == "exact"
    monkeypatch.setattr(store, "STRATEGY_TTL_S", 0.0)
    _find(db, caller, 3)
    assert store._strategies[(caller.tenant_id, None, None)][1] == "hnsw"


# ---------------------------------------------------------------- the statements of a Level 2 write


@pytest.fixture
def statements(monkeypatch) -> list[str]:
    """Every statement the service sends (psycopg runs each through Cursor.execute; BEGIN,
    COMMIT and the pool's check are the transactions' own and not counted here)."""
    sent: list[str] = []
    execute = psycopg.Cursor.execute

    def counted(self, query, params=None, **kwargs):
        sent.append(" ".join(str(query).split())[:90])
        return execute(self, query, params, **kwargs)

    monkeypatch.setattr(psycopg.Cursor, "execute", counted)
    return sent


def test_a_level_2_write_that_supersedes_sends_seven_statements(db, new_key, small_threshold, statements):
    """Candidates (4): the confinement, the key's settings, the route with the HNSW settings,
    the vector list with its kinds and the reservation. The write (3): the confinement with the
    tenant's lock and clock, the target's lock with the clock and the revert check of a
    contradiction, and one statement for the insert, the old version's close and its closed
    copy and the audit event (store.insert_version_audited). A statement more anywhere fails
    this (each is a round trip). Its subject ("alice") is not one the dependent facts' statement
    can match: the next test has the one statement more a supersession of the user's takes."""
    caller, _ = new_key()
    _put(db, caller, 6, axis=1)  # past the (lowered) threshold: the HNSW route
    old = write_memory(caller, _request("alice uses Vim as her editor"), deps(ScriptedClassifier()))
    classifier = ScriptedClassifier(contradicts_when("alice uses Vim as her editor"))
    statements.clear()
    new = write_memory(caller, _request("alice uses Emacs as her editor"), deps(classifier)).result
    assert new.auto_supersede.supersession is not None
    assert new.auto_supersede.supersession.superseded_id == old.result.memory.id
    assert len(statements) == 7, "\n".join(statements)


def test_a_supersession_that_replaces_a_name_of_the_users_sends_one_statement_more(
    db, new_key, small_threshold, statements
):
    """The seven above, and one that queues the memories resting on the name replaced ("Vim")
    as dependency proposals (store.propose_dependents: a select and its inserts in one)."""
    caller, _ = new_key()
    _put(db, caller, 6, axis=1)
    old = write_memory(caller, _request("User uses Vim as their editor"), deps(ScriptedClassifier()))
    classifier = ScriptedClassifier(contradicts_when("User uses Vim as their editor"))
    statements.clear()
    new = write_memory(caller, _request("User uses Emacs as their editor"), deps(classifier)).result
    assert new.auto_supersede.supersession.superseded_id == old.result.memory.id
    assert len(statements) == 8, "\n".join(statements)
    assert statements[-1].startswith("WITH dependents AS")


# ---------------------------------------------------------------- the reservation in the candidates' statement


@pytest.mark.parametrize("strategy", ["exact", "hnsw"])
def test_the_candidates_statement_takes_the_call_exactly_when_it_finds_a_candidate(db, new_key, strategy):
    """At every floor around the memories' similarities: a call is counted when and only when
    the fused list has a candidate, once per statement; the key's limit still holds."""
    caller, _ = new_key()
    _put(db, caller, 5, axis=3)  # similarities to unit(3) from about 0.95 down
    counted = 0
    for floor in [1.1, 0.99, 0.96, 0.95, 0.9, 0.8, 0.5, 0.0, -1.0]:
        reservation = store.CallReservation(caller, None)
        with db.tenant_transaction(caller.tenant_id, flush_on_commit=False) as conn:
            found = store.find_candidates(
                conn,
                caller.tenant_id,
                unit(3),
                text="alice uses Vim as her editor",
                scope=UNSCOPED,
                excluded_topics=[],
                limit=3,
                min_similarity=floor,
                strategy=strategy,
                reservation=reservation,
            )
            counted += bool(found)
            assert reservation.taken is bool(found), floor
            assert metering.calls_today(conn, caller) == counted
    assert 0 < counted < 9
    reservation = store.CallReservation(caller, counted)  # the limit reached: nothing taken
    with db.tenant_transaction(caller.tenant_id) as conn:
        found = store.find_candidates(
            conn,
            caller.tenant_id,
            unit(3),
            text="alice uses Vim as her editor",
            scope=UNSCOPED,
            excluded_topics=[],
            limit=3,
            min_similarity=0.0,
            reservation=reservation,
        )
        assert found and not reservation.taken
        assert metering.calls_today(conn, caller) == counted


def test_a_write_whose_neighbours_are_all_below_the_floor_counts_no_call(db, new_key):
    """Memories the statement reads, none like the fact (unit vectors the fact's embedding is
    nearly orthogonal to): no candidate, no call, nothing counted."""
    caller, _ = new_key()
    _put(db, caller, 3, axis=4)
    classifier = ScriptedClassifier()
    result = write_memory(caller, _request("alice uses Vim"), deps(classifier)).result
    assert result.auto_supersede.skipped_reason == SkippedReason.NO_CANDIDATES and not classifier.calls
    with db.tenant_transaction(caller.tenant_id) as conn:
        assert metering.calls_today(conn, caller) == 0
