"""Each resource call sends exactly the request the API contract describes."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime, timedelta, timezone

import pytest
from sdk_fakes import (
    EVENT_ID,
    MEMORY_ID,
    OLD_MEMORY_ID,
    Server,
    event_json,
    memory_json,
    settings_json,
    write_json,
)

from aurra import (
    AuditEvent,
    HistoryResult,
    InvalidArgumentError,
    Memory,
    RevertResult,
    SettingsResult,
    SupersedeResult,
    WriteResult,
)

APRIL_1 = datetime(2026, 4, 1, tzinfo=UTC)


def params(server: Server) -> dict[str, str]:
    return dict(server.last.url.params)


# ---------------------------------------------------------------- memories.add


def test_add_sends_only_given_fields(client, server) -> None:
    server.reply(201, write_json())
    result = client.memories.add(content="alice switched to Emacs")
    assert isinstance(result, WriteResult)
    assert server.last.method == "POST"
    assert server.last.url.path == "/agent/memories"
    assert server.body() == {"content": "alice switched to Emacs"}
    assert server.last.headers["Content-Type"] == "application/json"


def test_add_with_every_field(client, server) -> None:
    server.reply(201, write_json())
    client.memories.add(
        "User has been using Emacs",
        topic="preferences",
        valid_from=datetime(2026, 5, 3, 12, 0, tzinfo=timezone(timedelta(hours=2))),
        metadata={"source": "chat"},
        auto_supersede=True,
    )
    assert server.body() == {
        "content": "User has been using Emacs",
        "topic": "preferences",
        "valid_from": "2026-05-03T10:00:00Z",
        "metadata": {"source": "chat"},
        "auto_supersede": True,
    }


def test_add_auto_supersede_false_is_sent(client, server) -> None:
    server.reply(201, write_json())
    client.memories.add(content="x", auto_supersede=False)
    assert server.body()["auto_supersede"] is False


def test_add_async_is_sent_and_the_pending_job_read_back(client, server) -> None:
    job_id = str(uuid.uuid4())
    pending = {
        "ran": False,
        "skipped_reason": None,
        "candidates_examined": 0,
        "decision": None,
        "supersession": None,
        "status": "pending",
        "job_id": job_id,
    }
    server.reply(201, write_json(auto_supersede=pending))
    result = client.memories.add(content="alice switched to Emacs", auto_supersede="async")
    assert server.body()["auto_supersede"] == "async"
    assert result.auto_supersede.status == "pending" and result.auto_supersede.job_id == job_id
    assert result.auto_supersede.ran is False


def test_add_refuses_a_naive_valid_from(client, server) -> None:
    with pytest.raises(InvalidArgumentError, match="valid_from must be timezone-aware"):
        client.memories.add(content="x", valid_from=datetime(2026, 5, 3, 10, 0))
    assert server.requests == []


@pytest.mark.parametrize("key", ["", "x" * 129])
def test_add_refuses_a_bad_idempotency_key(client, key: str) -> None:
    with pytest.raises(InvalidArgumentError, match="idempotency_key"):
        client.memories.add(content="x", idempotency_key=key)


# ---------------------------------------------------------------- list / search / get / history


def test_list_page_query(client, server) -> None:
    server.reply(200, {"memories": [memory_json()], "next_cursor": "c2"})
    page = client.memories.list_page(
        topic="preferences",
        as_of=APRIL_1,
        known_at="2026-04-02T00:00:00Z",
        include_superseded=True,
        limit=10,
        cursor="c1",
    )
    assert server.last.method == "GET" and server.last.url.path == "/agent/memories"
    assert params(server) == {
        "topic": "preferences",
        "as_of": "2026-04-01T00:00:00Z",
        "known_at": "2026-04-02T00:00:00Z",
        "include_superseded": "true",
        "limit": "10",
        "cursor": "c1",
    }
    assert [m.id for m in page.memories] == [MEMORY_ID]
    assert page.next_cursor == "c2"


def test_list_without_filters_sends_no_query(client, server) -> None:
    server.reply(200, {"memories": [], "next_cursor": None})
    assert list(client.memories.list()) == []
    assert params(server) == {}


def test_include_superseded_false_is_sent(client, server) -> None:
    server.reply(200, {"memories": [], "next_cursor": None})
    client.memories.list_page(include_superseded=False)
    assert params(server) == {"include_superseded": "false"}


def test_search_is_a_get_with_q(client, server) -> None:
    server.reply(200, {"memories": [memory_json(score=0.91, relevance=0.024)], "next_cursor": None})
    results = list(client.memories.search("which editor does alice use?", limit=5))
    assert server.last.method == "GET" and server.last.url.path == "/agent/memories"
    assert params(server) == {"q": "which editor does alice use?", "limit": "5"}
    assert results[0].score == 0.91 and results[0].relevance == 0.024


def test_search_page(client, server) -> None:
    server.reply(200, {"memories": [], "next_cursor": None})
    client.memories.search_page("editor", topic="preferences", cursor="c9")
    assert params(server) == {"q": "editor", "topic": "preferences", "cursor": "c9"}


def test_search_refuses_empty_q(client) -> None:
    with pytest.raises(InvalidArgumentError, match="q must not be empty"):
        client.memories.search("  ")


def test_filters_are_checked_when_the_pager_is_made(client, server) -> None:
    with pytest.raises(InvalidArgumentError, match="as_of"):
        client.memories.list(as_of=datetime(2026, 4, 1))
    with pytest.raises(InvalidArgumentError, match="known_at"):
        client.memories.search("x", known_at=datetime(2026, 4, 1))
    assert server.requests == []


def test_get_with_time_travel(client, server) -> None:
    server.reply(200, memory_json())
    memory = client.memories.get(
        MEMORY_ID, as_of=datetime(2026, 4, 1, 2, 0, tzinfo=timezone(timedelta(hours=2))), known_at=APRIL_1
    )
    assert isinstance(memory, Memory)
    assert server.last.url.path == f"/agent/memories/{MEMORY_ID}"
    assert params(server) == {"as_of": "2026-04-01T00:00:00Z", "known_at": "2026-04-01T00:00:00Z"}


def test_get_accepts_a_uuid(client, server) -> None:
    server.reply(200, memory_json())
    client.memories.get(uuid.UUID(MEMORY_ID))
    assert server.last.url.path == f"/agent/memories/{MEMORY_ID}"


def test_ids_are_escaped_into_the_path(client, server) -> None:
    server.reply(200, memory_json())
    client.memories.get("../settings?x=1")
    assert server.last.url.raw_path == b"/agent/memories/..%2Fsettings%3Fx%3D1"


def test_empty_id_is_refused(client, server) -> None:
    with pytest.raises(InvalidArgumentError, match="id must not be empty"):
        client.memories.get("")
    assert server.requests == []


def test_microseconds_survive_serialization(client, server) -> None:
    server.reply(200, {"memories": [], "next_cursor": None})
    client.memories.list_page(known_at=datetime(2026, 5, 3, 10, 0, 0, 123456, tzinfo=UTC))
    assert params(server) == {"known_at": "2026-05-03T10:00:00.123456Z"}


def test_a_returned_timestamp_can_be_passed_back(client, server) -> None:
    server.reply(200, memory_json()).reply(200, {"memories": [], "next_cursor": None})
    memory = client.memories.get(MEMORY_ID)
    client.memories.list_page(known_at=memory.recorded_at)
    assert params(server) == {"known_at": "2026-05-03T10:00:00.123000Z"}


def test_timestamp_of_wrong_type_is_refused(client) -> None:
    with pytest.raises(InvalidArgumentError, match="as_of must be a datetime or an RFC 3339 string"):
        client.memories.get(MEMORY_ID, as_of=1712000000)  # type: ignore[arg-type]


def test_history(client, server) -> None:
    server.reply(
        200, {"memory_id": MEMORY_ID, "chain": [memory_json(OLD_MEMORY_ID), memory_json()], "versions": []}
    )
    history = client.memories.history(MEMORY_ID)
    assert isinstance(history, HistoryResult)
    assert server.last.method == "GET" and server.last.url.path == f"/agent/memories/{MEMORY_ID}/history"


# ---------------------------------------------------------------- supersede


def supersede_json() -> dict:
    return {"memory": memory_json(), "superseded": memory_json(OLD_MEMORY_ID, status="superseded")}


def test_supersede_with_new_content(client, server) -> None:
    server.reply(201, supersede_json())
    result = client.memories.supersede(
        OLD_MEMORY_ID,
        content="alice switched to Emacs",
        topic="preferences",
        valid_from="2026-05-03T10:00:00Z",
        metadata={"by": "agent"},
    )
    assert isinstance(result, SupersedeResult)
    assert server.last.method == "POST"
    assert server.last.url.path == f"/agent/memories/{OLD_MEMORY_ID}/supersede"
    assert server.body() == {
        "content": "alice switched to Emacs",
        "topic": "preferences",
        "valid_from": "2026-05-03T10:00:00Z",
        "metadata": {"by": "agent"},
    }
    assert server.last.headers["Idempotency-Key"]


def test_supersede_by_existing_memory(client, server) -> None:
    server.reply(201, supersede_json())
    client.memories.supersede(OLD_MEMORY_ID, superseded_by=uuid.UUID(MEMORY_ID), idempotency_key="k1")
    assert server.body() == {"superseded_by": MEMORY_ID}
    assert server.last.headers["Idempotency-Key"] == "k1"


def test_supersede_needs_exactly_one_form(client, server) -> None:
    with pytest.raises(InvalidArgumentError, match="needs content"):
        client.memories.supersede(OLD_MEMORY_ID)
    with pytest.raises(InvalidArgumentError, match="not both"):
        client.memories.supersede(OLD_MEMORY_ID, content="x", superseded_by=MEMORY_ID)
    with pytest.raises(InvalidArgumentError, match="not both"):
        client.memories.supersede(OLD_MEMORY_ID, topic="t", superseded_by=MEMORY_ID)
    assert server.requests == []


# ---------------------------------------------------------------- settings


def test_settings_get(client, server) -> None:
    server.reply(200, settings_json())
    assert isinstance(client.settings.get(), SettingsResult)
    assert server.last.method == "GET" and server.last.url.path == "/agent/settings"


def test_settings_update_sends_only_given_fields(client, server) -> None:
    server.reply(200, settings_json(min_confidence=0.92))
    result = client.settings.update(excluded_categories=("health_medical", "financial"), min_confidence=0.92)
    assert server.last.method == "PATCH" and server.last.url.path == "/agent/settings"
    assert server.body() == {"excluded_categories": ["health_medical", "financial"], "min_confidence": 0.92}
    assert result.min_confidence == 0.92


def test_settings_update_false_and_empty_list_are_sent(client, server) -> None:
    server.reply(200, settings_json())
    client.settings.update(auto_supersede_default=False, excluded_categories=[], classifier_model="claude-x")
    assert server.body() == {
        "auto_supersede_default": False,
        "excluded_categories": [],
        "classifier_model": "claude-x",
    }


def test_settings_secrets_is_sent_and_read(client, server) -> None:
    server.reply(200, settings_json(secrets="refuse"))
    result = client.settings.update(secrets="refuse")
    assert server.body() == {"secrets": "refuse"}
    assert result.secrets == "refuse"
    # a server from before the setting: every key redacted
    assert SettingsResult.model_validate(settings_json()).secrets == "redact"


def test_settings_update_refuses_nothing_and_strings(client, server) -> None:
    with pytest.raises(InvalidArgumentError, match="at least one"):
        client.settings.update()
    with pytest.raises(InvalidArgumentError, match="list of topics"):
        client.settings.update(excluded_categories="financial")
    assert server.requests == []


# ---------------------------------------------------------------- audit


def test_audit_list_page_query(client, server) -> None:
    server.reply(200, {"events": [event_json()], "next_cursor": None})
    page = client.audit.list_page(
        memory_id=uuid.UUID(MEMORY_ID),
        type="auto_supersede",
        since=APRIL_1,
        until="2026-05-01T00:00:00Z",
        limit=50,
        cursor="c1",
    )
    assert server.last.url.path == "/agent/audit"
    assert params(server) == {
        "memory_id": MEMORY_ID,
        "type": "auto_supersede",
        "since": "2026-04-01T00:00:00Z",
        "until": "2026-05-01T00:00:00Z",
        "limit": "50",
        "cursor": "c1",
    }
    assert page.events[0].confidence == 0.92


def test_audit_list_refuses_naive_since(client) -> None:
    with pytest.raises(InvalidArgumentError, match="since"):
        client.audit.list(since=datetime(2026, 4, 1))


def test_audit_get(client, server) -> None:
    server.reply(200, event_json())
    event = client.audit.get(EVENT_ID)
    assert isinstance(event, AuditEvent)
    assert server.last.method == "GET" and server.last.url.path == f"/agent/audit/{EVENT_ID}"


def test_audit_revert(client, server) -> None:
    server.reply(200, {"event": event_json(type="revert"), "restored": memory_json(OLD_MEMORY_ID)})
    result = client.audit.revert(EVENT_ID)
    assert isinstance(result, RevertResult)
    assert server.last.method == "POST" and server.last.url.path == f"/agent/audit/{EVENT_ID}/revert"
    assert server.body() == {}
    uuid.UUID(server.last.headers["Idempotency-Key"])


# ---------------------------------------------------------------- scopes


def test_add_sends_the_scope_and_reads_it_back(client, server) -> None:
    server.reply(201, write_json(memory=memory_json(user_id="alice", agent_id="support-bot")))
    result = client.memories.add("User uses Emacs", user_id="alice", agent_id="support-bot")
    assert server.body() == {"content": "User uses Emacs", "user_id": "alice", "agent_id": "support-bot"}
    assert (result.memory.user_id, result.memory.agent_id) == ("alice", "support-bot")


def test_an_unscoped_memory_reads_as_none(client, server) -> None:
    server.reply(201, write_json())
    result = client.memories.add("x")
    assert result.memory.user_id is None and result.memory.agent_id is None


def test_list_and_search_filter_by_scope(client, server) -> None:
    server.reply(200, {"memories": [], "next_cursor": None})
    assert list(client.memories.list(user_id="alice")) == []
    assert params(server) == {"user_id": "alice"}
    server.reply(200, {"memories": [], "next_cursor": None})
    client.memories.search_page("editor", user_id="alice", agent_id="bot")
    assert params(server) == {"q": "editor", "user_id": "alice", "agent_id": "bot"}
    server.reply(200, {"memories": [], "next_cursor": None})
    client.memories.list_page(agent_id="bot")
    assert params(server) == {"agent_id": "bot"}


def test_audit_filters_by_user(client, server) -> None:
    server.reply(200, {"events": [], "next_cursor": None})
    assert list(client.audit.list(user_id="alice")) == []
    assert params(server) == {"user_id": "alice"}


def test_async_add_and_list_take_the_scope(async_client, server) -> None:
    async def scenario() -> None:
        server.reply(201, write_json(memory=memory_json(user_id="bob")))
        result = await async_client.memories.add("User uses Vim", user_id="bob")
        assert server.body() == {"content": "User uses Vim", "user_id": "bob"}
        assert result.memory.user_id == "bob"
        server.reply(200, {"memories": [], "next_cursor": None})
        assert [m async for m in async_client.memories.list(user_id="bob", agent_id="a")] == []
        assert params(server) == {"user_id": "bob", "agent_id": "a"}

    asyncio.run(scenario())


# ---------------------------------------------------------------- messages


def messages_json() -> dict:
    fact = write_json(memory=memory_json(content="User moved to Berlin", user_id="alice"))
    duplicate = {
        **write_json(memory=memory_json(id=OLD_MEMORY_ID)),
        "created": False,
        "duplicate_of": OLD_MEMORY_ID,
    }
    return {
        "facts": [fact, duplicate],
        "extraction": {
            "extractor": "anthropic",
            "model": "claude-haiku-4-5-20251001",
            "facts_found": 2,
            "prompt_version": "2026-11-30.1",
            "usage": None,
        },
    }


def test_add_messages_sends_the_conversation_and_returns_typed_facts(client, server) -> None:
    from aurra import MessagesWriteResult

    server.reply(201, messages_json())
    result = client.memories.add(
        messages=[
            {"role": "user", "content": "I moved to Berlin.", "created_at": datetime(2026, 5, 1, tzinfo=UTC)},
            {"role": "assistant", "content": "Noted!"},
        ],
        user_id="alice",
        agent_id="concierge",
        auto_supersede=True,
    )
    assert server.body() == {
        "messages": [
            {"role": "user", "content": "I moved to Berlin.", "created_at": "2026-05-01T00:00:00Z"},
            {"role": "assistant", "content": "Noted!"},
        ],
        "auto_supersede": True,
        "user_id": "alice",
        "agent_id": "concierge",
    }
    assert server.last.headers["Idempotency-Key"]
    assert isinstance(result, MessagesWriteResult)
    assert result.extraction.extractor == "anthropic" and result.extraction.facts_found == 2
    assert result.extraction.facts_dropped == 0  # a server that does not send it
    assert [f.created for f in result.facts] == [True, False]
    assert result.facts[1].duplicate_of == OLD_MEMORY_ID
    assert [m.content for m in result.created] == ["User moved to Berlin"]


def test_add_messages_says_how_many_facts_were_dropped_beyond_the_cap(client, server) -> None:
    body = messages_json()
    body["extraction"] = {**body["extraction"], "facts_found": 50, "facts_dropped": 7}
    server.reply(201, body)
    result = client.memories.add(messages=[{"role": "user", "content": "I moved to Berlin."}])
    assert (result.extraction.facts_found, result.extraction.facts_dropped) == (50, 7)


def test_add_takes_exactly_one_of_content_and_messages(client, server) -> None:
    with pytest.raises(InvalidArgumentError, match="exactly one of content"):
        client.memories.add("x", messages=[{"role": "user", "content": "y"}])
    with pytest.raises(InvalidArgumentError, match="exactly one of content"):
        client.memories.add()
    with pytest.raises(InvalidArgumentError, match="timezone-aware"):
        client.memories.add(messages=[{"role": "user", "content": "y", "created_at": datetime(2026, 5, 1)}])
    assert server.requests == []


def test_async_add_messages(async_client, server) -> None:
    from aurra import MessagesWriteResult

    async def scenario() -> None:
        server.reply(201, messages_json())
        result = await async_client.memories.add(messages=[{"role": "user", "content": "I moved to Berlin."}])
        assert isinstance(result, MessagesWriteResult) and len(result.facts) == 2

    asyncio.run(scenario())
