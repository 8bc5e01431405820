"""`aurra eval --sensitive-topics`: the topic gate measured on the development half of its
labeled set (evals/README.md, "The topic gate")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aurra_local import cli
from aurra_local.evaluate_sensitive_topics import evaluate, load_texts

ROOT = Path(__file__).resolve().parents[2]
DEVELOPMENT = ROOT / "evals" / "sensitive_topics_dev.jsonl"


def test_gate_recall_counts_either_topic_and_right_topic_only_the_label() -> None:
    texts = [
        {
            "text": "User is suing the clinic over his surgery",
            "label": "legal_status",
            "lang": "en",
            "form": "fact",
        },
        {"text": "User was arrested in 2019", "label": "legal_status", "lang": "en", "form": "fact"},
        {"text": "User likes tea", "label": "health_medical", "lang": "en", "form": "fact"},
        {"text": "we booked the tennis court", "label": "other", "lang": "en", "form": "said"},
        {"text": "ich bin schwanger", "label": "other", "lang": "de", "form": "said"},
    ]
    figures = evaluate(texts)
    # medical wins over legal in the first: gated, on the wrong topic
    assert (figures["sensitive"], figures["gated"], figures["right_topic"]) == (3, 2, 1)
    assert (figures["other"], figures["other_gated"]) == (2, 1)
    assert figures["per_label"]["health_medical"]["gated"] == 0
    assert (figures["per_lang"]["de"]["sensitive"], figures["per_lang"]["de"]["other_gated"]) == (0, 1)
    assert figures["per_form"]["fact"]["gate_recall"] == pytest.approx(2 / 3)
    assert [w["topic"] for w in figures["wrong_topic"]] == ["health_medical"]


def test_aurra_eval_sensitive_topics_runs_on_the_development_half(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["eval", "--sensitive-topics", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["texts"] == len(load_texts(DEVELOPMENT)) == 211
    assert set(figures["per_lang"]) == {"en", "es", "fr", "de", "pt"}
    assert set(figures["per_form"]) == {"fact", "said"}
    assert cli.main(["eval", "--sensitive-topics", str(DEVELOPMENT)]) == 0
    printed = capsys.readouterr().out
    assert "gate recall" in printed and "lang pt" in printed and "other gated" in printed


def test_a_malformed_set_is_one_line_on_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"text": "x", "label": "finance"}) + "\n")
    assert cli.main(["eval", "--sensitive-topics", str(bad)]) == 2
    assert "needs a text and a label" in capsys.readouterr().err
    assert cli.main(["eval", "--sensitive-topics", str(tmp_path / "missing.jsonl")]) == 2


def test_the_held_out_half_is_measured_without_printing_a_text(capsys: pytest.CaptureFixture[str]) -> None:
    held_out = ROOT / "evals" / "sensitive_topics_holdout.jsonl"
    assert cli.main(["eval", "--sensitive-topics", str(held_out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["texts"] == len(load_texts(held_out))
    assert not {"missed", "wrong_topic", "other_gated_texts"} & set(report)
    assert cli.main(["eval", "--sensitive-topics", str(held_out)]) == 0
    printed = capsys.readouterr().out
    assert "(blind: no text printed)" in printed
    assert not any(case["text"] in printed for case in load_texts(held_out))
