"""Verify an Aurra webhook (Standard Webhooks signatures) before trusting its body.

    from aurra import webhooks
    event = webhooks.verify(request_body, request_headers, "whsec_...")

`verify` checks `webhook-signature` (`v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`,
keyed with the secret's base64 part after `whsec_`) and that `webhook-timestamp` is within
`tolerance` seconds of now, and returns the event as a `ChangeEvent` (the model
`client.events.list()` yields); it raises `WebhookVerificationError` otherwise.
`verify_signature` checks without reading the body. Pass the body exactly as received (bytes or
str), before any JSON parsing.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import math
import time
from collections.abc import Mapping

from pydantic import ValidationError

from aurra.errors import AurraError, InvalidArgumentError
from aurra.models import ChangeEvent

SECRET_PREFIX = "whsec_"
DEFAULT_TOLERANCE_S = 300


class WebhookVerificationError(AurraError):
    """The webhook is not one signed with this secret, or too old (or from the future)."""


def _header(headers: Mapping[str, str], name: str) -> str:
    for key, value in headers.items():
        if key.lower() == name:
            return value
    raise WebhookVerificationError(f"missing header {name}")


def sign(secret: str, message_id: str, timestamp: int, payload: bytes | str) -> str:
    """The `webhook-signature` value Aurra sends for this message (for tests of a receiver)."""
    body = payload.encode() if isinstance(payload, str) else payload
    try:
        key = base64.b64decode(secret.removeprefix(SECRET_PREFIX), validate=True)
    except (binascii.Error, ValueError):
        raise WebhookVerificationError("the secret is not whsec_ then base64") from None
    digest = hmac.new(key, f"{message_id}.{timestamp}.".encode() + body, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def verify_signature(
    payload: bytes | str,
    headers: Mapping[str, str],
    secret: str,
    *,
    tolerance: float = DEFAULT_TOLERANCE_S,
    now: float | None = None,
) -> None:
    """Check the webhook's signature and timestamp; raise `WebhookVerificationError` unless both hold."""
    current = time.time() if now is None else now
    # NaN compares false with everything: it would let any timestamp through.
    if not (math.isfinite(tolerance) and tolerance >= 0):
        raise InvalidArgumentError("tolerance must be a number of seconds >= 0")
    if not math.isfinite(current):
        raise InvalidArgumentError("now must be a finite Unix time")
    message_id = _header(headers, "webhook-id")
    stamp = _header(headers, "webhook-timestamp")
    try:
        timestamp = int(stamp)
    except ValueError:
        raise WebhookVerificationError("webhook-timestamp is not an integer") from None
    if abs(current - timestamp) > tolerance:
        raise WebhookVerificationError("webhook-timestamp is outside the tolerance")
    expected = sign(secret, message_id, timestamp, payload).encode()
    for candidate in _header(headers, "webhook-signature").split():
        if hmac.compare_digest(candidate.encode(), expected):
            return
    raise WebhookVerificationError("no signature matches")


def verify(
    payload: bytes | str,
    headers: Mapping[str, str],
    secret: str,
    *,
    tolerance: float = DEFAULT_TOLERANCE_S,
    now: float | None = None,
) -> ChangeEvent:
    """The webhook's change event, once its signature and timestamp check out."""
    verify_signature(payload, headers, secret, tolerance=tolerance, now=now)
    try:
        return ChangeEvent.model_validate_json(payload)
    except ValidationError:
        raise WebhookVerificationError("the webhook is signed, but its body is not a change event") from None
