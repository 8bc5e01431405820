"""The review queue, receipts and budgets in the SDK: requests, typed results, sync and async."""

from __future__ import annotations

import asyncio

import pydantic
import pytest
from sdk_fakes import (
    EVENT_ID,
    MEMORY_ID,
    OLD_MEMORY_ID,
    Server,
    event_json,
    make_async_client,
    memory_json,
    settings_json,
    write_json,
)

from aurra import (
    ApproveResult,
    AuditEvent,
    ConflictError,
    DismissResult,
    InvalidArgumentError,
    SettingsResult,
    Usage,
    WriteResult,
)

PROPOSAL = event_json(type="supersession_proposed", confidence=0.7, status="open")
APPROVED = event_json("0192f0c4-0000-7000-8000-0000000000e2", type="proposal_approved")


def approve_json() -> dict:
    return {
        "event": APPROVED,
        "memory": memory_json(supersedes=OLD_MEMORY_ID),
        "superseded": memory_json(
            OLD_MEMORY_ID, status="superseded", superseded_by=MEMORY_ID, superseded_event_id=APPROVED["id"]
        ),
    }


def test_the_queue_is_a_filtered_list(client, server) -> None:
    server.reply(200, {"events": [PROPOSAL], "next_cursor": None})
    (event,) = client.audit.list(type="supersession_proposed", status="open")
    assert dict(server.last.url.params) == {"type": "supersession_proposed", "status": "open"}
    assert isinstance(event, AuditEvent) and event.status == "open"


def test_approve_and_dismiss_send_posts_with_an_idempotency_key(client, server) -> None:
    server.reply(201, approve_json())
    server.reply(200, {"event": event_json(type="proposal_dismissed")})
    approved = client.audit.approve(EVENT_ID)
    dismissed = client.audit.dismiss(EVENT_ID, idempotency_key="mine")
    assert isinstance(approved, ApproveResult) and isinstance(dismissed, DismissResult)
    assert approved.superseded.superseded_event_id == approved.event.id
    assert [(r.method, r.url.path) for r in server.requests] == [
        ("POST", f"/agent/audit/{EVENT_ID}/approve"),
        ("POST", f"/agent/audit/{EVENT_ID}/dismiss"),
    ]
    assert server.body(0) == {} and server.requests[0].headers["Idempotency-Key"]
    assert server.requests[1].headers["Idempotency-Key"] == "mine"


def test_a_proposal_no_longer_open_is_a_conflict(client, server) -> None:
    server.reply(
        409, {"error": {"code": "conflict", "message": "this proposal is no longer open", "details": []}}
    )
    with pytest.raises(ConflictError, match="no longer open"):
        client.audit.approve(EVENT_ID)


def test_the_async_client_approves_and_dismisses() -> None:
    server = Server()
    server.reply(200, {"events": [PROPOSAL], "next_cursor": None})
    server.reply(201, approve_json())
    server.reply(200, {"event": event_json(type="proposal_dismissed")})
    client = make_async_client(server)

    async def go() -> tuple[list[AuditEvent], ApproveResult, DismissResult]:
        queue = [e async for e in client.audit.list(type="supersession_proposed", status="open")]
        return queue, await client.audit.approve(EVENT_ID), await client.audit.dismiss(EVENT_ID)

    queue, approved, dismissed = asyncio.run(go())
    assert queue[0].status == "open" and approved.event.type == "proposal_approved"
    assert dismissed.event.type == "proposal_dismissed"
    assert [r.url.path for r in server.requests[1:]] == [
        f"/agent/audit/{EVENT_ID}/approve",
        f"/agent/audit/{EVENT_ID}/dismiss",
    ]


def test_a_write_carries_its_receipt_proposal_and_not_acted_reason() -> None:
    auto = {
        "ran": True,
        "skipped_reason": None,
        "candidates_examined": 1,
        "decision": {
            "candidate_id": OLD_MEMORY_ID,
            "classifier": "contradicts",
            "confidence": 0.7,
            "reason": "r",
            "model": "claude-haiku-4-5-20251001",
            "not_acted_reason": "below_min_confidence",
        },
        "supersession": None,
        "proposal": {
            "superseded_id": OLD_MEMORY_ID,
            "classifier": "contradicts",
            "confidence": 0.7,
            "audit_event_id": EVENT_ID,
        },
        "usage": {
            "model_calls": 1,
            "input_tokens": 1577,
            "output_tokens": 170,
            "latency_ms": 412,
            "cost_usd": 0.0024,
        },
    }
    result = WriteResult.model_validate(write_json(auto_supersede=auto))
    assert result.auto_supersede.decision.not_acted_reason == "below_min_confidence"
    assert result.auto_supersede.proposal.audit_event_id == EVENT_ID
    assert result.auto_supersede.usage == Usage(
        model_calls=1, input_tokens=1577, output_tokens=170, latency_ms=412, cost_usd=0.0024
    )
    unknown_price = Usage.model_validate(
        {"model_calls": 1, "latency_ms": 3, "input_tokens": 5, "output_tokens": 1, "cost_usd": None}
    )
    assert unknown_price.cost_usd is None
    # An older server without these fields still parses.
    old = WriteResult.model_validate(write_json())
    assert old.auto_supersede.usage is None and old.memory.superseded_event_id is None


def test_a_proposal_status_is_typed() -> None:
    assert AuditEvent.model_validate(PROPOSAL).status == "open"
    assert AuditEvent.model_validate(event_json()).status is None
    with pytest.raises(pydantic.ValidationError):
        AuditEvent.model_validate(event_json(status="pending"))


def test_settings_null_is_sent_only_when_given(client, server) -> None:
    server.reply(200, settings_json(proposal_min_confidence=None, daily_model_calls_limit=100))
    server.reply(200, settings_json())
    result = client.settings.update(proposal_min_confidence=None, daily_model_calls_limit=100)
    client.settings.update(min_confidence=0.9)
    assert server.body(0) == {"proposal_min_confidence": None, "daily_model_calls_limit": 100}
    assert server.body(1) == {"min_confidence": 0.9}
    assert isinstance(result, SettingsResult) and result.proposal_min_confidence is None
    assert result.daily_model_calls_limit == 100
    with pytest.raises(InvalidArgumentError, match="daily_model_calls_limit"):
        client.settings.update()


def test_a_messages_write_carries_the_extraction_receipt() -> None:
    from aurra import MessagesWriteResult

    usage = {
        "model_calls": 1,
        "input_tokens": 900,
        "output_tokens": 80,
        "latency_ms": 250,
        "cost_usd": 0.0013,
    }
    result = MessagesWriteResult.model_validate(
        {
            "facts": [write_json()],
            "extraction": {
                "extractor": "anthropic",
                "model": "claude-haiku-4-5-20251001",
                "facts_found": 1,
                "prompt_version": "v1",
                "usage": usage,
            },
        }
    )
    assert result.extraction.usage == Usage(**usage)
