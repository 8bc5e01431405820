"""The rules classifier's reasons quote the facts as their user wrote them: not the stems, joined
phrases and value tokens it reads them as ("emac", "acm", "nolonger", "money_1800")."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

import aurra_core.classifiers as classifiers_package
from aurra_core.classifiers.rules import judge_pair
from aurra_core.classifiers.rules_facts import analyze
from aurra_core.classifiers.rules_wording import Worded, quoted, said, shown

EVALS = Path(__file__).resolve().parents[2] / "evals"


@pytest.mark.parametrize(
    "old,new,quote",
    [
        ("User uses Vim", "User switched to Emacs", "editor Vim -> Emacs"),
        ("Acme has 50 seats", "Globex has 50 seats", "different named subjects (Acme vs Globex)"),
        ("User's rent is $1,800 a month", "User's rent went up to $1,950 a month", "amount $1,800 -> $1,950"),
        ("User lives in San Francisco", "User lives in Oakland now", "location San Francisco -> Oakland"),
        ("User lives in Berlin", "User lived in Austin from 2012 to 2016", "('from 2012 to 2016')"),
        ("User's wife drives a Tesla", "User drives a Ford", "(the subject's wife vs the subject)"),
        ("Standup is at 9am on Mondays", "Standup moved to 10:30am on Mondays", "time 9am -> 10:30am"),
        ("User is vegetarian", "User no longer eats meat", "('no longer eats meat' covers 'vegetarian')"),
        (
            "User's email is dana@example.com",
            "From now on, User's email is dana.k@example.com",
            "'From now on'",
        ),
    ],
)
def test_a_reason_quotes_the_users_words_as_written(old: str, new: str, quote: str) -> None:
    _, _, reason = judge_pair(old, new)
    assert quote in reason, reason


def test_terms_are_said_in_the_facts_own_words_and_order() -> None:
    fact = analyze("User moved from San Francisco to Acme's Berlin office on March 3rd; rent is $1,800.")
    assert said({"francisco", "san"}, fact) == "San Francisco"  # read as stems, in no order
    assert said({"acm"}, fact) == "Acme"  # not its possessive
    assert said({"date_3_3"}, fact) == "March 3rd"
    assert said({"money_1800"}, fact) == "$1,800"
    assert said({"zzz"}, fact) == "zzz"  # nothing reads as it: as it was read
    assert (
        quoted("moved from san francisco to acme 's berlin", fact)
        == "moved from San Francisco to Acme's Berlin"
    )
    assert quoted("nolonger", analyze("User no longer drinks coffee")) == "no longer"


def test_text_the_logic_compares_keeps_its_reading() -> None:
    fact = analyze("User likes Emacs")
    worded = Worded("emac", said, ["emac"], fact)
    assert worded == "emac" and worded.endswith("c")  # what the classifier compares
    assert shown(worded) == "Emacs" and shown("plain") == "plain"


def _template_words() -> set[str]:
    """The words the classifier's reasons are written with: its modules' string constants."""
    root = Path(classifiers_package.__file__).parent
    words: set[str] = set()
    for name in ("rules.py", "rules_evidence.py", "rules_paraphrase.py"):
        for node in ast.walk(ast.parse((root / name).read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                words |= {word.lower() for word in re.findall(r"[A-Za-z]+", node.value)}
    return words


def test_no_reason_on_the_labeled_sets_says_a_word_only_the_classifier_read() -> None:
    """Every word of a reason that the classifier read from the pair (a term or a token of either
    fact) is one the user wrote, or one of the reasons' own words. The frozen set is not read."""
    template = _template_words()
    word = re.compile(r"[A-Za-z][A-Za-z0-9]*")
    read_only: list[tuple[str, str, str]] = []
    for name in ("cases", "heldout", "tuning", "tuning2", "tuning3"):
        for line in (EVALS / f"{name}.jsonl").read_text().splitlines():
            case = json.loads(line)
            old, new = case["old"]["content"], case["new"]["content"]
            reason = judge_pair(old, new)[2]
            read = {term for fact in (analyze(old), analyze(new)) for term in [*fact.terms, *fact.tokens]}
            written = {w.lower() for w in word.findall(f"{old} {new}")}
            read_only += [
                (case["id"], w, reason)
                for w in word.findall(reason)
                if w.lower() in read and w.lower() not in written and w.lower() not in template
            ]
    assert not read_only, read_only[:10]


def test_no_reason_on_the_labeled_sets_holds_a_value_token() -> None:
    token = re.compile(
        r"\b(?:money|time|utc|hours|date|dayofmonth|expiry|year|percent|phone|email|weekday|month|"
        r"pronouns|quarter|ordinal)_\w|\b(?:nolonger|fromnowon|paidoff|creditcard|usedto)\b"
    )
    found = []
    for name in ("cases", "heldout", "tuning", "tuning2", "tuning3"):
        for line in (EVALS / f"{name}.jsonl").read_text().splitlines():
            case = json.loads(line)
            reason = judge_pair(case["old"]["content"], case["new"]["content"])[2]
            if token.search(reason):
                found.append((case["id"], reason))
    assert not found, found[:10]
