"""Provenance on the real PostgreSQL: each extracted fact names its conversation, messages and
quoted span; a content write may name its source; both survive revisions and filter the list,
the search and the audit trail, never across tenants."""

from __future__ import annotations

import pytest
from pipeline_support import ScriptedClassifier, contradicts_when, deps
from test_messages_write import ScriptedExtractor, write_conversation

from aurra_core import service
from aurra_core.embedders import LexicalEmbedder
from aurra_core.models import (
    AuditListQuery,
    MemoryListQuery,
    PointInTime,
    SupersedeRequest,
    WriteBody,
    WriteRequest,
)
from aurra_core.storage import queries
from aurra_core.write_path.pipeline import write_memory

pytestmark = pytest.mark.integration

CONVERSATION = [
    {"role": "assistant", "content": "Where do you live these days?"},
    {"role": "user", "content": "Hi! I moved to Berlin last month, and I use Emacs now."},
]


def listed(caller, db, **filters):
    page = queries.read_memory_page(caller, MemoryListQuery(limit=100, **filters), db, LexicalEmbedder(384))
    return page.memories


def test_each_fact_names_the_clients_conversation_its_message_and_the_quoted_span(db, new_key):
    caller, _ = new_key()
    outcome = write_conversation(
        caller, ScriptedClassifier(), messages=CONVERSATION, conversation_id="conv-8812", user_id="alice"
    )
    assert outcome.result.extraction.conversation_id == "conv-8812"
    sources = [f.memory.source for f in outcome.result.facts]
    assert [(s.type, s.id, s.conversation_id, s.message_indexes, s.quote, s.uri) for s in sources] == [
        ("conversation", "conv-8812", "conv-8812", [1], "I moved to Berlin last month", None),
        ("conversation", "conv-8812", "conv-8812", [1], "I use Emacs now", None),
    ]
    # as stored, not only as answered
    stored = {m.content: m.source for m in listed(caller, db)}
    assert stored["User uses Emacs now"] == sources[1]


def test_without_a_conversation_id_the_write_generates_one_and_returns_it(db, new_key):
    caller, _ = new_key()
    first = write_conversation(caller, ScriptedClassifier(), messages=CONVERSATION).result
    second = write_conversation(caller, ScriptedClassifier(), messages=CONVERSATION[1:]).result
    generated = first.extraction.conversation_id
    assert generated and generated != second.extraction.conversation_id
    assert {f.memory.source.conversation_id for f in first.facts} == {generated}
    assert {m.content for m in listed(caller, db, conversation_id=generated)} == {
        "User moved to Berlin last month",
        "User uses Emacs now",
    }


def test_a_model_that_names_the_wrong_message_is_corrected_by_its_quote(db, new_key):
    caller, _ = new_key()
    model = ScriptedExtractor(
        [
            {
                "content": "User moved to Berlin",
                "topic": "location",
                "message_indexes": [0],
                "quote": "I moved to Berlin last month",
            },
            {
                "content": "User uses Emacs",
                "topic": "preferences",
                "message_indexes": [1],
                "quote": "made up",
            },
        ]
    )
    facts = write_conversation(caller, ScriptedClassifier(), model, messages=CONVERSATION).result.facts
    assert [(f.memory.source.message_indexes, f.memory.source.quote) for f in facts] == [
        ([1], "I moved to Berlin last month"),
        ([1], None),
    ]


def test_a_content_write_names_its_source_and_every_later_version_keeps_it(db, new_key):
    caller, _ = new_key()
    given = {"type": "email", "id": "msg-77", "uri": "https://mail.example.com/m/77"}
    _, written = service.write_memory(caller, WriteBody(content="User uses Vim", source=given))
    assert written.memory.source.model_dump() == {
        "type": "email",
        "id": "msg-77",
        "conversation_id": None,
        "message_indexes": None,
        "quote": None,
        "uri": "https://mail.example.com/m/77",
    }
    # a supersession revises the old memory: the new version keeps its source; the new memory
    # (no source given) has none
    _, result = service.supersede_memory(
        caller, written.memory.id, SupersedeRequest(content="User uses Emacs")
    )
    assert result.superseded.source == written.memory.source and result.memory.source is None
    history = service.memory_history(caller, written.memory.id, PointInTime())
    assert len(history.versions) == 2
    assert [m.id for m in listed(caller, db, source_id="msg-77", include_superseded=True)] == [
        written.memory.id
    ]
    # a source of type conversation names that conversation
    _, chat = service.write_memory(
        caller, WriteBody(content="User lives in Oslo", source={"type": "conversation", "id": "c-1"})
    )
    assert chat.memory.source.conversation_id == "c-1"
    assert [m.id for m in listed(caller, db, conversation_id="c-1")] == [chat.memory.id]


def test_list_search_and_audit_filter_by_conversation_and_source(db, new_key):
    caller, _ = new_key()
    clf = ScriptedClassifier(contradicts_when("User uses Vim", 0.97))
    write_memory(caller, WriteRequest(content="User uses Vim", topic="preferences"), deps(clf))
    write_conversation(caller, clf, messages=CONVERSATION, conversation_id="conv-a")
    write_conversation(
        caller, clf, messages=[{"role": "user", "content": "I drink tea."}], conversation_id="conv-b"
    )
    assert {m.content for m in listed(caller, db, conversation_id="conv-a")} == {
        "User moved to Berlin last month",
        "User uses Emacs now",
    }
    assert {m.content for m in listed(caller, db, source_id="conv-b")} == {"User drinks tea"}
    # a search ranks only the filter's memories
    found = listed(caller, db, q="editor Emacs", conversation_id="conv-b")
    assert [m.content for m in found] == ["User drinks tea"]
    found = listed(caller, db, q="editor Emacs", conversation_id="conv-a")
    assert [m.content for m in found][:1] == ["User uses Emacs now"] and len(found) == 2
    events = queries.read_audit_page(caller, AuditListQuery(conversation_id="conv-a"), db).events
    assert [e.type for e in events] == ["auto_supersede"]
    assert queries.read_audit_page(caller, AuditListQuery(source_id="conv-b"), db).events == []
    assert [
        e.type for e in queries.read_audit_page(caller, AuditListQuery(source_id="conv-a"), db).events
    ] == ["auto_supersede"]


def test_provenance_filters_never_cross_tenants(db, new_key):
    alice, _ = new_key()
    bob, _ = new_key()
    clf = ScriptedClassifier(contradicts_when("User uses Vim", 0.97))
    for caller in (alice, bob):
        write_memory(caller, WriteRequest(content="User uses Vim", topic="preferences"), deps(clf))
    write_conversation(alice, clf, messages=CONVERSATION, conversation_id="shared-id")
    service.write_memory(
        alice, WriteBody(content="User reads Le Monde", source={"type": "doc", "id": "shared-src"})
    )
    assert listed(bob, db, conversation_id="shared-id", include_superseded=True) == []
    assert listed(bob, db, source_id="shared-src") == []
    assert listed(bob, db, q="Emacs", conversation_id="shared-id") == []
    assert queries.read_audit_page(bob, AuditListQuery(conversation_id="shared-id"), db).events == []
    assert len(listed(alice, db, conversation_id="shared-id")) == 2


def test_a_retry_replays_the_generated_conversation_id(configure, db, new_key):
    configure(AURRA_LEVEL2_ENABLED="false", AURRA_EXTRACTOR="rules")
    caller, _ = new_key()
    body = WriteBody(messages=CONVERSATION)
    _, first = service.write_memory(caller, body, "retry-1")
    _, again = service.write_memory(caller, body, "retry-1")
    assert first.extraction.conversation_id == again.extraction.conversation_id
    assert len(listed(caller, db)) == 2


@pytest.mark.parametrize(
    "body",
    [
        {"messages": CONVERSATION, "source": {"type": "doc", "id": "d"}},
        {"content": "User uses Vim", "conversation_id": "c-1"},
        {"content": "User uses Vim", "source": {"type": "doc"}},
        {"content": "User uses Vim", "source": {"type": "doc", "id": " "}},
        {"content": "User uses Vim", "source": {"type": "doc", "id": "x" * 129}},
        {"content": "User uses Vim", "source": {"type": "doc", "id": "d", "uri": "not a uri"}},
        {"content": "User uses Vim", "source": {"type": "doc", "id": "d", "uri": "/relative/path"}},
        {"content": "User uses Vim", "source": {"type": "doc", "id": "d", "extra": 1}},
        {"messages": CONVERSATION, "conversation_id": "has spaces"},
        {"messages": CONVERSATION, "conversation_id": ""},
    ],
)
def test_malformed_provenance_is_refused(body):
    with pytest.raises(ValueError):
        WriteBody.model_validate(body)
