"""Test doubles of the classifier port (never of storage): scripted verdicts, recorded calls."""

from __future__ import annotations

import threading
from collections.abc import Callable

from aurra_core.classifiers.base import Candidate, Classification, ClassifierVerdict
from aurra_core.embedders import LexicalEmbedder
from aurra_core.errors import ClassifierError
from aurra_core.models import Verdict
from aurra_core.runtime.flags import EnvFlagSource
from aurra_core.storage.db import get_database
from aurra_core.write_path.pipeline import WriteDependencies


class ScriptedClassifier:
    """Answers `rule(new_content, candidate)` for each candidate and records every call."""

    def __init__(
        self,
        rule: Callable[[str, Candidate], tuple[Verdict, float]] | None = None,
        fail: bool = False,
        before_answer: Callable[[], None] | None = None,
    ) -> None:
        self.rule = rule or (lambda new, c: (Verdict.NEW_FACT, 0.5))
        self.fail = fail
        self.before_answer = before_answer
        self.calls: list[tuple[str, list[Candidate]]] = []
        self._lock = threading.Lock()

    def classify(self, new_content, new_topic, candidates, model):
        with self._lock:
            self.calls.append((new_content, list(candidates)))
        if self.before_answer:
            self.before_answer()
        if self.fail:
            raise ClassifierError("scripted failure")
        verdicts = []
        for c in candidates:
            label, confidence = self.rule(new_content, c)
            verdicts.append(ClassifierVerdict(c.id, label, confidence, f"scripted {label.value}"))
        return Classification(verdicts, "scripted-model", {"prompt_version": "test"})


def contradicts_when(old_text: str, confidence: float = 0.95):
    def rule(new, candidate):
        if candidate.content == old_text:
            return Verdict.CONTRADICTS, confidence
        return Verdict.NEW_FACT, 0.6

    return rule


def deps(classifier, level2: bool = True) -> WriteDependencies:
    return WriteDependencies(
        db=get_database(),
        embedder=LexicalEmbedder(384),
        classifier_factory=lambda: classifier,
        flags=EnvFlagSource(level2),
    )
