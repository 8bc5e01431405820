"""The rules classifier is precise by construction (since v3): each principle of its evidence gate,
on pairs of its own.

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
        ("Orbit Labs has 40 seats", "Orbit Labs has 55 seats on the Scale plan"),  # seats of another plan?
        ("User's email is ana@mail.com", "User's email is ana.r@work.io"),  # people have several
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
        ("User uses Fedora", "In 2018 the user ran Windows on a Dell"),
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
        ("User has a son, Ravi, who is 9", "User has a daughter, Asha, who is 5"),
    ],
)
def test_different_subjects_never_contradict(old: str, new: str) -> None:
    # also two people named in facts about the same user: "a son, Ravi, who is 9" / "a daughter..."
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
    verdict = judge("User's note app is Notion", "User's note app is Obsidian")
    assert verdict.verdict == Verdict.CONTRADICTS and "notes app Notion -> Obsidian" in verdict.reason, (
        verdict
    )
    verdict = judge("User's note app is Notion", "User's note app is now Obsidian")
    assert "change evidence: 'now'" in verdict.reason, verdict
    verdict = judge("User takes notes in Notion", "User switched from Notion to Obsidian")
    assert "change evidence" in verdict.reason


# --- rules v4: more constructions that carry change evidence, each scoped to the old value ---


@pytest.mark.parametrize(
    "old,new",
    [
        ("Wren lives in Bristol", "Wren finished the move and is in Cardiff now"),
        ("Wren's grandmother lives with her", "Wren's grandmother moved into a care home"),
        ("Lumen has 60 seats", "Lumen cut its seats from 60 to 45"),
        ("Lumen has 60 seats", "Lumen is down to 45 seats"),
        ("Bao quit vaping last year", "Bao started vaping again"),
        ("The dog walker comes for Pip on weekdays", "They stopped the dog walker for Pip"),
        ("Sofia's manager is Ravi", "Ravi stepped down; Sofia's manager is Hana"),
        ("Sofia drinks coffee", "Sofia doesn't drink coffee"),
        ("Ticket escalation goes to Ravi", "Ticket escalation goes to Hana since the reorg"),
        ("Sofia uses Trello", "Sofia uses Asana rather than Trello"),
        # a value said to hold from this week on, as "now" sets it (rules v14)
        ("Sofia's manager is Ravi", "Sofia's manager is Hana as of this week"),
    ],
)
def test_change_constructions_about_the_old_value_are_acted_on(old: str, new: str) -> None:
    verdict = judge(old, new)
    assert verdict.verdict == Verdict.CONTRADICTS and verdict.confidence >= ACTION_THRESHOLD, verdict


@pytest.mark.parametrize(
    "old,new",
    [
        ("Wren lives in Bristol", "Wren's sister moved to Cardiff"),
        ("Wren lives in Bristol", "Wren moved to a bigger flat in Bristol"),
        ("Lumen has 60 seats", "Lumen's rival cut its seats from 80 to 50"),
        ("Sofia prefers email", "Sofia prefers email for anything that isn't urgent"),
        ("Sofia eats halal", "Sofia won't eat gelatin unless it is halal"),
        ("Sofia doesn't eat pork", "Sofia switched to eating more fish"),
        ("Sofia forwards mail to a@b.com", "Sofia forwards mail from a@b.com to c@d.com"),
        ("Sofia's manager is Ravi", "Sofia's manager has been Hana since March"),
    ],
)
def test_look_alike_constructions_are_not_acted_on(old: str, new: str) -> None:
    assert not acted(judge(old, new))


def test_a_denial_of_what_the_old_fact_denied_is_a_contradiction_held_below_without_change_words() -> None:
    verdict = judge("Sofia doesn't eat meat", "Sofia eats chicken on weekends")
    assert verdict.verdict == Verdict.CONTRADICTS and verdict.confidence <= UNPROVEN_CEILING, verdict


@pytest.mark.parametrize(
    "old,new",
    [
        ("User's Netflix account is shared with their sister", "User closed the shared Google account"),
        ("The subscription renews monthly", "The old subscription was cancelled after the upgrade"),
        ("The company card is a Visa", "User cancelled the personal card"),
        ("The project is on track", "The side project was cancelled"),
        ("User's trial started Monday", "The other trial expired"),
        ("User's account has 2FA enabled", "User's work account doesn't have 2FA"),
        ("User's account doesn't have 2FA", "User enabled 2FA on the work account"),
        ("Acme has SSO enabled", "Acme's staging workspace doesn't have SSO"),
        ("The account has a credit card on file", "The sandbox account has no card on file"),
    ],
)
def test_what_ends_for_another_one_of_its_kind_is_not_acted_on(old: str, new: str) -> None:
    # a name or a qualifier the old fact does not have singles out another account, card, trial
    assert not acted(judge(old, new))
