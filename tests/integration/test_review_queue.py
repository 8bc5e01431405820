"""The review queue, reverts that stick and `superseded_event_id`, on a real PostgreSQL.

The classifier is scripted (a test double of the classifier port); storage is real."""

from __future__ import annotations

import threading
from datetime import UTC, datetime

import pytest
from pipeline_support import ScriptedClassifier, deps

from aurra_core import service
from aurra_core.access import keys
from aurra_core.errors import Conflict, NotFound, ValidationFailed
from aurra_core.models import (
    AuditListQuery,
    AuditType,
    MemoryListQuery,
    NotActedReason,
    PointInTime,
    ProposalStatus,
    SettingsPatch,
    SupersedeRequest,
    Verdict,
    WriteRequest,
)
from aurra_core.storage import queries, store
from aurra_core.write_path.pipeline import write_memory


def scripted(verdicts: dict[str, tuple[Verdict, float]]) -> ScriptedClassifier:
    """Answers `verdicts[candidate content]`, new_fact for anything else."""
    return ScriptedClassifier(lambda new, c: verdicts.get(c.content, (Verdict.NEW_FACT, 0.6)))


def put(caller, content, classifier=None, **kw):
    """A write through the pipeline; without a classifier, Level 2 is off (a plain store)."""
    request = WriteRequest(content=content, topic=kw.pop("topic", "preferences"), auto_supersede=True, **kw)
    if classifier is None:
        return write_memory(caller, request, deps(ScriptedClassifier(), level2=False)).result
    return write_memory(caller, request, deps(classifier)).result


def queue(caller, db):
    query = AuditListQuery(type=AuditType.SUPERSESSION_PROPOSED, status=ProposalStatus.OPEN)
    return queries.read_audit_page(caller, query, db).events


def memory(caller, memory_id, db, **when):
    return queries.read_memory(caller, memory_id, PointInTime(**when), db)


# ---------------------------------------------------------------- proposals


def test_a_contradiction_below_min_confidence_is_proposed_and_approving_it_supersedes(db, new_key):
    caller, _ = new_key()
    vim = put(caller, "alice uses Vim").memory
    out = put(caller, "alice likes Emacs", scripted({"alice uses Vim": (Verdict.CONTRADICTS, 0.7)}))

    assert out.created and out.auto_supersede.supersession is None
    assert out.auto_supersede.decision.not_acted_reason == NotActedReason.BELOW_MIN_CONFIDENCE
    proposal = out.auto_supersede.proposal
    assert proposal.superseded_id == vim.id and proposal.confidence == 0.7
    assert memory(caller, vim.id, db).status == "current" and out.memory.status == "current"

    (queued,) = queue(caller, db)
    assert queued.id == proposal.audit_event_id and queued.status == ProposalStatus.OPEN
    assert (queued.memory_id, queued.superseded_id) == (out.memory.id, vim.id)
    assert queued.details["not_acted_reason"] == "below_min_confidence"

    status, approved = service.approve_proposal(caller, queued.id)
    assert status == 201
    assert approved.event.type == AuditType.PROPOSAL_APPROVED
    assert approved.superseded.id == vim.id and approved.superseded.status == "superseded"
    assert approved.memory.id == out.memory.id and approved.memory.supersedes == vim.id
    assert approved.superseded.superseded_event_id == approved.event.id
    assert memory(caller, vim.id, db).superseded_event_id == approved.event.id
    assert queue(caller, db) == []
    assert queries.read_audit_event(caller, queued.id, db).status == ProposalStatus.APPROVED

    with pytest.raises(Conflict, match="no longer open"):
        service.approve_proposal(caller, queued.id)
    with pytest.raises(Conflict, match="no longer open"):
        service.dismiss_proposal(caller, queued.id)
    # The approval is a supersession like any other: a revert undoes it.
    _, reverted = service.revert_supersession(caller, approved.event.id)
    assert reverted.restored.id == vim.id and reverted.restored.superseded_event_id is None


def test_dismissing_leaves_both_memories_and_closes_the_proposal(db, new_key):
    caller, _ = new_key()
    vim = put(caller, "alice uses Vim").memory
    out = put(caller, "alice likes Emacs", scripted({"alice uses Vim": (Verdict.CONTRADICTS, 0.6)}))
    status, dismissed = service.dismiss_proposal(caller, out.auto_supersede.proposal.audit_event_id)
    assert status == 200 and dismissed.event.type == AuditType.PROPOSAL_DISMISSED
    assert dismissed.event.memory_id == out.memory.id and dismissed.event.superseded_id == vim.id
    assert queue(caller, db) == []
    dismissed_queue = AuditListQuery(status=ProposalStatus.DISMISSED)
    assert [e.id for e in queries.read_audit_page(caller, dismissed_queue, db).events] == [
        out.auto_supersede.proposal.audit_event_id
    ]
    assert memory(caller, vim.id, db).status == "current"
    with pytest.raises(Conflict):
        service.approve_proposal(caller, out.auto_supersede.proposal.audit_event_id)


def test_a_proposal_status_is_derived_as_of_the_pinned_page(db, new_key):
    """A cursor pins transaction time: a proposal approved after the first page still reads open."""
    caller, _ = new_key()
    put(caller, "alice uses Vim")
    first = put(caller, "alice likes Emacs", scripted({"alice uses Vim": (Verdict.CONTRADICTS, 0.7)}))
    put(caller, "bob uses Nano")
    second = put(caller, "bob likes Helix", scripted({"bob uses Nano": (Verdict.CONTRADICTS, 0.7)}))
    query = AuditListQuery(type=AuditType.SUPERSESSION_PROPOSED, limit=1)
    page = queries.read_audit_page(caller, query, db)
    assert page.events[0].id == second.auto_supersede.proposal.audit_event_id
    service.dismiss_proposal(caller, first.auto_supersede.proposal.audit_event_id)
    rest = queries.read_audit_page(caller, query.model_copy(update={"cursor": page.next_cursor}), db)
    assert rest.events[0].id == first.auto_supersede.proposal.audit_event_id
    assert rest.events[0].status == ProposalStatus.OPEN
    assert queries.read_audit_event(caller, rest.events[0].id, db).status == ProposalStatus.DISMISSED


def test_approve_refuses_what_is_not_an_open_proposal_of_current_memories(db, new_key):
    caller, _ = new_key()
    vim = put(caller, "alice uses Vim").memory
    out = put(caller, "alice likes Emacs", scripted({"alice uses Vim": (Verdict.CONTRADICTS, 0.7)}))
    # The old memory moves on by another route: the proposal can no longer apply.
    service.supersede_memory(caller, vim.id, SupersedeRequest(content="alice uses Helix"))
    with pytest.raises(Conflict, match="no longer current"):
        service.approve_proposal(caller, out.auto_supersede.proposal.audit_event_id)
    assert queue(caller, db)[0].status == ProposalStatus.OPEN  # nothing was written
    manual = queries.read_audit_page(caller, AuditListQuery(type=AuditType.MANUAL_SUPERSEDE), db).events[0]
    with pytest.raises(ValidationFailed, match=r"^a manual_supersede event is not a proposal$"):
        service.approve_proposal(caller, manual.id)
    with pytest.raises(ValidationFailed, match=r"^a manual_supersede event is not a proposal$"):
        service.dismiss_proposal(caller, manual.id)
    # The message's article follows the event type's first letter.
    emacs = put(caller, "alice uses Emacs").memory
    auto = put(caller, "alice switched to Helix", scripted({"alice uses Emacs": (Verdict.CONTRADICTS, 0.95)}))
    assert auto.auto_supersede.supersession.superseded_id == emacs.id
    event_id = auto.auto_supersede.supersession.audit_event_id
    with pytest.raises(ValidationFailed, match=r"^an auto_supersede event is not a proposal$"):
        service.approve_proposal(caller, event_id)
    with pytest.raises(ValidationFailed, match=r"^an auto_supersede event is not a proposal$"):
        service.dismiss_proposal(caller, event_id)
    other, _ = new_key()
    with pytest.raises(NotFound):
        service.approve_proposal(other, out.auto_supersede.proposal.audit_event_id)
    with pytest.raises(NotFound):
        service.dismiss_proposal(other, out.auto_supersede.proposal.audit_event_id)
    assert queries.read_audit_page(other, AuditListQuery(status=ProposalStatus.OPEN), db).events == []


def test_status_filter_applies_to_proposals_only(db, new_key):
    caller, _ = new_key()
    with pytest.raises(ValidationFailed, match="supersession_proposed"):
        queries.read_audit_page(caller, AuditListQuery(type=AuditType.REVERT, status=ProposalStatus.OPEN), db)


def test_what_is_not_proposed(db, new_key):
    caller, _ = new_key()
    put(caller, "alice uses Vim")
    below = put(caller, "alice may try Emacs", scripted({"alice uses Vim": (Verdict.CONTRADICTS, 0.4)}))
    assert below.auto_supersede.proposal is None  # below proposal_min_confidence (0.5)
    supplements = put(
        caller, "alice uses Vim daily", scripted({"alice uses Vim": (Verdict.SUPPLEMENTS, 0.9)})
    )
    assert supplements.auto_supersede.proposal is None
    assert supplements.auto_supersede.decision.not_acted_reason == NotActedReason.NOT_CONTRADICTS
    with db.tenant_transaction(caller.tenant_id) as conn:
        keys.update_key_settings(
            conn, caller, SettingsPatch.model_validate({"proposal_min_confidence": None})
        )
    off = put(caller, "alice likes Emacs", scripted({"alice uses Vim": (Verdict.CONTRADICTS, 0.7)}))
    assert off.auto_supersede.proposal is None
    assert queue(caller, db) == []


def test_the_most_confident_contradiction_is_proposed_whatever_the_decision(db, new_key):
    caller, _ = new_key()
    vim = put(caller, "alice uses Vim").memory
    put(caller, "alice has a cat")
    out = put(
        caller,
        "alice likes Emacs",
        scripted({"alice uses Vim": (Verdict.CONTRADICTS, 0.7), "alice has a cat": (Verdict.NEW_FACT, 0.95)}),
    )
    assert out.auto_supersede.decision.classifier == Verdict.NEW_FACT
    assert out.auto_supersede.proposal.superseded_id == vim.id


def test_two_concurrent_approvals_one_wins_one_conflicts(db, new_key):
    """Each approval runs on its own pooled connection; both start together at a barrier."""
    caller, _ = new_key()
    for round_ in range(3):
        put(caller, f"user{round_} uses Vim")
        out = put(
            caller,
            f"user{round_} likes Emacs",
            scripted({f"user{round_} uses Vim": (Verdict.CONTRADICTS, 0.7)}),
        )
        proposal_id = out.auto_supersede.proposal.audit_event_id
        barrier = threading.Barrier(2, timeout=10)
        outcomes: list[object] = []

        def approve(barrier: threading.Barrier, outcomes: list[object], proposal_id=proposal_id) -> None:
            barrier.wait()
            try:
                outcomes.append(service.approve_proposal(caller, proposal_id)[0])
            except Conflict as exc:
                outcomes.append(exc)

        threads = [threading.Thread(target=approve, args=(barrier, outcomes)) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert len(outcomes) == 2
        assert sum(1 for o in outcomes if o == 201) == 1
        assert sum(1 for o in outcomes if isinstance(o, Conflict)) == 1
        approvals = queries.read_audit_page(
            caller, AuditListQuery(type=AuditType.PROPOSAL_APPROVED, memory_id=out.memory.id), db
        ).events
        assert len(approvals) == 1


def test_an_approval_and_a_dismissal_racing_resolve_the_proposal_once(db, new_key):
    caller, _ = new_key()
    put(caller, "carol uses Vim")
    out = put(caller, "carol likes Emacs", scripted({"carol uses Vim": (Verdict.CONTRADICTS, 0.7)}))
    proposal_id = out.auto_supersede.proposal.audit_event_id
    barrier = threading.Barrier(2, timeout=10)
    won: list[str] = []

    def run(name, call):
        barrier.wait()
        try:
            call(caller, proposal_id)
            won.append(name)
        except Conflict:
            pass

    threads = [
        threading.Thread(target=run, args=("approve", service.approve_proposal)),
        threading.Thread(target=run, args=("dismiss", service.dismiss_proposal)),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert len(won) == 1
    status = queries.read_audit_event(caller, proposal_id, db).status
    assert status == (ProposalStatus.APPROVED if won == ["approve"] else ProposalStatus.DISMISSED)
    with db.transaction() as conn:
        resolutions = conn.execute(
            "SELECT count(*) FROM audit_events WHERE resolves_event_id = %s", (proposal_id,)
        ).fetchone()[0]
    assert resolutions == 1


# ---------------------------------------------------------------- settings


def settings_patch(caller, db, **fields):
    with db.tenant_transaction(caller.tenant_id) as conn:
        return keys.update_key_settings(conn, caller, SettingsPatch.model_validate(fields))


def test_proposal_min_confidence_must_stay_below_min_confidence(db, new_key):
    caller, _ = new_key()
    assert service.get_settings(caller).proposal_min_confidence == 0.5
    assert service.get_settings(caller).daily_model_calls_limit is None
    with pytest.raises(ValidationFailed, match="below min_confidence") as raised:
        settings_patch(caller, db, proposal_min_confidence=0.85)
    assert raised.value.details[0]["field"] == "proposal_min_confidence"
    settings_patch(caller, db, min_confidence=0.95, proposal_min_confidence=0.9)
    with pytest.raises(ValidationFailed) as raised:
        settings_patch(caller, db, min_confidence=0.9)
    assert raised.value.details[0]["field"] == "min_confidence"
    assert settings_patch(caller, db, proposal_min_confidence=None).proposal_min_confidence is None
    # absent is not null: a patch of something else keeps it
    assert settings_patch(caller, db, auto_supersede_default=True).proposal_min_confidence is None
    updated = settings_patch(caller, db, proposal_min_confidence=0.0, daily_model_calls_limit=0)
    assert (updated.proposal_min_confidence, updated.daily_model_calls_limit) == (0.0, 0)
    event = queries.read_audit_page(caller, AuditListQuery(type=AuditType.SETTINGS_UPDATED), db).events[0]
    assert event.details["changes"]["daily_model_calls_limit"] == {"from": None, "to": 0}


@pytest.mark.parametrize(
    "fields",
    [
        {"proposal_min_confidence": -0.1},
        {"proposal_min_confidence": 1.0},
        {"proposal_min_confidence": "0.5"},
        {"proposal_min_confidence": False},
        {"daily_model_calls_limit": -1},
        {"daily_model_calls_limit": 2.5},
        {"daily_model_calls_limit": True},
        {"daily_model_calls_limit": "3"},
        {"daily_model_calls_limit": 10**12},
    ],
)
def test_settings_values_out_of_range_are_refused(fields):
    with pytest.raises(ValueError):
        SettingsPatch.model_validate(fields)


# ---------------------------------------------------------------- a revert sticks


def test_a_revert_sticks_against_the_same_write_and_its_restatements(db, new_key):
    caller, _ = new_key()
    vim = put(caller, "alice uses Vim").memory
    switch = scripted({"alice uses Vim": (Verdict.CONTRADICTS, 0.95)})
    emacs = put(caller, "alice switched to Emacs", switch)
    assert emacs.auto_supersede.supersession.superseded_id == vim.id
    service.revert_supersession(caller, emacs.auto_supersede.supersession.audit_event_id)

    # The same write again: the classifier contradicts Vim again (and is unsure about Emacs).
    again = put(
        caller,
        "Alice switched to Emacs.",
        scripted(
            {
                "alice uses Vim": (Verdict.CONTRADICTS, 0.95),
                "alice switched to Emacs": (Verdict.SUPPLEMENTS, 0.5),
            }
        ),
    )
    assert again.created and again.auto_supersede.supersession is None
    assert again.auto_supersede.decision.candidate_id == vim.id
    assert again.auto_supersede.decision.not_acted_reason == NotActedReason.REVERTED_BEFORE
    assert again.auto_supersede.proposal is None
    # A restatement in other words, which the classifier calls a (weak) duplicate of Emacs.
    restated = put(
        caller,
        "alice now edits in Emacs",
        scripted(
            {
                "alice uses Vim": (Verdict.CONTRADICTS, 0.95),
                "alice switched to Emacs": (Verdict.DUPLICATE, 0.6),
            }
        ),
    )
    assert restated.auto_supersede.decision.not_acted_reason == NotActedReason.REVERTED_BEFORE
    assert memory(caller, vim.id, db).status == "current"

    # New information is not a restatement: it may supersede the restored memory.
    helix = put(caller, "alice switched to Helix", scripted({"alice uses Vim": (Verdict.CONTRADICTS, 0.95)}))
    assert helix.auto_supersede.supersession.superseded_id == vim.id


def test_after_a_revert_the_manual_api_still_can(db, new_key):
    caller, _ = new_key()
    vim = put(caller, "alice uses Vim").memory
    emacs = put(caller, "alice switched to Emacs", scripted({"alice uses Vim": (Verdict.CONTRADICTS, 0.95)}))
    service.revert_supersession(caller, emacs.auto_supersede.supersession.audit_event_id)
    _, linked = service.supersede_memory(caller, vim.id, SupersedeRequest(superseded_by=emacs.memory.id))
    assert linked.superseded.superseded_by == emacs.memory.id
    assert linked.superseded.superseded_event_id is not None


def test_a_revert_of_a_backdated_supersession_sticks(db, new_key):
    caller, _ = new_key()
    emacs = put(caller, "alice uses Emacs", valid_from="2026-05-01T00:00:00Z").memory
    rule = scripted({"alice uses Emacs": (Verdict.CONTRADICTS, 0.95)})
    vim = put(caller, "alice used Vim", rule, valid_from="2026-01-01T00:00:00Z")
    assert vim.memory.status == "superseded" and vim.memory.superseded_by == emacs.id
    assert vim.memory.superseded_event_id == vim.auto_supersede.supersession.audit_event_id
    service.revert_supersession(caller, vim.auto_supersede.supersession.audit_event_id)
    again = put(caller, "alice used Vim", rule, valid_from="2026-01-01T00:00:00Z")
    assert again.auto_supersede.decision.not_acted_reason == NotActedReason.REVERTED_BEFORE
    assert again.memory.status == "current"


# ---------------------------------------------------------------- not_acted_reason


def test_not_acted_reason_of_each_decision(db, new_key):
    caller, _ = new_key()
    vim = put(caller, "alice uses Vim", valid_from="2026-01-01T00:00:00Z").memory
    acted = put(caller, "alice switched to Emacs", scripted({"alice uses Vim": (Verdict.CONTRADICTS, 0.95)}))
    assert acted.auto_supersede.decision.not_acted_reason is None
    event = queries.read_audit_event(caller, acted.auto_supersede.supersession.audit_event_id, db)
    assert "not_acted_reason" in event.details and event.details["not_acted_reason"] is None
    duplicate = put(
        caller, "alice switched to Emacs!", scripted({"alice switched to Emacs": (Verdict.DUPLICATE, 0.97)})
    )
    assert (
        duplicate.duplicate_of == acted.memory.id
        and duplicate.auto_supersede.decision.not_acted_reason is None
    )
    # A back-dated fact that would enter the lineage Vim -> Emacs from the middle.
    late = put(
        caller,
        "alice used Nano",
        scripted({"alice switched to Emacs": (Verdict.CONTRADICTS, 0.95)}),
        valid_from="2025-06-01T00:00:00Z",
    )
    assert late.auto_supersede.decision.not_acted_reason == NotActedReason.LATER_FACT_EXISTS
    assert memory(caller, vim.id, db).status == "superseded"


# ---------------------------------------------------------------- superseded_event_id


def test_superseded_event_id_in_every_read_and_at_every_known_at(db, new_key):
    caller, _ = new_key()
    vim = put(caller, "alice uses Vim").memory
    assert vim.superseded_event_id is None
    emacs = put(caller, "alice switched to Emacs", scripted({"alice uses Vim": (Verdict.CONTRADICTS, 0.95)}))
    event_id = emacs.auto_supersede.supersession.audit_event_id
    between = datetime.now(UTC)
    service.revert_supersession(caller, event_id)

    assert memory(caller, vim.id, db).superseded_event_id is None
    assert memory(caller, vim.id, db, known_at=between).superseded_event_id == event_id
    listed = queries.read_memory_page(
        caller, MemoryListQuery(known_at=between, include_superseded=True), db, _embedder()
    )
    by_id = {m.id: m for m in listed.memories}
    assert (
        by_id[vim.id].superseded_event_id == event_id and by_id[emacs.memory.id].superseded_event_id is None
    )
    history = queries.read_memory_history(caller, vim.id, PointInTime(known_at=between), db)
    assert {m.id: m.superseded_event_id for m in history.chain}[vim.id] == event_id
    now_listed = queries.read_memory_page(caller, MemoryListQuery(include_superseded=True), db, _embedder())
    assert all(m.superseded_event_id is None for m in now_listed.memories)

    # A manual supersession names its manual_supersede event.
    _, manual = service.supersede_memory(caller, vim.id, SupersedeRequest(content="alice uses Helix"))
    manual_event = queries.read_audit_page(
        caller, AuditListQuery(type=AuditType.MANUAL_SUPERSEDE), db
    ).events[0]
    assert manual.superseded.superseded_event_id == manual_event.id
    with db.transaction() as conn:
        row = store.select_memory(conn, caller.tenant_id, vim.id)
    assert row.superseded_event_id == manual_event.id


def _embedder():
    from aurra_core.embedders import LexicalEmbedder

    return LexicalEmbedder(384)


def test_a_supersession_must_name_its_event(db, new_key):
    caller, _ = new_key()
    vim = put(caller, "alice uses Vim").memory
    other = put(caller, "alice uses Emacs").memory
    with db.tenant_transaction(caller.tenant_id) as conn, pytest.raises(ValueError, match="audit event"):
        row = store.lock_believed(conn, caller.tenant_id, vim.id)
        store.revise_version(conn, row, store.write_clock(conn), superseded_by=other.id)
