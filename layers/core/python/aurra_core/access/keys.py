"""Tenants, API keys and per-key settings.

A key reads `aurra_<lookup>_<secret>`. The lookup finds the row; only a salted SHA-256 of the
secret is stored, compared in constant time (the check itself: key_check.py).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from typing import Any
from uuid import UUID

import psycopg
from psycopg.rows import dict_row

from aurra_core.errors import Conflict, NotFound, ValidationFailed
from aurra_core.models import AuditType, Caller, KeySettings, SettingsPatch
from aurra_core.runtime.config import get_config
from aurra_core.storage import store
from aurra_core.storage.db import one_row
from aurra_core.storage.ids import new_id
from aurra_core.webhooks import endpoints

KEY_PREFIX = "aurra_"
# Keys issued before migration 0012 hold scrypt hashes; each is replaced on its first successful
# check (key_check.authenticate), so this reads them and never writes one.
_LEGACY_SCRYPT = {"n": 2**14, "r": 8, "p": 1}


def hash_secret(secret: str, salt: bytes | None = None) -> str:
    """A salted SHA-256 of `secret`. A slow hash (scrypt, bcrypt) protects secrets people choose,
    which can be guessed; a key's secret is 192 random bits (`create_key`), beyond any guess,
    so a slow hash would only add its cost to every first check of a key."""
    salt = salt or secrets.token_bytes(16)
    digest = hashlib.sha256(salt + secret.encode()).digest()
    return "sha256$" + base64.b64encode(salt).decode() + "$" + base64.b64encode(digest).decode()


def is_current_hash(stored: str) -> bool:
    """Whether `stored` is of the scheme `hash_secret` writes (else it is replaced on use)."""
    return stored.startswith("sha256$")


def check_secret(secret: str, stored: str) -> bool:
    try:
        scheme, salt_b64, digest_b64 = stored.split("$")
        salt, expected = base64.b64decode(salt_b64), base64.b64decode(digest_b64)
    except ValueError:
        return False
    if scheme == "sha256":
        actual = hashlib.sha256(salt + secret.encode()).digest()
    elif scheme == "scrypt":
        actual = hashlib.scrypt(secret.encode(), salt=salt, dklen=32, **_LEGACY_SCRYPT)
    else:
        return False
    return hmac.compare_digest(expected, actual)


def ensure_tenant(conn: psycopg.Connection, name: str) -> UUID:
    row = conn.execute("SELECT id FROM tenants WHERE name = %s", (name,)).fetchone()
    if row:
        found: UUID = row[0]
        return found
    tenant_id = new_id()
    conn.execute(
        "INSERT INTO tenants (id, name) VALUES (%s, %s) ON CONFLICT (name) DO NOTHING", (tenant_id, name)
    )
    tenant: UUID = one_row(conn.execute("SELECT id FROM tenants WHERE name = %s", (name,)).fetchone())[0]
    return tenant


def create_key(conn: psycopg.Connection, tenant_name: str, key_name: str | None = None) -> tuple[Caller, str]:
    """Create a key (and its tenant if new); return who it is and the only copy of the key."""
    tenant_id = ensure_tenant(conn, tenant_name)
    key_id = new_id()
    lookup = secrets.token_hex(6)
    secret = secrets.token_urlsafe(24)
    conn.execute(
        "INSERT INTO api_keys (id, tenant_id, lookup, secret_hash, name) VALUES (%s, %s, %s, %s, %s)",
        (key_id, tenant_id, lookup, hash_secret(secret), key_name),
    )
    config = get_config()
    # A new key starts on the deployment's model and daily budget of model calls.
    defaults = KeySettings(
        classifier_model=config.default_classifier_model,
        daily_model_calls_limit=config.default_daily_model_calls_limit,
    )
    _insert_settings(conn, key_id, tenant_id, 1, defaults)
    return Caller(tenant_id=tenant_id, api_key_id=key_id), f"{KEY_PREFIX}{lookup}_{secret}"


# ---------------------------------------------------------------- settings


def _insert_settings(
    conn: psycopg.Connection, key_id: UUID, tenant_id: UUID, version: int, s: KeySettings
) -> None:
    conn.execute(
        """INSERT INTO key_settings (api_key_id, version, tenant_id, auto_supersede_default,
               excluded_categories, min_confidence, classifier_model, proposal_min_confidence,
               daily_model_calls_limit, secrets, daily_model_cost_limit_usd,
               history_retention_days, memory_retention_days, auto_supersede_mode)
           VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)""",
        (
            key_id,
            version,
            tenant_id,
            s.auto_supersede_default,
            s.excluded_categories,
            s.min_confidence,
            s.classifier_model,
            s.proposal_min_confidence,
            s.daily_model_calls_limit,
            s.secrets,
            s.daily_model_cost_limit_usd,
            s.history_retention_days,
            s.memory_retention_days,
            s.auto_supersede_mode,
        ),
    )


def _latest_settings(conn: psycopg.Connection, caller: Caller) -> tuple[int, KeySettings]:
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(
            """SELECT version, auto_supersede_default, excluded_categories, min_confidence, classifier_model,
                      proposal_min_confidence, daily_model_calls_limit, secrets, daily_model_cost_limit_usd,
                      history_retention_days, memory_retention_days, auto_supersede_mode,
                      (SELECT coalesce(jsonb_agg(jsonb_build_object('url', w.url, 'events', w.events)
                                                 ORDER BY w.position), '[]')
                       FROM webhook_endpoints w
                       WHERE w.api_key_id = s.api_key_id AND w.tenant_id = s.tenant_id) AS webhooks
               FROM key_settings s WHERE api_key_id = %s AND tenant_id = %s ORDER BY version DESC LIMIT 1""",
            (caller.api_key_id, caller.tenant_id),
        )
        row = cur.fetchone()
    if row is None:
        raise NotFound("API key not found")
    version = row.pop("version")
    return version, KeySettings(**row)  # webhooks: in the same statement, without their secrets


def get_key_settings(conn: psycopg.Connection, caller: Caller) -> KeySettings:
    return _latest_settings(conn, caller)[1]


def update_key_settings(conn: psycopg.Connection, caller: Caller, patch: SettingsPatch) -> KeySettings:
    """Apply a settings change as a new version, with its audit event, in the caller's transaction."""
    conn.execute(
        "SELECT 1 FROM api_keys WHERE id = %s AND tenant_id = %s FOR UPDATE",
        (caller.api_key_id, caller.tenant_id),
    )
    version, current = _latest_settings(conn, caller)
    changes: dict[str, Any] = {}
    requested = patch.changes()
    if patch.webhooks is not None:
        # Their own table, replaced whole; the audit event names URLs and events, never a secret.
        requested.pop("webhooks")
        endpoints.replace(conn, caller, patch.webhooks)
        after = endpoints.read(conn, caller)
        if after != current.webhooks:
            changes["webhooks"] = {
                "from": [w.model_dump(mode="json") for w in current.webhooks],
                "to": [w.model_dump(mode="json") for w in after],
            }
        current = current.model_copy(update={"webhooks": after})
    for field, value in requested.items():
        before = getattr(current, field)
        if value != before:
            changes[field] = {"from": before, "to": value}
    if not changes:
        return current
    updated = current.model_copy(update={k: v["to"] for k, v in changes.items() if k != "webhooks"})
    if (
        updated.proposal_min_confidence is not None
        and updated.proposal_min_confidence >= updated.min_confidence
    ):
        field = "proposal_min_confidence" if "proposal_min_confidence" in changes else "min_confidence"
        problem = (
            f"proposal_min_confidence ({updated.proposal_min_confidence:g}) must be below "
            f"min_confidence ({updated.min_confidence:g})"
        )
        raise ValidationFailed(problem, [{"field": field, "problem": problem}])
    if changes.keys() - {"webhooks"}:
        _insert_settings(conn, caller.api_key_id, caller.tenant_id, version + 1, updated)
    store.begin_write(conn, caller.tenant_id)
    store.insert_audit_event(
        conn,
        tenant_id=caller.tenant_id,
        type=AuditType.SETTINGS_UPDATED,
        created_at=store.write_clock(conn),
        api_key_id=caller.api_key_id,
        details={"changes": changes},
    )
    return updated


# ---------------------------------------------------------------- lifecycle (administration)


def list_keys(conn: psycopg.Connection, tenant_name: str) -> list[dict[str, Any]]:
    """The tenant's keys, newest first: ids and metadata only (secrets are never stored)."""
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(
            """SELECT k.id, k.lookup, k.name, k.created_at, k.revoked_at
               FROM api_keys k JOIN tenants t ON t.id = k.tenant_id
               WHERE t.name = %s ORDER BY k.created_at DESC""",
            (tenant_name,),
        )
        return [{**r, "prefix": f"{KEY_PREFIX}{r.pop('lookup')}_"} for r in cur.fetchall()]


def revoke_key(conn: psycopg.Connection, key_id: UUID) -> dict[str, Any]:
    """Refuse the key from now on. Revoking twice keeps the first time."""
    row = conn.execute(
        "UPDATE api_keys SET revoked_at = coalesce(revoked_at, clock_timestamp()) WHERE id = %s "
        "RETURNING tenant_id, revoked_at",
        (key_id,),
    ).fetchone()
    if row is None:
        raise NotFound("API key not found")
    return {"id": key_id, "tenant_id": row[0], "revoked_at": row[1]}


def rotate_key(conn: psycopg.Connection, key_id: UUID) -> tuple[Caller, str]:
    """A new key for the same tenant with the old key's settings; the old key is revoked."""
    row = conn.execute(
        "SELECT k.tenant_id, t.name, k.name, k.revoked_at FROM api_keys k JOIN tenants t ON t.id = k.tenant_id "
        "WHERE k.id = %s FOR UPDATE OF k",
        (key_id,),
    ).fetchone()
    if row is None:
        raise NotFound("API key not found")
    tenant_id, tenant_name, name, revoked_at = row
    if revoked_at is not None:
        raise Conflict("a revoked key cannot be rotated; create a new key instead")
    settings = get_key_settings(conn, Caller(tenant_id=tenant_id, api_key_id=key_id))
    caller, raw = create_key(conn, tenant_name, name)
    _insert_settings(conn, caller.api_key_id, tenant_id, 2, settings)
    revoke_key(conn, key_id)
    return caller, raw
