import uuid

import pytest

from aurra_core.classifiers.rules import RulesClassifier
from aurra_core.models import Verdict

rules = RulesClassifier()


def judge(old, new):
    verdict = rules.judge(old, new, uuid.uuid4())
    assert verdict.reason
    return verdict


@pytest.mark.parametrize(
    "old,new",
    [
        ("alice uses Vim", "alice switched to Emacs"),
        ("User uses Vim", "User has been using Emacs as their daily editor, having moved away from Vim"),
        ("alice lives in Berlin", "alice moved to Munich"),
        ("Acme has 50 seats", "Acme expanded to 75 seats"),
    ],
)
def test_firm_changes_supersede_with_high_confidence(old, new):
    v = judge(old, new)
    assert v.verdict == Verdict.CONTRADICTS and v.confidence >= 0.85


def test_a_count_put_in_place_of_the_old_one_in_the_same_words_is_acted_on():
    # two counts of one thing cannot both hold: the replacement is the change evidence
    v = judge("Acme has 50 seats", "Acme has 75 seats")
    assert v.verdict == Verdict.CONTRADICTS and v.confidence >= 0.85


def test_a_changed_number_in_other_words_is_not_acted_on():
    v = judge("Acme has 50 seats", "Acme has 75 seats across its two workspaces")
    assert not (v.verdict == Verdict.CONTRADICTS and v.confidence >= 0.85)


@pytest.mark.parametrize(
    "old,new",
    [
        ("alice uses Vim", "alice is thinking about switching to Emacs"),
        ("alice lives in Berlin", "alice may move to Munich next year"),
        ("alice has a dog", "alice also has a cat"),
        ("alice drives a Honda", "alice bought a second car, a Tesla"),
        ("alice uses Vim", "alice tried Emacs but went back to Vim"),
        ("alice has a dog", "alice has a dog named Rex"),
        ("alice uses Vim", "bob switched to Emacs"),
    ],
)
def test_hedges_additions_reversions_and_others_never_supersede(old, new):
    v = judge(old, new)
    assert not (v.verdict == Verdict.CONTRADICTS and v.confidence >= 0.85), v


def test_restatements_are_duplicates():
    v = judge("alice uses Vim", "Alice uses vim.")
    assert v.verdict == Verdict.DUPLICATE and v.confidence >= 0.85


def test_deterministic():
    a = rules.judge("alice uses Vim", "alice switched to Emacs", uuid.UUID(int=1))
    b = rules.judge("alice uses Vim", "alice switched to Emacs", uuid.UUID(int=1))
    assert a == b
