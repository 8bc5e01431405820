"""Opaque pagination cursors. A cursor pins the transaction time of the first page, so later
pages read the same snapshot of history however many writes land in between.

A cursor is signed (HMAC-SHA256) over the tenant, the endpoint and the position, with a
server secret: the cursor of another tenant or of another endpoint, and any cursor a client
made or edited, is a 422. The secret is AURRA_CURSOR_SECRET (`aurra dev` keeps one per data
directory) or, in AWS, the Secrets Manager secret AURRA_CURSOR_SECRET_ARN names. With neither,
the process makes one up: its cursors then work against that process alone.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
from typing import Any, TypeVar
from uuid import UUID

from pydantic import BaseModel, ConfigDict, ValidationError

from aurra_core.errors import ValidationFailed
from aurra_core.runtime.config import get_config

Position = TypeVar("Position", bound=BaseModel)

_process_secret = secrets.token_bytes(32)


class CursorPosition(BaseModel):
    """What every cursor carries: the fingerprint of the query's filters."""

    model_config = ConfigDict(extra="forbid", strict=True)

    f: str


def fingerprint(**filters: Any) -> str:
    return hashlib.sha256(json.dumps(filters, sort_keys=True, default=str).encode()).hexdigest()[:16]


def _secret() -> bytes:
    config = get_config()
    if config.cursor_secret is not None:
        return config.cursor_secret.get_secret_value().encode()
    if config.cursor_secret_arn is None:
        return _process_secret
    from aws_lambda_powertools.utilities.parameters import get_secret

    # Powertools keeps the value for max_age: one Secrets Manager call per container and 5 min.
    return str(get_secret(config.cursor_secret_arn, max_age=300)).encode()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode((text + "=" * (-len(text) % 4)).encode())


def _mac(tenant_id: UUID, endpoint: str, body: str) -> bytes:
    message = f"{endpoint}\n{tenant_id}\n{body}".encode()
    return hmac.new(_secret(), message, hashlib.sha256).digest()


def encode(position: BaseModel, *, tenant_id: UUID, endpoint: str) -> str:
    body = _b64(position.model_dump_json().encode())
    return f"{body}.{_b64(_mac(tenant_id, endpoint, body))}"


def _invalid(problem: str) -> ValidationFailed:
    return ValidationFailed("cursor is not valid", [{"field": "cursor", "problem": problem}])


def decode(
    cursor: str, model: type[Position], *, tenant_id: UUID, endpoint: str, expected_fingerprint: str
) -> Position:
    """The position `cursor` carries, once its signature shows this server issued it for this
    tenant and endpoint; a 422 naming `cursor` otherwise."""
    body, _, signature = cursor.partition(".")
    try:
        given = _unb64(signature)
    except ValueError:
        given = b""
    if not body or not hmac.compare_digest(given, _mac(tenant_id, endpoint, body)):
        raise _invalid("not a cursor this endpoint issued to this API key's tenant")
    try:
        position = model.model_validate_json(_unb64(body))
    except (ValueError, ValidationError) as exc:
        raise _invalid("malformed") from exc
    if getattr(position, "f", None) != expected_fingerprint:
        raise ValidationFailed(
            "cursor does not belong to this query",
            [{"field": "cursor", "problem": "the other query parameters changed since the first page"}],
        )
    return position
