"""What a supersession replaced, and what said with it rests on it (write_path/dependents.py,
text_analysis/slots.replaced_values): the values and expressions the dependency proposal's one
statement matches against stored memories (tests/integration/test_dependent_facts.py runs it)."""

from __future__ import annotations

import re

import pytest

from aurra_core.text_analysis.slots import replaced_values
from aurra_core.write_path import dependents


@pytest.mark.parametrize(
    ("old", "new", "values"),
    [
        ("User uses Evernote for notes", "User switched from Evernote to Obsidian", ["Evernote"]),
        # the name said again as what was left
        ("User drives an old Corolla", "User sold the Corolla", ["Corolla"]),
        ("User drives a Corolla", "User traded the Corolla in for a Kia Niro", ["Corolla"]),
        ("User is training for the Valencia marathon", "User has pulled out of Valencia", ["Valencia"]),
        ("User's office is in Shoreditch", "User said: we're not in Shoreditch anymore", ["Shoreditch"]),
        ("User is a data analyst at Flipkart", "User said: not at Flipkart anymore", ["Flipkart"]),
        # a place written in lower case, as the kinds lexicon writes it
        ("User has been living in porto about 3 yrs now", "User moved to lyon last month", ["porto"]),
        ("User lives in new york", "User moved to Boston", ["new york"]),
        # said again as still held: nothing replaced
        ("User lives in Leeds", "User moved to York but still works in Leeds", []),
        ("User has been living in porto", "User moved within porto", []),
        # a word the lexicon stems to a place is no place as the user wrote it ("main" is Hindi's
        # "I", not Maine), and a town is no town in particular
        ("User said: main ghar pe hoon", "User said: ab office mein hoon", []),
        ("User moved to the city for work", "User moved back to the country", []),
    ],
)
def test_the_values_a_supersession_replaced(old, new, values):
    assert replaced_values(old, new) == values


def around(old: str, values: list[str]) -> re.Pattern[str] | None:
    """The expression `propose` sends for memories said with `old` (PostgreSQL's \\y is a word
    boundary, Python's \\b)."""
    found = dependents._life_around(old, values)
    return None if found is None else re.compile(found.replace(r"\y", r"\b"), re.IGNORECASE)


@pytest.mark.parametrize(
    "said_with",
    [
        "User walks along the seafront most mornings",
        "User boulders at Ostbloc twice a week",
        "User is a member of the Rock Club",
        "User gets the Metrolink in, about 40 min each way",
        "User takes the Northern line from Camden",
        "User cycles in every day, about 25 minutes along the canal",
        "User has just joined a running club",
        "User works there as a nurse",
        "User said: The monsoon commute is killing me",
        "User said: The hot desk is $450 a month.",
        "User's flatmates are great",
    ],
)
def test_the_life_around_where_the_user_lives_or_works_rests_on_it(said_with):
    for old, values in [
        ("User lives in Bournemouth", ["Bournemouth"]),
        ("User's office is at Salford Quays", ["Salford Quays"]),
        ("User works out of a coworking in Santos", ["Santos"]),
        ("User is a nurse at St Vincent's", ["St Vincent's"]),
    ]:
        expression = around(old, values)
        assert expression is not None and expression.search(said_with), (old, said_with)


@pytest.mark.parametrize(
    "said_with",
    [
        "User has a cat named Biscuit",
        "User is a backend developer",
        "User is 34",
        "User always forgets to put the bins out",
        "User's squat is stuck at 80kg",
    ],
)
def test_what_is_not_about_the_place_does_not_rest_on_it(said_with):
    expression = around("User lives in Bournemouth", ["Bournemouth"])
    assert expression is not None and not expression.search(said_with)


def test_only_a_place_where_the_user_lives_or_works_has_a_life_around_it():
    # a tool, a new number: what was said with them does not move
    assert around("User uses Evernote for notes", ["Evernote"]) is None
    assert around("User's rent in Leeds is 900", ["900"]) is None
    assert around("User lives in Leeds", ["Leeds"]) is not None
