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
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


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
            "at_thresholds": {f"{t:.2f}": dict(zip(("precision", "recall"), _pr(j, t))) for t in THRESHOLDS},
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


def candidate_recall(cases: list[dict[str, Any]], distractors: int, database_url: str) -> dict[str, Any]:
    """Store every case's old fact among distractors in one tenant; how often does the right one
    reach the top 3 candidates for the case's new fact?"""
    import random

    from aurra_core import keys, store
    from aurra_core.config import CANDIDATE_LIMIT, get_config
    from aurra_core.db import Database
    from aurra_core.embeddings import get_embedder
    from aurra_core.ids import new_id

    embedder = get_embedder()
    config = get_config()
    db = Database(database_url)
    rng = random.Random(11)
    subjects = [
        "User",
        "The customer",
        "alice",
        "bob",
        "Priya",
        "Marco",
        "Acme Corp",
        "the team",
        "Kenji",
        "Fatima",
    ]
    topics = ["preferences", "work", "travel", "family", "devices", "billing", "projects", "food"]
    templates = [
        "{s} mentioned a meeting on {d}",
        "{s} likes {x}",
        "{s} asked about {x}",
        "{s} visited {p} last year",
        "{s} prefers {x} over {y}",
        "{s} has a call with {p} on {d}",
        "{s} bought {x} from {p}",
        "{s} reads about {x}",
    ]
    words = [
        "jazz",
        "sushi",
        "hiking",
        "Python",
        "kayaks",
        "spreadsheets",
        "tea",
        "podcasts",
        "chess",
        "Lisbon",
        "Kyoto",
        "invoices",
        "sneakers",
        "gardening",
        "the roadmap",
        "quarterly goals",
        "a standing desk",
    ]
    days = ["Monday", "Tuesday", "Thursday", "the 14th", "next week"]
    places = ["Berlin", "Nairobi", "Denver", "Osaka", "the vendor", "IT", "finance"]
    with db.transaction() as conn:
        caller, _ = keys.create_key(conn, f"eval-{uuid.uuid4().hex[:8]}")
        now = store.write_clock(conn)
        old_ids = {}
        for case in cases:
            memory_id = new_id()
            old_ids[case["id"]] = memory_id
            store.insert_version(
                conn,
                memory_id=memory_id,
                tenant_id=caller.tenant_id,
                content=case["old"]["content"],
                topic=case["old"].get("topic", "general"),
                metadata={},
                embedding=embedder.embed(case["old"]["content"]),
                valid_from=now,
                valid_to=None,
                superseded_by=None,
                supersedes=None,
                recorded_at=now,
            )
        for _ in range(distractors):
            text = rng.choice(templates).format(
                s=rng.choice(subjects),
                x=rng.choice(words),
                y=rng.choice(words),
                d=rng.choice(days),
                p=rng.choice(places),
            )
            store.insert_version(
                conn,
                memory_id=new_id(),
                tenant_id=caller.tenant_id,
                content=text,
                topic=rng.choice(topics),
                metadata={},
                embedding=embedder.embed(text),
                valid_from=now,
                valid_to=None,
                superseded_by=None,
                supersedes=None,
                recorded_at=now,
            )
    found, found_contradicts, total_contradicts, gated_cases = 0, 0, 0, 0
    considered = [c for c in cases if not gated(c)]
    with db.transaction() as conn:
        for case in considered:
            hits = store.find_candidates(
                conn,
                caller.tenant_id,
                embedder.embed(case["new"]["content"]),
                scope=store.UNSCOPED,
                excluded_topics=list(DEFAULT_EXCLUDED_CATEGORIES),
                limit=CANDIDATE_LIMIT,
                min_similarity=config.candidate_floor,
            )
            hit = old_ids[case["id"]] in {row.memory_id for row, _ in hits}
            found += hit
            if case["label"] == "contradicts":
                total_contradicts += 1
                found_contradicts += hit
    gated_cases = len(cases) - len(considered)
    db.close()
    return {
        "embedder": getattr(embedder, "name", type(embedder).__name__),
        "memories_in_tenant": len(cases) + distractors,
        "cases": len(considered),
        "recall_at_3": found / len(considered) if considered else 0.0,
        "recall_at_3_contradicts": found_contradicts / total_contradicts if total_contradicts else 0.0,
        "excluded_topic_cases_skipped": gated_cases,
        "min_similarity": config.candidate_floor,
    }
