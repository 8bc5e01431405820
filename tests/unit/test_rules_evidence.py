"""Rules v3 is precise by construction: each principle of its evidence gate, on pairs of its own.

None of these sentences are in the labeled sets; they exercise one principle each.
"""

from __future__ import annotations

import uuid

import pytest

from aurra_core.classifiers.rules import RulesClassifier
from aurra_core.classifiers.rules_evidence import ACTION_THRESHOLD, UNPROVEN_CEILING
from aurra_core.models import Verdict

rules = RulesClassifier()


def judge(old: str, new: str):
    return rules.judge(old, new, uuid.uuid4())


def acted(verdict) -> bool:
    return (
        verdict.verdict in (Verdict.CONTRADICTS, Verdict.DUPLICATE) and verdict.confidence >= ACTION_THRESHOLD
    )


@pytest.mark.parametrize(
    "old,new",
    [
        ("User takes notes in Notion", "User switched from Notion to Obsidian"),
        ("User takes notes in Notion", "User no longer uses Notion; Obsidian holds all their notes"),
        ("User's gym is Equinox", "User cancelled the Equinox membership and joined a climbing gym"),
        ("The kickoff is on May 4", "The kickoff was postponed to May 11"),
        ("The team meets on Mondays", "The team moved its meeting to Tuesdays"),
        ("Orbit Labs is on the Starter plan", "Orbit Labs upgraded from Starter to Scale"),
        ("User drinks coffee every morning", "User quit coffee in January"),
        ("Correction needed: User's birthday is June 3", "Correction: the user's birthday is June 13"),
    ],
)
def test_explicit_change_evidence_is_acted_on(old: str, new: str) -> None:
    verdict = judge(old, new)
    assert verdict.verdict == Verdict.CONTRADICTS and verdict.confidence >= ACTION_THRESHOLD, verdict


@pytest.mark.parametrize(
    "old,new",
    [
        ("User takes notes in Notion", "User now takes notes in Obsidian"),
        ("User takes notes in Notion", "User currently takes notes in Obsidian"),
        ("User's streaming service is Hulu", "User's streaming service is Max"),
        ("User pays with an Amex card", "User pays with a Visa card"),
        ("Orbit Labs has 40 seats", "Orbit Labs has 55 seats"),
        ("User speaks Portuguese", "User speaks Italian"),
    ],
)
def test_a_different_value_without_change_language_stays_below_the_threshold(old: str, new: str) -> None:
    verdict = judge(old, new)
    assert not acted(verdict), verdict
    if verdict.verdict == Verdict.CONTRADICTS:
        assert verdict.confidence <= UNPROVEN_CEILING


@pytest.mark.parametrize(
    "old,new",
    [
        ("User lives in Denver", "User lived in Austin from 2015 to 2019"),
        ("User works at Meta", "User worked at Google in 2019"),
        ("User drives a Subaru", "User used to drive a Jeep"),
        ("User's team lead is Omar", "Previously the user's team lead was Ines"),
    ],
)
def test_a_dated_past_period_never_contradicts(old: str, new: str) -> None:
    verdict = judge(old, new)
    assert verdict.verdict != Verdict.CONTRADICTS, verdict


@pytest.mark.parametrize(
    "old,new",
    [
        ("User lives in Denver", "User's brother lives in Austin"),
        ("Nadia drives a Tesla", "Omar drives a Volvo"),
        ("User's manager is Dana", "Dana's manager is Lee"),
    ],
)
def test_different_subjects_never_contradict(old: str, new: str) -> None:
    assert judge(old, new).verdict != Verdict.CONTRADICTS


@pytest.mark.parametrize(
    "old,new",
    [
        ("User drinks coffee", "User does not drink coffee"),
        ("Orbit Labs has 40 seats", "Orbit Labs has 45 seats"),
        ("The renewal is worth $48,000", "The renewal is worth $52,000"),
        ("Our contact at Orbit is Dana Reyes", "Our contact at Orbit is Dana Okafor"),
        ("User drinks decaf coffee", "User drinks coffee"),
        ("The standup is at 9am", "The standup is at 9pm"),
    ],
)
def test_a_negation_or_a_changed_value_is_never_a_duplicate(old: str, new: str) -> None:
    verdict = judge(old, new)
    assert not (verdict.verdict == Verdict.DUPLICATE and verdict.confidence >= ACTION_THRESHOLD), verdict


def test_an_explicit_negation_of_the_old_fact_is_change_evidence() -> None:
    verdict = judge("User drinks coffee", "User does not drink coffee")
    assert verdict.verdict == Verdict.CONTRADICTS and verdict.confidence >= ACTION_THRESHOLD, verdict


@pytest.mark.parametrize(
    "old,new",
    [
        ("The contract is worth $50k", "The contract is worth $50,000"),
        ("User has two cats", "User has 2 cats"),
        ("User lives in NYC", "User lives in New York City"),
    ],
)
def test_the_same_values_in_other_words_are_still_a_duplicate(old: str, new: str) -> None:
    verdict = judge(old, new)
    assert verdict.verdict == Verdict.DUPLICATE and verdict.confidence >= ACTION_THRESHOLD, verdict


@pytest.mark.parametrize(
    "old,new",
    [
        ("User loves cilantro", "User hates cilantro"),
        ("User can't stand jazz", "User enjoys jazz"),
        ("User likes coffee", "User dislikes coffee"),
    ],
)
def test_likes_against_dislikes_of_the_same_thing_contradict(old: str, new: str) -> None:
    # a dislike of exactly what was liked is an explicit negation of the old value
    verdict = judge(old, new)
    assert verdict.verdict == Verdict.CONTRADICTS and verdict.confidence >= ACTION_THRESHOLD, verdict


def test_likes_and_dislikes_of_different_things_do_not() -> None:
    assert judge("User loves cilantro", "User hates parsley").verdict != Verdict.CONTRADICTS


def test_a_diet_against_eating_what_it_excludes_contradicts_without_acting() -> None:
    verdict = judge("User is vegan", "User eats cheese every day")
    assert verdict.verdict == Verdict.CONTRADICTS and verdict.confidence <= UNPROVEN_CEILING, verdict
    assert judge("User is vegan", "User's roommate eats cheese every day").verdict != Verdict.CONTRADICTS
    changed = judge("User is vegetarian", "User stopped being vegetarian and eats fish now")
    assert changed.verdict == Verdict.CONTRADICTS and changed.confidence >= ACTION_THRESHOLD


def test_every_reason_names_what_decided() -> None:
    verdict = judge("User's note app is Notion", "User's note app is now Obsidian")
    assert verdict.verdict == Verdict.CONTRADICTS and "no change language" in verdict.reason, verdict
    verdict = judge("User takes notes in Notion", "User switched from Notion to Obsidian")
    assert "change evidence" in verdict.reason
