"""Connections to PostgreSQL: one small pool per process, reused across warm invocations.

The pool checks a connection before lending it when it has been idle (`CHECK_AFTER_IDLE_S`),
so a socket that died while a Lambda container was frozen is replaced instead of failing the
request.

Where a connection goes, and as whom:
- locally and in tests, `AURRA_DATABASE_URL`;
- in AWS, the API functions and the authorizer sign in to RDS Proxy as a login of their own
  (`AURRA_DB_USER`: aurra_service, or aurra_keyadmin for the admin function) with an IAM
  authentication token, made afresh for every new connection (a token lasts 15 minutes);
  they never see a password;
- the migrate and maintenance functions, which change the schema, sign in to the cluster as
  its master user, from the master secret (`AURRA_DB_SECRET_ARN`), read afresh on every
  invocation so a rotated password is picked up.
TLS is `verify-full` against the Amazon RDS and Amazon Root CAs shipped in this package
(certs/), so a connection only succeeds to the endpoint it named.
"""

from __future__ import annotations

import atexit
import json
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any
from uuid import UUID

import psycopg
from psycopg_pool import ConnectionPool, PoolClosed, PoolTimeout

from aurra_core.errors import ServiceUnavailable
from aurra_core.runtime.config import ServiceConfig, get_config

# The role the service works as: it owns no table and cannot bypass row-level security.
SERVICE_ROLE = "aurra_app"
# The Amazon RDS CAs of every region and the Amazon Root CAs (RDS Proxy's certificates).
CA_BUNDLE = Path(__file__).resolve().parent / "certs" / "aws-rds-ca-bundle.pem"


def _configure(conn: psycopg.Connection) -> None:
    # Only pgvector's `vector` type: `register_vector` looks up `bit`, `halfvec` and `sparsevec`
    # as well, a round trip each on every new connection, for types Aurra never uses.
    from pgvector.psycopg.vector import register_vector_info
    from psycopg.types import TypeInfo

    register_vector_info(conn, TypeInfo.fetch(conn, "vector"))
    conn.commit()


def _configure_through_proxy(conn: psycopg.Connection) -> None:
    """As `_configure`, and no prepared statements: RDS Proxy pins a client's database
    connection to it for as long as a statement it prepared lives, which would end the sharing
    of connections the proxy is for. psycopg prepares a statement by itself once it has run 5
    times (`prepare_threshold`); through the proxy, never (store.py asks for none either)."""
    conn.prepare_threshold = None
    _configure(conn)


def _get_secret(arn: str, *, fresh: bool) -> dict[str, Any]:
    from aws_lambda_powertools.utilities.parameters import get_secret

    secret: dict[str, Any] = json.loads(get_secret(arn, max_age=300, force_fetch=fresh))
    return secret


def _tls(config: ServiceConfig) -> dict[str, str]:
    return {"sslmode": config.db_sslmode, "sslrootcert": config.db_sslrootcert or str(CA_BUNDLE)}


def resolve_conninfo(config: ServiceConfig) -> str:
    """A libpq connection string: the local URL, the IAM login (no password: see
    `iam_password`) or, for schema changes, the master secret."""
    if config.database_url:
        return config.database_url
    timeout = str(config.db_connect_timeout_s)
    if config.db_user:
        if not config.db_host:
            raise ServiceUnavailable("database is not configured: AURRA_DB_USER needs AURRA_DB_HOST")
        return psycopg.conninfo.make_conninfo(
            host=config.db_host,
            port=str(config.db_port),
            dbname=config.db_name or "aurra",
            user=config.db_user,
            connect_timeout=timeout,
            **_tls(config),
        )
    if not config.db_secret_arn:
        raise ServiceUnavailable(
            "database is not configured: set AURRA_DATABASE_URL, AURRA_DB_USER or AURRA_DB_SECRET_ARN"
        )
    secret = _get_secret(config.db_secret_arn, fresh=True)
    return psycopg.conninfo.make_conninfo(
        host=config.db_host or secret["host"],
        port=str(secret.get("port", config.db_port)),
        dbname=config.db_name or secret.get("dbname", "aurra"),
        user=secret["username"],
        password=secret["password"],
        connect_timeout=timeout,
        **_tls(config),
    )


def iam_password(config: ServiceConfig) -> Callable[[], dict[str, str]]:
    """Connection arguments made per new connection: an IAM authentication token as the
    password, signed locally with the function's credentials (no call to AWS): with the
    standard library from Lambda's credentials in the environment, else with boto3's."""
    if config.aws_access_key_id and config.aws_secret_access_key and config.aws_region:
        from aurra_core.storage.rds_auth_token import Credentials, rds_auth_token

        credentials = Credentials(
            config.aws_access_key_id,
            config.aws_secret_access_key.get_secret_value(),
            config.aws_session_token.get_secret_value() if config.aws_session_token else None,
        )
        region, host, port, user = (
            config.aws_region,
            config.db_host or "",
            config.db_port,
            config.db_user or "",
        )
        return lambda: {"password": rds_auth_token(credentials, region, host, port, user)}

    import boto3

    client = boto3.client("rds", region_name=config.aws_region)

    def kwargs() -> dict[str, str]:
        token = client.generate_db_auth_token(
            DBHostname=config.db_host, Port=config.db_port, DBUsername=config.db_user
        )
        return {"password": token}

    return kwargs


def login_passwords(config: ServiceConfig) -> dict[str, str]:
    """The service logins' current passwords, by user name, from their secrets (the migrate
    function sets them on the database, so the proxy can sign in with them)."""
    passwords = {}
    for arn in config.db_login_secret_arns:
        secret = _get_secret(arn, fresh=True)
        passwords[secret["username"]] = secret["password"]
    return passwords


# What confines a transaction to a tenant (SET LOCAL takes one statement each: one round trip).
_CONFINE = "set_config('role', %s, true), set_config('aurra.tenant_id', %s, true)"


def _confinement(tenant_id: UUID | None) -> tuple[str, str]:
    return SERVICE_ROLE, str(tenant_id) if tenant_id else ""


# How long a request waits for the database while it is known unreachable (libpq's minimum).
PROBE_CONNECT_TIMEOUT_S = 2

UNREACHABLE = "the database is not reachable right now; retry shortly"


class ConnectionLost(ServiceUnavailable):
    """The connection a transaction was lent died under it (its backend was terminated, the
    server restarted or failed over): nothing of the transaction was committed, and a new
    connection may well succeed at once."""


# A connection lent again within this long of its last transaction is not checked first. The
# check (an empty query) is a round trip on every transaction, and a write runs two or three
# in a few milliseconds: nothing froze the process between them (a Lambda container is frozen
# only between invocations). A connection idle for longer, as after any freeze, is checked as
# before. Both clocks must agree: the monotonic one may not count a suspended machine's time.
CHECK_AFTER_IDLE_S = 1.0

# When each pooled connection last ended a transaction: (time.monotonic(), time.time()).
_last_used: weakref.WeakKeyDictionary[psycopg.Connection, tuple[float, float]] = weakref.WeakKeyDictionary()


def _check_when_idle(conn: psycopg.Connection) -> None:
    """The pool's check, skipped for a connection whose last transaction just ended."""
    used = _last_used.get(conn)
    if used is not None:
        idle = max(time.monotonic() - used[0], abs(time.time() - used[1]))
        if idle < CHECK_AFTER_IDLE_S:
            return
    ConnectionPool.check_connection(conn)


class Database:
    def __init__(
        self,
        conninfo: str,
        max_size: int = 4,
        timeout_s: float = 10.0,
        kwargs: Callable[[], Mapping[str, Any]] | None = None,
        *,
        through_proxy: bool = False,
    ) -> None:
        self._conninfo = conninfo
        self._kwargs = kwargs
        self._through_proxy = through_proxy
        self._max_size = max_size
        self._timeout_s = timeout_s
        self._pool: ConnectionPool | None = None
        self._lock = threading.Lock()
        # The pool in which a request found the database unreachable; cleared by the first
        # connection that succeeds after it (see `_reconnect_now`).
        self._failed_pool: ConnectionPool | None = None
        # Pools `_reconnect_now` replaced: a request still waiting on one asks the new pool.
        self._replaced: weakref.WeakSet[ConnectionPool] = weakref.WeakSet()

    def _get_pool(self) -> ConnectionPool:
        if self._pool is None:
            with self._lock:
                if self._pool is None:
                    make_kwargs = self._kwargs
                    self._pool = ConnectionPool(
                        self._conninfo,
                        kwargs=(lambda: dict(make_kwargs())) if make_kwargs else None,
                        min_size=1,
                        max_size=self._max_size,
                        timeout=self._timeout_s,
                        configure=_configure_through_proxy if self._through_proxy else _configure,
                        check=_check_when_idle,
                        open=True,
                        name="aurra",
                    )
        return self._pool

    @contextmanager
    def transaction(self) -> Iterator[psycopg.Connection]:
        """A transaction as the connecting (owner) role: migrations and administration only."""
        if self._failed_pool is not None:
            self._reconnect_now()
        borrowed: psycopg.Connection | None = None
        pool: ConnectionPool | None = None
        try:
            pool, conn = self._borrow()
            borrowed = conn
            try:
                with conn:  # commits, or rolls back on an error (as pool.connection() does)
                    yield conn
            finally:
                _last_used[conn] = (time.monotonic(), time.time())
                pool.putconn(conn)
        except PoolTimeout as exc:
            raise ServiceUnavailable(UNREACHABLE) from exc
        except psycopg.OperationalError as exc:
            # A connection lent unchecked (see CHECK_AFTER_IDLE_S) can be the first to find
            # the server gone: that is the same outage as a pool timeout, and answered alike.
            # A statement or lock timeout leaves the connection whole and stays itself.
            if borrowed is None:
                raise ServiceUnavailable(UNREACHABLE) from exc
            if borrowed.broken or borrowed.closed:
                self._failed_pool = pool
                raise ConnectionLost(UNREACHABLE) from exc
            raise

    def _borrow(self) -> tuple[ConnectionPool, psycopg.Connection]:
        """A connection of the current pool, and the pool. A request that was waiting on a pool
        when `_reconnect_now` replaced it (its waiters get PoolClosed) asks the new pool, within
        the same timeout: the database answered, nothing is down."""
        deadline = time.monotonic() + self._timeout_s
        while True:
            pool = self._get_pool()
            try:
                return pool, pool.getconn(timeout=max(deadline - time.monotonic(), 0.001))
            except PoolClosed:
                if pool not in self._replaced:  # closed by `close()`: no new pool for it
                    raise
            except psycopg.OperationalError:  # PoolTimeout: nothing answered in time
                self._failed_pool = pool
                raise

    def _reconnect_now(self) -> None:
        """The pool reconnects on its own with a backoff that doubles at each failure (1, 2,
        4 ... s), so after a long outage its next try can be as far away as the outage was
        long. While the database is known unreachable, each request tries one connection
        itself instead: during the outage it fails at once (no wait for the pool's timeout);
        the first that succeeds replaces the pool, backoff and all, by a new one that connects
        now. A failure found on a pool already replaced needs nothing: its replacement is the
        fresh one, and replacing it again would only cut the requests it is serving short."""
        with self._lock:
            if self._failed_pool is not self._pool:
                self._failed_pool = None
                return
        try:
            extra = dict(self._kwargs()) if self._kwargs else {}
            if "connect_timeout" not in psycopg.conninfo.conninfo_to_dict(self._conninfo):
                extra["connect_timeout"] = PROBE_CONNECT_TIMEOUT_S
            psycopg.connect(self._conninfo, **extra).close()
        except psycopg.OperationalError as exc:
            raise ServiceUnavailable(UNREACHABLE) from exc
        with self._lock:
            if self._failed_pool is None or self._failed_pool is not self._pool:
                return  # another request's probe replaced it meanwhile
            stale, self._pool, self._failed_pool = self._pool, None, None
            if stale is not None:
                self._replaced.add(stale)
        if stale is not None:
            # Its workers may be asleep in a backoff: closing does not wait for them. Requests
            # waiting on it get PoolClosed and ask the new pool (`_borrow`).
            threading.Thread(target=stale.close, name="aurra-stale-pool-close", daemon=True).start()

    @contextmanager
    def tenant_transaction(
        self, tenant_id: UUID | None, *, flush_on_commit: bool = True
    ) -> Iterator[psycopg.Connection]:
        """A transaction as the service role, which row-level security confines to `tenant_id`
        (to nothing at all when it is None): the second wall behind the code's own filters.

        `flush_on_commit` False: its COMMIT returns without waiting for the WAL to reach disk
        (`synchronous_commit` off for this transaction only, set in the same statement). What it
        wrote is visible to every other transaction at once, as after any commit; it is durable
        with the next commit that waits (the WAL is flushed in order), or within a few
        `wal_writer_delay`s. Only for what may be lost in a crash of the database in that window
        (metering/budget.py: a call's reservation)."""
        with self.transaction() as conn:
            if flush_on_commit:
                conn.execute(f"SELECT {_CONFINE}", _confinement(tenant_id))
            else:
                conn.execute(
                    f"SELECT {_CONFINE}, set_config('synchronous_commit', 'off', true)",
                    _confinement(tenant_id),
                )
            yield conn

    @contextmanager
    def tenant_writer_transaction(
        self, tenant_id: UUID, lock_key: int
    ) -> Iterator[tuple[psycopg.Connection, datetime]]:
        """`tenant_transaction` for a writer of the tenant: in its one first statement, also the
        shared advisory lock `lock_key` (store.begin_write's) and the clock read once the lock
        is granted (the subquery runs first: OFFSET 0 keeps it from being flattened). The lock
        and the clock touch no table, so they need no confinement to be in force yet; every
        statement after this one runs confined. One round trip instead of two."""
        with self.transaction() as conn:
            row = conn.execute(
                f"SELECT {_CONFINE}, clock_timestamp() FROM (SELECT pg_advisory_xact_lock_shared(%s) OFFSET 0) AS locked",
                (*_confinement(tenant_id), lock_key),
            ).fetchone()
            yield conn, one_row(row)[2]

    @contextmanager
    def tenant_row_writer_transaction(self, tenant_id: UUID, lock_key: int) -> Iterator[psycopg.Connection]:
        """`tenant_writer_transaction` for a writer that reads the clock with its row locks
        (store.lock_believed_and_clock), after this statement: no clock read here."""
        with self.transaction() as conn:
            conn.execute(
                f"SELECT {_CONFINE} FROM (SELECT pg_advisory_xact_lock_shared(%s) OFFSET 0) AS locked",
                (*_confinement(tenant_id), lock_key),
            )
            yield conn

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool = None


@lru_cache(maxsize=1)
def get_database() -> Database:
    config = get_config()
    # The service's logins reach the database through RDS Proxy (with an IAM token).
    through_proxy = bool(config.db_user and not config.database_url)
    kwargs = iam_password(config) if through_proxy else None
    return Database(
        resolve_conninfo(config), max_size=config.db_pool_max, kwargs=kwargs, through_proxy=through_proxy
    )


def reset_database() -> None:
    if get_database.cache_info().currsize:
        get_database().close()
    get_database.cache_clear()


# The shared database is closed before the interpreter finalizes: a pool left to its finalizer
# waits 5 s for each of its threads on Python 3.13, which can no longer run by then.
atexit.register(reset_database)


def one_row(row: Any) -> Any:
    """The row of a statement that always returns one (`SELECT clock_timestamp()`, `INSERT ...
    RETURNING`, `count(*)`): psycopg types `fetchone()` as optional, this says it is not."""
    if row is None:
        raise RuntimeError("the statement returned no row")
    return row
