"""No secrets kept: a write's credentials are redacted to [REDACTED:<kind>] before anything is
stored or sent to a model, or the write is refused (the key's `secrets` setting), on the real
PostgreSQL, with the real OpenAI-compatible classifier and extractor against the local fake
endpoint (tests/fakes/chat_completions.py): what the rows hold, what the models and the
embedder were sent."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import ValidationError

from aurra_core import service
from aurra_core.access import keys
from aurra_core.errors import SensitiveContent
from aurra_core.extractors.base import Extraction, validate_facts
from aurra_core.models import MessagesWriteRequest, SettingsPatch, SupersedeRequest, WriteBody
from aurra_core.write_path.pipeline import write_messages
from tests.fakes.chat_completions import FakeChatCompletions

pytestmark = pytest.mark.integration

# An OpenAI project key and a Visa number that passes the Luhn check, made up for the test.
OPENAI_KEY = "sk-proj-" + "Tq7vZp2mXc9LwK4rBn8sHd3fGj6yUe1aQo5iRt0kMv7xCb2zNl9pEw4hYs6uJg8d" * 2
CARD = "4539 1488 0343 6467"
PASSWORD = "Hunter-22!"
SECRETS = (OPENAI_KEY, CARD, CARD.replace(" ", ""), PASSWORD)


def carries_no_secret(text: str) -> bool:
    return not any(secret in text for secret in SECRETS)


class RecordingEmbedder:
    """The service's own embedder, and every text it was asked to embed."""

    def __init__(self, embedder: Any) -> None:
        self.embedder = embedder
        self.texts: list[str] = []

    def embed(self, text: str) -> Any:
        self.texts.append(text)
        return self.embedder.embed(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.embedder, name)


@pytest.fixture
def endpoint(configure, monkeypatch) -> Iterator[tuple[FakeChatCompletions, RecordingEmbedder]]:
    """The openai classifier and extractor (real classes, real SDK) against the local fake
    endpoint, Level 2 on, and the embedder recorded."""
    fake = FakeChatCompletions()
    configure(
        AURRA_CLASSIFIER="openai",
        AURRA_OPENAI_BASE_URL=fake.base_url,
        AURRA_OPENAI_MODEL="gpt-4o-mini",
        AURRA_OPENAI_API_KEY="sk-local",
        AURRA_CLASSIFIER_TIMEOUT_S="2",
        AURRA_EXTRACTOR_TIMEOUT_S="2",
        AURRA_LEVEL2_ENABLED="true",
    )
    embedder = RecordingEmbedder(service.get_embedder())
    monkeypatch.setattr(service, "get_embedder", lambda: embedder)
    yield fake, embedder
    fake.close()


def tenant_rows(db, caller) -> dict[str, list[str]]:
    """Everything the tenant's rows hold that could carry a write's text, as text."""
    with db.transaction() as conn:
        memories = conn.execute(
            "SELECT content || ' ' || metadata::text FROM memory_versions WHERE tenant_id = %s",
            (caller.tenant_id,),
        ).fetchall()
        events = conn.execute(
            "SELECT coalesce(reason, '') || ' ' || details::text FROM audit_events WHERE tenant_id = %s",
            (caller.tenant_id,),
        ).fetchall()
    return {"memories": [r[0] for r in memories], "events": [r[0] for r in events]}


def idempotency_records(db) -> list[str]:
    """Every Idempotency-Key record's response, oldest first (their keys are digests)."""
    with db.transaction() as conn:
        rows = conn.execute(
            "SELECT coalesce(response_data, '') FROM idempotency_records ORDER BY created_at, idempotency_key"
        )
        return [r[0] for r in rows]


def model_requests(fake: FakeChatCompletions, tool: str) -> list[str]:
    return [
        json.dumps(r["body"]["messages"], ensure_ascii=False)
        for r in fake.requests
        if r["body"]["tool_choice"]["function"]["name"] == tool
    ]


def test_a_content_write_stores_and_sends_its_credentials_redacted(endpoint, db, new_key):
    fake, embedder = endpoint
    caller, _ = new_key()
    before = len(idempotency_records(db))
    body = {
        "content": f"User's OpenAI key is {OPENAI_KEY} and their card is {CARD}",
        "metadata": {"note": f"key {OPENAI_KEY}", "password": PASSWORD, "count": 3},
        "user_id": "alice",
        "auto_supersede": True,
    }
    status, first = service.write_memory(caller, WriteBody.model_validate(body), "write-1")
    assert status == 201
    redacted = "User's OpenAI key is [REDACTED:openai_api_key] and their card is [REDACTED:card_number]"
    assert first.memory.content == redacted
    assert first.memory.metadata == {
        "note": "key [REDACTED:openai_api_key]",
        "password": "[REDACTED:password]",
        "count": 3,
    }
    # The same write again: the classifier compares the two (both redacted) and calls it a
    # duplicate, whose audit event keeps the rejected content.
    status, second = service.write_memory(caller, WriteBody.model_validate(body), "write-2")
    assert status == 200 and second.duplicate_of == first.memory.id
    assert second.auto_supersede.ran and second.auto_supersede.usage is not None

    classifications = model_requests(fake, "record_verdicts")
    assert len(classifications) == 1
    assert (
        "[REDACTED:openai_api_key]" in classifications[0] and "[REDACTED:card_number]" in classifications[0]
    )
    assert all(carries_no_secret(request) for request in classifications)
    assert embedder.texts == [redacted, redacted]

    rows = tenant_rows(db, caller)
    assert len(rows["memories"]) == 1 and len(rows["events"]) == 1
    assert "[REDACTED:card_number]" in rows["events"][0]  # duplicate_rejected's content
    records = idempotency_records(db)[before:]
    assert len(records) == 2 and all("[REDACTED:openai_api_key]" in r for r in records)
    assert all(carries_no_secret(text) for texts in [*rows.values(), records] for text in texts)

    # A retry with the same Idempotency-Key gets the first answer; one that differs only in a
    # redacted value is the same write as stored (the record compares the redacted request).
    assert service.write_memory(caller, WriteBody.model_validate(body), "write-1") == (201, first)
    other = {**body, "content": body["content"].replace(CARD, "4916 3386 4470 3356")}
    assert service.write_memory(caller, WriteBody.model_validate(other), "write-1") == (201, first)


def test_a_messages_write_sends_the_extractor_and_the_classifier_only_redacted_text(endpoint, db, new_key):
    fake, embedder = endpoint
    caller, _ = new_key()
    before = len(idempotency_records(db))
    service.write_memory(
        caller,
        WriteBody.model_validate({"content": "User keeps an API key in the vault", "user_id": "alice"}),
    )
    conversation = {
        "messages": [
            {
                "role": "user",
                "content": f"I keep my API key {OPENAI_KEY} in the vault. I pay with card {CARD}.",
            },
            {"role": "assistant", "content": f"Noted, your card {CARD} is saved."},
        ],
        "user_id": "alice",
        "auto_supersede": True,
    }
    status, result = service.write_memory(caller, WriteBody.model_validate(conversation), "conversation-1")
    assert status == 201
    assert [f.memory.content for f in result.facts] == [
        "User keep my API key [REDACTED:openai_api_key] in the vault",
        "User pay with card [REDACTED:card_number]",
    ]
    (extraction,) = model_requests(fake, "record_facts")
    assert "[REDACTED:openai_api_key]" in extraction and "[REDACTED:card_number]" in extraction
    classifications = model_requests(fake, "record_verdicts")
    assert classifications, "a fact met the earlier memory: the classifier was called"
    assert all(carries_no_secret(text) for text in [extraction, *classifications, *embedder.texts])

    rows = tenant_rows(db, caller)
    records = idempotency_records(db)[before:]
    assert len(rows["memories"]) == 3 and len(records) == 1
    assert "[REDACTED:card_number]" in records[0]
    assert all(carries_no_secret(text) for texts in [*rows.values(), records] for text in texts)


class InventingExtractor:
    """A model that writes a credential no message held whole (it put two halves together)."""

    name = "scripted"

    def extract(self, messages, model, relations=()):
        fact = {"content": f"User's card number is {CARD}", "topic": "financial", "message_index": 0}
        return Extraction(validate_facts([fact], messages), "scripted", "scripted-model", "test")


def test_an_extracted_fact_is_redacted_too(db, new_key):
    from pipeline_support import ScriptedClassifier, deps

    caller, _ = new_key()
    base = deps(ScriptedClassifier())
    extractor = InventingExtractor()
    request = MessagesWriteRequest(
        messages=[{"role": "user", "content": "my card starts 4539 1488, ends 0343 6467"}]
    )
    outcome = write_messages(
        caller,
        request,
        type(base)(base.db, base.embedder, base.classifier_factory, base.flags, lambda: extractor),
    )
    assert [f.memory.content for f in outcome.result.facts] == [
        "User's card number is [REDACTED:card_number]"
    ]


def refuse(db, caller) -> None:
    with db.transaction() as conn:
        keys.update_key_settings(conn, caller, SettingsPatch(secrets="refuse"))


@pytest.mark.parametrize(
    ("body", "fields"),
    [
        ({"content": f"my card is {CARD}"}, ["content"]),
        (
            {
                "messages": [
                    {"role": "user", "content": "hi"},
                    {"role": "user", "content": f"key {OPENAI_KEY}"},
                ]
            },
            ["messages[1].content"],
        ),
        ({"content": "User likes tea", "metadata": {"login": {"password": PASSWORD}}}, ["metadata"]),
    ],
)
def test_a_key_that_refuses_secrets_gets_a_422_and_nothing_is_stored_or_sent(
    endpoint, db, new_key, body, fields
):
    fake, embedder = endpoint
    caller, _ = new_key()
    refuse(db, caller)
    before = len(idempotency_records(db))
    with pytest.raises(SensitiveContent) as refused:
        service.write_memory(caller, WriteBody.model_validate({**body, "auto_supersede": True}), "refused-1")
    error = refused.value
    assert (error.status_code, error.code) == (422, "sensitive_content")
    assert [d["field"] for d in error.details] == fields
    assert carries_no_secret(error.message + json.dumps(error.details))
    rows = tenant_rows(db, caller)
    assert rows["memories"] == [] and len(rows["events"]) == 1  # the settings change alone
    assert len(idempotency_records(db)) == before, "a refused write keeps no Idempotency-Key record"
    assert fake.requests == [] and embedder.texts == []
    # a write without credentials still goes through
    status, _ = service.write_memory(
        caller, WriteBody.model_validate({"content": "User likes tea"}), "refused-1"
    )
    assert status == 201


def test_a_manual_supersession_redacts_its_new_memory_or_refuses_it(endpoint, db, new_key):
    caller, _ = new_key()
    _, old = service.write_memory(caller, WriteBody.model_validate({"content": "User pays by bank transfer"}))
    request = SupersedeRequest(
        content=f"User pays with card {CARD}", metadata={"pin": "4410", "door_code": "7731", "colour": "blue"}
    )
    status, result = service.supersede_memory(caller, old.memory.id, request, "supersede-1")
    assert status == 201
    assert result.memory.content == "User pays with card [REDACTED:card_number]"
    assert result.memory.metadata == {
        "pin": "[REDACTED:password]",
        "door_code": "[REDACTED:password]",
        "colour": "blue",
    }
    assert all(carries_no_secret(text) for texts in tenant_rows(db, caller).values() for text in texts)

    refuse(db, caller)
    with pytest.raises(SensitiveContent):
        service.supersede_memory(caller, result.memory.id, SupersedeRequest(content=f"key {OPENAI_KEY}"))
    # the link form carries no text to scan
    _, other = service.write_memory(caller, WriteBody.model_validate({"content": "User pays cash"}))
    status, _ = service.supersede_memory(
        caller, result.memory.id, SupersedeRequest(superseded_by=other.memory.id)
    )
    assert status == 201


def test_the_setting_defaults_to_redact_is_patched_audited_and_kept_by_a_rotation(db, new_key):
    caller, _ = new_key()
    assert service.get_settings(caller).secrets == "redact"
    assert service.update_settings(caller, SettingsPatch(secrets="refuse")).secrets == "refuse"
    assert service.get_settings(caller).secrets == "refuse"
    # null and absent leave it as it is
    assert (
        service.update_settings(caller, SettingsPatch.model_validate({"secrets": None})).secrets == "refuse"
    )
    assert service.update_settings(caller, SettingsPatch(min_confidence=0.9)).secrets == "refuse"
    with db.transaction() as conn:
        events = conn.execute(
            "SELECT details FROM audit_events WHERE tenant_id = %s AND type = 'settings_updated' ORDER BY created_at",
            (caller.tenant_id,),
        ).fetchall()
    assert events[0][0]["changes"] == {"secrets": {"from": "redact", "to": "refuse"}}
    for bad in ("REDACT", "block", "", 1, True, ["refuse"]):
        with pytest.raises(ValidationError):
            SettingsPatch.model_validate({"secrets": bad})
    with db.transaction() as conn:
        rotated, _ = keys.rotate_key(conn, caller.api_key_id)
    assert service.get_settings(rotated).secrets == "refuse"
