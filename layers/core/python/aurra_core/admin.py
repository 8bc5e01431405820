"""Key administration, shared by the admin function (AWS) and the local CLI. In AWS each key
also gets its API Gateway API key, so usage plans can meter it."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from aurra_core import keys
from aurra_core.config import get_config
from aurra_core.db import get_database

# API keys are regional, shared by every stage: this tag says whose a key is.
API_KEY_STAGE_TAG = "aurra-stage"


def _api_gateway():
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


def _json(row: dict[str, Any]) -> dict[str, Any]:
    return {
        k: (str(v) if v is not None and not isinstance(v, (str, int, float, bool)) else v)
        for k, v in row.items()
    }


def perform(request: dict[str, Any]) -> dict[str, Any]:
    """One administrative action. The database change commits only if metering succeeded."""
    action = request["action"]
    db = get_database()
    if action == "list":
        with db.transaction() as conn:
            return {"keys": [_json(k) for k in keys.list_keys(conn, request["tenant"])]}
    if action == "create":
        with db.transaction() as conn:
            caller, raw = keys.create_key(conn, request["tenant"], request.get("name"))
            _meter(caller.api_key_id)
        return {"key_id": str(caller.api_key_id), "tenant_id": str(caller.tenant_id), "key": raw}
    if action == "rotate":
        with db.transaction() as conn:
            caller, raw = keys.rotate_key(conn, UUID(str(request["key_id"])))
            _meter(caller.api_key_id)
            _unmeter(UUID(str(request["key_id"])))
        return {
            "key_id": str(caller.api_key_id),
            "tenant_id": str(caller.tenant_id),
            "key": raw,
            "revoked_key_id": str(request["key_id"]),
        }
    if action == "revoke":
        with db.transaction() as conn:
            revoked = keys.revoke_key(conn, UUID(str(request["key_id"])))
            _unmeter(UUID(str(request["key_id"])))
        return _json(revoked)
    raise ValueError(f"unknown action {action!r}")
