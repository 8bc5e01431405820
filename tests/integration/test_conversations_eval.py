"""`aurra eval --conversations` on the real embedded database: the arithmetic of its figures,
on three hand-made profiles (not the blind set), through the offline extractor and classifier.

- `lands`: the user switches editors; the new fact supersedes the old one, so the update is
  right (a new value current, no stale memory, the new value in the search's top 3), and the
  facts said with it that point back at the old editor are flagged: the plugins, a dependent
  of the labels, and the config, which the labels leave out (a flag on another memory).
- `stays`: the user never says where they moved; the old value stays current, so the update is
  stale and wrong, and it is a value swap (kind `place`) that missed.
- `gated`: a medical fact (written under `health_medical`: no violation), a place the labels
  forbid (one forbidden fact) and a dependent, which nothing flags yet.
"""

from __future__ import annotations

import json
import os

import pytest

from aurra_local import cli
from aurra_local.evaluate_conversations import evaluate, format_report, load_profiles

pytestmark = pytest.mark.integration


def _session(when: str, said: str, facts: list[dict[str, str]]) -> dict:
    return {
        "valid_from": when,
        "messages": [{"role": "user", "content": said}, {"role": "assistant", "content": "Noted."}],
        "facts": facts,
    }


PROFILES = [
    {
        "id": "lands-01",
        "category": "tool_switch",
        "user_id": "u-lands",
        "sessions": [
            _session(
                "2026-01-10T09:00:00Z",
                "I use Vim for all my coding. I have 40 plugins in it. I keep my config for it on GitHub.",
                [
                    {"content": "User uses Vim for all their coding", "topic": "preferences"},
                    {"content": "User has 40 plugins in Vim", "topic": "preferences"},
                    {"content": "User keeps their Vim config on GitHub", "topic": "preferences"},
                ],
            ),
            _session(
                "2026-03-10T09:00:00Z",
                "I switched from Vim to Emacs last week.",
                [{"content": "User switched from Vim to Emacs", "topic": "preferences"}],
            ),
        ],
        "updates": [
            {
                "question": "Which editor does the user use?",
                "new": ["Emacs"],
                "old": ["Vim"],
                "kind": "tool_switch",
            }
        ],
        "forbidden": [],
        # The config rests on Vim too, but the labels leave it out: a flag on no dependent.
        "dependents": [{"content": "User has 40 plugins in it", "on": "Vim"}],
    },
    {
        "id": "stays-01",
        "category": "move",
        "user_id": "u-stays",
        "sessions": [
            _session(
                "2026-01-10T09:00:00Z",
                "I live in Lisbon.",
                [{"content": "User lives in Lisbon", "topic": "location"}],
            ),
            _session("2026-03-10T09:00:00Z", "Why is the sky blue?", []),
        ],
        "updates": [
            {"question": "Where does the user live?", "new": ["Porto"], "old": ["Lisbon"], "kind": "place"}
        ],
        "forbidden": [],
    },
    {
        "id": "gated-01",
        "category": "move",
        "user_id": "u-gated",
        "sessions": [
            _session(
                "2026-01-10T09:00:00Z",
                "I take metformin for my diabetes.",
                [{"content": "User takes metformin for diabetes", "topic": "health_medical"}],
            ),
            _session(
                "2026-02-10T09:00:00Z",
                "I live in Oslo.",
                [{"content": "User lives in Oslo", "topic": "location"}],
            ),
        ],
        "updates": [],
        # Not a real label: a string the pipeline surely stores, to count a forbidden fact.
        "forbidden": ["oslo"],
        "dependents": [{"content": "User takes metformin for diabetes", "on": "diabetes"}],
    },
]


@pytest.fixture
def tiny_set(tmp_path):
    path = tmp_path / "conversations.jsonl"
    path.write_text("".join(json.dumps(p) + "\n" for p in PROFILES))
    return path


def test_the_figures_add_up_on_the_real_pipeline(configure, tiny_set):
    configure(AURRA_EMBEDDER="local", AURRA_LEVEL2_ENABLED="false")
    report = evaluate(load_profiles(tiny_set), dataset=str(tiny_set)).as_dict()
    # The run turns Level 2 on for itself, and leaves the environment as it found it.
    assert os.environ["AURRA_LEVEL2_ENABLED"] == "false"
    assert report["level2_enabled"] and report["extractor"] == report["classifier"] == "rules"
    details = {p["id"]: p for p in report["details"]}

    (lands,) = details["lands-01"]["updates"]
    assert lands["right"] and lands["new_current"] and lands["found_by_search"]
    assert not lands["old_value_current"]
    assert not any("Vim" in m and "Emacs" not in m for m in details["lands-01"]["current_memories"])

    (stays,) = details["stays-01"]["updates"]
    assert stays["old_value_current"] and not stays["new_current"] and not stays["right"]

    o = report["overall"]
    assert (o["profiles"], o["sessions"], o["write_errors"]) == (3, 6, 0)
    assert (o["updates"], o["updates_right"], o["update_right_rate"]) == (2, 1, 0.5)
    assert (o["old_value_current"], o["old_value_current_rate"]) == (1, 0.5)
    assert o["old_value_only_in_dependents"] == 0
    assert (o["value_swaps"], o["value_swaps_right"], o["value_swap_recall"]) == (1, 0, 0.0)
    assert o["forbidden_facts"] == 1
    assert details["gated-01"]["forbidden_facts"][0]["strings"] == ["oslo"]
    assert (o["medical_legal_expected"], o["medical_legal_violations"]) == (1, 0)
    assert (o["dependents"], o["dependents_current"], o["dependents_flagged"]) == (2, 2, 1)
    assert details["lands-01"]["dependents"][0]["flagged"] is True
    assert details["lands-01"]["flagged_other"] == ["User keeps their config for it on GitHub"]
    assert o["other_memories_flagged"] == 1

    x = o["extraction"]
    assert x["expected"] == 7 and x["recall"] == x["matched"] / 7 == o["extraction_recall"]
    assert x["precision"] == x["matched"] / x["predicted"]
    assert not details["lands-01"]["missed"] and not details["stays-01"]["missed"]

    # Per category: the two `move` profiles together, `tool_switch` alone.
    assert list(report["per_category"]) == ["tool_switch", "move"]
    move = report["per_category"]["move"]
    assert (move["profiles"], move["updates"], move["update_right_rate"], move["forbidden_facts"]) == (
        2,
        1,
        0.0,
        1,
    )
    assert report["per_category"]["tool_switch"]["value_swap_recall"] is None

    assert report["missed_targets"] == [
        "update_right_rate",
        "old_value_current_rate",
        "forbidden_facts",
        "value_swap_recall",
    ]
    text = format_report(report)
    assert "update tests right                0.500 (1/2)       >= 0.80   MISSED" in text
    assert "dependents flagged                1 of 2" in text
    assert "  other memories flagged          1" in text
    assert text.splitlines()[-1].startswith("targets missed: update tests right 0.500 (target >= 0.80)")


def test_the_command_measures_and_exits_0_with_targets_missed(
    configure, tiny_set, tmp_path, capsys, monkeypatch
):
    configure(AURRA_EMBEDDER="local")
    monkeypatch.setenv("AURRA_CURSOR_SECRET", "conversations-eval-test")
    argv = ["eval", "--conversations", str(tiny_set), "--data-dir", str(tmp_path / "data")]
    assert cli.main([*argv, "--json", "--blind"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert "details" not in report and report["overall"]["updates_right"] == 1
    assert cli.main(argv) == 0
    assert "targets missed:" in capsys.readouterr().out
    assert cli.main(["eval", "--conversations", str(tmp_path / "none.jsonl")]) == 2
