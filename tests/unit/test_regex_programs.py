"""The expressions of the rules classifier, the text normalizer and the topic gate compiled from stored
programs match exactly as `re` compiles them, and a store that does not fit (another engine, a damaged program, a process
that may not write bytecode) never changes a match, only what it costs."""

from __future__ import annotations

import json
import marshal
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from aurra_core.classifiers import rules  # noqa: F401 (records every expression)
from aurra_core.text_analysis import credentials, regex_programs, sensitive_topics

EVALS = Path(__file__).resolve().parents[2] / "evals"


def _texts() -> list[str]:
    """What the classifier's expressions run on: the facts of a labeled set, normalized."""
    from aurra_core.text_analysis.text import normalize

    texts = []
    for line in (EVALS / "cases.jsonl").read_text().splitlines():
        if line.strip():
            case = json.loads(line)
            texts += [case["old"]["content"], case["new"]["content"]]
    texts += [json.loads(line)["text"] for line in (EVALS / "secrets.jsonl").read_text().splitlines()]
    return [t for text in texts for t in (text, normalize(text))]


EXPRESSIONS = regex_programs.recorded()
TEXTS = _texts()


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A bytecode cache of the test's own, read afresh by the next compile."""
    monkeypatch.setattr(sys, "pycache_prefix", str(tmp_path))
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    monkeypatch.setattr(regex_programs, "_programs", None)
    monkeypatch.setattr(regex_programs, "_compiled", {})
    path = regex_programs.programs_path()
    assert path is not None and str(path).startswith(str(tmp_path))
    yield path


def _untranslatable(pattern: str) -> regex_programs.Program:
    raise AssertionError(f"translated again: {pattern[:60]}")


def _same(stored: re.Pattern[str], expected: re.Pattern[str]) -> None:
    assert (stored.pattern, stored.flags, stored.groups, dict(stored.groupindex)) == (
        expected.pattern,
        expected.flags,
        expected.groups,
        dict(expected.groupindex),
    )
    for text in TEXTS:
        found = [(m.span(), m.groups()) for m in stored.finditer(text)]
        assert found == [(m.span(), m.groups()) for m in expected.finditer(text)], (stored.pattern[:80], text)


def test_the_classifier_and_the_normalizer_compile_their_expressions_through_the_store() -> None:
    from aurra_core.text_analysis import text

    assert len(EXPRESSIONS) > 220
    # the largest word-list alternations, which cost the most to translate
    assert max(len(x) for x in EXPRESSIONS) > 4000
    assert text.TIMEZONE_NAMED_RE.pattern in EXPRESSIONS
    assert all(step.pattern.pattern in EXPRESSIONS for step in text._PHRASES.steps)
    steps = [
        step
        for substitutions in (
            text._CONTRACTIONS,
            text._VALUES,
            text._UNITS,
            text._TIMES,
            text._DATES,
            text._MEASURES,
        )
        for step in substitutions.steps
    ]
    assert all(step.pattern.pattern in EXPRESSIONS for step in steps)


def test_the_topic_gate_compiles_through_the_store_what_re_compiled_without_case() -> None:
    """The gate's two word lists: `(?i)` in the expression, where `re.IGNORECASE` was given
    to `re.compile`, is the same program and the same matches."""
    samples = [
        *TEXTS,
        "User was Diagnosed with ASTHMA in 2019",
        "The user filed for Chapter 11 bankruptcy; their divorce is final",
        "user's ex-wife sued them; a well-known non-diagnosis",
        "Kalo's CUSTODY hearing is under investigation",
    ]
    for compiled in (sensitive_topics._MEDICAL_RE, sensitive_topics._LEGAL_RE):
        assert compiled.pattern in EXPRESSIONS
        assert compiled.pattern.startswith("(?i)")
        before = re.compile(compiled.pattern.removeprefix("(?i)"), re.IGNORECASE)
        assert (compiled.flags, compiled.groups) == (before.flags, before.groups)
        found = [[m.span() for m in compiled.finditer(text)] for text in samples]
        assert found == [[m.span() for m in before.finditer(text)] for text in samples]
        assert sum(map(len, found)) >= 4
    assert (
        sensitive_topics.sensitive_topic("User was Diagnosed with ASTHMA") == sensitive_topics.HEALTH_MEDICAL
    )
    assert sensitive_topics.sensitive_topic("They filed for Chapter 11") == sensitive_topics.LEGAL_STATUS


def test_the_credentials_detector_compiles_through_the_store() -> None:
    """Each of its expressions at import, so the layer stores them all (infra/components/layer.py
    records this module's): none is left to `re` on a write's first request."""
    compiled = [v for v in vars(credentials).values() if isinstance(v, re.Pattern)]
    compiled += [expression for _, expression in credentials._TOKEN_RULES]
    assert len(compiled) > 25
    assert all(pattern.pattern in EXPRESSIONS for pattern in compiled)
    assert credentials.find("my password is Orchid-7731")


def test_the_normalizer_compiles_no_expression_on_first_use(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each of normalize's expressions is compiled at import, through the store: one compiled
    by `re` at first use (`re.sub` with a pattern string) is translated on the first request of
    every cold start instead."""
    from aurra_core.text_analysis import text

    compiled_by_re: list[object] = []
    compile_by_re = re._compile  # type: ignore[attr-defined]

    def recording(pattern: object, flags: int = 0) -> re.Pattern[str]:
        compiled_by_re.append(pattern)
        compiled: re.Pattern[str] = compile_by_re(pattern, flags)
        return compiled

    text.normalize.cache_clear()
    text.canon.cache_clear()
    monkeypatch.setattr(re, "_compile", recording)
    terms = [text.content_terms(sample) for sample in TEXTS[::2]]
    monkeypatch.undo()
    assert sum(map(len, terms)) > 1000
    assert compiled_by_re == []


def test_stored_programs_match_as_re_compiles_them(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    regex_programs.write_programs(EXPRESSIONS)
    assert store.is_file()
    monkeypatch.setattr(regex_programs, "translate", _untranslatable)  # every one from the store
    for expression in EXPRESSIONS:
        _same(regex_programs.compile(expression), re.compile(expression))


def test_a_process_keeps_what_it_translated_and_the_next_reads_it(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for expression in EXPRESSIONS[:20]:
        regex_programs.compile(expression)
    regex_programs.save()
    assert set(marshal.loads(store.read_bytes())["programs"]) == set(EXPRESSIONS[:20])

    monkeypatch.setattr(regex_programs, "_programs", None)
    monkeypatch.setattr(regex_programs, "translate", _untranslatable)
    _same(regex_programs.compile(EXPRESSIONS[0]), re.compile(EXPRESSIONS[0]))


def test_each_module_saving_in_turn_keeps_the_programs_of_both(store: Path) -> None:
    # the normalizer saves at the end of its import, then the classifier at the end of its own
    regex_programs.compile(EXPRESSIONS[0])
    regex_programs.save()
    regex_programs.compile(EXPRESSIONS[1])
    regex_programs.save()
    assert set(marshal.loads(store.read_bytes())["programs"]) == set(EXPRESSIONS[:2])


def test_nothing_is_written_where_bytecode_may_not_be(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    regex_programs.compile(EXPRESSIONS[0])
    regex_programs.save()
    assert not store.exists()


def test_programs_of_another_engine_are_translated_again(store: Path) -> None:
    expression = max(EXPRESSIONS, key=len)
    programs = {expression: regex_programs.translate(expression)}
    other = (regex_programs._ENGINE[0], regex_programs._ENGINE[1] - 1, *regex_programs._ENGINE[2:])
    store.parent.mkdir(parents=True, exist_ok=True)
    store.write_bytes(marshal.dumps({"engine": other, "programs": programs}))
    assert regex_programs._load() == {}
    _same(regex_programs.compile(expression), re.compile(expression))
    assert expression in regex_programs._compiled


def test_a_program_the_engine_refuses_is_translated_again(store: Path) -> None:
    expression = EXPRESSIONS[0]
    flags, code, groups, groupindex, indexgroup, needed = regex_programs.translate(expression)
    damaged = {expression: (flags, code[: len(code) // 2], groups, groupindex, indexgroup, needed)}
    regex_programs._write(store, damaged)
    _same(regex_programs.compile(expression), re.compile(expression))
    assert expression in regex_programs._compiled


def test_a_damaged_file_is_no_store(store: Path) -> None:
    store.parent.mkdir(parents=True, exist_ok=True)
    store.write_bytes(b"\x00not marshal")
    assert regex_programs._load() == {}


def test_every_match_holds_one_of_the_literals_of_its_expression() -> None:
    """What lets the normalizer skip a substitution: a text holding none of them cannot match."""
    checked = 0
    for expression in EXPRESSIONS:
        needed = regex_programs.literals(expression)
        if not needed:
            continue
        checked += 1
        compiled = re.compile(expression)
        for text in TEXTS:
            for match in compiled.finditer(text):
                assert any(literal in text for literal in needed), (expression[:80], needed, match.group(0))
    assert checked > 200


@pytest.mark.parametrize(
    ("expression", "needed"),
    [
        (r"\bper day\b", ("per day",)),
        (r"\b(?:per|every|each) week\b", (" week",)),  # the longest run, not the alternatives
        (r"\bdark (?:mode|theme)\b|\bnight mode\b", ("dark ", "night mode")),
        (r"([$€£])\s?(\d+)", ("$", "€", "£")),
        (r"\b(\d+)-([a-z_])", ("-",)),
        (r"(?<=[a-z])-(?=tall)", ("tall",)),  # a lookaround's text is in the text too
        (r"\s+", ()),
        (r"(?:abc)?\d", ()),  # optional: needed by no match
        (r"\bfoo\b|\d+", ()),  # one alternative needs nothing
        (r"(?i)case", ()),  # the text may spell it otherwise
        (r"(?i:case) word", (" word",)),
        (r"[^abc]x", ("x",)),
    ],
)
def test_the_literals_an_expression_needs(expression: str, needed: tuple[str, ...]) -> None:
    assert regex_programs.translate(expression)[5] == needed
