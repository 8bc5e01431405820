"""Rules v15: how often a thing is done ("twice a week", "3x a week", "4 days a week") is a value
of its own, replaced when the same thing is done at another rate with a word of change, or when
the new fact says nothing but the new rate ("on 5 a week now") and only one memory has a rate.
A number said alone ("on 28 now") is the new value of a count the same way; of the user in
person ("is 34 now") it is an age.

None of these pairs appear in any set under evals/. Each acted-on pair has a twin that must not
be acted on, so a rule that acted on everything would fail here.
"""

from __future__ import annotations

import uuid

import pytest

from aurra_core.classifiers.base import Candidate
from aurra_core.classifiers.rules import RulesClassifier
from aurra_core.classifiers.rules_facts import analyze
from aurra_core.models import Verdict

ACTION = 0.85


def judge_pair(old: str, new: str) -> tuple[Verdict, float, str]:
    verdict = RulesClassifier().judge(old, new, uuid.uuid4())
    return verdict.verdict, verdict.confidence, verdict.reason


@pytest.mark.parametrize(
    ("text", "rates"),
    [
        ("User goes to the pool twice a week", {"times/week": {2}}),
        ("User rows 3x a week", {"times/week": {3}}),
        ("User does yoga four times per week", {"times/week": {4}}),
        ("User lifts 5x/week", {"times/week": {5}}),
        ("User is in the office 3 days a week", {"day/week": {3}}),
        ("User volunteers 6 hours a month", {"hour/month": {6}}),
        ("User does 2 sessions weekly", {"times/week": {2}}),
        ("User feeds the fish twice a day", {"times/day": {2}}),
        # no rate: a dose or a count a day, money a week, a span of months
        ("User drinks 3 a day", {}),
        ("User pays $40 a week for the allotment", {}),
        ("User signed a 6 month lease", {}),
    ],
)
def test_how_often_is_read_with_what_is_counted_and_per_what(text: str, rates: dict[str, set[int]]) -> None:
    assert analyze(text).rates == rates


ACTED_ON = [
    # the same thing done at another rate, with a word of change
    ("User goes to the pool twice a week", "User goes to the pool 4x a week now"),
    ("User is in the office 3 days a week", "User is in the office 2 days a week now"),
    (
        "User volunteers at the shelter 6 hours a month",
        "User volunteers at the shelter 10 hours a month these days",
    ),
    # nothing but the new rate, said as a change
    ("User rows 3x a week on the canal", "User is on 5 a week now"),
    # nothing but the new number, said as a change, of the one count the old fact has
    ("User teaches a class of 22 pupils", "User is on 25 now"),
    ("User has 14 kids in the under-10s squad", "User said: so 12 now"),
    # the count of the same thing, whatever else the old sentence told of it
    ("User keeps 5 goats (3 nannies, 2 wethers) and the milk yield is down", "User said: so 7 goats now."),
]

NOT_ACTED_ON = [
    # another thing done at its own rate
    ("User goes to the pool twice a week", "User goes to choir 4x a week now"),
    # the same rate said again
    ("User rows 3x a week on the canal", "User rows 3 times a week now"),
    # another rate of the same thing, with no word of change: a second routine may be meant
    ("User goes to the pool twice a week", "User goes to the pool 4 times a week"),
    # days a week and times a week are not one rate
    ("User is in the office 3 days a week", "User is on 5 a week now"),
    # two rates in the old fact: which one changed is not said
    ("User rows 3x a week and swims twice a week", "User is on 5 a week now"),
    # a number of the user in person is an age, not a count of theirs
    ("User has 2 kids", "User is 34 now"),
    ("User teaches a class of 22 pupils", "User is 41 now"),
    # more said than the number: what it counts is not known
    ("User has 14 kids in the under-10s squad", "User said: lost 2 to rugby, so 12 now"),
    # the same number again
    ("User teaches a class of 22 pupils", "User is on 22 now"),
    # a number of nothing named
    ("User said: tables of six ish", "User is on 8 now"),
    # a count of another thing
    ("User's team keeps everything in one shared spreadsheet", "User's team is 6 now"),
    # two counts of the same thing in the old fact: which one changed is not said
    ("User fosters 2 cats at home and 3 cats at the rescue", "User has 4 cats now"),
    # two counts in the old fact
    ("User teaches 22 pupils and 3 teaching assistants", "User is on 25 now"),
]


@pytest.mark.parametrize(("old", "new"), ACTED_ON)
def test_another_rate_of_the_same_thing_said_as_a_change_is_acted_on(old: str, new: str) -> None:
    verdict, confidence, reason = judge_pair(old, new)
    assert verdict is Verdict.CONTRADICTS and confidence >= ACTION, reason


@pytest.mark.parametrize(("old", "new"), NOT_ACTED_ON)
def test_a_rate_of_another_thing_or_said_without_change_is_not_acted_on(old: str, new: str) -> None:
    verdict, confidence, reason = judge_pair(old, new)
    assert not (verdict is Verdict.CONTRADICTS and confidence >= ACTION), reason


def test_a_bare_new_value_is_acted_on_only_when_one_memory_has_such_a_value() -> None:
    classifier = RulesClassifier()
    rowing, choir, dog = (
        Candidate(uuid.uuid4(), content, "hobbies", 0.5)
        for content in (
            "User rows 3x a week on the canal",
            "User sings in a choir twice a week",
            "User has a dog",
        )
    )

    def acted(candidates: list[Candidate]) -> set[uuid.UUID]:
        verdicts = classifier.classify("User is on 5 a week now", "hobbies", candidates, "rules").verdicts
        return {
            v.candidate_id for v in verdicts if v.verdict is Verdict.CONTRADICTS and v.confidence >= ACTION
        }

    assert acted([rowing, dog]) == {rowing.id}
    assert acted([rowing, choir, dog]) == set()


def test_a_bare_new_number_is_acted_on_only_when_one_memory_has_a_count() -> None:
    classifier = RulesClassifier()
    pupils, hens = (
        Candidate(uuid.uuid4(), content, "work", 0.5)
        for content in ("User teaches a class of 22 pupils", "User has 14 kids in the under-10s squad")
    )
    verdicts = classifier.classify("User is on 25 now", "work", [pupils, hens], "rules").verdicts
    assert not any(v.verdict is Verdict.CONTRADICTS and v.confidence >= ACTION for v in verdicts)


@pytest.mark.parametrize(
    ("old", "new", "acted"),
    [
        # a night off is what a person has, not a thing that ended
        ("User's partner's only night off is Sunday", "User's partner's night off is Tuesday now", True),
        ("User's day off is Wednesday", "User's day off is Friday now", True),
        # the same end said again is no return of what ended
        ("User's doorbell chime is off", "User's doorbell chime is off again", False),
    ],
)
def test_a_night_off_is_no_ending_and_an_end_said_again_is_no_return(old: str, new: str, acted: bool) -> None:
    verdict, confidence, reason = judge_pair(old, new)
    assert (verdict is Verdict.CONTRADICTS and confidence >= ACTION) is acted, reason
