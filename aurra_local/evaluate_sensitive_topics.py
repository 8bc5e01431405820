"""`aurra eval --sensitive-topics`: how much of what is medical or legal the topic gate catches.

The labeled set (`evals/sensitive_topics_dev.jsonl`, the development half) gives each text a
`label` (`health_medical`, `legal_status` or `other`), a `form` (`fact` or `said`) and a
`lang`. Gate recall is the share of sensitive texts the gate gives either sensitive topic
(what keeps a fact from Level 2); right-topic recall the share given their own label. "Other
gated" counts the look-alikes given a sensitive topic: the gate leans wide on purpose, but a
gate that takes everything is no gate.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from aurra_core.text_analysis.sensitive_topics import HEALTH_MEDICAL, LEGAL_STATUS, sensitive_topic

LABELS = (HEALTH_MEDICAL, LEGAL_STATUS, "other")
SENSITIVE = (HEALTH_MEDICAL, LEGAL_STATUS)


def load_texts(path: Path) -> list[dict[str, Any]]:
    texts = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    for number, case in enumerate(texts, 1):
        if not isinstance(case.get("text"), str) or case.get("label") not in LABELS:
            raise ValueError(f"{path}: line {number} needs a text and a label of {', '.join(LABELS)}")
    return texts


def _ratio(numerator: int, denominator: int) -> float:
    return numerator / denominator if denominator else 1.0


def _figures(judged: list[tuple[dict[str, Any], str | None]]) -> dict[str, Any]:
    sensitive = [(case, topic) for case, topic in judged if case["label"] in SENSITIVE]
    others = [topic for case, topic in judged if case["label"] not in SENSITIVE]
    gated = sum(1 for _, topic in sensitive if topic is not None)
    right = sum(1 for case, topic in sensitive if topic == case["label"])
    return {
        "sensitive": len(sensitive),
        "gated": gated,
        "right_topic": right,
        "gate_recall": _ratio(gated, len(sensitive)),
        "right_topic_recall": _ratio(right, len(sensitive)),
        "other": len(others),
        "other_gated": sum(1 for topic in others if topic is not None),
    }


def _by(judged: list[tuple[dict[str, Any], str | None]], field: str) -> dict[str, dict[str, Any]]:
    values = sorted({str(case.get(field)) for case, _ in judged})
    return {value: _figures([(c, t) for c, t in judged if str(c.get(field)) == value]) for value in values}


_TEXT_LISTS = ("missed", "wrong_topic", "other_gated_texts")


def is_blind(path: Path) -> bool:
    """A held-out half is measured, never read: its texts stay unprinted."""
    return "holdout" in path.name


def evaluate(texts: list[dict[str, Any]], *, blind: bool = False) -> dict[str, Any]:
    """The figures, and unless `blind` the texts missed, misfiled and gated by mistake."""
    report = _evaluate(texts)
    if blind:
        for name in _TEXT_LISTS:
            report.pop(name)
    return report


def _evaluate(texts: list[dict[str, Any]]) -> dict[str, Any]:
    judged = [(case, sensitive_topic(case["text"])) for case in texts]
    return {
        "texts": len(texts),
        **_figures(judged),
        "per_label": {
            label: _figures([(c, t) for c, t in judged if c["label"] == label]) for label in SENSITIVE
        },
        "per_lang": _by(judged, "lang"),
        "per_form": _by(judged, "form"),
        "missed": [
            {"text": c["text"], "label": c["label"], "lang": c.get("lang")}
            for c, t in judged
            if c["label"] in SENSITIVE and t is None
        ],
        "wrong_topic": [
            {"text": c["text"], "label": c["label"], "topic": t}
            for c, t in judged
            if c["label"] in SENSITIVE and t is not None and t != c["label"]
        ],
        "other_gated_texts": [
            {"text": c["text"], "topic": t}
            for c, t in judged
            if c["label"] not in SENSITIVE and t is not None
        ],
    }


def _row(name: str, f: dict[str, Any]) -> str:
    return (
        f"  {name:<16}{f['sensitive']:>10}{f['gate_recall']:>8.3f} ({f['gated']:>3}/{f['sensitive']:<3})"
        f"{f['right_topic_recall']:>8.3f} ({f['right_topic']:>3}/{f['sensitive']:<3})"
        f"{f['other_gated']:>6}/{f['other']:<4}"
    )


def format_report(d: dict[str, Any]) -> str:
    lines = [
        f"topic gate on {d['texts']} texts ({d['sensitive']} medical or legal, {d['other']} look-alikes)",
        f"gate recall {d['gate_recall']:.3f} ({d['gated']}/{d['sensitive']}), right topic "
        f"{d['right_topic_recall']:.3f} ({d['right_topic']}/{d['sensitive']}), "
        f"other gated {d['other_gated']}/{d['other']}",
        "",
        f"  {'':<16}{'sensitive':>10}{'gate recall':>18}{'right topic':>18}{'other gated':>12}",
        _row("all", d),
        *[_row(label, f) for label, f in d["per_label"].items()],
        *[_row(f"lang {lang}", f) for lang, f in d["per_lang"].items()],
        *[_row(f"form {form}", f) for form, f in d["per_form"].items()],
    ]
    if "missed" not in d:
        return "\n".join([*lines, "", "(blind: no text printed)"])
    lines += [
        "",
        f"missed ({len(d['missed'])}):",
        *[f"  [{m['label']}, {m['lang']}] {m['text']}" for m in d["missed"]],
        f"wrong topic ({len(d['wrong_topic'])}):",
        *[f"  [{w['label']} as {w['topic']}] {w['text']}" for w in d["wrong_topic"]],
        f"other gated ({len(d['other_gated_texts'])}):",
        *[f"  [{o['topic']}] {o['text']}" for o in d["other_gated_texts"]],
    ]
    return "\n".join(lines)
