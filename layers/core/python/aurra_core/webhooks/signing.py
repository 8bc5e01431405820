"""Standard Webhooks signatures (https://www.standardwebhooks.com): `webhook-signature` is
`v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}">`, keyed with the bytes
the secret's base64 part (after `whsec_`) decodes to. The standard library suffices."""

from __future__ import annotations

import base64
import hashlib
import hmac

from aurra_core.models import WEBHOOK_SECRET_PREFIX


def secret_bytes(secret: str) -> bytes:
    return base64.b64decode(secret.removeprefix(WEBHOOK_SECRET_PREFIX))


def sign(secret: str, message_id: str, timestamp: int, body: bytes) -> str:
    signed = f"{message_id}.{timestamp}.".encode() + body
    digest = hmac.new(secret_bytes(secret), signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def headers(secret: str, message_id: str, timestamp: int, body: bytes) -> dict[str, str]:
    return {
        "webhook-id": message_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": sign(secret, message_id, timestamp, body),
    }
