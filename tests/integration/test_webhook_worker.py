"""`aurra dev`'s webhook worker through a database outage: it says once that deliveries are
paused and once that they resumed, not a traceback every quarter of a second, and it tries
less often while the database is away."""

from __future__ import annotations

import time
import uuid

import psycopg
from psycopg.conninfo import make_conninfo

from aurra_core.storage.db import Database
from aurra_core.webhooks import delivery


def _listen(monkeypatch) -> list[tuple[str, str]]:
    said: list[tuple[str, str]] = []
    for level in ("warning", "info", "exception", "error"):
        monkeypatch.setattr(
            delivery.logger, level, lambda message, *a, level=level, **k: said.append((level, message))
        )
    return said


def test_an_unreachable_database_is_said_once_and_tried_less_often(monkeypatch) -> None:
    said = _listen(monkeypatch)
    rounds: list[float] = []
    original = delivery.run_once

    def counted(db: Database) -> int:
        rounds.append(time.monotonic())
        return original(db)

    monkeypatch.setattr(delivery, "run_once", counted)
    # Nothing listens on port 1: every connection is refused at once.
    db = Database(
        "host=127.0.0.1 port=1 dbname=aurra user=aurra connect_timeout=2", max_size=1, timeout_s=0.3
    )
    worker = delivery.Worker(db, interval_s=0.05)
    worker.start()
    try:
        time.sleep(3.0)
    finally:
        worker.stopping.set()
        worker.join(10)
        db.close()
    assert said == [("warning", "webhook deliveries paused: the database is not reachable")]
    # At 0.05 s a round that would be some 40 rounds; backing off to seconds, a handful.
    assert 2 <= len(rounds) <= 12, len(rounds)


def test_a_cut_connection_pauses_deliveries_and_they_resume(own_database: str, monkeypatch) -> None:
    said = _listen(monkeypatch)
    rounds: list[int] = []
    original = delivery.run_once

    def counted(db: Database) -> int:
        done = original(db)
        rounds.append(done)
        return done

    monkeypatch.setattr(delivery, "run_once", counted)
    name = f"aurra-worker-{uuid.uuid4().hex[:8]}"
    db = Database(make_conninfo(own_database, application_name=name), max_size=1)
    worker = delivery.Worker(db, interval_s=0.05)
    worker.start()
    try:
        # Rounds done: the connection is made and in use (one cut while it was being made would
        # only be the pool's to make again, unseen by the worker).
        deadline = time.monotonic() + 20
        while len(rounds) < 3:
            assert time.monotonic() < deadline, "the worker never completed a round"
            time.sleep(0.05)
        with psycopg.connect(own_database, autocommit=True) as admin:
            deadline = time.monotonic() + 20
            while not admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = %s", (name,)
            ).fetchall():
                assert time.monotonic() < deadline, "the worker never connected"
                time.sleep(0.05)
        deadline = time.monotonic() + 20
        while ("warning", "webhook deliveries resumed") not in said:
            assert time.monotonic() < deadline, said
            time.sleep(0.05)
    finally:
        worker.stopping.set()
        worker.join(10)
        db.close()
    assert said == [
        ("warning", "webhook deliveries paused: the database is not reachable"),
        ("warning", "webhook deliveries resumed"),
    ]
