"""Expiry on write: a fact with its own `valid_to` is current until then and not after, on the
real PostgreSQL, through list, search, get, history, supersession and revert."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from pipeline_support import ScriptedClassifier
from test_messages_write import write_conversation

from aurra_core import service
from aurra_core.embedders import LexicalEmbedder
from aurra_core.errors import Conflict, NotFound, ValidationFailed
from aurra_core.models import MemoryListQuery, PointInTime, SupersedeRequest, WriteBody
from aurra_core.storage import queries

pytestmark = pytest.mark.integration

NOW = datetime.now(UTC)


def listed(caller, db, **filters):
    page = queries.read_memory_page(caller, MemoryListQuery(limit=100, **filters), db, LexicalEmbedder(384))
    return {m.content: m for m in page.memories}


def write(caller, content, **fields):
    return service.write_memory(caller, WriteBody(content=content, **fields))[1].memory


def test_a_fact_is_current_until_its_valid_to_and_not_after(db, new_key):
    caller, _ = new_key()
    until = NOW + timedelta(days=3)
    memory = write(caller, "User is in Paris this week", valid_to=until.isoformat())
    assert memory.valid_to == until and memory.status == "current" and memory.superseded_by is None
    assert listed(caller, db)["User is in Paris this week"].status == "current"
    # as_of before the end: there; at and after it: not (valid time is half-open)
    assert "User is in Paris this week" in listed(caller, db, as_of=until - timedelta(seconds=1))
    assert "User is in Paris this week" not in listed(caller, db, as_of=until)
    assert "User is in Paris this week" not in listed(caller, db, as_of=until + timedelta(days=1))
    assert "User is in Paris this week" not in listed(caller, db, q="Paris", as_of=until + timedelta(days=1))
    with pytest.raises(NotFound):
        service.get_memory(caller, memory.id, PointInTime(as_of=until + timedelta(hours=1)))
    assert service.get_memory(caller, memory.id, PointInTime()).id == memory.id


def test_once_its_valid_to_has_passed_a_memory_reads_expired(db, new_key):
    caller, _ = new_key()
    memory = write(
        caller,
        "User had a cold",
        valid_from=(NOW - timedelta(days=10)).isoformat(),
        valid_to=(NOW - timedelta(days=3)).isoformat(),
    )
    assert memory.status == "expired"
    assert "User had a cold" not in listed(caller, db)
    assert listed(caller, db, include_superseded=True)["User had a cold"].status == "expired"
    assert listed(caller, db, as_of=NOW - timedelta(days=5))["User had a cold"].status == "expired"
    history = service.memory_history(caller, memory.id, PointInTime())
    assert [v.status for v in history.versions] == ["expired"]
    # an expired memory cannot be superseded: it ended by itself
    with pytest.raises(Conflict, match="expired"):
        service.supersede_memory(caller, memory.id, SupersedeRequest(content="User has a cold again"))


def test_valid_to_must_be_later_than_valid_from_which_defaults_to_now(db, new_key):
    caller, _ = new_key()
    with pytest.raises(ValueError, match="valid_to must be later than valid_from"):
        WriteBody(content="x", valid_from=NOW.isoformat(), valid_to=NOW.isoformat())
    with pytest.raises(ValidationFailed, match="valid_to"):
        service.write_memory(
            caller, WriteBody(content="User is at home", valid_to=(NOW - timedelta(1)).isoformat())
        )
    with pytest.raises(ValueError, match=r"messages\[0\]"):
        WriteBody(
            messages=[{"role": "user", "content": "I am in Rome.", "created_at": NOW.isoformat()}],
            valid_to=(NOW - timedelta(days=1)).isoformat(),
        )
    assert listed(caller, db, include_superseded=True) == {}


def test_a_messages_write_gives_every_fact_the_expiry(db, new_key):
    caller, _ = new_key()
    until = NOW + timedelta(days=1)
    outcome = write_conversation(
        caller,
        ScriptedClassifier(),
        messages=[{"role": "user", "content": "I am in Rome. I use a rental car."}],
        valid_to=until.isoformat(),
    )
    assert [f.memory.valid_to for f in outcome.result.facts] == [until, until]
    assert not listed(caller, db, as_of=until)


def test_a_supersession_ends_it_no_later_than_its_own_expiry_and_a_revert_restores_the_expiry(db, new_key):
    caller, _ = new_key()
    until = NOW + timedelta(days=5)
    trip = write(caller, "User is in Paris", valid_to=until.isoformat())
    # superseded from tomorrow: valid until tomorrow
    tomorrow = NOW + timedelta(days=1)
    _, result = service.supersede_memory(
        caller, trip.id, SupersedeRequest(content="User is in Rome", valid_from=tomorrow.isoformat())
    )
    assert result.superseded.valid_to == tomorrow and result.superseded.status == "superseded"
    event_id = result.superseded.superseded_event_id
    _, reverted = service.revert_supersession(caller, event_id)
    assert reverted.restored.valid_to == until and reverted.restored.status == "current"
    # superseded after its own end: the own end stays
    _, later = service.supersede_memory(
        caller,
        trip.id,
        SupersedeRequest(content="User is in Lyon", valid_from=(until + timedelta(days=2)).isoformat()),
    )
    assert later.superseded.valid_to == until


def test_a_memory_with_an_expiry_is_no_candidate_of_automatic_supersession(db, new_key):
    """Documented: it ends by itself, and automatic supersession compares open-ended memories
    only (the candidate indexes hold those)."""
    from pipeline_support import deps

    from aurra_core.models import SkippedReason, Verdict, WriteRequest
    from aurra_core.write_path.pipeline import write_memory

    caller, _ = new_key()
    anything = ScriptedClassifier(lambda new, c: (Verdict.CONTRADICTS, 0.99))
    expiring = WriteRequest(
        content="User is staying in Paris", valid_to=NOW + timedelta(days=2), auto_supersede=True
    )
    write_memory(caller, expiring, deps(anything))
    outcome = write_memory(
        caller, WriteRequest(content="User is staying in Rome", auto_supersede=True), deps(anything)
    )
    assert outcome.result.auto_supersede.skipped_reason == SkippedReason.NO_CANDIDATES
    assert anything.calls == []
    assert {m.status for m in listed(caller, db).values()} == {"current"}
