"""Rules v4 restatements: what is a duplicate, at which confidence, and what is not one.

A `duplicate` at or above 0.85 rejects the write, so only facts that say the same words after
normalisation (units, number words, negation forms) reach it. A paraphrase (same subject,
values and polarity in other words) is a `duplicate` below the threshold: it counts as the
reader's verdict and never loses a write. None of these sentences are in the labeled sets.
"""

from __future__ import annotations

import uuid

import pytest

from aurra_core.classifiers.rules import RulesClassifier
from aurra_core.classifiers.rules_evidence import ACTION_THRESHOLD
from aurra_core.classifiers.rules_paraphrase import PARAPHRASE_CONFIDENCE
from aurra_core.models import Verdict
from aurra_core.text_analysis.text import normalize

rules = RulesClassifier()


def judge(old: str, new: str):
    return rules.judge(old, new, uuid.uuid4())


@pytest.mark.parametrize(
    "old,new",
    [
        ("Noor prefers the aisle on trains", "Noor likes to sit on the aisle when she takes the train"),
        ("Teodor's desktop has 32 GB of RAM", "Teodor works with 32 gigs of memory on that desktop"),
        ("Reply to Ilse in Dutch", "Ilse wants answers in Dutch"),
        ("Ines prefers aisle seats", "Ines likes to sit on the aisle when she flies"),
    ],
)
def test_a_paraphrase_is_a_duplicate_that_never_rejects_the_write(old: str, new: str) -> None:
    verdict = judge(old, new)
    assert verdict.verdict == Verdict.DUPLICATE, verdict
    assert verdict.confidence == PARAPHRASE_CONFIDENCE < ACTION_THRESHOLD, verdict


@pytest.mark.parametrize(
    "old,new",
    [
        ("Maya is 5 ft 6 in tall", "Maya is 168 cm tall"),
        ("The crate weighs 50 kg", "The crate weighs 110 lbs"),
        ("User doesn't like mushrooms", "User dislikes mushrooms"),
        ("Orbit Labs pays eleven hundred dollars a month", "Orbit Labs pays $1,100 a month"),
    ],
)
def test_the_same_words_after_normalisation_are_a_duplicate_acted_on(old: str, new: str) -> None:
    verdict = judge(old, new)
    assert verdict.verdict == Verdict.DUPLICATE and verdict.confidence >= ACTION_THRESHOLD, verdict


@pytest.mark.parametrize(
    "old,new",
    [
        ("Sami plays chess", "Sami plays poker"),
        ("User uses a Pixel", "User uses a Pixel for work"),
        ("User is learning Korean", "User is learning Korean and Thai"),
        ("User is allergic to shellfish", "User is allergic to shrimp"),
        ("User has choir on Tuesdays", "User has pottery on Tuesdays"),
        ("User prefers trains over planes", "User prefers planes over trains"),
        ("User is gluten-free", "User avoids dairy"),
        ("User drinks coffee", "User never drinks coffee"),
        ("Kenji drives a truck", "Kenji owns a sedan"),
        ("Tariq drinks green tea", "Tariq's usual drink is black coffee"),
        ("Team standup is at 9am", "Team retro is at 9am"),
    ],
)
def test_a_different_thing_a_narrower_one_or_another_order_is_not_a_duplicate(old: str, new: str) -> None:
    assert judge(old, new).verdict != Verdict.DUPLICATE


def test_both_facts_saying_a_thing_is_over_agree() -> None:
    verdict = judge("Sofia cancelled Spotify", "Sofia no longer has a Spotify subscription")
    assert verdict.verdict == Verdict.DUPLICATE and verdict.confidence < ACTION_THRESHOLD, verdict


@pytest.mark.parametrize(
    "text,value",
    [
        ("6 feet", "length_183"),
        ("183 cm", "length_183"),
        ("154 lbs", "mass_70"),
        ("weighs 154 pounds", "mass_70"),
        ("800 sq ft", "area_74"),
        ("four hundred euros", "money_400"),
        ("twenty-five", "25"),
        ("valid until 2029-04", "month_4"),
    ],
)
def test_units_and_number_words_read_as_one_value(text: str, value: str) -> None:
    assert value in normalize(text).split()


def test_pounds_are_money_unless_the_fact_speaks_of_weight() -> None:
    assert "mass_" not in normalize("The rent is 900 pounds")
