"""Key lifecycle: create, list, revoke, rotate, locally, through the admin function itself, and
with API Gateway metering (moto)."""

import io
import json
import uuid

import boto3
import pytest
from botocore.response import StreamingBody
from botocore.stub import Stubber
from moto import mock_aws
from pydantic import ValidationError

from aurra_core import service
from aurra_core.access import admin
from aurra_core.access.admin import CreateKey, IssuedKey, KeyList, ListKeys, RevokedKey, RevokeKey, RotateKey
from aurra_core.errors import Conflict, Unauthorized
from aurra_core.models import SettingsPatch
from aurra_local.gateway import LambdaContext
from aurra_local.lambda_functions import load_handler
from aurra_local.remote import invoke_admin


def issue(action: CreateKey | RotateKey) -> IssuedKey:
    result = admin.perform(action)
    assert isinstance(result, IssuedKey)
    return result


def test_create_list_revoke_rotate(pg_url):
    tenant = f"lifecycle-{uuid.uuid4().hex[:8]}"
    created = issue(CreateKey(tenant=tenant, name="ci"))
    assert created.key.startswith("aurra_")
    caller = service.authenticate(created.key)
    service.update_settings(caller, SettingsPatch(min_confidence=0.95))

    rotated = issue(RotateKey(key_id=created.key_id))
    assert rotated.revoked_key_id == created.key_id
    with pytest.raises(Unauthorized):
        service.authenticate(created.key)  # refused at once
    new_caller = service.authenticate(rotated.key)
    assert new_caller.tenant_id == caller.tenant_id
    assert service.get_settings(new_caller).min_confidence == 0.95  # settings carried over

    listed = admin.perform(ListKeys(tenant=tenant))
    assert isinstance(listed, KeyList)
    assert [k.id for k in listed.keys] == [rotated.key_id, created.key_id]
    assert listed.keys[1].revoked_at and not listed.keys[0].revoked_at
    assert created.key not in listed.model_dump_json()

    revoked = admin.perform(RevokeKey(key_id=rotated.key_id))
    assert isinstance(revoked, RevokedKey) and revoked.id == rotated.key_id
    with pytest.raises(Unauthorized):
        service.authenticate(rotated.key)
    with pytest.raises(Conflict):
        admin.perform(RotateKey(key_id=rotated.key_id))


def _admin_function(request: dict) -> dict:
    handler = load_handler("admin").lambda_handler
    return handler({"request": request}, LambdaContext(function_name="admin", aws_request_id="test"))


def test_the_admin_function_itself(pg_url):
    """The handler as Lambda runs it: JSON in, JSON out, domain errors as ok: false."""
    tenant = f"admin-fn-{uuid.uuid4().hex[:8]}"
    created = _admin_function({"action": "create", "tenant": tenant, "name": "ops"})
    assert created["ok"] is True and created["key"].startswith("aurra_")
    assert "revoked_key_id" not in created
    assert service.authenticate(created["key"]).api_key_id == uuid.UUID(created["key_id"])

    rotated = _admin_function({"action": "rotate", "key_id": created["key_id"]})
    assert rotated["ok"] is True and rotated["revoked_key_id"] == created["key_id"]

    listed = _admin_function({"action": "list", "tenant": tenant})
    assert [k["id"] for k in listed["keys"]] == [rotated["key_id"], created["key_id"]]
    assert [k["name"] for k in listed["keys"]] == ["ops", "ops"]

    revoked = _admin_function({"action": "revoke", "key_id": rotated["key_id"]})
    assert revoked["ok"] is True and revoked["id"] == rotated["key_id"] and revoked["revoked_at"]
    with pytest.raises(Unauthorized):
        service.authenticate(rotated["key"])

    missing = _admin_function({"action": "revoke", "key_id": str(uuid.uuid4())})
    assert missing == {"ok": False, "error": {"code": "not_found", "message": "API key not found"}}
    again = _admin_function({"action": "rotate", "key_id": rotated["key_id"]})
    assert again["ok"] is False and again["error"]["code"] == "conflict"


@pytest.mark.parametrize(
    "request_",
    [
        {"action": "drop", "tenant": "x"},
        {"action": "create"},
        {"action": "create", "tenant": ""},
        {"action": "revoke", "key_id": "not-a-uuid"},
        {"action": "list", "tenant": "x", "extra": 1},
    ],
)
def test_the_admin_function_refuses_a_malformed_event(request_):
    # Powertools' parser refuses it before any database work: Lambda reports the error.
    with pytest.raises(ValidationError):
        _admin_function(request_)


def test_keys_are_metered_by_the_usage_plan(pg_url, configure):
    with mock_aws():
        client = boto3.client("apigateway", region_name="us-east-1")
        plan = client.create_usage_plan(name="aurra-test-default")["id"]
        configure(AURRA_USAGE_PLAN_ID=plan, AWS_DEFAULT_REGION="us-east-1", AURRA_STAGE="prod")
        created = issue(CreateKey(tenant=f"metered-{uuid.uuid4().hex[:8]}"))
        keys = client.get_api_keys(includeValues=True)["items"]
        mine = [k for k in keys if k["value"] == str(created.key_id)]
        assert len(mine) == 1 and mine[0]["enabled"]
        # tagged with its stage: the only keys the stage's admin role may change
        assert mine[0]["tags"] == {admin.API_KEY_STAGE_TAG: "prod"}
        assert [k["id"] for k in client.get_usage_plan_keys(usagePlanId=plan)["items"]] == [mine[0]["id"]]
        admin.perform(RevokeKey(key_id=created.key_id))
        assert client.get_api_key(apiKey=mine[0]["id"])["enabled"] is False


def test_the_cli_reaches_a_deployed_stage_through_its_admin_function():
    client = boto3.client("lambda", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x")
    key_id, tenant_id = uuid.uuid4(), uuid.uuid4()
    answer = json.dumps(
        {"ok": True, "key": "aurra_abc_def", "key_id": str(key_id), "tenant_id": str(tenant_id)}
    ).encode()
    with Stubber(client) as stub:
        stub.add_response(
            "invoke",
            {"StatusCode": 200, "Payload": StreamingBody(io.BytesIO(answer), len(answer))},
            {
                "FunctionName": "aurra-prod-admin",
                "InvocationType": "RequestResponse",
                "Payload": json.dumps(
                    {"request": {"action": "create", "tenant": "acme", "name": None}}, separators=(",", ":")
                ).encode(),
            },
        )
        issued = invoke_admin("prod", CreateKey(tenant="acme"), client)
    assert issued == IssuedKey(key_id=key_id, tenant_id=tenant_id, key="aurra_abc_def")
