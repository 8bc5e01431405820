"""The kinds lexicon: which kinds of things a fact names, as whole words and phrases."""

from __future__ import annotations

import pytest

from aurra_core.text_analysis import kinds


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


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("User works from home full-time", {"workplace"}),  # "work-from-home", another form
        ("alice commutes by bus", {"transport"}),  # "commute"
        ("Customer upgrades to the Team plan", {"plan"}),  # "upgrade"
        ("bob's daughters started school", {"children", "school"}),
        ("User's timezone: America/Chicago", {"timezone"}),  # the tz database's name
        ("Book the call at 9am Lisbon time", {"timezone"}),  # a city's time names its zone
        ("User prefers concise answers without emojis", {"reply_style"}),
        ("The repo indents with four spaces", {"code_style"}),
        ("Customer is billed annually", {"billing_cycle"}),
        ("Priya's pronouns are she/her", {"pronouns"}),
        ("User prefers updates by email", {"contact_channel"}),
        ("User wants a weekly summary on Slack", {"contact_channel"}),
        ("User has Blue Cross coverage", {"insurance"}),
        ("User is unemployed and job hunting", {"job"}),
        ("User gave up needlework", {"hobby"}),
        ("User moved to month-to-month billing", {"billing_cycle"}),
        ("Customer pays by invoice, net-30", {"payment_method"}),
        ("User renewed their travel document", {"identity_document"}),
    ],
)
def test_a_fact_names_a_kind_in_any_inflection_its_stems_meet(text: str, expected: set[str]) -> None:
    assert expected <= kinds.kinds_of(text)


@pytest.mark.parametrize(
    ("text", "absent"),
    [
        ("User uses Vim/Emacs", "timezone"),  # a slash between two words is no time zone
        ("alice will leave early and shift the meeting", "vacation"),  # verbs left out
        ("Acme is a large company", "clothing_size"),
        ("User sent the quarterly report", "billing_cycle"),
        ("User renewed their lease", "plan"),  # a lease or a passport renews too
        ("The monthly newsletter went out", "billing_cycle"),
    ],
)
def test_inflections_and_everyday_words_do_not_name_other_kinds(text: str, absent: str) -> None:
    assert absent not in kinds.kinds_of(text)


def test_the_stems_meet_only_at_three_letters_or_more() -> None:
    assert {kinds._stem(w) for w in ("commute", "commutes", "commuted", "commuting")} == {"commut"}
    assert kinds._stem("works") == kinds._stem("work") == "work"
    assert kinds._stem("buses") == kinds._stem("bus") == "bus"
    assert kinds._stem("hobbies") == kinds._stem("hobby") == "hobby"
    assert kinds._stem("ring") == "ring" and kinds._stem("red") == "red" and kinds._stem("home") == "home"
    assert kinds._stem("glass") == "glass" and kinds._stem("ios") == "ios"  # no plurals
    assert "transport" in kinds.kinds_of("User rides the bus") and "editor" in kinds.kinds_of(
        "User uses Vim/Emacs"
    )


def test_the_stored_index_is_the_lexicon_s() -> None:
    """`kinds_index.py` is what the first write of a cold start reads instead of stemming the
    lexicon; after a change to KINDS or the stemmer, `python -m aurra_core.text_analysis.kinds` writes it."""
    from aurra_core.text_analysis.kinds_index import INDEX

    assert kinds.build_index() == INDEX, (
        "run `python -m aurra_core.text_analysis.kinds` and commit kinds_index.py"
    )
    assert kinds.INDEX_PATH.read_text() == kinds.render_index(INDEX)
    assert len(INDEX) > 2000
