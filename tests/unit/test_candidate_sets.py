"""Shape checks for the candidate-recall sets: evals/candidates.jsonl (the acceptance set),
evals/candidates_dev.jsonl (the development set the retrieval is tuned on),
evals/candidates_dev2.jsonl, evals/candidates_dev3.jsonl and evals/candidates_dev4.jsonl (a
second, a third and a fourth development set, each written blind to the retrieval and to the
other sets). The data, not any retrieval's
score; and no two sets share a fact, so tuning on one says nothing of another."""

from __future__ import annotations

import json
import re
from itertools import combinations
from pathlib import Path

import pytest

EVALS_DIR = Path(__file__).resolve().parents[2] / "evals"
SETS = {
    "candidates.jsonl": 90,
    "candidates_dev.jsonl": 100,
    "candidates_dev2.jsonl": 160,
    "candidates_dev3.jsonl": 180,
    "candidates_dev4.jsonl": 180,
}
CATEGORIES = {"synonym", "paraphrase", "shared_words"}
TOPIC_RE = re.compile(r"^[a-z0-9_]{1,64}$")


def _cases(name: str) -> list[dict]:
    lines = (EVALS_DIR / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def _fact_ok(fact: dict) -> bool:
    return (
        set(fact) == {"content", "topic"}
        and bool(fact["content"].strip())
        and bool(TOPIC_RE.match(fact["topic"]))
    )


@pytest.mark.parametrize(("name", "at_least"), SETS.items())
def test_a_candidate_set_is_well_formed(name: str, at_least: int) -> None:
    cases = _cases(name)
    assert len(cases) >= at_least
    assert len({case["id"] for case in cases}) == len(cases)
    for case in cases:
        assert set(case) == {"id", "category", "target", "query", "distractors"}, case["id"]
        assert case["category"] in CATEGORIES, case["id"]
        assert _fact_ok(case["target"]) and _fact_ok(case["query"]), case["id"]
        assert all(_fact_ok(d) for d in case["distractors"]), case["id"]
        # shared_words cases bring the distractors that share words with the new fact
        assert (len(case["distractors"]) >= 2) == (case["category"] == "shared_words"), case["id"]
    assert {case["category"] for case in cases} == CATEGORIES


def _texts(name: str) -> set[str]:
    return {
        fact["content"].lower()
        for case in _cases(name)
        for fact in (case["target"], case["query"], *case["distractors"])
    }


@pytest.mark.parametrize(("first", "second"), list(combinations(SETS, 2)))
def test_no_two_sets_share_a_fact(first: str, second: str) -> None:
    shared = _texts(first) & _texts(second)
    assert not shared, sorted(shared)
