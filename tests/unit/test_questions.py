"""What a question asks for (`text_analysis.questions`): the answers it takes, and whose."""

from __future__ import annotations

import pytest

from aurra_core.text_analysis.questions import Answer, read_question


@pytest.mark.parametrize(
    ("question", "wanted"),
    [
        ("Where does the user work?", {Answer.WORKPLACE}),
        ("Who is the user working for?", {Answer.WORKPLACE}),
        ("What is the user's job?", {Answer.WORKPLACE}),
        ("Where does the user live?", {Answer.HOME}),
        ("Which city does the user live in?", {Answer.HOME}),
        ("Where is the user moving?", {Answer.HOME}),
        ("How many people are on the user's team?", {Answer.COUNT}),
        ("How old is the user?", {Answer.COUNT}),
        ("How much rent does the user pay?", {Answer.AMOUNT}),
        ("What is the user's monthly rent?", {Answer.AMOUNT}),
        ("What time does the standup start?", {Answer.TIME}),
        ("On which day does the cleaner come?", {Answer.DAY}),
        ("When does the user walk the dog?", {Answer.TIME, Answer.DAY, Answer.DATE}),
        ("Which Postgres version does the team run?", {Answer.VERSION}),
        ("Which Postgres version does the user run?", {Answer.VERSION}),
        ("What phone does the user have?", {Answer.CHOSEN}),
        ("Which app does the user use to track food?", {Answer.CHOSEN}),
        ("What does the user's team use for orchestration?", {Answer.CHOSEN}),
    ],
)
def test_a_question_asks_for_its_answers(question, wanted):
    asked = read_question(question)
    assert asked is not None and asked.answers_wanted == wanted


@pytest.mark.parametrize(
    "text", ["editor", "Lisbon apartment lease", "what editor does alice use", "tools I use when coding"]
)
def test_a_text_that_asks_none_of_these_reads_as_none(text):
    assert read_question(text) is None


@pytest.mark.parametrize(
    ("question", "memory", "answers"),
    [
        # the one thing of a kind the user has: what they got or switched to answers it
        ("What phone does the user have?", "User got the 15 Pro in the end", True),
        ("Which app does the user use to track food?", "User switched to Cronometer", True),
        (
            "What does the user's team use for orchestration?",
            "User's team ripped out Airflow and went with Dagster",
            True,
        ),
        ("What phone does the user have?", "User loves hiking", False),
        ("What phone does the user have?", "User's sister got the iPhone 16", False),
        ("Where does the user work?", "User left Shopify for Canva", True),
        ("Where does the user work?", "User is now a design lead at Canva", True),
        ("Where does the user work?", "User said: big news, new job at Coolblue", True),
        ("Where does the user work?", "User loves Figma", False),
        # someone else's job answers nothing about the user's
        ("Where does the user work?", "User's sister works at Google", False),
        ("Where does the user's sister work?", "User's sister works at Google", True),
        ("Where does the user's sister work?", "User works at Canva", False),
        # kept as said about a third person: "she"
        ("Where does the user's sister live?", "User said: she's in Linz now.", True),
        ("Where does the user\u2019s daughter Ava work?", "User said: Ava got a job at the bakery", True),
        ("Where does Marco work?", "Marco joined Stripe in May", True),
        ("Where does Marco work?", "User joined Stripe in May", False),
        ("Where does the user live?", "User moved from Berlin to Lisbon", True),
        ("Where does the user live?", "User bought a place in Quorn", True),
        ("Where does the user live?", "User is coeliac", False),
        ("How many people are on the user's team?", "User's team grew to six", True),
        ("How many people are on the user's team?", "User's team uses Jira", False),
        ("What time does the user run?", "User runs at 6:30am", True),
        ("What time does the user run?", "User runs along the river", False),
        ("On which day does the user swim?", "User swims on Thursdays now", True),
        ("How much rent does the user pay?", "User pays $2,050 a month", True),
        ("Which Postgres version does the user run?", "User's database runs Postgres 16", True),
    ],
)
def test_a_memory_answers_a_question_of_its_kind_about_the_one_asked_about(question, memory, answers):
    asked = read_question(question)
    assert asked is not None
    assert asked.answers(memory) is answers


def test_the_answers_of_a_workplace_or_a_home_have_wording_of_their_own():
    specific = read_question("Where does the user work?")
    broad = read_question("How many cats does the user have?")
    assert specific is not None and specific.specific
    assert broad is not None and not broad.specific


def test_what_a_question_asks_about_is_no_relation():
    """ "the user's rent" asks the user's rent: the user, not someone called rent."""
    asked = read_question("What is the user's monthly rent?")
    assert asked is not None and asked.relation is None and asked.about_the_user
    of_the_team = read_question("How many engineers are on the user's team?")
    assert of_the_team is not None and of_the_team.relation == "team"


def test_a_group_the_user_is_in_answers_for_the_user():
    asked = read_question("Where does the user work?")
    assert asked is not None
    assert asked.answers("User's company moved the team to an office in Leeds")
    assert not asked.answers("User's boss works at Google")


@pytest.mark.parametrize(
    ("question", "memory", "answers"),
    [
        ("Does the user still sing in the church choir?", "User gave it up in July", True),
        ("Does the user still sing in the church choir?", "User sings in the choir on Thursdays", False),
        ("Does the user drink coffee anymore?", "User has quit coffee", True),
        # the same relation by another word
        ("Is the user's dad still working?", "User's father retired in May", True),
        ("Is the user's dad still working?", "User's mum retired in May", False),
        ("Where does the user's mum live?", "User's mother lives in Leeds", True),
    ],
)
def test_whether_something_still_holds_is_answered_by_its_end(question, memory, answers):
    asked = read_question(question)
    assert asked is not None
    assert asked.answers(memory) is answers


def test_only_someone_of_the_users_or_a_group_of_their_people_is_asked_of():
    """ "the user's office" or "the user's bakery" is the user's own: any memory of the user's
    that shows the answer; "the user's sister" is hers."""
    office = read_question("Where is the user's office?")
    assert office is not None and office.relation is None and office.about_the_user
    assert office.answers("User's company moved them to a new campus in Sandyford")
    bakery = read_question("How many employees does the user's bakery have?")
    assert bakery is not None and bakery.answers("User said: so there are six people on payroll now")
    sister = read_question("Where does the user's sister live?")
    assert sister is not None and sister.relation == "sister"
    role = read_question("What is the user's current nursing role?")
    assert role is not None and role.answers("User is a staff nurse on the cardiology ward at the Royal")
