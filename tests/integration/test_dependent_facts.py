"""Dependent facts (write_path/dependents.py): when a memory is superseded, the
current memories of the same subject that rested on the value replaced become
`dependency_proposed` events in the review queue, never acted on; reads with `possibly_stale`
say which memories such an event names, until it is dismissed."""

from __future__ import annotations

from pipeline_support import deps

from aurra_core.classifiers.rules import RulesClassifier
from aurra_core.embedders import LexicalEmbedder
from aurra_core.models import AuditListQuery, MemoryListQuery, WriteRequest
from aurra_core.storage import queries
from aurra_core.storage.db import get_database
from aurra_core.write_path import supersession
from aurra_core.write_path.pipeline import write_memory


def put(caller, content, user="alice"):
    return write_memory(
        caller,
        WriteRequest(content=content, topic="preferences", user_id=user, auto_supersede=True),
        deps(RulesClassifier()),
    )


def memories(caller, user="alice"):
    page = queries.read_memory_page(
        caller, MemoryListQuery(user_id=user, possibly_stale=True), get_database(), LexicalEmbedder(384)
    )
    return {m.content: m for m in page.memories}


def test_a_fact_that_rested_on_the_replaced_value_is_proposed_and_flagged(db, new_key):
    caller, _ = new_key()
    old = put(caller, "User uses Evernote for notes")
    notes = put(caller, "User has about 9,000 notes in Evernote")
    put(caller, "User lives in Leeds")
    put(caller, "User's sister uses Evernote too", user="bob")
    new = put(caller, "User switched from Evernote to Obsidian for notes")
    assert new.result.auto_supersede.supersession.superseded_id == old.result.memory.id

    events = queries.read_audit_page(caller, AuditListQuery(type="dependency_proposed"), db).events
    assert [(e.memory_id, e.superseded_id, e.details["on"]) for e in events] == [
        (notes.result.memory.id, old.result.memory.id, "Evernote")
    ]
    assert events[0].status.value == "open"
    current = memories(caller)
    # never acted on: the dependent is still current, and flagged
    assert current["User has about 9,000 notes in Evernote"].possibly_stale is True
    assert current["User lives in Leeds"].possibly_stale is False
    assert memories(caller, user="bob")["User's sister uses Evernote too"].possibly_stale is False

    supersession.dismiss(caller, events[0].id, db)
    assert memories(caller)["User has about 9,000 notes in Evernote"].possibly_stale is False


def test_without_possibly_stale_a_read_says_nothing_of_it(db, new_key):
    caller, _ = new_key()
    put(caller, "User uses Evernote for notes")
    put(caller, "User has about 9,000 notes in Evernote")
    put(caller, "User switched from Evernote to Obsidian for notes")
    page = queries.read_memory_page(
        caller, MemoryListQuery(user_id="alice"), get_database(), LexicalEmbedder(384)
    )
    assert all(m.possibly_stale is None for m in page.memories)
    assert "possibly_stale" not in page.memories[0].model_dump(mode="json")


def test_a_dependency_proposal_is_never_approved(db, new_key):
    import pytest

    from aurra_core.errors import ValidationFailed

    caller, _ = new_key()
    put(caller, "User uses Evernote for notes")
    put(caller, "User has about 9,000 notes in Evernote")
    put(caller, "User switched from Evernote to Obsidian for notes")
    (event,) = queries.read_audit_page(caller, AuditListQuery(type="dependency_proposed"), db).events
    with pytest.raises(ValidationFailed):
        supersession.approve(caller, event.id, db)


def test_another_tenants_supersession_proposes_nothing_here_and_its_events_are_not_ours(db, new_key):
    import pytest

    from aurra_core.errors import NotFound

    ours, _ = new_key()
    theirs, _ = new_key()
    for caller in (ours, theirs):
        put(caller, "User uses Evernote for notes")
        put(caller, "User has about 9,000 notes in Evernote")
    put(theirs, "User switched from Evernote to Obsidian for notes")

    assert queries.read_audit_page(ours, AuditListQuery(type="dependency_proposed"), db).events == []
    assert memories(ours)["User has about 9,000 notes in Evernote"].possibly_stale is False
    (event,) = queries.read_audit_page(theirs, AuditListQuery(type="dependency_proposed"), db).events
    assert memories(theirs)["User has about 9,000 notes in Evernote"].possibly_stale is True
    with pytest.raises(NotFound):  # their proposal cannot be dismissed from here
        supersession.dismiss(ours, event.id, db)
    assert memories(theirs)["User has about 9,000 notes in Evernote"].possibly_stale is True


def test_a_dependency_proposal_and_its_dismissal_are_on_the_change_stream(db, new_key):
    from aurra_core.models import EventListQuery
    from aurra_core.storage.events import read_event_page

    caller, _ = new_key()
    old = put(caller, "User uses Evernote for notes")
    notes = put(caller, "User has about 9,000 notes in Evernote")
    new = put(caller, "User switched from Evernote to Obsidian for notes")
    (proposal,) = queries.read_audit_page(caller, AuditListQuery(type="dependency_proposed"), db).events
    supersession.dismiss(caller, proposal.id, db)

    stream = read_event_page(caller, EventListQuery(types="proposal.created,proposal.resolved"), db).events
    assert [(e.type.value, e.memory_id, e.user_id) for e in stream] == [
        ("proposal.created", notes.result.memory.id, "alice"),
        ("proposal.resolved", notes.result.memory.id, "alice"),
    ]
    created, resolved = (e.data for e in stream)
    assert created == {
        "event_id": str(proposal.id),
        "proposed_by": str(new.result.memory.id),
        "kind": "dependency",
        "superseded_id": str(old.result.memory.id),
    }
    assert resolved["kind"] == "dependency"
    assert resolved["proposal_id"] == str(proposal.id)
    assert resolved["resolution"] == "dismissed"
    assert "Evernote" not in str(stream)  # ids and codes only, never content


def test_a_fact_of_the_same_message_that_points_back_at_the_replaced_one_is_proposed(db, new_key):
    from datetime import UTC, datetime

    from aurra_core.extractors.rules import RulesExtractor
    from aurra_core.models import MessagesWriteRequest
    from aurra_core.write_path.pipeline import write_messages

    caller, _ = new_key()
    extractor = RulesExtractor()
    base = deps(RulesClassifier())
    dependencies = type(base)(base.db, base.embedder, base.classifier_factory, base.flags, lambda: extractor)

    def said(text, day, user="alice"):
        request = MessagesWriteRequest(
            messages=[{"role": "user", "content": text}],
            user_id=user,
            valid_from=datetime(2026, 3, day, tzinfo=UTC),
            auto_supersede=True,
        )
        return write_messages(caller, request, dependencies).result

    first = said("I code everything in Vim. I live in Leeds and I rent a flat there for 900 a month.", 1)
    said("My sister lives in Leeds and works there.", 2, user="bob")
    assert [f.memory.content for f in first.facts] == [
        "User codes everything in Vim",
        "User lives in Leeds",
        "User rents a flat there for 900 a month",
    ]
    # the editor said in the same message is no place the flat is "there" in
    switched = said("I switched from Vim to Neovim.", 10)
    assert switched.facts[0].auto_supersede.supersession.superseded_id == first.facts[0].memory.id
    assert queries.read_audit_page(caller, AuditListQuery(type="dependency_proposed"), db).events == []
    said("I moved to York last week.", 20)

    events = queries.read_audit_page(caller, AuditListQuery(type="dependency_proposed"), db).events
    flat = first.facts[2].memory.id
    # the flat "there" rested on Leeds; nothing of bob's, whose Leeds was not replaced
    assert [(e.memory_id, e.superseded_id, e.details["on"]) for e in events] == [
        (flat, first.facts[1].memory.id, "Leeds")
    ]
    assert memories(caller)["User rents a flat there for 900 a month"].possibly_stale is True


def test_the_life_said_with_where_the_user_lived_is_proposed_when_they_move(db, new_key):
    from datetime import UTC, datetime

    from aurra_core.extractors.rules import RulesExtractor
    from aurra_core.models import MessagesWriteRequest
    from aurra_core.write_path.pipeline import write_messages

    caller, _ = new_key()
    extractor = RulesExtractor()
    base = deps(RulesClassifier())
    dependencies = type(base)(base.db, base.embedder, base.classifier_factory, base.flags, lambda: extractor)

    def said(text, day):
        request = MessagesWriteRequest(
            messages=[{"role": "user", "content": text}],
            user_id="alice",
            valid_from=datetime(2026, 3, day, tzinfo=UTC),
            auto_supersede=True,
        )
        return write_messages(caller, request, dependencies).result

    first = said(
        "I live in Bournemouth. I walk along the seafront most mornings and I have a cat called Bo. "
        "My sister cycles along the seafront every day.",
        1,
    )
    said("I cycle to the pool on Saturdays.", 2)  # another message: nothing ties it to Bournemouth
    assert [f.memory.content for f in first.facts] == [
        "User lives in Bournemouth",
        "User walks along the seafront most mornings",
        "User has a cat called Bo",
        "User's sister cycles along the seafront every day",
    ]
    moved = said("I moved to Exeter last month.", 20)
    assert moved.facts[0].auto_supersede.supersession.superseded_id == first.facts[0].memory.id

    events = queries.read_audit_page(caller, AuditListQuery(type="dependency_proposed"), db).events
    # the walk rested on where the user lived; the cat, the sister's rides and a ride said
    # elsewhere did not
    assert [(e.memory_id, e.superseded_id, e.details["on"]) for e in events] == [
        (first.facts[1].memory.id, first.facts[0].memory.id, "Bournemouth")
    ]
    flagged = {content for content, m in memories(caller).items() if m.possibly_stale}
    assert flagged == {"User walks along the seafront most mornings"}
