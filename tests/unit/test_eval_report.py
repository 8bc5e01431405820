"""`aurra eval`'s figures: duplicate precision, the reliability table, blind sets and --compare.

A scripted classifier answers each case with a chosen verdict, so every figure is known by hand.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aurra_core.classifiers.base import Candidate, Classification, ClassifierVerdict
from aurra_core.models import Verdict
from aurra_local import cli
from aurra_local.evaluate import evaluate, format_comparison, format_report, is_blind


def _case(case_id: str, label: str, category: str = "things", also: list[str] | None = None) -> dict:
    return {
        "id": case_id,
        "category": category,
        "old": {"content": f"old {case_id}", "topic": "general"},
        "new": {"content": f"new {case_id}", "topic": "general"},
        "label": label,
        "also": also or [],
    }


class Scripted:
    """Answers the verdict and confidence scripted for each new fact."""

    def __init__(self, answers: dict[str, tuple[str, float]]) -> None:
        self.answers = answers

    def classify(
        self, new_content: str, new_topic: str, candidates: list[Candidate], model: str
    ) -> Classification:
        verdict, confidence = self.answers[new_content.removeprefix("new ")]
        return Classification(
            [ClassifierVerdict(c.id, Verdict(verdict), confidence, "scripted") for c in candidates],
            "scripted",
        )


CASES = [
    _case("c1", "contradicts"),
    _case("c2", "contradicts"),
    _case("d1", "duplicate"),
    _case("d2", "supplements", also=["duplicate"]),
    _case("s1", "supplements", category="other"),
    _case("n1", "new_fact", category="other"),
]
ANSWERS = {
    "c1": ("contradicts", 0.95),  # right action
    "c2": ("supplements", 0.80),  # a miss, no action
    "d1": ("duplicate", 0.90),  # right duplicate
    "d2": ("duplicate", 0.88),  # right: a reader also accepts duplicate
    "s1": ("duplicate", 0.86),  # wrong duplicate: it would lose a write
    "n1": ("contradicts", 0.83),  # wrong, but below the threshold: no action
}


@pytest.fixture
def report() -> dict:
    return evaluate(Scripted(ANSWERS), "scripted", CASES).as_dict()


def test_duplicate_precision_counts_each_duplicate_that_would_reject_a_write(report: dict) -> None:
    assert report["duplicates_acted"] == 3
    assert report["duplicate_precision"] == pytest.approx(2 / 3)
    assert [x["id"] for x in report["wrong_duplicates"]] == ["s1"]
    assert report["per_category"]["other"]["wrong_duplicates"] == 1
    assert report["per_category"]["things"]["wrong_duplicates"] == 0
    assert report["precision"] == 1.0 and report["recall"] == 0.5 and report["acted"] == 1


def test_reliability_table_bins_verdicts_by_confidence(report: dict) -> None:
    rows = {row["bin"]: row for row in report["reliability"]}
    assert rows["0.80-0.85"] == {
        "bin": "0.80-0.85",
        "verdicts": 2,
        "right": 0.0,
        "actions": 1,
        "actions_right": 0.0,
    }
    assert rows["0.85-0.90"]["verdicts"] == 2 and rows["0.85-0.90"]["right"] == 0.5
    assert rows["0.90-0.95"]["right"] == 1.0
    assert rows["0.95-1.00"]["actions"] == 1 and rows["0.95-1.00"]["actions_right"] == 1.0
    assert rows["0.00-0.50"]["right"] is None
    assert sum(row["verdicts"] for row in report["reliability"]) == len(CASES)
    text = format_report(report)
    assert "reliability" in text and "0.85-0.90" in text
    assert "duplicate at >= 0.85 (rejects the write): precision 0.667 (3 verdicts)" in text


def test_a_blind_report_carries_no_case() -> None:
    blind = evaluate(Scripted(ANSWERS), "scripted", CASES, blind=True).as_dict()
    text = json.dumps(blind) + format_report(blind)
    for case in CASES:
        assert case["old"]["content"] not in text and case["new"]["content"] not in text
    assert "false_positives" not in blind and "wrong_duplicates" not in blind
    assert blind["duplicate_precision"] == pytest.approx(2 / 3)
    assert is_blind(Path("evals/frozen.jsonl")) and not is_blind(Path("evals/heldout.jsonl"))


def test_the_cli_judges_a_frozen_set_blind_and_compares_two_runs(tmp_path: Path, capsys) -> None:
    frozen = tmp_path / "frozen.jsonl"
    frozen.write_text("\n".join(json.dumps(c) for c in CASES) + "\n")
    assert cli.main(["eval", "--dataset", str(frozen), "--json"]) == 0
    first = capsys.readouterr().out
    assert "old c1" not in first and json.loads(first)["blind"] is True
    (tmp_path / "a.json").write_text(first)

    other = dict(json.loads(first))
    other["per_category"] = {**other["per_category"], "extra": {**next(iter(other["per_category"].values()))}}
    (tmp_path / "b.json").write_text(json.dumps(other))
    assert cli.main(["eval", "--compare", str(tmp_path / "a.json"), str(tmp_path / "b.json")]) == 0
    text = capsys.readouterr().out
    assert "a.json" in text and "b.json" in text
    assert "duplicate precision" in text
    extra = next(line for line in text.splitlines() if line.strip().startswith("extra"))
    assert "-" in extra.split()[2]  # A has no such category


def test_comparison_puts_each_category_of_both_runs_side_by_side(report: dict) -> None:
    worse = json.loads(json.dumps(report))
    worse["precision"] = 0.5
    text = format_comparison(report, worse, ("v2", "v3"))
    precision = next(line for line in text.splitlines() if line.startswith("precision"))
    assert precision.split()[1:] == ["1.000", "0.500"]
    assert any(line.strip().startswith("things") for line in text.splitlines())
