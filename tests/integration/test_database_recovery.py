"""After an outage the first request succeeds as soon as the database is back, not after
the pool's reconnection backoff, which doubles with every failed try during the outage.

A PostgreSQL of its own (the session's is shared by every other test), stopped and started
again on the same data directory."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest

from aurra_core.errors import ServiceUnavailable
from aurra_core.storage.db import Database
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
