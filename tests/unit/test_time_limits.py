"""Time limits (runtime/deadline.py): a call abandoned at its deadline whatever it does, and the
offline classifier and extractor stopping their own work there.

Budgets here are generous on purpose (a shared machine runs these): each bounds what would
otherwise take many times longer, so a regression still fails them.
"""

from __future__ import annotations

import threading
import time
import uuid

import pytest

from aurra_core.classifiers.base import Candidate
from aurra_core.classifiers.factory import classification_limit_s, create_classifier
from aurra_core.classifiers.rules import RulesClassifier
from aurra_core.errors import ClassifierError, ExtractionError
from aurra_core.extractors.factory import create_extractor, extraction_limit_s
from aurra_core.extractors.rules import RulesExtractor
from aurra_core.models import Message
from aurra_core.runtime import deadline
from aurra_core.runtime.config import ServiceConfig
from tests.fakes.adversarial_facts import adversarial_pair


class Late(Exception):
    pass


def _candidates(count: int) -> tuple[str, list[Candidate]]:
    """A 4,000-character adversarial fact and `count` distinct candidates like it: about 0.06 s of
    CPU each for the rules classifier, so `count` of them take many times the limits below."""
    old, new = adversarial_pair("clause", 4000)
    return new, [Candidate(uuid.uuid4(), old[: 4000 - i], "general", 0.9) for i in range(count)]


def test_a_call_that_never_answers_is_abandoned_at_its_deadline() -> None:
    release = threading.Event()
    started = time.monotonic()
    with pytest.raises(Late, match="did not answer within"):
        deadline.call_within(0.2, lambda: release.wait(60), Late)
    assert time.monotonic() - started < 5.0  # not the 60 s the call would take
    release.set()


def test_a_call_within_its_deadline_answers_or_raises_as_itself() -> None:
    assert deadline.call_within(30, lambda: 42, Late) == 42

    def fails() -> None:
        raise ValueError("its own error")

    with pytest.raises(ValueError, match="its own error"):
        deadline.call_within(30, fails, Late)


def test_the_work_sees_its_deadline_and_an_inner_one_is_never_later() -> None:
    assert deadline.remaining() is None
    deadline.check()  # no deadline: nothing to check
    # an inner deadline cannot extend the outer one
    with deadline.until(time.monotonic() + 0.05), deadline.until(time.monotonic() + 60):
        left = deadline.remaining()
        assert left is not None and left <= 0.05
        time.sleep(0.1)
        with pytest.raises(deadline.DeadlinePassed):
            deadline.check()
    assert deadline.remaining() is None


def test_the_rules_classifier_stops_at_its_limit() -> None:
    new, candidates = _candidates(60)  # about 3.5 s of CPU to judge them all
    started = time.thread_time()
    with pytest.raises(ClassifierError, match="time limit"):
        RulesClassifier(limit_s=0.2).classify(new, "general", candidates, "-")
    assert time.thread_time() - started < 1.5


def test_an_abandoned_rules_classification_stops_its_own_work() -> None:
    # Abandoned at its deadline, the classification's thread still sees the deadline and stops
    # at its next step, instead of burning a core for the 6 s of CPU its 100 pairs take: it ends
    # in an error, not with a result (whatever the machine's load makes of the wall time).
    new, candidates = _candidates(100)
    ended = threading.Event()
    how: list[str] = []

    def classify() -> object:
        try:
            result = RulesClassifier().classify(new, "general", candidates, "-")
            how.append("ran on")
            return result
        except ClassifierError:  # the classifier's word for its deadline having passed
            how.append("stopped")
            raise
        finally:
            ended.set()

    # Late when the caller's wait ends first; the classifier's own error when, on a loaded host,
    # its check at the deadline ends the thread before the caller's wait wakes up.
    with pytest.raises((Late, ClassifierError)):
        deadline.call_within(0.2, classify, Late)
    assert ended.wait(120.0)
    assert how == ["stopped"]


def test_the_rules_extractor_stops_at_its_limit() -> None:
    messages = [Message(role="user", content="I use Vim. I live in Lisbon. " * 250) for _ in range(50)]
    started = time.monotonic()
    with pytest.raises(ExtractionError, match="time limit"):
        RulesExtractor(limit_s=0.05).extract(messages, "-")
    assert time.monotonic() - started < 5.0


def test_each_classifier_and_extractor_gets_its_timeout_as_its_limit() -> None:
    rules = ServiceConfig(classifier="rules", classifier_timeout_s=3, extractor_timeout_s=5)
    assert classification_limit_s(rules) == 3 and extraction_limit_s(rules) == 5
    assert create_classifier(rules).limit_s == 3  # type: ignore[attr-defined]
    assert create_extractor(rules).limit_s == 5  # type: ignore[attr-defined]
    # a model: two attempts of its timeout and the SDK's backoff
    model = ServiceConfig(classifier="openai", classifier_timeout_s=3, extractor_timeout_s=5)
    assert classification_limit_s(model) == 7 and extraction_limit_s(model) == 11
