"""The topic gate of extracted facts: a code-level lexicon, whatever a model said."""

import pytest

from aurra_core.text_analysis.sensitive_topics import fact_topic, sensitive_topic


@pytest.mark.parametrize(
    "fact",
    [
        "User was diagnosed with diabetes",
        "User has type 2 diabetes",
        "User takes 20mg of fluoxetine every morning",
        "User is allergic to peanuts",
        "User's sister has an egg allergy",
        "User has been having migraines",
        "User started therapy for anxiety",
        "User is pregnant with their second child",
        "User is on antidepressants",
        "User had knee surgery in March",
        "User's father has Alzheimer's",
        "User has ADHD",
        "User's doctor prescribed an inhaler",
        "User is in remission from cancer",
        "User has chronic back pain",
        "User uses an EpiPen",
    ],
)
def test_medical_matters_are_health_medical(fact):
    assert sensitive_topic(fact) == "health_medical"
    assert fact_topic(fact, "preferences", None) == "health_medical"


@pytest.mark.parametrize(
    "fact",
    [
        "User is suing their former landlord",
        "User was arrested in 2019",
        "User has a felony conviction",
        "User's work visa expires in June",
        "User is applying for a green card",
        "User is on probation",
        "User is in a custody dispute over their son",
        "User filed for bankruptcy last year",
        "User's brother was deported",
        "User has an H-1B visa",
        "User is going through a divorce",
        "User got a DUI",
        "User is seeking asylum",
    ],
)
def test_legal_matters_are_legal_status(fact):
    assert sensitive_topic(fact) == "legal_status"
    assert fact_topic(fact, "general", None) == "legal_status"


@pytest.mark.parametrize(
    "fact",
    [
        "User uses Emacs",
        "User moved to Berlin last month",
        "User works as a lawyer at a law firm",
        "User prefers tea over coffee",
        "User is on a free trial of the Pro plan",
        "User went on a blind date",
        "User's cat is named Miso",
        "User plays chess on weekends",
        "User switched to VS Code",
        "User's favourite season is autumn",
    ],
)
def test_everyday_facts_keep_the_extractors_topic(fact):
    assert sensitive_topic(fact) is None
    assert fact_topic(fact, "preferences", None) == "preferences"


def test_the_callers_topic_stands_for_every_fact():
    assert fact_topic("User was diagnosed with diabetes", "preferences", "journal") == "journal"
    assert fact_topic("User uses Emacs", "preferences", "health_medical") == "health_medical"
