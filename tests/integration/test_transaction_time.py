"""The reader's "now" (queries.believed_now): it waits for the tenant's writers in flight, and
leaves nothing behind on the connection, so RDS Proxy has no session state to pin it for."""

from __future__ import annotations

import threading
import time

import psycopg

from aurra_core.storage import queries, store


def _advisory_locks(conn: psycopg.Connection) -> int:
    return conn.execute(
        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()"
    ).fetchone()[0]


def test_now_waits_for_a_writer_in_flight_and_is_later_than_its_stamp(db, new_key, pg_url):
    caller, _ = new_key()
    seen: list = []
    with psycopg.connect(pg_url) as writer:
        store.begin_write(writer, caller.tenant_id)
        stamp = store.write_clock(writer)
        reader = threading.Thread(target=lambda: seen.append(queries.believed_now(caller, db)))
        reader.start()
        time.sleep(0.3)
        # The writer has not committed: the reader may not name an instant yet.
        assert reader.is_alive() and not seen
        writer.commit()
    reader.join(timeout=10)
    assert seen and seen[0] > stamp


def test_now_of_another_tenant_does_not_wait(db, new_key, pg_url):
    writing, _ = new_key()
    reading, _ = new_key()
    with psycopg.connect(pg_url) as writer:
        store.begin_write(writer, writing.tenant_id)
        started = time.monotonic()
        queries.believed_now(reading, db)
        assert time.monotonic() - started < 2
        writer.rollback()


def test_now_holds_no_lock_once_returned(db, new_key):
    caller, _ = new_key()
    queries.believed_now(caller, db)
    with db.transaction() as conn:
        # The same pool (one process): whichever connection served the call, none keeps a lock.
        assert (
            conn.execute(
                "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
                "WHERE l.locktype = 'advisory' AND a.datname = current_database()"
            ).fetchone()[0]
            == 0
        )
        assert _advisory_locks(conn) == 0


def test_a_writer_waits_only_for_the_instant_being_read(db, new_key, pg_url):
    """The exclusive lock ends with believed_now's own transaction: a writer starting right
    after it is not held up by the read that follows."""
    caller, _ = new_key()
    now = queries.believed_now(caller, db)
    with db.tenant_transaction(caller.tenant_id) as reading:
        reading.execute("SELECT 1")  # a read transaction at `now`, still open
        with psycopg.connect(pg_url) as writer:
            writer.execute("SET lock_timeout = '2s'")
            store.begin_write(writer, caller.tenant_id)
            assert store.write_clock(writer) > now
            writer.rollback()
