"""The rules classifier held to its acceptance figures, on the shipped set and on the frozen one.

The figures (from the issue): precision >= 0.98 on `contradicts` acted on at confidence >= 0.85 (at
most one wrong supersession in 50), recall >= 0.50, accuracy >= 0.75 over all verdicts, and
`duplicate` verdicts at >= 0.85 (each one rejects a write) right at least 99% of the time.
`evals/frozen.jsonl` was written blind and is never read to tune the rules: these tests report
its aggregates only, never a case.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from aurra_core.classifiers.rules import MODEL_ID, RulesClassifier
from aurra_local.evaluate import evaluate, load_cases

EVALS = Path(__file__).resolve().parents[2] / "evals"
FIGURES = ("cases", "precision", "recall", "accuracy", "duplicate_precision", "duplicates_acted")


def measure(name: str) -> dict[str, Any]:
    report = evaluate(RulesClassifier(), "rules", load_cases(EVALS / name), blind=True).as_dict()
    assert report["errors"] == 0
    return {key: report[key] for key in FIGURES}


@pytest.fixture(scope="module")
def frozen() -> dict[str, Any]:
    return measure("frozen.jsonl")


def test_on_the_shipped_set_every_figure_holds() -> None:
    figures = measure("cases.jsonl")
    assert figures["precision"] >= 0.98, figures
    assert figures["recall"] >= 0.50, figures
    assert figures["accuracy"] >= 0.75, figures
    assert figures["duplicate_precision"] >= 0.99, figures


def test_on_the_frozen_set_the_duplicates_it_acts_on_are_right(frozen: dict[str, Any]) -> None:
    assert frozen["duplicate_precision"] >= 0.99, frozen


def test_on_the_frozen_set_the_supersessions_it_acts_on_are_right(frozen: dict[str, Any]) -> None:
    # aurra-rules-v39, v38, v37, v36, v35, v34, v33, v32, v31, v30 and v29 measured 0.983 (one wrong supersession in 59); v28, v27, v26, v25, v24, v23, v22, v21, v20, v19, v18, v17 and v16 0.983 (one in 58; v15 to v9 one in 57, v8 one in 55), README
    assert frozen["precision"] >= 0.98, frozen


def test_on_the_frozen_set_recall_reaches_the_bar(frozen: dict[str, Any]) -> None:
    # aurra-rules-v39, v38, v37, v36, v35, v34, v33, v32, v31, v30 and v29 measured 0.574; v28, v27, v26, v25, v24, v23, v22, v21, v20, v19, v18, v17 and v16 0.564 (v15 to v9 0.554, v8 0.535), README
    assert frozen["recall"] >= 0.50, frozen


def test_on_the_frozen_set_accuracy_reaches_the_bar(frozen: dict[str, Any]) -> None:
    # aurra-rules-v39, v38, v37 and v36 measured 0.755; v35, v34, v33, v32, v31, v30, v29, v28, v27, v26, v25, v24, v23, v22, v21 and v20 0.758 (v19, v18, v17 and v16 0.755; v15, v14, v13 and v12 0.758; v11, v10 and v9 0.755; v8 0.758), README
    assert frozen["accuracy"] >= 0.75, frozen


def test_the_precision_synth_quotes_for_the_rules_classifier_is_the_measured_one() -> None:
    from infra import constants

    figures = measure("frozen.jsonl")
    assert constants.RULES_CLASSIFIER_VERSION == MODEL_ID
    assert figures["cases"] == constants.RULES_HELDOUT_CASES
    assert round(figures["precision"], 3) == constants.RULES_HELDOUT_PRECISION
    assert round(figures["recall"], 3) == constants.RULES_HELDOUT_RECALL


def test_on_the_frozen_follow_ups_the_measured_precision_holds() -> None:
    # Follow-ups that share words with the old fact and mostly keep it, written blind and never
    # read. aurra-rules-v39, v38, v37 and v36 measured 0.823 (11 wrong supersessions in 62), v35 0.729 (19 in
    # 70), recall 0.614 all (README). The bar of 0.98 is NOT met here: this holds what v36 reached,
    # so that no later version falls back below it unnoticed.
    figures = measure("frozen_followups.jsonl")
    assert figures["precision"] >= 0.82, figures
    assert figures["recall"] >= 0.61, figures
    assert figures["duplicate_precision"] >= 0.99, figures
