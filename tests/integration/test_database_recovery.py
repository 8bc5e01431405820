"""After an outage the first request succeeds as soon as the database is back, not after
the pool's reconnection backoff, which doubles with every failed try during the outage; the
new pool that does it never fails the requests that were waiting on the old one; and a key
check whose pooled connection was cut is served on a fresh one, not answered 503.

The outage: a PostgreSQL of its own (the session's is shared by every other test), stopped and
started again on the same data directory. The cuts: pg_terminate_backend on the session's."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import psycopg
import pytest

from aurra_core.access import key_check
from aurra_core.errors import ServiceUnavailable
from aurra_core.storage.db import Database
from aurra_local import gateway
from aurra_local.embedded_postgres import EmbeddedPostgres


def _select_one(db: Database) -> int:
    with db.transaction() as conn:
        row = conn.execute("SELECT 1").fetchone()
        assert row is not None
        return int(row[0])


def test_the_first_request_after_an_outage_succeeds_at_once(tmp_path: Path) -> None:
    data = tmp_path / "data"
    server = EmbeddedPostgres(data)
    with psycopg.connect(server.url, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")  # each connection registers it
    db = Database(server.url, max_size=2, timeout_s=3.0)
    try:
        assert _select_one(db) == 1
        server.stop()

        # The outage: the first request waits out the pool's timeout; the next ones know the
        # database is unreachable and fail at once, while the pool's own retries back off.
        with pytest.raises(ServiceUnavailable):
            _select_one(db)
        started = time.monotonic()
        for _ in range(3):
            with pytest.raises(ServiceUnavailable):
                _select_one(db)
        assert time.monotonic() - started < 3.0, "requests during a known outage should not wait"
        time.sleep(8)  # the pool's backoff is now 8 s or more: it would answer after that

        server = EmbeddedPostgres(data)
        back = time.monotonic()
        assert _select_one(db) == 1
        recovered_s = time.monotonic() - back
        print(f"first request after the outage: {recovered_s * 1000:.0f} ms")
        # Not a speed assertion: the pool alone would wait its backoff (seconds), the probe
        # and a new pool take two connections (milliseconds; see bench/notes/level2-at-scale.md).
        assert recovered_s < 4.0, f"the first request after the outage took {recovered_s:.1f} s"
        assert _select_one(db) == 1
    finally:
        db.close()
        server.stop()


def _terminate(pg_url: str, pids: list[int]) -> None:
    with psycopg.connect(pg_url, autocommit=True) as admin:
        for pid in pids:
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        # Terminated, not only signalled: the backends are gone from the server.
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            alive = admin.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE pid = ANY(%s)", (pids,)
            ).fetchone()
            if alive is not None and alive[0] == 0:
                return
            time.sleep(0.02)
    raise AssertionError(f"backends {pids} outlived pg_terminate_backend")


def _backend(db: Database) -> int:
    with db.transaction() as conn:
        row = conn.execute("SELECT pg_backend_pid()").fetchone()
        assert row is not None
        return int(row[0])


def test_a_key_check_whose_connection_was_cut_is_served_on_a_fresh_one(pg_url: str, new_key) -> None:
    """The connection was used a moment ago, so the pool lends it unchecked (CHECK_AFTER_IDLE_S);
    its backend is gone: the lookup is read again on a new connection, the caller is served."""
    caller, raw = new_key()
    db = Database(pg_url, max_size=1)
    try:
        assert key_check.authenticate(db, raw) == caller
        _terminate(pg_url, [_backend(db)])
        assert key_check.authenticate(db, raw) == caller
        assert key_check.authenticate(db, raw) == caller
    finally:
        db.close()


def test_the_first_request_after_the_service_connections_are_cut_answers_200(
    pg_url: str, new_key, db: Database
) -> None:
    """As API Gateway runs it (the authorizer, then the route), against the functions' own
    database: every one of its pooled connections cut just after a request."""
    _, raw = new_key()
    headers = {"Authorization": f"Bearer {raw}"}
    assert gateway.handle("GET", "/agent/settings", headers, None)["statusCode"] == 200
    with psycopg.connect(pg_url, autocommit=True) as admin:
        pids = [
            row[0]
            for row in admin.execute(
                """SELECT pid FROM pg_stat_activity WHERE datname = current_database()
                   AND pid <> pg_backend_pid() AND backend_type = 'client backend'"""
            ).fetchall()
        ]
    _terminate(pg_url, pids)
    response = gateway.handle("GET", "/agent/settings", headers, None)
    assert response["statusCode"] == 200, response
    assert gateway.handle("GET", "/agent/settings", headers, None)["statusCode"] == 200


def test_requests_waiting_on_a_pool_that_is_replaced_are_served_by_the_new_one(pg_url: str) -> None:
    """After an outage the first request that reaches the database replaces the pool (its
    backoff with it). Requests that were waiting on the old pool then get PoolClosed from it:
    they are served by the new pool, not answered 503, and do not mark the new pool failed."""
    db = Database(pg_url, max_size=1, timeout_s=8.0)
    release, holding = threading.Event(), threading.Event()
    answers: list[object] = []

    def hold() -> None:
        with db.transaction() as conn:
            conn.execute("SELECT 1")
            holding.set()
            release.wait(20)

    def wait_for_a_connection() -> None:
        try:
            answers.append(_select_one(db))
        except ServiceUnavailable as exc:
            answers.append(exc)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        # The pool's one connection is the holder's (not still being made: a request waiting
        # then would be the holder itself).
        assert holding.wait(10), "the holder never got its connection"
        deadline = time.monotonic() + 10
        old = db._pool
        waiter = threading.Thread(target=wait_for_a_connection)
        waiter.start()
        while old.get_stats().get("requests_waiting", 0) < 1:
            assert time.monotonic() < deadline, "the waiter never queued on the pool"
            time.sleep(0.01)
        # What a request that found the database unreachable leaves behind (see transaction()).
        db._failed_pool = old
        assert _select_one(db) == 1  # the probe succeeds: a new pool replaces the old one
        assert db._pool is not old
        waiter.join(15)
        assert answers == [1]
        assert db._failed_pool is None
    finally:
        release.set()
        holder.join(15)
        db.close()


def test_a_request_waiting_when_the_database_is_closed_opens_no_pool_of_its_own(pg_url: str) -> None:
    """Closed (the process exits, the service resets) is not replaced: a request that was
    waiting is answered 503 and leaves no new pool, whose threads would outlive the close."""
    db = Database(pg_url, max_size=1, timeout_s=8.0)
    release, holding = threading.Event(), threading.Event()
    answers: list[object] = []

    def hold() -> None:
        with db.transaction() as conn:
            conn.execute("SELECT 1")
            holding.set()
            release.wait(20)

    def wait_for_a_connection() -> None:
        try:
            answers.append(_select_one(db))
        except ServiceUnavailable as exc:
            answers.append(type(exc))

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        # The pool's one connection is the holder's (not still being made: a request waiting
        # then would be the holder itself).
        assert holding.wait(10), "the holder never got its connection"
        deadline = time.monotonic() + 10
        pool = db._pool
        waiter = threading.Thread(target=wait_for_a_connection)
        waiter.start()
        while pool.get_stats().get("requests_waiting", 0) < 1:
            assert time.monotonic() < deadline, "the waiter never queued on the pool"
            time.sleep(0.01)
        db.close()  # while the holder still has its connection and the waiter waits
        waiter.join(15)
        assert answers == [ServiceUnavailable]
        assert db._pool is None
    finally:
        release.set()
        holder.join(15)
        db.close()


def test_a_statement_timeout_leaves_the_pool_in_place(pg_url: str) -> None:
    """A statement or lock timeout is the statement's, not the database's: the pool (and the
    requests waiting on it) stays."""
    db = Database(pg_url, max_size=1)
    try:
        assert _select_one(db) == 1
        pool = db._pool
        with pytest.raises(psycopg.errors.QueryCanceled), db.transaction() as conn:
            conn.execute("SET LOCAL statement_timeout = 50")
            conn.execute("SELECT pg_sleep(2)")
        assert db._failed_pool is None
        assert _select_one(db) == 1
        assert db._pool is pool
    finally:
        db.close()


# Run in a fresh interpreter: the function's database opens its pool, and a check registered
# before the database module is imported reports, at exit, whether the pool was closed by then
# (exit functions run last in, first out, so the module's own runs first).
CLOSED_AT_EXIT = """
import atexit

def report():
    print("closed" if database._pool is None else "open")

atexit.register(report)
from aurra_core.storage.db import get_database

database = get_database()
with database.transaction() as conn:
    conn.execute("SELECT 1")
print("served")
"""


def test_the_functions_database_closes_its_pool_when_the_interpreter_exits(pg_url: str) -> None:
    """A pool left to its finalizer waits for threads that can no longer run (5 s each on
    Python 3.13); the database the functions share is closed before that."""
    env = dict(os.environ, AURRA_DATABASE_URL=pg_url)
    done = subprocess.run(
        [sys.executable, "-c", CLOSED_AT_EXIT],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["served", "closed"], done.stdout + done.stderr
    assert "couldn't stop thread" not in done.stderr
