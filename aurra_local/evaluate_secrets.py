"""`aurra eval --secrets`: how well the credentials detector finds what a write must not keep.

The labeled set (`evals/secrets.jsonl`) gives each text the credentials it carries, each a
kind and its value as written in the text. A detection matches a labeled secret when both have
the same kind and the detection's span overlaps an occurrence of the value in the text.
Matches are one to one, in the text's order. Precision is matched detections over detections,
recall matched secrets over labeled secrets, overall and per kind. The texts without a secret
(look-alikes: placeholders, documentation examples, numbers that fail the Luhn check) only
count against precision, where the detector finds something in them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aurra_core.text_analysis import credentials

MATCHING_RULE = "same kind and overlapping span, one to one"
# What the service is held to (tests/unit/test_secrets_eval.py).
TARGET_PRECISION = 0.99
TARGET_RECALL = 0.95


def load_texts(path: Path) -> list[dict[str, Any]]:
    texts = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    for case in texts:
        if not isinstance(case.get("text"), str) or not isinstance(case.get("secrets"), list):
            raise ValueError(f"{path}: {case.get('id')!r} needs a text and a list of secrets")
        for secret in case["secrets"]:
            if secret.get("kind") not in credentials.KINDS:
                raise ValueError(f"{path}: {case['id']!r} has an unknown kind {secret.get('kind')!r}")
            if secret.get("value") not in case["text"]:
                raise ValueError(f"{path}: {case['id']!r}: a labeled value is not in its text")
    return texts


def _spans(text: str, value: str) -> list[tuple[int, int]]:
    spans = []
    start = text.find(value)
    while start != -1:
        spans.append((start, start + len(value)))
        start = text.find(value, start + 1)
    return spans


@dataclass
class Judged:
    case: dict[str, Any]
    findings: list[credentials.Finding]
    # (finding index, secret index) pairs
    pairs: list[tuple[int, int]]


def judge(case: dict[str, Any]) -> Judged:
    text = case["text"]
    findings = credentials.find(text)
    pairs: list[tuple[int, int]] = []
    taken: set[int] = set()
    for s, secret in enumerate(case["secrets"]):
        spans = _spans(text, secret["value"])
        for f, finding in enumerate(findings):
            if f in taken or finding.kind != secret["kind"]:
                continue
            if any(finding.start < end and start < finding.end for start, end in spans):
                pairs.append((f, s))
                taken.add(f)
                break
    return Judged(case, findings, pairs)


def _ratio(numerator: int, denominator: int) -> float:
    return numerator / denominator if denominator else 1.0


def report(judged: list[Judged]) -> dict[str, Any]:
    per_kind: dict[str, dict[str, Any]] = {
        kind: {"labeled": 0, "detected": 0, "matched": 0} for kind in credentials.KINDS
    }
    missed, extra = [], []
    for j in judged:
        matched_findings = {f for f, _ in j.pairs}
        matched_secrets = {s for _, s in j.pairs}
        for s, secret in enumerate(j.case["secrets"]):
            per_kind[secret["kind"]]["labeled"] += 1
            if s in matched_secrets:
                per_kind[secret["kind"]]["matched"] += 1
            else:
                missed.append({"id": j.case["id"], "kind": secret["kind"], "value": secret["value"]})
        for f, finding in enumerate(j.findings):
            per_kind[finding.kind]["detected"] += 1
            if f not in matched_findings:
                found = j.case["text"][finding.start : finding.end]
                extra.append({"id": j.case["id"], "kind": finding.kind, "found": found})
    for figures in per_kind.values():
        figures["precision"] = _ratio(figures["matched"], figures["detected"])
        figures["recall"] = _ratio(figures["matched"], figures["labeled"])
    labeled = sum(v["labeled"] for v in per_kind.values())
    detected = sum(v["detected"] for v in per_kind.values())
    matched = sum(v["matched"] for v in per_kind.values())
    negatives = [j for j in judged if not j.case["secrets"]]
    return {
        "texts": len(judged),
        "texts_without_secrets": len(negatives),
        "texts_without_secrets_flagged": sum(1 for j in negatives if j.findings),
        "labeled": labeled,
        "detected": detected,
        "matched": matched,
        "precision": _ratio(matched, detected),
        "recall": _ratio(matched, labeled),
        "targets": {"precision": TARGET_PRECISION, "recall": TARGET_RECALL},
        "matching_rule": MATCHING_RULE,
        "per_kind": per_kind,
        "missed": missed,
        "extra": extra,
    }


def evaluate(texts: list[dict[str, Any]]) -> dict[str, Any]:
    return report([judge(case) for case in texts])


def _short(value: str) -> str:
    value = value.replace("\n", "\\n")
    return value if len(value) <= 60 else value[:57] + "..."


def format_report(d: dict[str, Any]) -> str:
    targets = d["targets"]
    lines = [
        f"secrets detector on {d['texts']} texts ({d['labeled']} labeled secrets, "
        f"{d['texts_without_secrets']} texts without any)",
        f"precision {d['precision']:.3f} ({d['matched']}/{d['detected']}), "
        f"recall {d['recall']:.3f} ({d['matched']}/{d['labeled']}); "
        f"targets: precision >= {targets['precision']}, recall >= {targets['recall']}",
        f"texts without secrets where something was found: {d['texts_without_secrets_flagged']}",
        f"matching rule: {d['matching_rule']}",
        "",
        f"  {'kind':<28}{'labeled':>8}{'detected':>9}{'matched':>8}{'precision':>10}{'recall':>8}",
        *[
            f"  {kind:<28}{v['labeled']:>8}{v['detected']:>9}{v['matched']:>8}"
            f"{v['precision']:>10.3f}{v['recall']:>8.3f}"
            for kind, v in d["per_kind"].items()
        ],
        "",
        f"missed ({len(d['missed'])}):",
        *[f"  {m['id']}: {m['kind']} {_short(m['value'])!r}" for m in d["missed"]],
        f"extra ({len(d['extra'])}):",
        *[f"  {x['id']}: {x['kind']} {_short(x['found'])!r}" for x in d["extra"]],
    ]
    return "\n".join(lines)
