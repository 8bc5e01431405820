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
from aurra_core.errors import ClassifierError
from aurra_core.metering import cost_usd
from aurra_core.runtime.config import DEFAULT_CLASSIFIER_MODEL, DEFAULT_EXCLUDED_CATEGORIES

LABELS = ("contradicts", "supplements", "duplicate", "new_fact")
THRESHOLDS = (0.85, 0.90, 0.95)
# Verdicts the write pipeline acts on at or above min_confidence: a wrong `contradicts`
# corrupts a memory, a wrong `duplicate` rejects the user's new fact.
ACTIONS = ("contradicts", "duplicate")
# Confidence bins of the reliability table: [low, high), the last one closed.
RELIABILITY_BINS = ((0.0, 0.5), (0.5, 0.7), (0.7, 0.8), (0.8, 0.85), (0.85, 0.9), (0.9, 0.95), (0.95, 1.0))


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


def is_blind(path: Path) -> bool:
    """A frozen set is judged once per classifier version and never read: its cases stay unprinted."""
    return path.name.startswith("frozen")


def gated(case: dict[str, Any]) -> bool:
    """The service never lets these reach a classifier: they are reported apart."""
    return (
        case["new"].get("topic") in DEFAULT_EXCLUDED_CATEGORIES
        or case["old"].get("topic") in DEFAULT_EXCLUDED_CATEGORIES
    )


@dataclass(frozen=True)
class CallUsage:
    """One answered call's tokens as the provider reported them (None when it did not say)."""

    model: str
    input_tokens: int | None
    output_tokens: int | None
    cache_read_input_tokens: int | None
    cache_creation_input_tokens: int | None

    @property
    def cost_usd(self) -> float | None:
        return cost_usd(
            self.model,
            self.input_tokens,
            self.output_tokens,
            self.cache_read_input_tokens,
            self.cache_creation_input_tokens,
        )


@dataclass
class Judged:
    case: dict[str, Any]
    label: str | None  # None: the classifier failed
    confidence: float
    reason: str
    usage: CallUsage | None = None

    @property
    def expected(self) -> set[str]:
        return {self.case["label"], *self.case.get("also", [])}

    @property
    def right(self) -> bool:
        return self.label in self.expected

    def acted(self, threshold: float, verdict: str = "contradicts") -> bool:
        return self.label == verdict and self.confidence >= threshold


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
            usage = CallUsage(
                result.model,
                result.input_tokens,
                result.output_tokens,
                result.cache_read_input_tokens,
                result.cache_creation_input_tokens,
            )
            out.append(Judged(case, v.verdict.value, v.confidence, v.reason, usage))
        except (ClassifierError, StopIteration) as exc:
            out.append(Judged(case, None, 0.0, f"classifier error: {exc}"))
    return out


def precision_recall(judged: list[Judged], threshold: float) -> tuple[float, float]:
    """Of `contradicts` acted on at the threshold: the share that were right, and the share of
    labeled contradictions acted on."""
    acted = [j for j in judged if j.acted(threshold)]
    true_positive = sum(1 for j in acted if j.case["label"] == "contradicts")
    positives = sum(1 for j in judged if j.case["label"] == "contradicts")
    precision = true_positive / len(acted) if acted else 1.0
    recall = true_positive / positives if positives else 1.0
    return precision, recall


def duplicate_precision(judged: list[Judged], threshold: float) -> tuple[float, int]:
    """Of `duplicate` verdicts at the threshold (each one rejects a write): the share a careful
    reader would also call a duplicate, and how many there were."""
    acted = [j for j in judged if j.acted(threshold, "duplicate")]
    right = sum(1 for j in acted if "duplicate" in j.expected)
    return (right / len(acted) if acted else 1.0), len(acted)


def reliability(judged: list[Judged]) -> list[dict[str, Any]]:
    """Per confidence bin: how many verdicts, how many of them were right (calibration), and the
    same for the verdicts the pipeline acts on."""
    rows = []
    for low, high in RELIABILITY_BINS:
        inside = [
            j
            for j in judged
            if j.label is not None and (low <= j.confidence < high or j.confidence == high == 1.0)
        ]
        actions = [j for j in inside if j.label in ACTIONS]
        rows.append(
            {
                "bin": f"{low:.2f}-{high:.2f}",
                "verdicts": len(inside),
                "right": sum(1 for j in inside if j.right) / len(inside) if inside else None,
                "actions": len(actions),
                "actions_right": sum(1 for j in actions if j.right) / len(actions) if actions else None,
            }
        )
    return rows


def _case_line(x: Judged) -> dict[str, Any]:
    return {
        "id": x.case["id"],
        "label": x.case["label"],
        "verdict": x.label,
        "confidence": x.confidence,
        "reason": x.reason,
        "old": x.case["old"]["content"],
        "new": x.case["new"]["content"],
    }


@dataclass
class Report:
    classifier: str
    min_confidence: float
    judged: list[Judged]
    gated: list[Judged] = field(default_factory=list)
    blind: bool = False  # aggregates only: no case's text, id or reason

    def as_dict(self) -> dict[str, Any]:
        j = self.judged
        precision, recall = precision_recall(j, self.min_confidence)
        dup_precision, dup_acted = duplicate_precision(j, self.min_confidence)
        confusion: dict[str, Counter[str]] = {label: Counter() for label in LABELS}
        for x in j:
            confusion[x.case["label"]][x.label or "error"] += 1
        categories: dict[str, list[Judged]] = defaultdict(list)
        for x in j:
            categories[x.case["category"]].append(x)
        per_category = {}
        for name, items in sorted(categories.items()):
            p, r = precision_recall(items, self.min_confidence)
            dp, dn = duplicate_precision(items, self.min_confidence)
            per_category[name] = {
                "cases": len(items),
                "accuracy": _accuracy(items),
                "precision": p,
                "recall": r,
                "acted": sum(1 for x in items if x.acted(self.min_confidence)),
                "wrong_actions": sum(
                    1 for x in items if x.acted(self.min_confidence) and x.case["label"] != "contradicts"
                ),
                "duplicates_acted": dn,
                "duplicate_precision": dp,
                "wrong_duplicates": sum(
                    1
                    for x in items
                    if x.acted(self.min_confidence, "duplicate") and "duplicate" not in x.expected
                ),
            }
        report: dict[str, Any] = {
            "classifier": self.classifier,
            "min_confidence": self.min_confidence,
            "cases": len(j),
            "precision": precision,
            "recall": recall,
            "accuracy": _accuracy(j),
            "acted": sum(1 for x in j if x.acted(self.min_confidence)),
            "duplicate_precision": dup_precision,
            "duplicates_acted": dup_acted,
            "errors": sum(1 for x in j if x.label is None),
            "at_thresholds": {
                f"{t:.2f}": dict(zip(("precision", "recall"), precision_recall(j, t), strict=True))
                for t in THRESHOLDS
            },
            "confusion": {label: dict(row) for label, row in confusion.items()},
            "reliability": reliability(j),
            "per_category": per_category,
            "model_usage": model_usage(j + self.gated),
            "blind": self.blind,
            "gated": {
                "cases": len(self.gated),
                "note": "excluded topics never reach a classifier in the service",
                "would_have_acted": sum(1 for x in self.gated if x.acted(self.min_confidence)),
                "accuracy": _accuracy(self.gated) if self.gated else None,
            },
        }
        if not self.blind:
            report["false_positives"] = [
                _case_line(x) for x in j if x.acted(self.min_confidence) and x.case["label"] != "contradicts"
            ]
            report["wrong_duplicates"] = [
                _case_line(x)
                for x in j
                if x.acted(self.min_confidence, "duplicate") and "duplicate" not in x.expected
            ]
        return report


def model_usage(judged: list[Judged]) -> dict[str, Any] | None:
    """What the calls cost as the provider counted them: the real tokens of the prompt (the
    cache counts say whether its static prefix was cached), None for a classifier that
    reports no tokens. Each call here has one candidate; the service's have up to three."""
    usages = [x.usage for x in judged if x.usage is not None and x.usage.input_tokens is not None]
    if not any(u.input_tokens or u.cache_read_input_tokens for u in usages):
        return None  # the offline rules: no tokens to report

    def mean(values: list[int | None]) -> float:
        return sum(v or 0 for v in values) / len(usages)

    costs = [u.cost_usd for u in usages]
    return {
        "calls": len(usages),
        "input_tokens_mean": mean([u.input_tokens for u in usages]),
        "output_tokens_mean": mean([u.output_tokens for u in usages]),
        "cache_read_input_tokens_mean": mean([u.cache_read_input_tokens for u in usages]),
        "cache_creation_input_tokens_mean": mean([u.cache_creation_input_tokens for u in usages]),
        "calls_reading_the_cache": sum(1 for u in usages if u.cache_read_input_tokens),
        "cost_usd_per_call": sum(c for c in costs if c is not None) / len(usages)
        if all(c is not None for c in costs)
        else None,
    }


def _accuracy(items: list[Judged]) -> float:
    return sum(1 for x in items if x.right) / len(items) if items else 0.0


def evaluate(
    classifier: Classifier,
    name: str,
    cases: list[dict[str, Any]],
    min_confidence: float = 0.85,
    *,
    blind: bool = False,
) -> Report:
    open_cases = [c for c in cases if not gated(c)]
    closed = [c for c in cases if gated(c)]
    return Report(name, min_confidence, judge(classifier, open_cases), judge(classifier, closed), blind)


def _share(value: float | None) -> str:
    return "    -" if value is None else f"{value:.3f}"


def format_report(d: dict[str, Any]) -> str:
    threshold = f"{d['min_confidence']:.2f}"
    lines = [
        f"classifier {d['classifier']} on {d['cases']} cases (+{d['gated']['cases']} in excluded topics, reported apart)",
        f"contradicts acted on at >= {threshold}: precision {d['precision']:.3f}, recall {d['recall']:.3f} "
        f"({d['acted']} acted on)",
        f"duplicate at >= {threshold} (rejects the write): precision {d['duplicate_precision']:.3f} "
        f"({d['duplicates_acted']} verdicts)",
        f"accuracy over all verdicts: {d['accuracy']:.3f}    classifier errors: {d['errors']}",
        "",
        "threshold  precision  recall",
        *[f"  {t}      {v['precision']:.3f}    {v['recall']:.3f}" for t, v in d["at_thresholds"].items()],
        "",
        "reliability (confidence bin: verdicts, share right; of them contradicts/duplicate, share right)",
        *[
            f"  {row['bin']}  {row['verdicts']:>4}  {_share(row['right'])}    "
            f"{row['actions']:>4}  {_share(row['actions_right'])}"
            for row in d["reliability"]
        ],
        "",
        "confusion (rows: label, columns: verdict)",
        "              " + "".join(f"{c:>13}" for c in (*LABELS, "error")),
        *[
            f"{label:<14}" + "".join(f"{d['confusion'][label].get(c, 0):>13}" for c in (*LABELS, "error"))
            for label in LABELS
        ],
        "",
        "per category: cases  accuracy  precision  recall  wrong actions  wrong duplicates",
        *[
            f"  {name:<22}{v['cases']:>5}  {v['accuracy']:>8.2f}  {v['precision']:>9.2f}  {v['recall']:>6.2f}"
            f"  {v['wrong_actions']:>13}  {v['wrong_duplicates']:>16}"
            for name, v in d["per_category"].items()
        ],
        "",
    ]
    if d.get("blind"):
        lines.append("blind set: no case is printed (it is judged once per classifier version, never read)")
    else:
        for title, key in (("false positives", "false_positives"), ("wrong duplicates", "wrong_duplicates")):
            lines.append(f"{title} ({len(d[key])}):")
            lines += [
                f"  {x['id']} [{x['label']}] {x['confidence']:.2f} {x['old']!r} -> {x['new']!r}: {x['reason']}"
                for x in d[key]
            ]
    lines += [
        "",
        f"excluded topics: {d['gated']['cases']} cases; the classifier would have acted on "
        f"{d['gated']['would_have_acted']} had the gate not stopped them",
    ]
    usage = d.get("model_usage")
    if usage:
        cost = usage["cost_usd_per_call"]
        lines += [
            "",
            f"model usage as the provider reported it ({usage['calls']} calls, one candidate each): "
            f"input {usage['input_tokens_mean']:.0f}, cache read {usage['cache_read_input_tokens_mean']:.0f}, "
            f"cache write {usage['cache_creation_input_tokens_mean']:.0f}, output {usage['output_tokens_mean']:.0f} "
            f"tokens a call; {usage['calls_reading_the_cache']} calls read the prompt cache; "
            + (f"${cost:.5f} a call" if cost is not None else "cost unknown (a model without a price)"),
        ]
    return "\n".join(lines)


def format_comparison(a: dict[str, Any], b: dict[str, Any], names: tuple[str, str] = ("A", "B")) -> str:
    """Two `--json` reports side by side: the headline figures, then each category."""
    left, right = names
    headline = (
        ("cases", "cases", "d"),
        ("precision", "precision", ".3f"),
        ("recall", "recall", ".3f"),
        ("accuracy", "accuracy", ".3f"),
        ("duplicate precision", "duplicate_precision", ".3f"),
        ("contradicts acted on", "acted", "d"),
        ("duplicates acted on", "duplicates_acted", "d"),
    )
    lines = [
        f"A: {left} ({a['classifier']})",
        f"B: {right} ({b['classifier']})",
        "",
        f"{'':<24}{'A':>9}{'B':>9}",
    ]
    for title, key, spec in headline:
        lines.append(f"{title:<24}{format(a.get(key, 0), spec):>9}{format(b.get(key, 0), spec):>9}")
    lines += ["", f"per category{'':<13}{'cases':>6}  accuracy A    B   precision A    B   recall A    B"]
    for name in sorted(set(a["per_category"]) | set(b["per_category"])):
        x, y = a["per_category"].get(name), b["per_category"].get(name)

        def cell(row: dict[str, Any] | None, key: str) -> str:
            return "   -" if row is None else f"{row[key]:.2f}"

        cases = (x or y or {}).get("cases", 0)
        lines.append(
            f"  {name:<23}{cases:>6}  {cell(x, 'accuracy'):>10} {cell(y, 'accuracy'):>4}"
            f"  {cell(x, 'precision'):>11} {cell(y, 'precision'):>4}"
            f"  {cell(x, 'recall'):>8} {cell(y, 'recall'):>4}"
        )
    return "\n".join(lines)
