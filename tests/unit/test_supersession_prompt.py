"""The model prompt teaches the same precision principle as the rules classifier: its few-shot
examples act (>= 0.85) on a contradiction only with change language or an explicit negation,
and never call a changed value a duplicate."""

from __future__ import annotations

import re

from aurra_core.classifiers.prompt import PROMPT_VERSION, SYSTEM_PROMPT

EXAMPLE = re.compile(
    r'^\d+\. EXISTING "(?P<old>[^"]+)" / NEW "(?P<new>[^"]+)" ->\s+(?P<verdict>\w+), (?P<confidence>[\d.]+),',
    re.MULTILINE,
)
CHANGE = re.compile(
    r"\b(?:switched|moved|changed|replaced|no longer|stopped|cancelled|upgraded|downgraded|quit|left|"
    r"became|instead of|anymore|does not|doesn't|not)\b"
)


def test_the_examples_act_only_on_explicit_change() -> None:
    found = [m.groupdict() for m in EXAMPLE.finditer(re.sub(r"\n +", " ", SYSTEM_PROMPT))]
    assert len(found) >= 10
    for example in found:
        confidence = float(example["confidence"])
        if example["verdict"] == "contradicts" and confidence >= 0.85:
            assert CHANGE.search(example["new"]), example
        if example["verdict"] == "contradicts" and not CHANGE.search(example["new"]):
            assert confidence <= 0.80, example
    verdicts = {e["verdict"] for e in found}
    assert verdicts == {"contradicts", "supplements", "duplicate", "new_fact"}
    # a past period and a value with 'now' alone are among them
    assert any(re.search(r"\bfrom \d{4} to \d{4}\b", e["new"]) and e["verdict"] == "new_fact" for e in found)
    assert any(" now " in f" {e['new']} " and float(e["confidence"]) <= 0.80 for e in found)


def test_the_prompt_states_the_thresholds_it_is_held_to() -> None:
    assert "at most 0.80" in SYSTEM_PROMPT
    assert "never contradicts" in SYSTEM_PROMPT
    assert "is never a duplicate" in SYSTEM_PROMPT
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}\.\d+", PROMPT_VERSION) and PROMPT_VERSION > "2026-11-29.1"
