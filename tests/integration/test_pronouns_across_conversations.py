"""A "she" or "he" in a later conversation is read as the one relative of that gender the user's
memories name (storage/store.relations_named, through a messages write), and only the user's
own memories say who that is: not another user's of the tenant, nor another tenant's."""

from __future__ import annotations

from datetime import UTC, datetime

from pipeline_support import deps

from aurra_core.classifiers.rules import RulesClassifier
from aurra_core.extractors.rules import RulesExtractor
from aurra_core.models import MessagesWriteRequest, Scope
from aurra_core.storage import store
from aurra_core.write_path.pipeline import write_messages


def conversation(caller, user_id, text, day):
    base = deps(RulesClassifier())
    extractor = RulesExtractor()
    dependencies = type(base)(base.db, base.embedder, base.classifier_factory, base.flags, lambda: extractor)
    request = MessagesWriteRequest(
        messages=[{"role": "user", "content": text}],
        user_id=user_id,
        valid_from=datetime(2026, 3, day, tzinfo=UTC),
        auto_supersede=True,
    )
    outcome = write_messages(caller, request, dependencies)
    assert outcome.status_code == 201
    return [f.memory.content for f in outcome.result.facts]


def test_she_in_a_later_conversation_is_the_sister_the_users_memories_name(db, new_key):
    caller, _ = new_key()
    assert conversation(
        caller, "robin", "can you help me plan a trip to see my sister, she lives in Graz", 1
    ) == ["User's sister lives in Graz"]
    with db.tenant_transaction(caller.tenant_id) as conn:
        assert store.relations_named(conn, caller.tenant_id, Scope("robin", None)) == {("sister", "lives")}
    assert conversation(caller, "robin", "quick update: she's in Linz now", 2) == [
        "User's sister is in Linz now"
    ]


def test_only_the_users_own_memories_say_who_she_is(db, new_key):
    caller, _ = new_key()
    other_tenant, _ = new_key()
    conversation(caller, "robin", "my sister lives in Graz", 1)
    conversation(other_tenant, "sam", "my sister lives in Oslo", 1)
    # another user of the tenant, and the same user id in another tenant: no sister known
    assert conversation(caller, "kim", "she's in Linz now", 2) == ["User said: she's in Linz now"]
    assert conversation(other_tenant, "robin", "she's in Linz now", 2) == ["User said: she's in Linz now"]
    with db.tenant_transaction(other_tenant.tenant_id) as conn:
        assert store.relations_named(conn, other_tenant.tenant_id, Scope("robin", None)) == set()


class _RecordingModelExtractor:
    """An extractor that, as a model's does, does not read the relations: what it is passed."""

    name = "recording"

    def __init__(self) -> None:
        self.passed: list[object] = []

    def extract(self, messages, model, relations=()):
        self.passed.append(relations)
        return RulesExtractor().extract(messages, model)


def test_an_extractor_that_does_not_read_relations_is_passed_none(db, new_key):
    caller, _ = new_key()
    conversation(caller, "robin", "my sister lives in Graz", 1)
    recording = _RecordingModelExtractor()
    base = deps(RulesClassifier())
    dependencies = type(base)(base.db, base.embedder, base.classifier_factory, base.flags, lambda: recording)
    request = MessagesWriteRequest(
        messages=[{"role": "user", "content": "she's in Linz now"}],
        user_id="robin",
        valid_from=datetime(2026, 3, 2, tzinfo=UTC),
    )
    outcome = write_messages(caller, request, dependencies)
    assert [f.memory.content for f in outcome.result.facts] == ["User said: she's in Linz now"]
    assert recording.passed == [set()]
