"""`aurra eval --secrets`: the labeled set, the matching rule, and the detector held to its
targets on it (a labeled-set regression test: it checks measured quality, evals/README.md)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from aurra_core.text_analysis import credentials
from aurra_local import cli
from aurra_local.evaluate_secrets import (
    TARGET_PRECISION,
    TARGET_RECALL,
    evaluate,
    judge,
    load_texts,
    report,
)

ROOT = Path(__file__).resolve().parents[2]
DATASET = ROOT / "evals" / "secrets.jsonl"


def test_the_labeled_set_is_as_its_readme_describes_it() -> None:
    texts = load_texts(DATASET)
    assert len(texts) == 334
    assert len({t["id"] for t in texts}) == len(texts)
    assert sum(1 for t in texts if not t["secrets"]) == 111
    kinds = Counter(s["kind"] for t in texts for s in t["secrets"])
    assert set(kinds) == set(credentials.KINDS)
    assert sum(kinds.values()) == 243
    assert all(set(t) == {"id", "text", "secrets"} for t in texts)


def test_a_detection_matches_a_secret_of_the_same_kind_whose_span_it_overlaps() -> None:
    key = "sk-" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5bC7dE9fG1hJ3"
    case = {"id": "t-1", "text": f"key {key} and password: Orchid-7731", "secrets": []}
    # labeled as another kind: no match, an extra and a miss
    case["secrets"] = [{"kind": "stripe_key", "value": key}, {"kind": "password", "value": "Orchid"}]
    judged = judge(case)
    assert [(judged.findings[f].kind, s) for f, s in judged.pairs] == [("password", 1)]
    figures = report([judged])
    assert (figures["matched"], figures["detected"], figures["labeled"]) == (1, 2, 2)
    assert figures["per_kind"]["stripe_key"]["recall"] == 0.0
    assert figures["per_kind"]["openai_api_key"]["precision"] == 0.0
    assert [m["kind"] for m in figures["missed"]] == ["stripe_key"]
    assert [x["kind"] for x in figures["extra"]] == ["openai_api_key"]
    # one to one: two labels of one secret take one detection
    case["secrets"] = [
        {"kind": "openai_api_key", "value": key},
        {"kind": "openai_api_key", "value": key[:10]},
    ]
    assert report([judge(case)])["per_kind"]["openai_api_key"]["matched"] == 1


def test_a_text_without_secrets_counts_only_against_precision() -> None:
    figures = report([judge({"id": "n-1", "text": "my password is Hunter-22!", "secrets": []})])
    assert (figures["precision"], figures["recall"], figures["texts_without_secrets_flagged"]) == (
        0.0,
        1.0,
        1,
    )


def test_the_detector_meets_its_targets_on_the_labeled_set() -> None:
    figures = evaluate(load_texts(DATASET))
    assert figures["precision"] >= TARGET_PRECISION, figures["extra"]
    assert figures["recall"] >= TARGET_RECALL, figures["missed"]
    # and no kind is left behind by the others
    for kind, per_kind in figures["per_kind"].items():
        assert per_kind["labeled"] >= 13, kind
        assert per_kind["precision"] >= 0.95 and per_kind["recall"] >= 0.9, (kind, per_kind)
    assert (TARGET_PRECISION, TARGET_RECALL) == (0.99, 0.95)


def test_aurra_eval_secrets_reports_per_kind(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["eval", "--secrets", "--dataset", str(DATASET), "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert list(figures["per_kind"]) == list(credentials.KINDS)
    assert cli.main(["eval", "--secrets", "--dataset", str(DATASET)]) == 0
    printed = capsys.readouterr().out
    assert "precision" in printed and "connection_string_password" in printed


def test_a_malformed_set_is_one_line_on_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        json.dumps({"id": "x", "text": "abc", "secrets": [{"kind": "pin", "value": "abc"}]}) + "\n"
    )
    assert cli.main(["eval", "--secrets", "--dataset", str(bad)]) == 2
    assert "unknown kind 'pin'" in capsys.readouterr().err
