"""Versioned SQL migrations: applied in order, recorded, safe to run twice and concurrently."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources

import psycopg
from psycopg import sql

from aurra_core.storage.db import one_row

# Any constant works; it only has to be the same for every process migrating this database.
_MIGRATION_LOCK = 0x41555252  # "AURR"


@dataclass(frozen=True)
class Migration:
    version: str
    sql: str

    @property
    def checksum(self) -> str:
        return hashlib.sha256(self.sql.encode()).hexdigest()


def load_migrations(embedding_dim: int) -> list[Migration]:
    folder = resources.files("aurra_core.storage") / "migrations"
    found = sorted((p for p in folder.iterdir() if p.name.endswith(".sql")), key=lambda p: p.name)
    return [
        Migration(p.name.removesuffix(".sql"), p.read_text().replace("{{embedding_dim}}", str(embedding_dim)))
        for p in found
    ]


def apply_migrations(conninfo: str, embedding_dim: int) -> list[str]:
    """Apply every migration not yet recorded; return the versions applied now."""
    applied_now: list[str] = []
    with psycopg.connect(conninfo, autocommit=True) as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", (_MIGRATION_LOCK,))
        try:
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
            for migration in load_migrations(embedding_dim):
                if migration.version in done:
                    continue
                with conn.transaction():
                    conn.execute(migration.sql)
                    conn.execute(
                        "INSERT INTO schema_migrations (version, checksum) VALUES (%s, %s)",
                        (migration.version, migration.checksum),
                    )
                applied_now.append(migration.version)
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (_MIGRATION_LOCK,))
    return applied_now


def set_login_passwords(conninfo: str, passwords: Mapping[str, str]) -> list[str]:
    """Give the service logins (created by the migrations) the passwords their secrets hold,
    so RDS Proxy can sign in with them; return the logins set. A login the migrations did not
    create is an error rather than a new role."""
    done = []
    with psycopg.connect(conninfo, autocommit=True) as conn:
        for user, password in sorted(passwords.items()):
            if (
                conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s AND rolcanlogin", (user,)).fetchone()
                is None
            ):
                raise RuntimeError(f"no login role {user!r}: the migrations create the service logins")
            # ALTER ROLE takes no bind parameters; the literal is quoted by psycopg.
            conn.execute(
                sql.SQL("ALTER ROLE {} WITH PASSWORD {}").format(sql.Identifier(user), sql.Literal(password))
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
