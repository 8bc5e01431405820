"""Connections to PostgreSQL: one small pool per process, reused across warm invocations.

The pool checks a connection before lending it, so a socket that died while a Lambda
container was frozen is replaced instead of failing the request.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from uuid import UUID

import psycopg
from psycopg_pool import ConnectionPool, PoolTimeout

from aurra_core.config import ServiceConfig, get_config
from aurra_core.errors import ServiceUnavailable

# The role the service works as: it owns no table and cannot bypass row-level security.
SERVICE_ROLE = "aurra_app"


def _configure(conn: psycopg.Connection) -> None:
    from pgvector.psycopg import register_vector

    register_vector(conn)
    conn.commit()


def resolve_conninfo(config: ServiceConfig) -> str:
    """A libpq connection string from the local URL or, in AWS, from the RDS secret."""
    if config.database_url:
        return config.database_url
    if not config.db_secret_arn:
        raise ServiceUnavailable("database is not configured: set AURRA_DATABASE_URL or AURRA_DB_SECRET_ARN")
    from aws_lambda_powertools.utilities.parameters import get_secret

    secret = json.loads(get_secret(config.db_secret_arn, max_age=300))
    return psycopg.conninfo.make_conninfo(
        host=config.db_host or secret["host"],
        port=str(secret.get("port", 5432)),
        dbname=config.db_name or secret.get("dbname", "aurra"),
        user=secret["username"],
        password=secret["password"],
        sslmode="require",
        connect_timeout=str(config.db_connect_timeout_s),
    )


class Database:
    def __init__(self, conninfo: str, max_size: int = 4, timeout_s: float = 10.0) -> None:
        self._conninfo = conninfo
        self._max_size = max_size
        self._timeout_s = timeout_s
        self._pool: ConnectionPool | None = None
        self._lock = threading.Lock()

    def _get_pool(self) -> ConnectionPool:
        if self._pool is None:
            with self._lock:
                if self._pool is None:
                    self._pool = ConnectionPool(
                        self._conninfo,
                        min_size=1,
                        max_size=self._max_size,
                        timeout=self._timeout_s,
                        configure=_configure,
                        check=ConnectionPool.check_connection,
                        open=True,
                        name="aurra",
                    )
        return self._pool

    @contextmanager
    def transaction(self) -> Iterator[psycopg.Connection]:
        """A transaction as the connecting (owner) role: migrations and administration only."""
        try:
            with self._get_pool().connection() as conn:
                yield conn
        except PoolTimeout as exc:
            raise ServiceUnavailable("the database is not reachable right now; retry shortly") from exc

    @contextmanager
    def tenant_transaction(self, tenant_id: UUID | None) -> Iterator[psycopg.Connection]:
        """A transaction as the service role, which row-level security confines to `tenant_id`
        (to nothing at all when it is None): the second wall behind the code's own filters."""
        with self.transaction() as conn:
            conn.execute(
                "SELECT set_config('role', %s, true), set_config('aurra.tenant_id', %s, true)",
                (SERVICE_ROLE, str(tenant_id) if tenant_id else ""),
            )
            yield conn

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool = None


@lru_cache(maxsize=1)
def get_database() -> Database:
    config = get_config()
    return Database(resolve_conninfo(config), max_size=config.db_pool_max)


def reset_database() -> None:
    if get_database.cache_info().currsize:
        get_database().close()
    get_database.cache_clear()
