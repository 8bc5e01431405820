"""Administration of a deployed stage: invoke its admin function (it has no public route)."""

from __future__ import annotations

import json
from typing import Any

from aurra_core.access.admin import RESULT_TYPES, AdminAction, AdminEvent, AdminResult


def admin_function_name(stage: str) -> str:
    # The stack names it aurra-<stage>-admin (infra/constants.py: function_name).
    return f"aurra-{stage}-admin"


def invoke_admin(stage: str, action: AdminAction, client: Any = None) -> AdminResult:
    """Send one action to the stage's admin function and read its typed result back."""
    if client is None:
        import boto3

        client = boto3.client("lambda")
    response = client.invoke(
        FunctionName=admin_function_name(stage),
        InvocationType="RequestResponse",
        Payload=AdminEvent(request=action).model_dump_json().encode(),
    )
    payload = json.loads(response["Payload"].read() or b"{}")
    if response.get("FunctionError"):
        raise RuntimeError(f"the admin function failed: {payload.get('errorMessage', payload)}")
    if not payload.pop("ok", False):
        error = payload.get("error", {})
        raise RuntimeError(f"{error.get('code', 'error')}: {error.get('message', payload)}")
    return RESULT_TYPES[action.action].model_validate(payload)
