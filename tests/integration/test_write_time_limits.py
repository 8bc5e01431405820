"""A write answers within its time limits whatever its classifier or extractor does, on the real
PostgreSQL: a classification is abandoned at its limit (AURRA_CLASSIFIER_TIMEOUT_S) and, in a
messages write, at the request's deadline (AURRA_MESSAGES_WRITE_DEADLINE_S); the fact is stored
anyway, as after a classifier error. An extraction past the deadline writes nothing (503).

The margin over each deadline is the time to store the facts, generous for a shared machine: each
slow part here would otherwise hold the request for a minute or more.
"""

from __future__ import annotations

import threading
import time

import pytest
from pipeline_support import ScriptedClassifier, deps

from aurra_core.classifiers.factory import create_classifier
from aurra_core.classifiers.rules import RulesClassifier
from aurra_core.embedders import LexicalEmbedder
from aurra_core.errors import ExtractionUnavailable
from aurra_core.extractors.rules import RulesExtractor
from aurra_core.models import MemoryListQuery, MessagesWriteRequest, SkippedReason, WriteRequest
from aurra_core.runtime.config import get_config
from aurra_core.storage import queries
from aurra_core.write_path.pipeline import WriteDependencies, write_memory, write_messages
from tests.fakes.adversarial_facts import adversarial_pair
from tests.fakes.chat_completions import FakeChatCompletions

pytestmark = pytest.mark.integration

# Seconds a request may take past its deadline: its one transaction, on a loaded machine.
MARGIN_S = 3.0
CITIES = ["Lisbon", "Oslo", "Lima", "Quito"]
VIEW = " ".join(f"with a view of the river from room {n} and a kitchen with {n} chairs" for n in range(40))


def _long_memory(city: str) -> str:
    return f"User has a flat in {city} {VIEW}"[:3900]


def _long_message(city: str) -> dict[str, str]:
    return {"role": "user", "content": f"I have a flat in {city} now {VIEW}"[:3900]}


def _seed(caller, user_id: str, contents: list[str]) -> None:
    for content in contents:
        write_memory(
            caller,
            WriteRequest(content=content, topic="general", user_id=user_id),
            deps(ScriptedClassifier()),
        )


def _messages_deps(classifier, extractor=None) -> WriteDependencies:
    base = deps(classifier)
    chosen = extractor or RulesExtractor()
    return WriteDependencies(base.db, base.embedder, base.classifier_factory, base.flags, lambda: chosen)


def _current(caller, db, user_id: str) -> list[str]:
    page = queries.read_memory_page(
        caller, MemoryListQuery(limit=100, user_id=user_id), db, LexicalEmbedder(384)
    )
    return [memory.content for memory in page.memories]


def _timed_conversation(caller, classifier, messages, user_id, extractor=None):
    started = time.monotonic()
    request = MessagesWriteRequest(messages=messages, user_id=user_id, auto_supersede=True)
    outcome = write_messages(caller, request, _messages_deps(classifier, extractor))
    return outcome, time.monotonic() - started


def test_a_messages_write_answers_by_its_deadline_whatever_the_classifier_does(configure, db, new_key):
    """Four long messages against four long memories, and a classifier that never answers: the
    red team's 50 s request. Classifications may start in the first second (5 s less the 4 s a
    classification may take); the first three are abandoned at 4 s, the fourth never starts."""
    configure(AURRA_MESSAGES_WRITE_DEADLINE_S="5", AURRA_CLASSIFIER_TIMEOUT_S="4")
    caller, _ = new_key()
    _seed(caller, "ana", [_long_memory(city) for city in CITIES])
    release = threading.Event()
    hanging = ScriptedClassifier(before_answer=lambda: release.wait(120))
    try:
        outcome, elapsed = _timed_conversation(caller, hanging, [_long_message(c) for c in CITIES], "ana")
    finally:
        release.set()
    assert elapsed < 5 + MARGIN_S, f"answered after {elapsed:.1f} s"
    facts = outcome.result.facts
    assert len(facts) == 4 and all(f.created for f in facts)
    assert all(f.auto_supersede.skipped_reason == SkippedReason.CLASSIFIER_ERROR for f in facts)
    assert all(f.auto_supersede.ran and f.auto_supersede.candidates_examined for f in facts)
    stored = _current(caller, db, "ana")
    assert len(stored) == 8 and {f.memory.content for f in facts} <= set(stored)


def test_the_rules_classifier_on_adversarial_facts_is_stopped_at_its_limit(configure, db, new_key):
    """The real rules classifier, three 4,000-character adversarial candidates per fact: each
    classification costs far more than its 10 ms limit (about 0.3 s of CPU), so each is cut there
    and its fact kept."""
    configure(AURRA_MESSAGES_WRITE_DEADLINE_S="10", AURRA_CLASSIFIER_TIMEOUT_S="0.01")
    caller, _ = new_key()
    old, new = adversarial_pair("clause_past", 3990)  # no sentence breaks: one fact a message
    _seed(caller, "bo", [f"{old[: 3990 - n]} {n}" for n in range(3)])
    conversation = [{"role": "user", "content": f"I {new[: 3990 - n]} {n}"} for n in range(2)]
    outcome, elapsed = _timed_conversation(caller, RulesClassifier(), conversation, "bo")
    assert elapsed < 10 + MARGIN_S
    facts = outcome.result.facts
    assert len(facts) == 2 and all(f.created for f in facts)
    assert all(f.auto_supersede.skipped_reason == SkippedReason.CLASSIFIER_ERROR for f in facts)
    assert len(_current(caller, db, "bo")) == 5


def test_a_model_that_does_not_answer_in_time_leaves_every_fact_stored(configure, db, new_key):
    """The real OpenAI-compatible classifier against a local endpoint that answers after 30 s:
    each call gives up after two attempts of 1 s, and the request answers by its 6 s deadline."""
    endpoint = FakeChatCompletions()
    endpoint.mode, endpoint.slow_s = "slow", 30.0
    try:
        configure(
            AURRA_CLASSIFIER="openai",
            AURRA_OPENAI_BASE_URL=endpoint.base_url,
            AURRA_OPENAI_API_KEY="sk-local",
            AURRA_OPENAI_MODEL="gpt-4o-mini",
            AURRA_CLASSIFIER_TIMEOUT_S="1",
            AURRA_MESSAGES_WRITE_DEADLINE_S="6",
        )
        caller, _ = new_key()
        _seed(caller, "cy", [_long_memory(city) for city in CITIES])
        model = create_classifier(get_config())
        outcome, elapsed = _timed_conversation(caller, model, [_long_message(c) for c in CITIES], "cy")
    finally:
        endpoint.close()
    assert elapsed < 6 + MARGIN_S, f"answered after {elapsed:.1f} s"
    facts = outcome.result.facts
    assert len(facts) == 4 and all(f.created for f in facts)
    assert all(f.auto_supersede.skipped_reason == SkippedReason.CLASSIFIER_ERROR for f in facts)
    assert len(_current(caller, db, "cy")) == 8


def test_an_extraction_past_the_deadline_writes_nothing(configure, db, new_key):
    """An extractor that never answers: its own limit is 6 s, the request's deadline 2 s."""
    configure(AURRA_MESSAGES_WRITE_DEADLINE_S="2", AURRA_EXTRACTOR_TIMEOUT_S="6")
    caller, _ = new_key()
    release = threading.Event()

    class Hanging:
        name = "hanging"

        def extract(self, messages, model, relations=()):
            release.wait(120)
            raise AssertionError("answered after the request was over")

    started = time.monotonic()
    try:
        with pytest.raises(ExtractionUnavailable):
            _timed_conversation(caller, ScriptedClassifier(), [_long_message("Lima")], "di", Hanging())
    finally:
        release.set()
    assert time.monotonic() - started < 2 + MARGIN_S
    assert _current(caller, db, "di") == []


def test_a_content_write_answers_by_its_classifiers_limit(configure, db, new_key):
    configure(AURRA_CLASSIFIER_TIMEOUT_S="1")
    caller, _ = new_key()
    _seed(caller, "ed", ["User lives in Lisbon"])
    release = threading.Event()
    hanging = ScriptedClassifier(before_answer=lambda: release.wait(120))
    started = time.monotonic()
    try:
        outcome = write_memory(
            caller,
            WriteRequest(
                content="User lives in Porto now", topic="general", user_id="ed", auto_supersede=True
            ),
            deps(hanging),
        )
    finally:
        release.set()
    assert time.monotonic() - started < 1 + MARGIN_S
    assert outcome.status_code == 201
    assert outcome.result.auto_supersede.skipped_reason == SkippedReason.CLASSIFIER_ERROR
    assert sorted(_current(caller, db, "ed")) == ["User lives in Lisbon", "User lives in Porto now"]
