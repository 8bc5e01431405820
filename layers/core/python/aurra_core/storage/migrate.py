"""Versioned SQL migrations: applied in order, recorded, safe to run twice and concurrently.

A migration never queues for a table's lock: it waits at most `LOCK_TIMEOUT_MS` for each lock,
then rolls back, waits a little and tries again, for up to `retry_for_s`. A lock request that
waits queues every later request on the table behind it, so an `ALTER TABLE memory_versions`
waiting on the maintenance job's `CREATE INDEX CONCURRENTLY` (which holds the table for
minutes) would stop every read and write of memories until it got its turn. Migrations also
hold the maintenance job's lock while they run, so no index build starts under them (the job
skips a run that finds it taken, and the next hour's does the work).
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable

import psycopg
from psycopg import errors, sql

from aurra_core.storage.db import one_row
from aurra_core.storage.tenant_indexes import MAINTENANCE_LOCK

# Any constant works; it only has to be the same for every process migrating this database.
_MIGRATION_LOCK = 0x41555252  # "AURR"
# How long one statement of a migration waits for a lock before the migration gives up and
# retries: the longest any query on that table can be held up behind it.
LOCK_TIMEOUT_MS = 2000
# How long a migration keeps retrying (and waiting for the maintenance lock) before it fails:
# under the migrate function's 300 s, with room for the logins' passwords and the answer.
RETRY_FOR_S = 240.0
# The waits between tries: doubling from the first, at most the last.
RETRY_FIRST_WAIT_S = 0.25
RETRY_MAX_WAIT_S = 5.0

log = logging.getLogger(__name__)


class MigrationLockUnavailable(RuntimeError):
    """A lock the migrations need was not had within their time."""


@dataclass(frozen=True)
class Migration:
    version: str
    sql: str

    @property
    def checksum(self) -> str:
        return hashlib.sha256(self.sql.encode()).hexdigest()


def _migration_files() -> list[Traversable]:
    folder = resources.files("aurra_core.storage") / "migrations"
    return sorted((p for p in folder.iterdir() if p.name.endswith(".sql")), key=lambda p: p.name)


def load_migrations(embedding_dim: int) -> list[Migration]:
    return [
        Migration(p.name.removesuffix(".sql"), p.read_text().replace("{{embedding_dim}}", str(embedding_dim)))
        for p in _migration_files()
    ]


def migrations_fingerprint() -> str:
    """sha256 over the migration files' names and contents, in name order: the fingerprint the
    stack's migration resource carries (infra/components/migrations.py computes the same over
    the repository's folder), so the migrate function can tell its own migrations' event from
    another release's."""
    digest = hashlib.sha256()
    files = _migration_files()
    if not files:
        digest.update(b"no migrations")
    for path in files:
        digest.update(path.name.encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def apply_migrations(
    conninfo: str,
    embedding_dim: int,
    *,
    lock_timeout_ms: int = LOCK_TIMEOUT_MS,
    retry_for_s: float = RETRY_FOR_S,
    migrations: Sequence[Migration] | None = None,
) -> list[str]:
    """Apply every migration not yet recorded; return the versions applied now.

    Each statement waits at most `lock_timeout_ms` for a lock; a migration that did not get
    one is rolled back and tried again until `retry_for_s` have passed, then
    MigrationLockUnavailable. While there are migrations to apply, the maintenance job's lock
    is held (waited for within the same time). `migrations`: these instead of the package's
    (tests)."""
    applied_now: list[str] = []
    with psycopg.connect(conninfo, autocommit=True) as conn:
        # Another migrator's turn is waited for: it holds no table lock between its migrations.
        conn.execute("SELECT pg_advisory_lock(%s)", (_MIGRATION_LOCK,))
        try:
            conn.execute(sql.SQL("SET lock_timeout = {}").format(sql.Literal(f"{int(lock_timeout_ms)}ms")))
            conn.execute(
                """CREATE TABLE IF NOT EXISTS schema_migrations (
                       version text PRIMARY KEY, checksum text NOT NULL,
                       applied_at timestamptz NOT NULL DEFAULT clock_timestamp())"""
            )
            conn.execute(
                """CREATE TABLE IF NOT EXISTS deployment_settings (
                       key text PRIMARY KEY, value text NOT NULL)"""
            )
            _check_embedding_dim(conn, embedding_dim)
            done = {row[0]: row[1] for row in conn.execute("SELECT version, checksum FROM schema_migrations")}
            listed = load_migrations(embedding_dim) if migrations is None else migrations
            pending = [m for m in listed if m.version not in done]
            if pending:
                deadline = time.monotonic() + retry_for_s
                _take_maintenance_lock(conn, deadline)
                try:
                    for migration in pending:
                        _apply(conn, migration, deadline)
                        applied_now.append(migration.version)
                finally:
                    conn.execute("SELECT pg_advisory_unlock(%s)", (MAINTENANCE_LOCK,))
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (_MIGRATION_LOCK,))
    return applied_now


def _next_wait(attempt: int) -> float:
    return float(min(RETRY_FIRST_WAIT_S * 2 ** (attempt - 1), RETRY_MAX_WAIT_S))


def _take_maintenance_lock(conn: psycopg.Connection, deadline: float) -> None:
    """The maintenance job's lock, so no index build runs while the schema changes; a run in
    progress is waited for until `deadline`."""
    attempt = 0
    while not one_row(conn.execute("SELECT pg_try_advisory_lock(%s)", (MAINTENANCE_LOCK,)).fetchone())[0]:
        attempt += 1
        wait = _next_wait(attempt)
        if time.monotonic() + wait > deadline:
            raise MigrationLockUnavailable(
                "a maintenance run (an index build) still holds the maintenance lock; no migration "
                "was applied. Deploy again once it has ended (its log group says when)"
            )
        log.warning("migrations wait for a maintenance run to end", extra={"attempt": attempt})
        time.sleep(wait)


def _apply(conn: psycopg.Connection, migration: Migration, deadline: float) -> None:
    """One migration and its record, in one transaction, tried again while a lock it needs is
    held by someone else."""
    attempt = 0
    while True:
        try:
            with conn.transaction():
                conn.execute(migration.sql)
                conn.execute(
                    "INSERT INTO schema_migrations (version, checksum) VALUES (%s, %s)",
                    (migration.version, migration.checksum),
                )
            return
        except errors.LockNotAvailable as exc:
            attempt += 1
            wait = _next_wait(attempt)
            if time.monotonic() + wait > deadline:
                raise MigrationLockUnavailable(
                    f"migration {migration.version} did not get its locks in {attempt} tries "
                    f"(each waits at most the lock_timeout, then steps aside): {exc}. Nothing of it "
                    "was applied; deploy again when the table is less busy"
                ) from exc
            log.warning(
                "a migration's lock is held elsewhere; trying again",
                extra={"migration": migration.version, "attempt": attempt, "wait_s": wait},
            )
            time.sleep(wait)


def set_login_passwords(conninfo: str, passwords: Mapping[str, str]) -> list[str]:
    """Give the service logins (created by the migrations) the passwords their secrets hold,
    so RDS Proxy can sign in with them; return the logins set. A login the migrations did not
    create is an error rather than a new role.

    A login whose secret still holds the password this function last set is left alone (a
    fingerprint of it is kept in deployment_settings, readable by the schema's owner only): a
    deploy changes a password only when its secret changed, and never sets one back under a
    rotation that is changing it."""
    done = []
    with psycopg.connect(conninfo, autocommit=True) as conn:
        for user, password in sorted(passwords.items()):
            if (
                conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s AND rolcanlogin", (user,)).fetchone()
                is None
            ):
                raise RuntimeError(f"no login role {user!r}: the migrations create the service logins")
            key = f"login_password_sha256:{user}"
            fingerprint = hashlib.sha256(f"{user}\0{password}".encode()).hexdigest()
            row = conn.execute("SELECT value FROM deployment_settings WHERE key = %s", (key,)).fetchone()
            if row is not None and hmac.compare_digest(row[0], fingerprint):
                continue
            with conn.transaction():
                # ALTER ROLE takes no bind parameters; the literal is quoted by psycopg.
                conn.execute(
                    sql.SQL("ALTER ROLE {} WITH PASSWORD {}").format(
                        sql.Identifier(user), sql.Literal(password)
                    )
                )
                conn.execute(
                    """INSERT INTO deployment_settings (key, value) VALUES (%s, %s)
                       ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value""",
                    (key, fingerprint),
                )
            done.append(user)
    return done


def _check_embedding_dim(conn: psycopg.Connection, embedding_dim: int) -> None:
    """The vector column's dimension is fixed when the schema is first created."""
    conn.execute(
        "INSERT INTO deployment_settings (key, value) VALUES ('embedding_dim', %s) ON CONFLICT DO NOTHING",
        (str(embedding_dim),),
    )
    (stored,) = one_row(
        conn.execute("SELECT value FROM deployment_settings WHERE key = 'embedding_dim'").fetchone()
    )
    if int(stored) != embedding_dim:
        raise RuntimeError(
            f"this database stores {stored}-dimensional embeddings but the service is configured "
            f"for {embedding_dim} (AURRA_EMBEDDING_DIM); the dimension is fixed per deployment"
        )
