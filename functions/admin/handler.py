"""Key administration for a deployed stage: create, list, revoke, rotate.

No public route reaches it; operators invoke it directly (`aurra keys ... --stage <stage>`).
Each Aurra key gets an API Gateway API key whose value is the Aurra key id, attached to the
stage's usage plan, so API Gateway meters and throttles per customer key.
"""

from typing import Annotated, Literal
from uuid import UUID

from aws_lambda_powertools.utilities.parser import event_parser
from aws_lambda_powertools.utilities.typing import LambdaContext
from pydantic import BaseModel, Field

from aurra_core import admin
from aurra_core.errors import AurraError
from aurra_core.observability import logger


class Create(BaseModel):
    action: Literal["create"]
    tenant: Annotated[str, Field(min_length=1, max_length=200)]
    name: str | None = None


class ListKeys(BaseModel):
    action: Literal["list"]
    tenant: Annotated[str, Field(min_length=1, max_length=200)]


class Revoke(BaseModel):
    action: Literal["revoke", "rotate"]
    key_id: UUID


class AdminRequest(BaseModel):
    request: Annotated[Create | ListKeys | Revoke, Field(discriminator="action")]


@logger.inject_lambda_context
@event_parser(model=AdminRequest)
def lambda_handler(event: AdminRequest, context: LambdaContext) -> dict:
    try:
        return {"ok": True, **admin.perform(event.request.model_dump())}
    except AurraError as exc:
        return {"ok": False, "error": {"code": exc.code, "message": exc.message}}
