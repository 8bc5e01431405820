"""`aurra eval --extraction`: the labeled conversations, the matching rule and the gate check."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from aurra_core.extractors.base import Extraction, validate_facts
from aurra_core.extractors.rules import RulesExtractor
from aurra_local.evaluate_extraction import (
    Judged,
    evaluate,
    load_conversations,
    match_score,
    pair_up,
)

ROOT = Path(__file__).resolve().parents[2]
DATASET = ROOT / "evals" / "extraction.jsonl"
CATEGORIES = {
    "preferences", "moves", "jobs", "hedges", "questions", "third_parties", "medical", "legal",
    "multi_fact", "small_talk", "assistant_words", "injection", "changes", "family_pets",
}  # fmt: skip


def test_the_labeled_set_covers_what_extraction_must_get_right():
    cases = load_conversations(DATASET)
    assert len(cases) >= 60
    assert len({c["id"] for c in cases}) == len(cases)
    assert set(Counter(c["category"] for c in cases)) == CATEGORIES
    for case in cases:
        assert 1 <= len(case["messages"]) <= 50
        for message in case["messages"]:
            assert message["role"] in ("user", "assistant", "system") and message["content"].strip()
        for fact in case["facts"]:
            assert set(fact) == {"content", "topic"} and fact["content"].startswith("User")
    by_category = {c["category"]: c for c in cases}
    assert all(not c["facts"] for c in cases if c["category"] in ("questions", "small_talk"))
    assert any(len(c["facts"]) >= 3 for c in cases if c["category"] == "multi_fact")
    assert all(
        f["topic"] == "health_medical" for c in cases if c["category"] == "medical" for f in c["facts"]
    )
    assert all(f["topic"] == "legal_status" for c in cases if c["category"] == "legal" for f in c["facts"])
    assert by_category["injection"]


@pytest.mark.parametrize(
    "predicted, expected, matches",
    [
        ("User moved to Berlin last month", "User moved to Berlin last month", True),
        ("User relocated to Berlin", "User moved to Berlin last month", False),  # too little in common
        ("User uses Emacs now", "User uses Emacs", True),
        ("User moved to Rome", "User is thinking about moving to Rome", False),  # the hedge decides
        ("User might switch to Linux, not sure yet", "User might switch to Linux", True),
        ("User lives in Rome", "User's sister lives in Rome", False),  # someone else's fact
        ("User's brother lives in Rome", "User's sister lives in Rome", False),
        ("User uses Vim", "User doesn't use Vim", False),  # polarity
        ("User no longer works at Acme", "User no longer works at Acme", True),
        ("User's mum loves Vera Lynn", "User's mother loves Vera Lynn", True),  # one relation, two words
        ("User's dad loves Vera Lynn", "User's mother loves Vera Lynn", False),
        # kept as said: the subject is what was said about
        ("User said: my sister lives in Rome now", "User's sister lives in Rome", True),
        ("User said: my sister lives in Rome now", "User lives in Rome", False),
        ("User said: I live in Rome now", "User's sister lives in Rome", False),
        (
            "User said: welp Kai is at Coburg West Primary now.",
            "User's son Kai is at Coburg West Primary",
            True,
        ),
    ],
)
def test_the_matching_rule(predicted, expected, matches):
    assert (match_score(predicted, expected) > 0) is matches


def test_matching_is_one_to_one_best_first():
    assert pair_up(["User uses Emacs", "User uses Emacs daily"], ["User uses Emacs daily"]) == [(1, 0)]
    assert pair_up([], ["User uses Emacs"]) == []


class MislabellingExtractor:
    """A model that files everything under `preferences`, diagnoses included."""

    name = "mislabelling"

    def extract(self, messages, model, relations=()):
        raw = [
            {
                "content": "User was diagnosed with type 2 diabetes last year",
                "topic": "preferences",
                "message_index": 0,
            },
            {"content": "User's work visa expires in June", "topic": "preferences", "message_index": 0},
        ]
        return Extraction(validate_facts(raw, messages), self.name, "m", "v")


def test_the_gate_holds_whatever_the_extractor_says():
    cases = [c for c in load_conversations(DATASET) if c["id"] in ("med-01", "legal-02")]
    report = evaluate(MislabellingExtractor(), "mislabelling", cases).as_dict()
    assert report["gate"]["sensitive_facts_matched"] == 2
    assert report["gate"]["violations"] == 0


def test_a_fact_outside_the_excluded_topics_is_a_violation():
    case = {
        "id": "x",
        "category": "medical",
        "messages": [],
        "facts": [{"content": "User has asthma", "topic": "health_medical"}],
    }
    judged = Judged(case, [{"content": "User has asthma", "topic": "general"}], [(0, 0)])
    assert [v["id"] for v in judged.gate_violations()] == ["x"]


def test_the_rules_extractor_passes_the_gate_on_the_labeled_set():
    report = evaluate(RulesExtractor(), "rules", load_conversations(DATASET)).as_dict()
    assert report["gate"]["violations"] == 0
    assert report["errors"] == 0
    assert report["conversations"] >= 60


def test_the_cli_prints_a_json_report():
    out = subprocess.run(
        [sys.executable, "-m", "aurra_local.cli", "eval", "--extraction", "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    report = json.loads(out.stdout)
    assert report["extractor"] == "rules" and {"precision", "recall", "gate"} <= set(report)
