"""Batch writes on the real PostgreSQL: one transaction (a failure after some facts are stored
leaves none), valid-time order within the batch, and Level 2 seeing the batch's earlier facts."""

from __future__ import annotations

import pytest
from pipeline_support import ScriptedClassifier, contradicts_when, deps

from aurra_core.embedders import LexicalEmbedder
from aurra_core.models import BatchFact, BatchWriteRequest, MemoryListQuery
from aurra_core.storage import queries
from aurra_core.write_path.batch import application_order, write_batch

pytestmark = pytest.mark.integration


class FailingOnCall(LexicalEmbedder):
    """The real offline embedder, failing on its `n`th call (a fault mid-batch)."""

    def __init__(self, n: int) -> None:
        super().__init__(384)
        self.n, self.calls = n, 0

    def embed(self, text: str):
        self.calls += 1
        if self.calls == self.n:
            raise RuntimeError("embedder down")
        return super().embed(text)


def _contents(caller, db) -> list[str]:
    page = queries.read_memory_page(caller, MemoryListQuery(limit=100), db, LexicalEmbedder(384))
    return sorted(m.content for m in page.memories)


def test_a_failure_after_facts_were_stored_leaves_none_of_the_batch(configure, db, new_key):
    caller, _ = new_key()
    facts = [BatchFact(content=f"User read book {i}", valid_from=f"202{i}-01-01T00:00:00Z") for i in range(4)]
    dependencies = deps(ScriptedClassifier())
    failing = type(dependencies)(
        db=dependencies.db,
        embedder=FailingOnCall(3),
        classifier_factory=dependencies.classifier_factory,
        flags=dependencies.flags,
    )
    # Level 2 on: the facts are stored one by one in the transaction; the third fails.
    with pytest.raises(RuntimeError, match="embedder down"):
        write_batch(caller, BatchWriteRequest(facts=facts, auto_supersede=True), failing)
    assert failing.embedder.calls == 3
    assert _contents(caller, db) == []
    result = write_batch(caller, BatchWriteRequest(facts=facts, auto_supersede=True), dependencies)
    assert [r.memory.content for r in result.results] == [f.content for f in facts]
    assert _contents(caller, db) == sorted(f.content for f in facts)


def test_valid_time_order_and_candidates_from_the_batch_itself(configure, db, new_key):
    caller, _ = new_key()
    classifier = ScriptedClassifier(contradicts_when("User lives in Paris"))
    facts = [
        BatchFact(content="User lives in Berlin", topic="location", valid_from="2024-01-01T00:00:00Z"),
        BatchFact(content="User lives in Paris", topic="location", valid_from="2019-01-01T00:00:00Z"),
        BatchFact(content="User likes tea"),
    ]
    assert application_order(facts) == [1, 0, 2]
    result = write_batch(caller, BatchWriteRequest(facts=facts, auto_supersede=True), deps(classifier))
    berlin, paris, _ = result.results
    # Paris was stored first (older); Berlin's candidates were Paris, from the same batch.
    first_content, first_candidates = classifier.calls[0]
    assert first_content == "User lives in Berlin"
    assert "User lives in Paris" in [c.content for c in first_candidates]
    assert berlin.auto_supersede.supersession is not None
    assert berlin.auto_supersede.supersession.superseded_id == paris.memory.id
    assert _contents(caller, db) == ["User likes tea", "User lives in Berlin"]


def test_level_2_off_stores_the_batch_at_one_transaction_time(configure, db, new_key):
    caller, _ = new_key()
    classifier = ScriptedClassifier(contradicts_when("User lives in Paris"))
    facts = [
        BatchFact(content="User lives in Paris", topic="location", valid_from="2019-01-01T00:00:00Z"),
        BatchFact(content="User lives in Berlin", topic="location", valid_from="2024-01-01T00:00:00Z"),
    ]
    result = write_batch(caller, BatchWriteRequest(facts=facts, auto_supersede=False), deps(classifier))
    assert classifier.calls == []
    assert {r.auto_supersede.skipped_reason for r in result.results} == {"auto_supersede_off"}
    assert len({r.memory.recorded_at for r in result.results}) == 1
    assert _contents(caller, db) == ["User lives in Berlin", "User lives in Paris"]


def test_a_batch_keeps_no_credentials_and_refuses_them_when_asked(new_key) -> None:
    """A batch's facts are screened like a single write's: redacted, or the whole batch refused."""
    from aurra_core import service
    from aurra_core.errors import SensitiveContent
    from aurra_core.models import SettingsPatch

    caller, _ = new_key()
    key = "sk-proj-" + "Q7vX2mK9pL4rT8wZ1cN6bH3jF5dS0aYe"
    request = BatchWriteRequest.model_validate(
        {"facts": [{"content": "User likes tea"}, {"content": f"User's OpenAI key is {key}"}]}
    )
    _, result = service.write_batch(caller, request)
    stored = [r.memory.content for r in result.results]
    assert key not in " ".join(stored) and "[REDACTED:openai_api_key]" in stored[1]

    service.update_settings(caller, SettingsPatch(secrets="refuse"))
    before = service.list_memories(caller, MemoryListQuery(limit=100)).memories
    with pytest.raises(SensitiveContent) as refused:
        service.write_batch(caller, request)
    assert any(d["field"] == "facts[1].content" for d in refused.value.details)
    assert service.list_memories(caller, MemoryListQuery(limit=100)).memories == before
