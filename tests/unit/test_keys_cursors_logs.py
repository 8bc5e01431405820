"""The key's alphabet, signed cursors and redacted query strings, without a database."""

import base64
import hashlib
import hmac
import json
import uuid
from datetime import UTC, datetime

import pytest

from aurra_core.access.key_check import parse_key
from aurra_core.errors import Unauthorized, ValidationFailed
from aurra_core.runtime.config import reset_config
from aurra_core.runtime.observability import redact_query
from aurra_core.storage import cursors
from aurra_core.storage.queries import (
    AUDIT_ENDPOINT,
    MEMORIES_ENDPOINT,
    AuditCursor,
    MemoryCursor,
    SearchCursor,
)
from functions.authorizer.handler import _bearer_key

KEY = "aurra_0123456789ab_" + "A-b_" * 8


def test_a_key_is_its_own_alphabet_and_nothing_else():
    assert parse_key(KEY) == ("0123456789ab", "A-b_" * 8)
    for suffix in ("\x00", "\x0b", "\x1c", "\x85", " ", "=", "é"):
        with pytest.raises(Unauthorized):
            parse_key(KEY + suffix)
    for bad in ("aurra_01234\x0056789ab_" + "x" * 32, "aurra_XYZ_" + "x" * 32, "aurra__x", "bearer", ""):
        with pytest.raises(Unauthorized):
            parse_key(bad)


def test_the_bearer_header_is_trimmed_of_spaces_and_tabs_only():
    assert _bearer_key(f"Bearer {KEY}") == KEY
    assert _bearer_key(f" \tbearer  {KEY} \t") == KEY
    # What str.strip() would have removed reaches the key check, which refuses it.
    for control in ("\x00", "\x0b", "\x1c", "\x85"):
        assert _bearer_key(f"Bearer {KEY}{control}") == KEY + control
    with pytest.raises(Unauthorized):
        _bearer_key("Basic abc")


@pytest.mark.parametrize(
    ("query", "logged"),
    [
        (f"api_key={KEY}&limit=2", "api_key=[REDACTED]&limit=2"),
        ("X-Api-Key=abc&token=t&Secret=s", "X-Api-Key=[REDACTED]&token=[REDACTED]&Secret=[REDACTED]"),
        (f"topic=general&note={KEY}", "topic=general&note=[REDACTED]"),
        (f"cursor=x&{KEY}", "cursor=x&[REDACTED]"),
        ("q=alice+has+diabetes&limit=5", "q=[REDACTED]&limit=5"),
        ("as_of=2026-01-01T00%3A00%3A00Z", "as_of=2026-01-01T00:00:00Z"),
        ("", ""),
    ],
)
def test_query_strings_are_logged_without_keys_or_search_text(query, logged):
    assert redact_query(query) == logged


def test_search_text_is_logged_only_when_asked():
    assert (
        redact_query(f"q=alice+uses+vim&key={KEY}", keep_search_text=True)
        == "q=alice uses vim&key=[REDACTED]"
    )


@pytest.fixture
def cursor_secret(monkeypatch):
    monkeypatch.setenv("AURRA_CURSOR_SECRET", "s3cret-for-tests")
    reset_config()
    yield b"s3cret-for-tests"
    monkeypatch.undo()
    reset_config()


def position() -> MemoryCursor:
    now = datetime(2026, 5, 1, tzinfo=UTC)
    return MemoryCursor(f="fp", k=now, a=now, id=uuid.uuid4())


def test_a_cursor_reads_back_for_its_tenant_and_endpoint(cursor_secret):
    tenant = uuid.uuid4()
    given = position()
    cursor = cursors.encode(given, tenant_id=tenant, endpoint=MEMORIES_ENDPOINT)
    back = cursors.decode(
        cursor, MemoryCursor, tenant_id=tenant, endpoint=MEMORIES_ENDPOINT, expected_fingerprint="fp"
    )
    assert back.id == given.id and back.k.tzinfo is not None
    # a search's cursor carries its position in the fused list; a list's cursor is not one
    searched = SearchCursor(f="fp", k=given.k, a=given.a, n=40, id=given.id)
    cursor = cursors.encode(searched, tenant_id=tenant, endpoint=MEMORIES_ENDPOINT)
    assert (
        cursors.decode(
            cursor, SearchCursor, tenant_id=tenant, endpoint=MEMORIES_ENDPOINT, expected_fingerprint="fp"
        )
        == searched
    )
    with pytest.raises(ValidationFailed, match="cursor"):
        cursors.decode(
            cursor, MemoryCursor, tenant_id=tenant, endpoint=MEMORIES_ENDPOINT, expected_fingerprint="fp"
        )


def test_another_tenants_or_endpoints_or_an_edited_cursor_is_refused(cursor_secret):
    tenant = uuid.uuid4()
    cursor = cursors.encode(position(), tenant_id=tenant, endpoint=MEMORIES_ENDPOINT)
    body, _, signature = cursor.partition(".")
    edited = json.loads(base64.urlsafe_b64decode(body + "=="))
    edited["k"] = "2999-01-01T00:00:00Z"
    forged_body = base64.urlsafe_b64encode(json.dumps(edited).encode()).decode().rstrip("=")
    attempts = [
        (cursor, uuid.uuid4(), MEMORIES_ENDPOINT),  # another tenant
        (cursor, tenant, AUDIT_ENDPOINT),  # another endpoint
        (f"{forged_body}.{signature}", tenant, MEMORIES_ENDPOINT),  # moved past the clamp
        (body, tenant, MEMORIES_ENDPOINT),  # unsigned
        (f"{body}.!!", tenant, MEMORIES_ENDPOINT),
        ("", tenant, MEMORIES_ENDPOINT),
    ]
    for text, tenant_id, endpoint in attempts:
        with pytest.raises(ValidationFailed) as info:
            cursors.decode(
                text, MemoryCursor, tenant_id=tenant_id, endpoint=endpoint, expected_fingerprint="fp"
            )
        assert info.value.details == [
            {"field": "cursor", "problem": "not a cursor this endpoint issued to this API key's tenant"}
        ]


@pytest.mark.parametrize(
    "payload",
    [
        {"f": "fp", "k": 5, "a": "2026-05-01T00:00:00Z", "id": str(uuid.uuid4()), "d": 0.1},
        {
            "f": "fp",
            "k": "2026-05-01T00:00:00Z",
            "a": "2026-05-01T00:00:00Z",
            "id": str(uuid.uuid4()),
            "d": "x",
        },
        {
            "f": "fp",
            "k": "2026-05-01T00:00:00Z",
            "a": "2026-05-01T00:00:00Z",
            "id": str(uuid.uuid4()),
            "d": {},
        },
        {"f": "fp", "k": "2026-05-01T00:00:00Z", "a": "2026-05-01T00:00:00Z", "d": 0.1},
        {
            "f": "fp",
            "k": "2026-05-01T00:00:00",
            "a": "2026-05-01T00:00:00Z",
            "id": str(uuid.uuid4()),
            "d": 0.1,
        },
        ["not", "an", "object"],
    ],
)
def test_a_signed_cursor_with_wrong_types_inside_is_a_422_not_a_500(cursor_secret, payload):
    # Signed with the server's secret, as a leaked secret would allow: the types are checked too.
    tenant = uuid.uuid4()
    body = base64.urlsafe_b64encode(json.dumps(payload).encode()).decode().rstrip("=")
    mac = hmac.new(cursor_secret, f"{MEMORIES_ENDPOINT}\n{tenant}\n{body}".encode(), hashlib.sha256).digest()
    cursor = f"{body}.{base64.urlsafe_b64encode(mac).decode().rstrip('=')}"
    with pytest.raises(ValidationFailed) as info:
        cursors.decode(
            cursor, MemoryCursor, tenant_id=tenant, endpoint=MEMORIES_ENDPOINT, expected_fingerprint="fp"
        )
    assert info.value.details == [{"field": "cursor", "problem": "malformed"}]


def test_a_cursor_of_other_filters_is_refused(cursor_secret):
    tenant = uuid.uuid4()
    now = datetime(2026, 5, 1, tzinfo=UTC)
    cursor = cursors.encode(
        AuditCursor(f="fp", k=now, at=now, id=uuid.uuid4()), tenant_id=tenant, endpoint=AUDIT_ENDPOINT
    )
    with pytest.raises(ValidationFailed, match="does not belong to this query"):
        cursors.decode(
            cursor, AuditCursor, tenant_id=tenant, endpoint=AUDIT_ENDPOINT, expected_fingerprint="other"
        )
