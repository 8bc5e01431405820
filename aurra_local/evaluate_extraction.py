"""`aurra eval --extraction`: how well an extractor turns conversations into the facts a person
would keep, and whether the topic gate holds for every medical and legal fact.

The labeled set (`evals/extraction.jsonl`) gives each conversation the facts a careful person
would extract. A predicted fact matches an expected one when all of these hold:

1. the same subject: "User", or the same "User's <someone>" ("User's sister" is not "User"),
   where the words for a parent or a grandparent are one ("User's mum" is "User's mother").
   A fact kept as said ("User said: my sister is in Paris") has the subject of what was said:
   "my sister" is "User's sister", "I" is "User", and a sentence that opens with neither
   ("welp Kai is at Coburg West now") may be about anyone;
2. the same certainty: both hedged ("thinking about", "considering", "might", "may", "plans
   to", ...) or neither, so "User moved to Rome" never matches "User is thinking about moving
   to Rome";
3. the same polarity: both negated ("not", "no longer", "never", "stopped", ...) or neither;
4. enough of the same content: the Dice coefficient of their content terms (lower-cased,
   stop words dropped, light stemming: the embedder's own `content_terms`) is at least 0.5.

Matching is one to one, best pairs first. Precision is matched predicted facts over predicted
facts, recall matched expected facts over expected facts. The gate check runs every predicted
fact through the service's own topic assignment (`fact_topic`, as a messages write does
without a request topic): a fact matched to an expected medical or legal fact whose topic is
not one of the excluded topics is a gate violation. There must be none.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aurra_core.extractors.base import Extractor
from aurra_core.models import Message
from aurra_core.runtime.config import DEFAULT_CLASSIFIER_MODEL, DEFAULT_EXCLUDED_CATEGORIES
from aurra_core.text_analysis import rules_lexicon as lex
from aurra_core.text_analysis.sensitive_topics import fact_topic
from aurra_core.text_analysis.text import content_terms, fold

MIN_DICE = 0.5
SENSITIVE = frozenset(DEFAULT_EXCLUDED_CATEGORIES)
_HEDGE = re.compile(
    r"\b(?:thinking (?:about|of)|consider(?:s|ing)?|might|may|maybe|perhaps|plan(?:s|ning)? to|"
    r"want(?:s)? to|would (?:like|love) to|hop(?:e|es|ing) to|not sure)\b"
)
# "not sure" is a hedge, not a negation.
_NEGATION = re.compile(r"\b(?:not(?! sure)|no longer|never|stopped|quit|anymore)\b|n't\b")
_SUBJECT = re.compile(r"^(user's \w+(?: \w+)?|user(?: and their \w+)?)\b")
# A fact kept as said: "User said: ..." (the verbatim method's form).
_SAID = "user said: "
_SAID_OWN = re.compile(
    r"^(?:(?:and|so|but|also|oh|ok|okay|well)\s+)?(?:i|i'm|im|i've|i'd|i'll|me|we|we're|we've)\b"
)
_SAID_MINE = re.compile(r"^(?:(?:and|so|but|also|oh|ok|okay|well)\s+)?(?:my|our) (\w+)")


def load_conversations(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _relation(word: str) -> str:
    """One word for one relation, as the rules read it ("mum" is "mother", "kid" is "child")."""
    word = word.removesuffix("'s")
    same = lex.SYNONYMS.get(word, word)
    return same if " " not in same else word


def _subject(text: str) -> str | None:
    """Whom a fact is about; None when a fact kept as said does not say (it may be anyone)."""
    folded = fold(text)
    if folded.startswith(_SAID):
        said = folded[len(_SAID) :]
        mine = _SAID_MINE.match(said)
        if mine is not None:
            return f"user's {_relation(mine.group(1))}"
        return "user" if _SAID_OWN.match(said) else None
    found = _SUBJECT.match(folded)
    if not found:
        return folded.split(" ")[0]
    subject = found.group(1)
    # "User's dog Rex" and "User's dog": the relation is the first word after the possessive.
    return f"user's {_relation(subject.split()[1])}" if subject.startswith("user's") else subject


def _dice(a: str, b: str) -> float:
    x, y = set(content_terms(a)), set(content_terms(b))
    return 2 * len(x & y) / (len(x) + len(y)) if x or y else 0.0


def match_score(predicted: str, expected: str) -> float:
    """The Dice score of a matching pair, or 0.0 when the rule above says they do not match."""
    p, e = fold(predicted), fold(expected)
    said, labeled = _subject(p), _subject(e)
    if said is not None and labeled is not None and said != labeled:
        return 0.0
    if bool(_HEDGE.search(p)) != bool(_HEDGE.search(e)):
        return 0.0
    if bool(_NEGATION.search(p)) != bool(_NEGATION.search(e)):
        return 0.0
    score = _dice(p, e)
    return score if score >= MIN_DICE else 0.0


def pair_up(predicted: list[str], expected: list[str]) -> list[tuple[int, int]]:
    """One-to-one matches (predicted index, expected index), best scores first."""
    scored = sorted(
        ((match_score(p, e), i, j) for i, p in enumerate(predicted) for j, e in enumerate(expected)),
        reverse=True,
    )
    used_p: set[int] = set()
    used_e: set[int] = set()
    pairs = []
    for score, i, j in scored:
        if score <= 0.0 or i in used_p or j in used_e:
            continue
        used_p.add(i)
        used_e.add(j)
        pairs.append((i, j))
    return pairs


@dataclass
class Judged:
    case: dict[str, Any]
    predicted: list[dict[str, str]]  # content and the topic the service would write it with
    pairs: list[tuple[int, int]]
    error: str | None = None

    @property
    def expected(self) -> list[dict[str, str]]:
        return list(self.case["facts"])

    def gate_violations(self) -> list[dict[str, str]]:
        out = []
        for i, j in self.pairs:
            if self.expected[j]["topic"] in SENSITIVE and self.predicted[i]["topic"] not in SENSITIVE:
                out.append(
                    {"id": self.case["id"], **self.predicted[i], "expected": self.expected[j]["content"]}
                )
        return out


def judge(extractor: Extractor, cases: list[dict[str, Any]], model: str) -> list[Judged]:
    out = []
    for case in cases:
        messages = [Message.model_validate(m) for m in case["messages"]]
        try:
            extraction = extractor.extract(messages, model)
        except Exception as exc:  # noqa: BLE001 - an eval reports a failed extraction and goes on
            out.append(Judged(case, [], [], error=f"{type(exc).__name__}: {exc}"))
            continue
        predicted = [
            {"content": f.content, "topic": fact_topic(f.content, f.topic, None)} for f in extraction.facts
        ]
        pairs = pair_up([p["content"] for p in predicted], [e["content"] for e in case["facts"]])
        out.append(Judged(case, predicted, pairs))
    return out


def precision_recall(items: list[Judged]) -> dict[str, float | int]:
    """Fact precision and recall over judged conversations (1.0 when nothing was predicted,
    or nothing expected)."""
    predicted = sum(len(j.predicted) for j in items)
    expected = sum(len(j.expected) for j in items)
    matched = sum(len(j.pairs) for j in items)
    return {
        "predicted": predicted,
        "expected": expected,
        "matched": matched,
        "precision": matched / predicted if predicted else 1.0,
        "recall": matched / expected if expected else 1.0,
    }


@dataclass
class ExtractionReport:
    extractor: str
    judged: list[Judged] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        by_category: dict[str, list[Judged]] = defaultdict(list)
        for j in self.judged:
            by_category[j.case["category"]].append(j)
        sensitive_expected = sum(1 for j in self.judged for e in j.expected if e["topic"] in SENSITIVE)
        sensitive_matched = sum(
            1 for j in self.judged for _, e in j.pairs if j.expected[e]["topic"] in SENSITIVE
        )
        violations = [v for j in self.judged for v in j.gate_violations()]
        return {
            "extractor": self.extractor,
            "conversations": len(self.judged),
            **precision_recall(self.judged),
            "errors": sum(1 for j in self.judged if j.error),
            "matching_rule": f"same subject, hedge and negation; Dice of content terms >= {MIN_DICE}",
            "gate": {
                "excluded_topics": sorted(SENSITIVE),
                "sensitive_facts_expected": sensitive_expected,
                "sensitive_facts_matched": sensitive_matched,
                "violations": len(violations),
                "violating_facts": violations,
            },
            "per_category": {
                name: {"conversations": len(items), **precision_recall(items)}
                for name, items in sorted(by_category.items())
            },
            "missed": [
                {"id": j.case["id"], "expected": e["content"]}
                for j in self.judged
                for k, e in enumerate(j.expected)
                if k not in {b for _, b in j.pairs}
            ],
            "extra": [
                {"id": j.case["id"], "predicted": p["content"]}
                for j in self.judged
                for k, p in enumerate(j.predicted)
                if k not in {a for a, _ in j.pairs}
            ],
        }


def evaluate(
    extractor: Extractor, name: str, cases: list[dict[str, Any]], model: str = DEFAULT_CLASSIFIER_MODEL
) -> ExtractionReport:
    return ExtractionReport(name, judge(extractor, cases, model))


def format_report(d: dict[str, Any]) -> str:
    gate = d["gate"]
    lines = [
        f"extractor {d['extractor']} on {d['conversations']} conversations ({d['expected']} expected facts)",
        f"fact precision {d['precision']:.3f} ({d['matched']}/{d['predicted']}), "
        f"recall {d['recall']:.3f} ({d['matched']}/{d['expected']}), extraction errors {d['errors']}",
        f"matching rule: {d['matching_rule']}",
        f"gate: {gate['violations']} medical or legal facts outside {', '.join(gate['excluded_topics'])} "
        f"({gate['sensitive_facts_matched']} of {gate['sensitive_facts_expected']} expected ones extracted)",
        "",
        "per category: conversations  precision  recall",
        *[
            f"  {name:<18}{v['conversations']:>5}  {v['precision']:>9.2f}  {v['recall']:>6.2f}"
            for name, v in d["per_category"].items()
        ],
        "",
        f"missed ({len(d['missed'])}):",
        *[f"  {m['id']}: {m['expected']}" for m in d["missed"]],
        f"extra ({len(d['extra'])}):",
        *[f"  {x['id']}: {x['predicted']}" for x in d["extra"]],
    ]
    for v in gate["violating_facts"]:
        lines.append(f"  GATE VIOLATION {v['id']}: {v['content']!r} written as {v['topic']}")
    return "\n".join(lines)
