"""Key administration, shared by the admin function (AWS) and the local CLI. In AWS each key
also gets its API Gateway API key, so usage plans can meter it.

Typed end to end: the admin function's event is an `AdminEvent`, `perform` takes one action
model and answers one result model, and `aurra keys --stage` sends and reads the same models.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field

from aurra_core.access import keys
from aurra_core.runtime.config import get_config
from aurra_core.storage.db import get_database

# API keys are regional, shared by every stage: this tag says whose a key is.
API_KEY_STAGE_TAG = "aurra-stage"

TenantName = Annotated[str, Field(min_length=1, max_length=200)]


class CreateKey(BaseModel):
    model_config = ConfigDict(extra="forbid")

    action: Literal["create"] = "create"
    tenant: TenantName
    name: str | None = Field(default=None, max_length=200)


class ListKeys(BaseModel):
    model_config = ConfigDict(extra="forbid")

    action: Literal["list"] = "list"
    tenant: TenantName


class RevokeKey(BaseModel):
    model_config = ConfigDict(extra="forbid")

    action: Literal["revoke"] = "revoke"
    key_id: UUID


class RotateKey(BaseModel):
    model_config = ConfigDict(extra="forbid")

    action: Literal["rotate"] = "rotate"
    key_id: UUID


AdminAction = Annotated[CreateKey | ListKeys | RevokeKey | RotateKey, Field(discriminator="action")]


class AdminEvent(BaseModel):
    """What the admin function is invoked with: `{"request": {"action": ..., ...}}`."""

    request: AdminAction


class IssuedKey(BaseModel):
    """A new key (create, rotate): the only time the key itself is shown."""

    key_id: UUID
    tenant_id: UUID
    key: str
    revoked_key_id: UUID | None = None


class KeyInfo(BaseModel):
    id: UUID
    prefix: str
    name: str | None
    created_at: datetime
    revoked_at: datetime | None


class KeyList(BaseModel):
    keys: list[KeyInfo]


class RevokedKey(BaseModel):
    id: UUID
    tenant_id: UUID
    revoked_at: datetime


AdminResult = IssuedKey | KeyList | RevokedKey
# What each action answers, for a caller that reads a result back from JSON.
RESULT_TYPES: dict[str, type[AdminResult]] = {
    "create": IssuedKey,
    "rotate": IssuedKey,
    "list": KeyList,
    "revoke": RevokedKey,
}


def _api_gateway() -> Any:
    import boto3

    return boto3.client("apigateway")


def _meter(key_id: UUID) -> None:
    """Create the API Gateway key (value = our key id) and attach it to the usage plan."""
    plan = get_config().usage_plan_id
    if not plan:
        return  # locally there is no usage plan
    client = _api_gateway()
    created = client.create_api_key(
        name=f"aurra-{key_id}",
        value=str(key_id),
        enabled=True,
        description="Aurra API key (metering only; auth is the authorizer's)",
        # The admin role may only change keys tagged with its own stage.
        tags={API_KEY_STAGE_TAG: get_config().stage},
    )
    client.create_usage_plan_key(usagePlanId=plan, keyId=created["id"], keyType="API_KEY")


def _unmeter(key_id: UUID) -> None:
    if not get_config().usage_plan_id:
        return
    client = _api_gateway()
    for item in client.get_api_keys(nameQuery=f"aurra-{key_id}").get("items", []):
        client.update_api_key(
            apiKey=item["id"], patchOperations=[{"op": "replace", "path": "/enabled", "value": "false"}]
        )


def perform(action: CreateKey | ListKeys | RevokeKey | RotateKey) -> AdminResult:
    """One administrative action. The database change commits only if metering succeeded."""
    db = get_database()
    if isinstance(action, ListKeys):
        with db.transaction() as conn:
            return KeyList(keys=[KeyInfo.model_validate(k) for k in keys.list_keys(conn, action.tenant)])
    if isinstance(action, CreateKey):
        with db.transaction() as conn:
            caller, raw = keys.create_key(conn, action.tenant, action.name)
            _meter(caller.api_key_id)
        return IssuedKey(key_id=caller.api_key_id, tenant_id=caller.tenant_id, key=raw)
    if isinstance(action, RotateKey):
        with db.transaction() as conn:
            caller, raw = keys.rotate_key(conn, action.key_id)
            _meter(caller.api_key_id)
            _unmeter(action.key_id)
        return IssuedKey(
            key_id=caller.api_key_id, tenant_id=caller.tenant_id, key=raw, revoked_key_id=action.key_id
        )
    with db.transaction() as conn:
        revoked: dict[str, Any] = keys.revoke_key(conn, action.key_id)
        _unmeter(action.key_id)
    return RevokedKey.model_validate(revoked)
