"""The service's database logins (migration 0005), signed in as for real: what each can and
cannot do. In AWS the API functions and the authorizer are aurra_service, the admin function
aurra_keyadmin (through RDS Proxy with IAM); neither may see past its tenant or its job."""

from __future__ import annotations

import dataclasses
import uuid

import psycopg
import pytest
from pipeline_support import ScriptedClassifier, deps
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from aurra_core import service
from aurra_core.access import key_check, keys
from aurra_core.embedders import LexicalEmbedder
from aurra_core.errors import Unauthorized
from aurra_core.models import MemoryListQuery, WriteRequest
from aurra_core.storage import queries
from aurra_core.storage.db import Database
from aurra_core.storage.migrate import set_login_passwords
from aurra_core.write_path.pipeline import write_memory

SERVICE, KEY_ADMIN = "aurra_service", "aurra_keyadmin"


def login_url(pg_url: str, user: str) -> str:
    """The test server trusts local connections; a password is set all the same, as the
    migrate function does, and given, as the proxy would."""
    return make_conninfo(pg_url, user=user, password="unused-locally")


@pytest.fixture(scope="module")
def logins(pg_url: str) -> dict[str, str]:
    set_login_passwords(pg_url, {SERVICE: "unused-locally", KEY_ADMIN: "unused-locally"})
    return {user: login_url(pg_url, user) for user in (SERVICE, KEY_ADMIN)}


def test_logins_own_nothing_and_bypass_nothing(pg_url: str, logins) -> None:
    with psycopg.connect(pg_url) as conn:
        rows = conn.execute(
            "SELECT rolname, rolsuper, rolbypassrls, rolcreaterole, rolcreatedb, rolcanlogin "
            "FROM pg_roles WHERE rolname = ANY(%s) ORDER BY rolname",
            ([SERVICE, KEY_ADMIN],),
        ).fetchall()
        assert rows == [
            (KEY_ADMIN, False, False, False, False, True),
            (SERVICE, False, False, False, False, True),
        ]
        owned = conn.execute(
            "SELECT count(*) FROM pg_class c JOIN pg_roles r ON r.oid = c.relowner WHERE r.rolname = ANY(%s)",
            ([SERVICE, KEY_ADMIN],),
        ).fetchone()[0]
        assert owned == 0
        member = conn.execute(
            "SELECT pg_has_role(%s, 'aurra_app', 'MEMBER'), pg_has_role(%s, 'aurra_app', 'MEMBER')",
            (SERVICE, KEY_ADMIN),
        ).fetchone()
        assert member == (True, False)


def test_the_service_login_serves_a_tenant_through_the_layer(pg_url: str, logins, new_key) -> None:
    caller, raw = new_key()
    db = Database(logins[SERVICE])
    try:
        write_memory(
            caller,
            WriteRequest(content="alice uses Vim", topic="preferences"),
            dataclasses.replace(deps(ScriptedClassifier(), level2=False), db=db),
        )
        # the authorizer's check, through the service login
        key_check.forget()
        assert key_check.authenticate(db, raw) == caller
        page = queries.read_memory_page(caller, MemoryListQuery(), db, LexicalEmbedder(384))
        assert [m.content for m in page.memories] == ["alice uses Vim"]
    finally:
        db.close()


def test_the_service_login_sees_nothing_without_its_tenant_even_after_reset_role(
    pg_url: str, logins, new_key
) -> None:
    caller, _ = new_key()
    write_memory(
        caller, WriteRequest(content="bob uses Emacs", topic="preferences"), deps(ScriptedClassifier())
    )
    with psycopg.connect(logins[SERVICE]) as conn:
        conn.execute("SELECT set_config('aurra.tenant_id', %s, false)", (str(uuid.uuid4()),))
        conn.execute("RESET ROLE")
        for table in ("memory_versions", "audit_events", "api_keys", "tenants", "key_settings"):
            assert conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == 0, table
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("DELETE FROM memory_versions")
        conn.rollback()
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("ALTER TABLE memory_versions DISABLE ROW LEVEL SECURITY")
        conn.rollback()
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SET ROLE postgres")


def test_the_key_admin_login_manages_keys_and_reads_no_memories(pg_url: str, logins, new_key) -> None:
    owner_caller, _ = new_key()
    write_memory(
        owner_caller,
        WriteRequest(content="carol uses Helix", topic="preferences"),
        deps(ScriptedClassifier()),
    )
    tenant = f"admin-{uuid.uuid4().hex[:8]}"
    db = Database(logins[KEY_ADMIN])
    try:
        with db.transaction() as conn:
            caller, raw = keys.create_key(conn, tenant)
        with db.transaction() as conn:
            assert [k["id"] for k in keys.list_keys(conn, tenant)] == [caller.api_key_id]
            rotated, rotated_raw = keys.rotate_key(conn, caller.api_key_id)
        # The key it made works for its tenant, and what it revoked is refused.
        assert service.authenticate(rotated_raw).tenant_id == caller.tenant_id
        with pytest.raises(Unauthorized):
            service.authenticate(raw)
        with db.transaction() as conn:
            keys.revoke_key(conn, rotated.api_key_id)
        with pytest.raises(Unauthorized):
            service.authenticate(rotated_raw)
        with db.transaction() as conn:
            for table in ("memory_versions", "audit_events", "idempotency_records"):
                with pytest.raises(psycopg.errors.InsufficientPrivilege), conn.transaction():
                    conn.execute(f"SELECT count(*) FROM {table}")
    finally:
        db.close()


def test_logins_sign_in_without_a_superuser_url(pg_url: str, logins) -> None:
    for user, url in logins.items():
        assert conninfo_to_dict(url)["user"] == user
        with psycopg.connect(url) as conn:
            assert conn.execute("SELECT current_user").fetchone()[0] == user


def test_setting_a_password_for_a_login_the_migrations_did_not_create_fails(pg_url: str) -> None:
    with pytest.raises(RuntimeError, match="no login role"):
        set_login_passwords(pg_url, {"aurra_nobody": "x"})
