"""Migrations on a live database: they never queue for a table's lock (a short lock_timeout, then
a retry), they hold the maintenance job's lock while they run, and the migrate function acts only
on an event for its own migrations (a rollback's event names another release's)."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator

import psycopg
import pytest
from psycopg.conninfo import make_conninfo

from aurra_core.storage.migrate import (
    Migration,
    MigrationLockUnavailable,
    apply_migrations,
    load_migrations,
    migrations_fingerprint,
    set_login_passwords,
)
from aurra_core.storage.tenant_indexes import MAINTENANCE_LOCK

DIM = 8
PROBE = Migration("9001_probe_note", "ALTER TABLE probe ADD COLUMN note text")


@pytest.fixture
def database(pg_url: str) -> Iterator[str]:
    """A database of its own, with the package's migrations and a table the probe migration alters."""
    name = f"aurra_migrate_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = make_conninfo(pg_url, dbname=name)
    apply_migrations(url, DIM)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE TABLE probe (id integer PRIMARY KEY)")
        conn.execute("INSERT INTO probe VALUES (1)")
    yield url
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


def hold(url: str, statement: str) -> psycopg.Connection:
    """A connection holding a lock in an open transaction, as a long index build would."""
    conn = psycopg.connect(url)
    conn.execute(statement)
    return conn


def maintenance_lock_is_free(url: str) -> bool:
    with psycopg.connect(url, autocommit=True) as conn:
        free = conn.execute("SELECT pg_try_advisory_lock(%s)", (MAINTENANCE_LOCK,)).fetchone()[0]
        if free:
            conn.execute("SELECT pg_advisory_unlock(%s)", (MAINTENANCE_LOCK,))
        return bool(free)


def columns(url: str) -> list[str]:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT attname FROM pg_attribute WHERE attrelid = 'probe'::regclass AND attnum > 0 "
            "AND NOT attisdropped ORDER BY attnum"
        ).fetchall()
    return [r[0] for r in rows]


def test_a_migration_steps_aside_for_a_held_lock_and_retries(database, caplog) -> None:
    """What CREATE INDEX CONCURRENTLY holds (SHARE UPDATE EXCLUSIVE) blocks an ALTER. Waiting
    for it, the ALTER's request would queue every reader behind it; instead it gives up after
    the lock_timeout and tries again, and readers get through in the meantime."""
    builder = hold(database, "LOCK TABLE probe IN SHARE UPDATE EXCLUSIVE MODE")
    outcome: dict[str, object] = {}

    def migrate() -> None:
        try:
            outcome["applied"] = apply_migrations(
                database, DIM, lock_timeout_ms=200, retry_for_s=60, migrations=[*load_migrations(DIM), PROBE]
            )
        except Exception as exc:  # noqa: BLE001 - reported below
            outcome["error"] = exc

    caplog.set_level("WARNING", logger="aurra_core.storage.migrate")
    runner = threading.Thread(target=migrate)
    started = time.monotonic()
    runner.start()
    try:
        # While the migration waits, it holds the maintenance lock: no index build starts.
        time.sleep(0.3)
        assert not maintenance_lock_is_free(database)
        # Readers are never held longer than one lock_timeout (without it, until the build ends).
        with psycopg.connect(database, autocommit=True) as reader:
            reader.execute("SET statement_timeout = '1500ms'")
            for _ in range(10):
                began = time.monotonic()
                assert reader.execute("SELECT count(*) FROM probe").fetchone() == (1,)
                assert time.monotonic() - began < 1.0
                time.sleep(0.1)
        assert runner.is_alive(), outcome  # still retrying, not failed
    finally:
        time.sleep(0.5)
        builder.commit()  # the build ends
        builder.close()
    runner.join(timeout=30)
    assert outcome == {"applied": [PROBE.version]}, outcome
    retries = [r for r in caplog.records if "trying again" in r.getMessage()]
    assert len(retries) >= 3
    assert time.monotonic() - started < 20
    assert columns(database) == ["id", "note"]
    assert maintenance_lock_is_free(database)


def test_a_lock_that_never_comes_fails_the_migration_in_its_time_with_nothing_applied(database) -> None:
    builder = hold(database, "LOCK TABLE probe IN SHARE UPDATE EXCLUSIVE MODE")
    try:
        began = time.monotonic()
        with pytest.raises(MigrationLockUnavailable, match="9001_probe_note did not get its locks"):
            apply_migrations(database, DIM, lock_timeout_ms=100, retry_for_s=1.5, migrations=[PROBE])
        assert time.monotonic() - began < 5
    finally:
        builder.rollback()
        builder.close()
    assert columns(database) == ["id"]
    with psycopg.connect(database) as conn:
        assert conn.execute(
            "SELECT count(*) FROM schema_migrations WHERE version = %s", (PROBE.version,)
        ).fetchone() == (0,)
    assert maintenance_lock_is_free(database)
    # once the table is free, the next deploy applies it
    assert apply_migrations(database, DIM, migrations=[PROBE]) == [PROBE.version]


def test_migrations_wait_for_a_maintenance_run_and_only_when_they_have_work(database) -> None:
    run = psycopg.connect(database, autocommit=True)
    try:
        run.execute("SELECT pg_advisory_lock(%s)", (MAINTENANCE_LOCK,))
        # nothing to apply: no wait at all
        began = time.monotonic()
        assert apply_migrations(database, DIM, retry_for_s=30) == []
        assert time.monotonic() - began < 2
        with pytest.raises(MigrationLockUnavailable, match="maintenance run"):
            apply_migrations(database, DIM, retry_for_s=1, migrations=[PROBE])
        assert columns(database) == ["id"]
    finally:
        run.close()
    assert apply_migrations(database, DIM, migrations=[PROBE]) == [PROBE.version]


# ------------------------------------------------------------------ the migrate function
def _invoke(event: dict) -> dict:
    from aurra_local.gateway import LambdaContext
    from aurra_local.lambda_functions import load_handler

    handler = load_handler("migrate").lambda_handler
    return handler(event, LambdaContext(function_name="migrate", aws_request_id="test"))


@pytest.fixture
def empty(pg_url: str, configure) -> Iterator[str]:
    name = f"aurra_migrate_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = make_conninfo(pg_url, dbname=name)
    configure(AURRA_DATABASE_URL=url, AURRA_EMBEDDING_DIM=str(DIM))
    yield url
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


def _tables(url: str) -> set[str]:
    with psycopg.connect(url) as conn:
        return {r[0] for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}


def _event(request: str, fingerprint: str, **extra: object) -> dict:
    return {
        "RequestType": request,
        "ResourceProperties": {"MigrationsFingerprint": fingerprint, "EmbeddingDim": str(DIM)},
        **extra,
    }


def test_a_rollback_event_for_another_releases_migrations_does_nothing(empty) -> None:
    """CloudFormation rolls a failed update back by sending the old properties to the new code:
    the new code must not apply its migrations again (UPDATE_ROLLBACK_FAILED)."""
    foreign = "0" * 64
    answer = _invoke(
        _event(
            "Update",
            foreign,
            PhysicalResourceId="aurra-schema",
            OldResourceProperties={"MigrationsFingerprint": migrations_fingerprint()},
        )
    )
    assert answer == {"PhysicalResourceId": "aurra-schema", "Data": {"Applied": "none"}}
    assert _tables(empty) == set()  # not even the bookkeeping tables
    # a Delete (the rollback of a first deploy, or the stack going) never touches the schema
    assert _invoke(_event("Delete", foreign, PhysicalResourceId="aurra-schema")) == {
        "PhysicalResourceId": "aurra-schema"
    }
    assert _invoke(_event("Delete", migrations_fingerprint(), PhysicalResourceId="aurra-schema")) == {
        "PhysicalResourceId": "aurra-schema"
    }
    assert _tables(empty) == set()


def test_an_event_for_the_codes_own_migrations_applies_them(empty) -> None:
    answer = _invoke(_event("Create", migrations_fingerprint()))
    assert answer["PhysicalResourceId"] == "aurra-schema"
    versions = [m.version for m in load_migrations(DIM)]
    assert answer["Data"]["Applied"] == ",".join(versions)
    assert {"schema_migrations", "memory_versions"} <= _tables(empty)
    again = _invoke(_event("Update", migrations_fingerprint(), PhysicalResourceId="aurra-schema"))
    assert again == {"PhysicalResourceId": "aurra-schema", "Data": {"Applied": "none"}}


# ------------------------------------------------------------------ the logins' passwords
def _verifiers(url: str) -> dict[str, str]:
    """What PostgreSQL stores for each login's password (a salted SCRAM verifier: a new one on
    every ALTER ROLE, even with the same password)."""
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT rolname, rolpassword FROM pg_authid WHERE rolname IN ('aurra_service', 'aurra_keyadmin')"
        ).fetchall()
    return dict(rows)


def test_a_deploy_sets_a_logins_password_only_when_its_secret_changed(database) -> None:
    """A rotation changes the password and its secret together; a deploy that finds the secret
    as it last set it must not set it again (it could set it back under a rotation)."""
    passwords = {"aurra_service": "first-service-password", "aurra_keyadmin": "first-keyadmin-password"}
    assert set_login_passwords(database, passwords) == ["aurra_keyadmin", "aurra_service"]
    first = _verifiers(database)
    assert set_login_passwords(database, passwords) == []
    assert _verifiers(database) == first  # no ALTER ROLE at all
    rotated = {**passwords, "aurra_service": "rotated-service-password"}
    assert set_login_passwords(database, rotated) == ["aurra_service"]
    after = _verifiers(database)
    assert after["aurra_keyadmin"] == first["aurra_keyadmin"]
    assert after["aurra_service"] != first["aurra_service"]
