"""Key lifecycle: create, list, revoke, rotate, locally and with API Gateway metering (moto)."""

import io
import json
import uuid

import boto3
import pytest
from botocore.response import StreamingBody
from botocore.stub import Stubber
from moto import mock_aws

from aurra_core import admin, service
from aurra_core.errors import Conflict, Unauthorized
from aurra_core.models import SettingsPatch
from aurra_local.remote import invoke_admin


def test_create_list_revoke_rotate(pg_url):
    tenant = f"lifecycle-{uuid.uuid4().hex[:8]}"
    created = admin.perform({"action": "create", "tenant": tenant, "name": "ci"})
    assert created["key"].startswith("aurra_")
    caller = service.authenticate(created["key"])
    service.update_settings(caller, SettingsPatch(min_confidence=0.95))

    rotated = admin.perform({"action": "rotate", "key_id": created["key_id"]})
    with pytest.raises(Unauthorized):
        service.authenticate(created["key"])  # refused at once
    new_caller = service.authenticate(rotated["key"])
    assert new_caller.tenant_id == caller.tenant_id
    assert service.get_settings(new_caller).min_confidence == 0.95  # settings carried over

    listed = admin.perform({"action": "list", "tenant": tenant})["keys"]
    assert [k["id"] for k in listed] == [rotated["key_id"], created["key_id"]]
    assert listed[1]["revoked_at"] and not listed[0]["revoked_at"]
    assert all(created["key"] not in json.dumps(k) for k in listed)

    admin.perform({"action": "revoke", "key_id": rotated["key_id"]})
    with pytest.raises(Unauthorized):
        service.authenticate(rotated["key"])
    with pytest.raises(Conflict):
        admin.perform({"action": "rotate", "key_id": rotated["key_id"]})


def test_keys_are_metered_by_the_usage_plan(pg_url, configure):
    with mock_aws():
        client = boto3.client("apigateway", region_name="us-east-1")
        plan = client.create_usage_plan(name="aurra-test-default")["id"]
        configure(AURRA_USAGE_PLAN_ID=plan, AWS_DEFAULT_REGION="us-east-1", AURRA_STAGE="prod")
        created = admin.perform({"action": "create", "tenant": f"metered-{uuid.uuid4().hex[:8]}"})
        keys = client.get_api_keys(includeValues=True)["items"]
        mine = [k for k in keys if k["value"] == created["key_id"]]
        assert len(mine) == 1 and mine[0]["enabled"]
        # tagged with its stage: the only keys the stage's admin role may change
        assert mine[0]["tags"] == {admin.API_KEY_STAGE_TAG: "prod"}
        assert [k["id"] for k in client.get_usage_plan_keys(usagePlanId=plan)["items"]] == [mine[0]["id"]]
        admin.perform({"action": "revoke", "key_id": created["key_id"]})
        assert client.get_api_key(apiKey=mine[0]["id"])["enabled"] is False


def test_the_cli_reaches_a_deployed_stage_through_its_admin_function():
    client = boto3.client("lambda", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x")
    answer = json.dumps({"ok": True, "key": "aurra_abc_def", "key_id": "k", "tenant_id": "t"}).encode()
    with Stubber(client) as stub:
        stub.add_response(
            "invoke",
            {"StatusCode": 200, "Payload": StreamingBody(io.BytesIO(answer), len(answer))},
            {
                "FunctionName": "aurra-prod-admin",
                "InvocationType": "RequestResponse",
                "Payload": json.dumps({"request": {"action": "create", "tenant": "acme"}}).encode(),
            },
        )
        assert invoke_admin("prod", {"action": "create", "tenant": "acme"}, client)["key"] == "aurra_abc_def"
