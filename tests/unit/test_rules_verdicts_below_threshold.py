"""Verdicts that never act but count for the reader (rules v7): what a pair most likely is when
the evidence is not enough to supersede or reject anything.

None of these sentences appear in the eval sets. Each group holds a verdict below the action
threshold to the labeling guidelines of `evals/README.md`, and its guards keep the same rule from
reaching pairs that read alike but mean something else.
"""

from __future__ import annotations

import uuid

import pytest

from aurra_core.classifiers.rules import RulesClassifier
from aurra_core.models import Verdict

rules = RulesClassifier()
ACTION_THRESHOLD = 0.85

# Change language about the old fact's value, with no detector naming what it replaced: most
# likely a contradiction, never acted on.
SAID_CHANGED = [
    ("User prefers calls over texts", "User prefers WhatsApp messages to calls from now on"),
    ("User's gym is in Leith", "User renewed the gym membership; it now covers the pool"),
    ("User's mailing address is on Birch Road", "User changed the mailing address; mail goes to the office"),
]

# Since rules v9 a number of the same kind in place of the old one, beside the same word in both,
# is the replaced value named ("pass ... ends in 7730", "atenolol ... 50mg"), and "now" is change
# language: acted on.
SAID_CHANGED_WITH_THE_VALUE = [
    ("User's transit pass number ends in 5521", "User renewed the transit pass; the new number ends in 7730"),
    ("User takes 25mg of atenolol daily", "User's atenolol dose was raised to 50mg daily"),
    (
        "Dmitri's mailing address is 4 Birch Rd, Salem",
        "Dmitri's mail should go to 19 Cedar Ln, Dover from now on",
    ),
]

# The same fact with the thing it names made the subject: a duplicate, never acted on.
TOLD_FROM_THE_OTHER_SIDE = [
    ("User adores skiing", "Skiing is something the user really adores"),
    ("User enjoys chess", "Chess is something the user truly enjoys"),
]

# One cadence in two spellings.
SAME_CADENCE = [
    ("User pays for Spotify every month", "User pays for Spotify monthly"),
    ("User waters the plants every week", "User waters the plants weekly"),
]

# A plan about the same subject, even about another value: the old fact stands.
PLANS = [
    ("User lives in Leeds", "User might relocate to Glasgow next spring"),
    ("Priya uses Figma", "Priya is considering trying Penpot for side projects"),
]

# The same words with one name in place of another, in a slot people hold several of: one more.
ANOTHER_NAMED = [
    ("User reads The Guardian", "User reads The Telegraph"),
    ("User likes Korean food", "User likes Peruvian food"),
    ("Ben subscribes to Hulu", "Ben subscribes to Peacock"),
]

# Guards: a slot that holds one value keeps its (unacted) contradiction.
ONE_VALUE_SLOTS = [
    ("User's favorite team is the Lakers", "User's favorite team is the Celtics"),
    ("User lives in Denver", "User lives in Austin"),
    ("User works at Google", "User works at Meta"),
]

# Guards: change-like words that are not a change of the old fact's value.
NOT_CHANGED = [
    # why the old state holds
    ("The website launch is late", "The website launch is late because the designer slipped", "supplements"),
    (
        "The billing migration is delayed",
        "The billing migration is delayed because the vendor slipped",
        "supplements",
    ),
    # about someone the old fact names, not a value of it
    ("User has a son", "User's son Theo just turned 4", "supplements"),
    # a plural noun, not a verb
    ("User uses a split keyboard", "User's split keyboard has red switches and a wrist rest", "supplements"),
    # told from the thing's side, but with something new about it
    ("User has a cat named Miso", "Miso is a Siamese", "supplements"),
    ("User loves climbing", "Climbing is what the user does every weekend", "supplements"),
]


def _judge(old: str, new: str) -> tuple[Verdict, float]:
    verdict = rules.judge(old, new, uuid.uuid4())
    return verdict.verdict, verdict.confidence


@pytest.mark.parametrize("old,new", SAID_CHANGED)
def test_change_language_without_the_replaced_value_is_a_contradiction_not_acted_on(
    old: str, new: str
) -> None:
    verdict, confidence = _judge(old, new)
    assert verdict is Verdict.CONTRADICTS and confidence < ACTION_THRESHOLD, (verdict, confidence)


@pytest.mark.parametrize("old,new", SAID_CHANGED_WITH_THE_VALUE)
def test_change_language_with_the_replaced_value_is_acted_on(old: str, new: str) -> None:
    verdict, confidence = _judge(old, new)
    assert verdict is Verdict.CONTRADICTS and confidence >= ACTION_THRESHOLD, (verdict, confidence)


# A move says where the subject is now; a fact that names no place is not what it changed (these
# meet as candidates in a small scope, where every memory is compared).
MOVED_BESIDE_A_PLACELESS_FACT = [
    ("User uses Vim", "User moved to Berlin last month"),
    ("User's team ships on Fridays", "User's team relocated to Austin"),
]


@pytest.mark.parametrize("old,new", MOVED_BESIDE_A_PLACELESS_FACT)
def test_a_move_is_no_change_of_a_fact_that_names_no_place(old: str, new: str) -> None:
    verdict, _ = _judge(old, new)
    assert verdict is not Verdict.CONTRADICTS, verdict


def test_a_move_still_changes_where_the_subject_lived() -> None:
    verdict, _ = _judge("User lives in Leeds", "User moved to Berlin last month")
    assert verdict is Verdict.CONTRADICTS, verdict


@pytest.mark.parametrize("old,new", TOLD_FROM_THE_OTHER_SIDE)
def test_a_fact_told_from_the_side_of_its_thing_is_a_duplicate_not_acted_on(old: str, new: str) -> None:
    verdict, confidence = _judge(old, new)
    assert verdict is Verdict.DUPLICATE and confidence < ACTION_THRESHOLD, (verdict, confidence)


@pytest.mark.parametrize("old,new", SAME_CADENCE)
def test_one_cadence_in_two_spellings_is_a_duplicate(old: str, new: str) -> None:
    verdict, _ = _judge(old, new)
    assert verdict is Verdict.DUPLICATE


@pytest.mark.parametrize("old,new", PLANS)
def test_a_plan_supplements_the_old_fact(old: str, new: str) -> None:
    verdict, confidence = _judge(old, new)
    assert verdict is Verdict.SUPPLEMENTS and confidence < ACTION_THRESHOLD, (verdict, confidence)


@pytest.mark.parametrize("old,new,label", NOT_CHANGED)
def test_lookalikes_keep_their_verdict(old: str, new: str, label: str) -> None:
    verdict, confidence = _judge(old, new)
    assert verdict is Verdict(label), (verdict, confidence)


def test_a_cadence_changed_is_still_a_change() -> None:
    verdict, _ = _judge("User pays rent every month", "User pays rent every week now")
    assert verdict is Verdict.CONTRADICTS


@pytest.mark.parametrize("old,new", ANOTHER_NAMED)
def test_another_name_in_the_same_words_is_a_new_fact(old: str, new: str) -> None:
    verdict, _ = _judge(old, new)
    assert verdict is Verdict.NEW_FACT


@pytest.mark.parametrize("old,new", ONE_VALUE_SLOTS)
def test_another_value_of_a_one_value_slot_stays_a_contradiction_not_acted_on(old: str, new: str) -> None:
    verdict, confidence = _judge(old, new)
    assert verdict is Verdict.CONTRADICTS and confidence < ACTION_THRESHOLD, (verdict, confidence)
