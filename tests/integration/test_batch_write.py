"""Batch writes on the real PostgreSQL: one transaction (a failure after some facts are stored
leaves none), valid-time order within the batch, and Level 2 seeing the batch's earlier facts."""

from __future__ import annotations

import numpy as np
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


def test_a_fact_takes_its_source_and_expiry_as_a_content_write_does(configure, db, new_key):
    caller, _ = new_key()
    facts = [
        BatchFact(
            content="User is at the Lisbon office this week",
            valid_from="2026-03-02T00:00:00Z",
            valid_to="2026-03-07T00:00:00Z",
            source={"type": "calendar", "id": "evt-42", "uri": "https://cal.example.com/evt-42"},
        ),
        BatchFact(content="User likes tea", source={"type": "crm", "id": "contact-7"}),
    ]
    result = write_batch(caller, BatchWriteRequest(facts=facts), deps(ScriptedClassifier()))
    trip, tea = (r.memory for r in result.results)
    assert trip.valid_to is not None and trip.valid_to.isoformat() == "2026-03-07T00:00:00+00:00"
    assert trip.status == "expired"
    assert (trip.source.type, trip.source.id, trip.source.uri) == (
        "calendar",
        "evt-42",
        "https://cal.example.com/evt-42",
    )
    assert (tea.source.type, tea.source.id, tea.source.uri, tea.valid_to) == ("crm", "contact-7", None, None)

    def contents(**query) -> list[str]:
        page = queries.read_memory_page(caller, MemoryListQuery(limit=100, **query), db, LexicalEmbedder(384))
        return [m.content for m in page.memories]

    assert contents(as_of="2026-03-04T00:00:00Z") == [trip.content]
    assert trip.content not in contents(as_of="2026-03-08T00:00:00Z")
    assert contents(source_id="contact-7") == ["User likes tea"]


def test_an_expiry_before_now_without_a_valid_time_names_its_fact(configure, db, new_key):
    from aurra_core.errors import ValidationFailed

    caller, _ = new_key()
    facts = [
        BatchFact(content="User likes tea"),
        BatchFact(content="User is away", valid_to="2020-01-01T00:00:00Z"),
    ]
    with pytest.raises(ValidationFailed) as refused:
        write_batch(caller, BatchWriteRequest(facts=facts), deps(ScriptedClassifier()))
    assert [d["field"] for d in refused.value.details] == ["facts[1].valid_to"]
    assert _contents(caller, db) == []


def test_a_slow_classifier_leaves_facts_unclassified_and_the_batch_answers_in_time(configure, db, new_key):
    """The batch's deadline is a messages write's (AURRA_MESSAGES_WRITE_DEADLINE_S, 5 s here):
    the first classification starts at once and is abandoned at its 4 s limit; by then no
    other can end before the deadline, so the later facts are stored unclassified."""
    import threading
    import time

    from aurra_core.models import SkippedReason, WriteRequest
    from aurra_core.write_path.pipeline import write_memory

    configure(AURRA_MESSAGES_WRITE_DEADLINE_S="5", AURRA_CLASSIFIER_TIMEOUT_S="4")
    caller, _ = new_key()
    cities = ["Lisbon", "Oslo", "Lima"]
    for city in cities:
        write_memory(
            caller,
            WriteRequest(content=f"User has a flat in {city}", user_id="ana"),
            deps(ScriptedClassifier()),
        )
    release = threading.Event()
    hanging = ScriptedClassifier(before_answer=lambda: release.wait(120))
    facts = [BatchFact(content=f"User has a flat in {city} now", user_id="ana") for city in cities]
    started = time.monotonic()
    try:
        result = write_batch(caller, BatchWriteRequest(facts=facts, auto_supersede=True), deps(hanging))
    finally:
        release.set()
    elapsed = time.monotonic() - started
    assert elapsed < 5 + 3.0, f"answered after {elapsed:.1f} s"
    assert len(hanging.calls) == 1  # the first call started at once; none after it could end in time
    outcomes = [r.auto_supersede for r in result.results]
    assert all(r.created for r in result.results)
    assert all(o.skipped_reason == SkippedReason.CLASSIFIER_ERROR and o.ran for o in outcomes)
    assert len(_contents(caller, db)) == 6


def test_a_level_2_batch_reads_each_facts_clock_once_and_keeps_the_change_streams_order(
    configure, db, new_key, monkeypatch
):
    """A fact that acts on a memory reads the clock with that memory's lock, not again as its
    store begins; one that Level 2 ran on and acted on nothing has its auto_supersede.completed
    sent with its insert, still right after its memory.created."""
    import psycopg

    caller, _ = new_key()
    sent: list[str] = []
    execute = psycopg.Cursor.execute

    def counted(self, query, params=None, **kwargs):
        sent.append(" ".join(str(query).split()))
        return execute(self, query, params, **kwargs)

    monkeypatch.setattr(psycopg.Cursor, "execute", counted)
    facts = [
        BatchFact(content="User lives in Paris", topic="location", valid_from="2019-01-01T00:00:00Z"),
        BatchFact(content="User lives in Berlin", topic="location", valid_from="2024-01-01T00:00:00Z"),
        BatchFact(
            content="User lives in Berlin with a cat", topic="location", valid_from="2025-01-01T00:00:00Z"
        ),
    ]
    classifier = ScriptedClassifier(contradicts_when("User lives in Paris"))
    paris, berlin, cat = write_batch(
        caller, BatchWriteRequest(facts=facts, auto_supersede=True), deps(classifier)
    ).results
    monkeypatch.undo()
    assert berlin.auto_supersede.supersession.superseded_id == paris.memory.id
    assert cat.auto_supersede.ran and cat.auto_supersede.supersession is None
    # Paris (no candidates) and the cat (acted on nothing) read it as their store begins; Berlin
    # with Paris's lock.
    assert sum(s == "SELECT clock_timestamp()" for s in sent) == 2
    assert sum("clock_timestamp() AS locked_at" in s for s in sent) == 1
    with db.tenant_transaction(caller.tenant_id) as conn:
        stream = conn.execute(
            "SELECT type, memory_id FROM change_events WHERE tenant_id = %s ORDER BY seq", (caller.tenant_id,)
        ).fetchall()
    assert stream[-2:] == [("memory.created", cat.memory.id), ("auto_supersede.completed", cat.memory.id)]


class CountingManyEmbedder(LexicalEmbedder):
    """The real offline embedder with an `embed_many`, counting how it is asked."""

    def __init__(self) -> None:
        super().__init__(384)
        self.many_calls: list[list[str]] = []
        self.single_calls = 0

    def embed(self, text: str):
        self.single_calls += 1
        return super().embed(text)

    def embed_many(self, texts: list[str]):
        self.many_calls.append(list(texts))
        return [LexicalEmbedder.embed(self, text) for text in texts]


@pytest.mark.parametrize("level2", [False, True])
def test_a_batch_is_embedded_in_one_call_where_the_embedder_can(configure, db, new_key, level2):
    caller, _ = new_key()
    facts = [BatchFact(content=f"User read book {i}", user_id="reader") for i in range(5)]
    facts.append(BatchFact(content="User read book 0", user_id="other"))  # the same text, embedded once
    dependencies = deps(ScriptedClassifier(), level2)
    embedder = CountingManyEmbedder()
    counted = type(dependencies)(
        db=dependencies.db,
        embedder=embedder,
        classifier_factory=dependencies.classifier_factory,
        flags=dependencies.flags,
    )
    result = write_batch(caller, BatchWriteRequest(facts=facts, auto_supersede=level2), counted)
    assert embedder.many_calls == [[f"User read book {i}" for i in range(5)]]
    assert embedder.single_calls == 0
    assert [r.memory.content for r in result.results] == [f.content for f in facts]
    # The vectors stored are the embedder's, as one at a time would have given them.
    with db.transaction() as conn:
        stored = conn.execute(
            "SELECT content, embedding::real[] FROM memory_versions WHERE tenant_id = %s", (caller.tenant_id,)
        ).fetchall()
    assert len(stored) == 6
    for content, vector in stored:
        expected = LexicalEmbedder(384).embed(content).to_numpy()
        assert np.array(vector, dtype=np.float32).tobytes() == expected.tobytes(), content
