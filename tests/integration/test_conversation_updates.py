"""A newcomer's conversation, end to end on the offline path (the rules extractor and the rules
classifier, as `aurra dev` runs them): what a user says in a first session and changes in a
later one ends with one current memory per fact, holding the new value, and the old values
superseded, not deleted."""

from __future__ import annotations

from datetime import UTC, datetime

from pipeline_support import deps

from aurra_core.classifiers.rules import RulesClassifier
from aurra_core.embedders import LexicalEmbedder
from aurra_core.extractors.rules import RulesExtractor
from aurra_core.models import MemoryListQuery, MessagesWriteRequest
from aurra_core.storage import queries
from aurra_core.write_path.pipeline import write_messages

FIRST = [
    {"role": "assistant", "content": "Hi! Tell me a bit about yourself and your work."},
    {
        "role": "user",
        "content": "Sure! I'm a backend developer. I use Vim for everything, I live in Denver, "
        "and our team is 6 engineers.",
    },
]
LATER = [
    {"role": "assistant", "content": "Welcome back! Anything new?"},
    {
        "role": "user",
        "content": "Lots! I switched from Vim to Emacs last month. We moved to Portland in March, "
        "and we're 9 engineers now after the new hires.",
    },
]


def session(caller, messages, when):
    extractor = RulesExtractor()
    base = deps(RulesClassifier())
    dependencies = type(base)(base.db, base.embedder, base.classifier_factory, base.flags, lambda: extractor)
    request = MessagesWriteRequest(
        messages=messages, user_id="newcomer", valid_from=when, auto_supersede=True
    )
    outcome = write_messages(caller, request, dependencies)
    assert outcome.status_code == 201
    return outcome.result


def memories(caller, db, **filters):
    query = MemoryListQuery(user_id="newcomer", limit=100, **filters)
    return queries.read_memory_page(caller, query, db, LexicalEmbedder(384)).memories


def test_switching_editors_moving_cities_and_a_bigger_team_end_with_one_current_memory_each(db, new_key):
    caller, _ = new_key()
    first = session(caller, FIRST, datetime(2026, 1, 10, tzinfo=UTC))
    assert [f.memory.content for f in first.facts] == [
        "User is a backend developer",
        "User uses Vim for everything",
        "User lives in Denver",
        "User's team is 6 engineers",
    ]
    later = session(caller, LATER, datetime(2026, 4, 2, tzinfo=UTC))
    superseded = {
        f.memory.content: f.auto_supersede.supersession for f in later.facts if f.auto_supersede.supersession
    }
    assert set(superseded) == {
        "User switched from Vim to Emacs last month",
        "User moved to Portland in March",
        "User's team is 9 engineers now",
    }

    current = [m.content for m in memories(caller, db)]
    for new, old in (("Emacs", "Vim for everything"), ("Portland", "Denver"), ("9 engineers", "6 engineers")):
        assert len([c for c in current if new in c]) == 1, (new, current)
        assert not [c for c in current if old in c], (old, current)
    assert "User is a backend developer" in current
    assert len(current) == 4

    # the old values are superseded, not gone: each by the memory that replaced it
    everything = {m.content: m for m in memories(caller, db, include_superseded=True)}
    for old, new in (
        ("User uses Vim for everything", "User switched from Vim to Emacs last month"),
        ("User lives in Denver", "User moved to Portland in March"),
        ("User's team is 6 engineers", "User's team is 9 engineers now"),
    ):
        assert everything[old].status == "superseded"
        assert superseded[new].superseded_id == everything[old].id
