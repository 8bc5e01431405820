"""`aurra eval`: how well a classifier judges the hand-labeled cases, and how often candidate
search surfaces the fact a new one should replace."""

from __future__ import annotations

import json
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aurra_core.classifiers.base import Candidate, Classifier
from aurra_core.config import DEFAULT_CLASSIFIER_MODEL, DEFAULT_EXCLUDED_CATEGORIES
from aurra_core.errors import ClassifierError

LABELS = ("contradicts", "supplements", "duplicate", "new_fact")
THRESHOLDS = (0.85, 0.90, 0.95)


def load_cases(path: Path) -> list[dict[str, Any]]:
    """One labeled case per line; a line that is not a JSON object is a ValueError naming it."""
    cases = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            case = json.loads(line)
        except json.JSONDecodeError:
            case = None
        if (
            not isinstance(case, dict)
            or not isinstance(case.get("old"), dict)
            or not isinstance(case.get("new"), dict)
        ):
            raise ValueError(f"{path}:{number}: not a labeled case (a JSON object with old, new and label)")
        cases.append(case)
    return cases


def gated(case: dict[str, Any]) -> bool:
    """The service never lets these reach a classifier: they are reported apart."""
    return (
        case["new"].get("topic") in DEFAULT_EXCLUDED_CATEGORIES
        or case["old"].get("topic") in DEFAULT_EXCLUDED_CATEGORIES
    )


@dataclass
class Judged:
    case: dict[str, Any]
    label: str | None  # None: the classifier failed
    confidence: float
    reason: str

    @property
    def expected(self) -> set[str]:
        return {self.case["label"], *self.case.get("also", [])}

    def acted(self, threshold: float) -> bool:
        return self.label == "contradicts" and self.confidence >= threshold


def judge(
    classifier: Classifier, cases: list[dict[str, Any]], model: str = DEFAULT_CLASSIFIER_MODEL
) -> list[Judged]:
    out = []
    for case in cases:
        candidate = Candidate(uuid.uuid4(), case["old"]["content"], case["old"].get("topic", "general"), 1.0)
        try:
            result = classifier.classify(
                case["new"]["content"], case["new"].get("topic", "general"), [candidate], model
            )
            v = next(v for v in result.verdicts if v.candidate_id == candidate.id)
            out.append(Judged(case, v.verdict.value, v.confidence, v.reason))
        except (ClassifierError, StopIteration) as exc:
            out.append(Judged(case, None, 0.0, f"classifier error: {exc}"))
    return out


def _pr(judged: list[Judged], threshold: float) -> tuple[float, float]:
    acted = [j for j in judged if j.acted(threshold)]
    true_positive = sum(1 for j in acted if j.case["label"] == "contradicts")
    positives = sum(1 for j in judged if j.case["label"] == "contradicts")
    precision = true_positive / len(acted) if acted else 1.0
    recall = true_positive / positives if positives else 1.0
    return precision, recall


@dataclass
class Report:
    classifier: str
    min_confidence: float
    judged: list[Judged]
    gated: list[Judged] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        j = self.judged
        precision, recall = _pr(j, self.min_confidence)
        confusion = {label: Counter() for label in LABELS}
        for x in j:
            confusion[x.case["label"]][x.label or "error"] += 1
        categories: dict[str, list[Judged]] = defaultdict(list)
        for x in j:
            categories[x.case["category"]].append(x)
        per_category = {}
        for name, items in sorted(categories.items()):
            p, r = _pr(items, self.min_confidence)
            per_category[name] = {
                "cases": len(items),
                "accuracy": _accuracy(items),
                "precision": p,
                "recall": r,
            }
        false_positives = [
            {
                "id": x.case["id"],
                "label": x.case["label"],
                "confidence": x.confidence,
                "reason": x.reason,
                "old": x.case["old"]["content"],
                "new": x.case["new"]["content"],
            }
            for x in j
            if x.acted(self.min_confidence) and x.case["label"] != "contradicts"
        ]
        return {
            "classifier": self.classifier,
            "min_confidence": self.min_confidence,
            "cases": len(j),
            "precision": precision,
            "recall": recall,
            "accuracy": _accuracy(j),
            "errors": sum(1 for x in j if x.label is None),
            "at_thresholds": {
                f"{t:.2f}": dict(zip(("precision", "recall"), _pr(j, t), strict=True)) for t in THRESHOLDS
            },
            "confusion": {label: dict(row) for label, row in confusion.items()},
            "per_category": per_category,
            "false_positives": false_positives,
            "gated": {
                "cases": len(self.gated),
                "note": "excluded topics never reach a classifier in the service",
                "would_have_acted": sum(1 for x in self.gated if x.acted(self.min_confidence)),
                "accuracy": _accuracy(self.gated) if self.gated else None,
            },
        }


def _accuracy(items: list[Judged]) -> float:
    return sum(1 for x in items if x.label in x.expected) / len(items) if items else 0.0


def evaluate(
    classifier: Classifier, name: str, cases: list[dict[str, Any]], min_confidence: float = 0.85
) -> Report:
    open_cases = [c for c in cases if not gated(c)]
    closed = [c for c in cases if gated(c)]
    return Report(name, min_confidence, judge(classifier, open_cases), judge(classifier, closed))


def format_report(d: dict[str, Any]) -> str:
    lines = [
        f"classifier {d['classifier']} on {d['cases']} cases (+{d['gated']['cases']} in excluded topics, reported apart)",
        f"contradicts acted on at >= {d['min_confidence']:.2f}: precision {d['precision']:.3f}, recall {d['recall']:.3f}",
        f"accuracy over all verdicts: {d['accuracy']:.3f}    classifier errors: {d['errors']}",
        "",
        "threshold  precision  recall",
        *[f"  {t}      {v['precision']:.3f}    {v['recall']:.3f}" for t, v in d["at_thresholds"].items()],
        "",
        "confusion (rows: label, columns: verdict)",
        "              " + "".join(f"{c:>13}" for c in (*LABELS, "error")),
        *[
            f"{label:<14}" + "".join(f"{d['confusion'][label].get(c, 0):>13}" for c in (*LABELS, "error"))
            for label in LABELS
        ],
        "",
        "per category: cases  accuracy  precision  recall",
        *[
            f"  {name:<22}{v['cases']:>5}  {v['accuracy']:>8.2f}  {v['precision']:>9.2f}  {v['recall']:>6.2f}"
            for name, v in d["per_category"].items()
        ],
        "",
        f"false positives ({len(d['false_positives'])}):",
        *[
            f"  {fp['id']} [{fp['label']}] {fp['confidence']:.2f} {fp['old']!r} -> {fp['new']!r}: {fp['reason']}"
            for fp in d["false_positives"]
        ],
        "",
        f"excluded topics: {d['gated']['cases']} cases; the classifier would have acted on "
        f"{d['gated']['would_have_acted']} had the gate not stopped them",
    ]
    return "\n".join(lines)
