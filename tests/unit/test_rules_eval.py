"""The rules classifier held to its acceptance figures, on the shipped set and on the frozen one.

The figures (rules v3): precision >= 0.98 on `contradicts` acted on at confidence >= 0.85 (at
most one wrong supersession in 50), recall >= 0.50, accuracy >= 0.75 over all verdicts, and
`duplicate` verdicts at >= 0.85 (each one rejects a write) right at least 99% of the time.
`evals/frozen.jsonl` was written blind and is never read to tune the rules: this test reports
its aggregates only, never a case.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from aurra_core.classifiers.rules import MODEL_ID, RulesClassifier
from aurra_local.evaluate import evaluate, load_cases

EVALS = Path(__file__).resolve().parents[2] / "evals"


@pytest.mark.parametrize("name", ["cases.jsonl", "frozen.jsonl"])
def test_rules_classifier_meets_the_acceptance_figures(name: str) -> None:
    report = evaluate(RulesClassifier(), "rules", load_cases(EVALS / name), blind=True).as_dict()
    figures = {
        key: report[key]
        for key in ("cases", "precision", "recall", "accuracy", "duplicate_precision", "duplicates_acted")
    }
    assert report["errors"] == 0
    assert report["precision"] >= 0.98, figures
    assert report["recall"] >= 0.50, figures
    assert report["accuracy"] >= 0.75, figures
    assert report["duplicate_precision"] >= 0.99, figures


def test_the_precision_synth_quotes_for_the_rules_classifier_is_the_measured_one() -> None:
    from infra import constants

    report = evaluate(RulesClassifier(), "rules", load_cases(EVALS / "heldout.jsonl")).as_dict()
    assert constants.RULES_CLASSIFIER_VERSION == MODEL_ID
    assert report["cases"] == constants.RULES_HELDOUT_CASES
    assert round(report["precision"], 3) == constants.RULES_HELDOUT_PRECISION
