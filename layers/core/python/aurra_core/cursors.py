"""Opaque pagination cursors. A cursor pins the transaction time of the first page, so later
pages read the same snapshot of history however many writes land in between."""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

from aurra_core.errors import ValidationFailed


def fingerprint(**filters: Any) -> str:
    return hashlib.sha256(json.dumps(filters, sort_keys=True, default=str).encode()).hexdigest()[:16]


def encode(payload: dict[str, Any]) -> str:
    raw = json.dumps(payload, separators=(",", ":"), default=str).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode(cursor: str, expected_fingerprint: str) -> dict[str, Any]:
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        payload = json.loads(base64.urlsafe_b64decode(padded.encode()))
    except (ValueError, UnicodeDecodeError) as exc:
        raise ValidationFailed("cursor is not valid", [{"field": "cursor", "problem": "malformed"}]) from exc
    if not isinstance(payload, dict) or payload.get("f") != expected_fingerprint:
        raise ValidationFailed(
            "cursor does not belong to this query",
            [{"field": "cursor", "problem": "the other query parameters changed since the first page"}],
        )
    return payload
