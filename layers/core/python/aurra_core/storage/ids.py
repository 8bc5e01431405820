"""Identifiers: UUIDv7, so ids sort by creation time (stable keyset pagination)."""

from __future__ import annotations

import uuid

import uuid_utils


def new_id() -> uuid.UUID:
    return uuid.UUID(bytes=uuid_utils.uuid7().bytes)
