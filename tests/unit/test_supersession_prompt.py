"""The model prompt teaches the same precision principle as the rules classifier: its few-shot
examples act (>= 0.85) on a contradiction only with change language or an explicit negation,
and never call a changed value a duplicate. Every example is written in the answer grammar the
code accepts. Its static part stays long enough to be cached, and its examples are its own,
not the evaluation sets' cases."""

from __future__ import annotations

import json
import re
from pathlib import Path

from aurra_core.classifiers.prompt import (
    ANSWER_LINE,
    PROMPT_VERSION,
    REASON_MAX_CHARS,
    REASON_MAX_WORDS,
    SYSTEM_PROMPT,
    static_prefix,
)

EVALS = Path(__file__).resolve().parents[2] / "evals"
JOINED = re.sub(r"\n +", " ", SYSTEM_PROMPT)
EXAMPLE = re.compile(
    r'^\d+\. EXISTING "(?P<old>[^"]+)" / NEW "(?P<new>[^"]+)" -> '
    r"(?P<line>1\|(?P<verdict>\w+)\|(?P<confidence>[\d.]+)\|(?P<reason>[^|\n]+?))$",
    re.MULTILINE,
)
WHOLE_ANSWER = re.compile(
    r"^- NEW .*? with EXISTING (?P<existing>.*?):\s*(?P<answer>\{.*?\]\})$", re.MULTILINE
)
CHANGE = re.compile(
    r"\b(?:switched|moved|changed|replaced|no longer|stopped|cancelled|upgraded|downgraded|quit|left|"
    r"became|instead of|anymore|does not|doesn't|not|grew to|shrank to)\b"
)
# Tokens estimated as bench/model_cost.py does. Claude Haiku 4.5 caches a prefix only from
# 4,096 tokens on, and a prefix under it is billed at the full input price on every call (5.4x
# the steady-state cost). The estimate is rough: English prose runs 3.5 to 4.5 characters a
# token, so the prefix must reach 4,096 tokens even at 4.5, the fewest tokens its characters
# can be: 4,096 x 4.5 / 3.6 = 5,120 estimated.
CHARS_PER_TOKEN = 3.6
MOST_CHARS_PER_TOKEN = 4.5
HAIKU_45_MIN_CACHEABLE_TOKENS = 4096


def examples() -> list[dict[str, str]]:
    return [m.groupdict() for m in EXAMPLE.finditer(JOINED)]


def test_the_examples_act_only_on_explicit_change() -> None:
    found = examples()
    assert len(found) == len(re.findall(r"^\d+\. EXISTING", SYSTEM_PROMPT, re.MULTILINE)) >= 60
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


def _whole_answer_lines(answer: str) -> list[str]:
    return json.loads(answer)["verdicts"]


def test_every_example_is_a_line_the_code_accepts_with_a_short_reason() -> None:
    lines = [e["line"] for e in examples()]
    for answer in WHOLE_ANSWER.finditer(JOINED):
        lines += _whole_answer_lines(answer["answer"])
    assert len(lines) > 60
    physical = SYSTEM_PROMPT.splitlines()
    for line in lines:
        assert re.fullmatch(ANSWER_LINE, line), line
        # never wrapped: a line break inside an example would teach one inside a reason
        assert any(line in row for row in physical), line
        reason = line.split("|")[3]
        assert len(reason.split()) <= REASON_MAX_WORDS and len(reason) <= REASON_MAX_CHARS, reason


def test_the_whole_answers_name_each_position_once() -> None:
    answers = list(WHOLE_ANSWER.finditer(JOINED))
    assert len(answers) >= 4
    for answer in answers:
        shown = [int(n) for n in re.findall(r'(?:^|, )(\d) "', answer["existing"])]
        lines = _whole_answer_lines(answer["answer"])
        assert shown == list(range(1, len(shown) + 1)) and len(shown) >= 2, answer["existing"]
        assert [int(line.split("|")[0]) for line in lines] == shown


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def _similar(a: str, b: str) -> bool:
    x, y = _words(a), _words(b)
    return len(x & y) / len(x | y) >= 0.6


def test_no_example_is_taken_from_the_evaluation_sets() -> None:
    """The evals measure how the prompt generalises: a case whose old and new facts both
    match an example's would measure memorisation instead."""
    cases = []
    for path in sorted(EVALS.glob("*.jsonl")):
        for line in path.read_text().splitlines():
            case = json.loads(line)
            if isinstance(case.get("old"), dict) and isinstance(case.get("new"), dict):
                cases.append((case["old"]["content"], case["new"]["content"]))
    assert len(cases) > 500
    for example in examples():
        for old, new in cases:
            assert not (_similar(example["old"], old) and _similar(example["new"], new)), (example, old, new)
        assert all(not _similar(example["new"], new) for _, new in cases), example


def test_the_static_prefix_is_long_enough_to_be_cached_by_every_supported_model() -> None:
    """A later edit that shrinks the prompt below Claude Haiku 4.5's minimum cacheable prefix
    would silently bill every call's ~4,000 static tokens at the full input price."""
    estimated = len(static_prefix()) / CHARS_PER_TOKEN
    assert estimated >= HAIKU_45_MIN_CACHEABLE_TOKENS * MOST_CHARS_PER_TOKEN / CHARS_PER_TOKEN, estimated


def test_the_static_prefix_has_nothing_of_a_request_in_it() -> None:
    prefix = static_prefix()
    assert not re.search(r"\{[a-z_]+\}", prefix), "an f-string placeholder left unfilled"
    assert not re.search(r"[0-9a-f]{8}-[0-9a-f]{4}-|\d{4}-\d{2}-\d{2}T", prefix), "no id, no timestamp"
    assert static_prefix() == prefix


def test_the_prompt_states_the_thresholds_it_is_held_to() -> None:
    assert "at most 0.80" in SYSTEM_PROMPT
    assert "never contradicts" in SYSTEM_PROMPT
    assert "is never a duplicate" in SYSTEM_PROMPT
    assert f"at most {REASON_MAX_WORDS} words" in SYSTEM_PROMPT
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}\.\d+", PROMPT_VERSION) and PROMPT_VERSION > "2026-11-30.3"
