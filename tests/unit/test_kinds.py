"""The kinds lexicon: which kinds of things a fact names, as whole words and phrases."""

from __future__ import annotations

import pytest

from aurra_core import kinds


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("User writes code in Emacs,", {"editor"}),
        ("User's text editor is now VS Code", {"editor"}),
        ("alice's browser: Firefox", {"browser"}),
        ("Marco sold his Tesla Model 3", {"car"}),
        ("Priya moved to New York City", {"place"}),
        ("Kenji adopted a golden retriever", {"pet", "dog"}),
        ("User's salary is $85,000", {"pay"}),
        ("Priya became a Canadian citizen", {"identity_document"}),
        ("alice has Global Entry", {"travel_program"}),
        ("User keeps halal", {"diet", "dietary_law"}),
        ("Customer downgraded to the Basic tier", {"plan"}),
        ("bob's address is 12 Elm Street", {"address"}),
    ],
)
def test_a_fact_names_the_kinds_of_its_phrases(text: str, expected: set[str]) -> None:
    assert expected <= kinds.kinds_of(text)


@pytest.mark.parametrize(
    "text",
    [
        "User reviews code on Fridays",  # "code" alone is not "VS Code"
        "Let us know by Monday",  # the pronoun, not the country
        "The edge of the table",  # left out: as often not the browser
        "Scarface is a film",  # "car" only as a whole word
    ],
)
def test_words_inside_other_words_or_phrases_name_no_kind(text: str) -> None:
    named = kinds.kinds_of(text)
    assert not named & {"editor", "place", "browser", "car"}


@pytest.mark.parametrize(
    "text",
    [
        "The team shows the product design to the client",  # "team", "shows", "design": everyday words
        "Acme Corp has 50 seats",  # licence seats, not a seat on a plane
        "User will clear the backlog before the policy review",  # not CLEAR the program, nor insurance
    ],
)
def test_everyday_words_name_no_kind(text: str) -> None:
    assert kinds.kinds_of(text) == frozenset()


def test_the_phrases_of_a_kind_include_its_name_and_its_instances() -> None:
    phrases = kinds.phrases_of({"editor"})
    assert {"editor", "emacs", "vs code", "vim"} <= set(phrases)
    assert phrases == sorted(phrases)
    assert "firefox" not in phrases
