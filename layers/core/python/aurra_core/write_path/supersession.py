"""Manual supersession (Level 1): the caller says which memory replaces which. No classifier
and no category gate: the caller decided."""

from __future__ import annotations

import re
from datetime import datetime
from typing import TYPE_CHECKING
from uuid import UUID

import psycopg
from psycopg.errors import UniqueViolation

from aurra_core.embedders import Embedder
from aurra_core.errors import Conflict, Gone, NotFound, ValidationFailed
from aurra_core.models import (
    ApproveResult,
    AuditEvent,
    AuditType,
    Caller,
    DismissResult,
    ProposalStatus,
    RevertResult,
    SupersedeRequest,
    SupersedeResult,
)
from aurra_core.storage import queries, store
from aurra_core.storage.db import Database
from aurra_core.storage.ids import new_id

if TYPE_CHECKING:
    from aurra_core.write_path.redaction import Screened


def _invalid(field: str, problem: str) -> ValidationFailed:
    return ValidationFailed(problem, [{"field": field, "problem": problem}])


# How a classifier's reason says it was not acted on, which an approval (the action) must not
# repeat: "...; no change language, and it may be a second one, so not acted on".
_NOT_ACTED_ON = re.compile(r"(?:[;:,]\s*|\s+)(?:so\s+)?not\s+acted\s+on\.?\s*$", re.IGNORECASE)


def approval_reason(proposed: str | None) -> str:
    """The reason of a `proposal_approved` event: what the classifier found, without its saying
    that nothing was done, and that a person approved it."""
    found = _NOT_ACTED_ON.sub("", proposed or "").strip().rstrip(";:,").strip()
    return f"{found}; approved from the review queue" if found else "approved from the review queue"


def _leads_to(conn: psycopg.Connection, caller: Caller, start: store.MemoryRow, target: UUID) -> bool:
    """Whether following `superseded_by` from `start` reaches `target` (a cycle if we linked them)."""
    row: store.MemoryRow | None = start
    seen: set[UUID] = set()
    while row is not None and row.superseded_by is not None and row.memory_id not in seen:
        if row.superseded_by == target:
            return True
        seen.add(row.memory_id)
        row = store.select_memory(conn, caller.tenant_id, row.superseded_by)
    return False


def ended_by(old: store.MemoryRow, new: store.MemoryRow) -> datetime:
    """The superseded memory's `valid_to`: the new one's `valid_from`, or its own expiry when
    that comes first (a supersession never makes a fact true for longer)."""
    if old.valid_to is not None and old.valid_to < new.valid_from:
        return old.valid_to
    return new.valid_from


def _own_expiry(conn: psycopg.Connection, caller: Caller, memory: store.MemoryRow) -> datetime | None:
    """The `valid_to` a memory had of its own (its write's expiry) before any supersession:
    what a revert restores. Its last version not superseded says it (None: no expiry)."""
    versions = store.memory_versions(conn, caller.tenant_id, memory.memory_id)
    own = [v for v in versions if v.superseded_by is None]
    return own[-1].valid_to if own else None


def supersede(
    caller: Caller,
    memory_id: UUID,
    request: SupersedeRequest | Screened[SupersedeRequest],
    db: Database,
    embedder: Embedder,
) -> SupersedeResult:
    """`request` may come screened of credentials already (the service screens a content form
    for its Idempotency-Key record); a content form is screened here otherwise."""
    screened = None if isinstance(request, SupersedeRequest) else request
    request = request if isinstance(request, SupersedeRequest) else request.request
    linking = request.superseded_by is not None
    writing = request.content is not None
    if linking and (writing or request.topic or request.valid_from or request.metadata is not None):
        raise _invalid("superseded_by", "give either superseded_by or a new memory's content, not both")
    if not linking and not writing:
        raise _invalid("content", "content or superseded_by is required")
    if request.superseded_by == memory_id:
        raise _invalid("superseded_by", "a memory cannot supersede itself")
    if writing:
        # A new memory's credentials are redacted (or it is refused) before its embedding, as
        # every write's. Imported here: the functions that never write never load the detector.
        from aurra_core.write_path.redaction import refuse_if_asked, screen

        screened = screened or screen(request)
        refuse_if_asked(caller, screened, db)
        request = screened.request
    fact = None if linking else request.as_new_memory()
    embedding = embedder.embed(fact.content) if fact else None

    with db.tenant_transaction(caller.tenant_id) as conn:
        store.begin_write(conn, caller.tenant_id)
        # Lock both rows in a fixed order so two opposite links cannot deadlock.
        ids = sorted({memory_id, *([request.superseded_by] if request.superseded_by else [])}, key=str)
        locked = {i: store.lock_believed(conn, caller.tenant_id, i) for i in ids}
        old = locked[memory_id]
        newer = locked[request.superseded_by] if request.superseded_by else None
        if old is None:
            raise queries.missing(conn, caller.tenant_id, memory_id)
        if linking and newer is None:
            assert request.superseded_by is not None
            if isinstance(queries.missing(conn, caller.tenant_id, request.superseded_by), Gone):
                raise Gone("the superseded_by memory was erased")
            raise NotFound("superseded_by memory not found")
        if not old.is_current:
            raise Conflict(
                "memory has expired" if old.superseded_by is None else "memory is already superseded"
            )
        now = store.write_clock(conn)

        if newer is not None:
            if _leads_to(conn, caller, newer, memory_id):
                raise _invalid("superseded_by", "this link would close a supersession cycle")
            if newer.valid_from < old.valid_from:
                raise _invalid(
                    "superseded_by",
                    "the superseding memory must not be valid from earlier than the memory it replaces",
                )
            if newer.supersedes is not None:
                raise Conflict("the superseding memory already supersedes another memory")
            new_row = store.revise_version(conn, newer, now, supersedes=memory_id)
        else:
            assert fact is not None and embedding is not None  # the content form, checked above
            valid_from = fact.valid_from or now
            if valid_from < old.valid_from:
                raise _invalid(
                    "valid_from", "valid_from must not be earlier than the superseded memory's valid_from"
                )
            new_row = store.insert_version(
                conn,
                memory_id=new_id(),
                tenant_id=caller.tenant_id,
                content=fact.content,
                topic=fact.topic,
                metadata=fact.metadata,
                embedding=embedding,
                valid_from=valid_from,
                valid_to=None,
                superseded_by=None,
                supersedes=memory_id,
                recorded_at=now,
                # A replacement stays with the memory it replaces.
                scope=old.scope,
            )
        event_id = new_id()
        old_row = store.revise_version(
            conn,
            old,
            now,
            valid_to=ended_by(old, new_row),
            superseded_by=new_row.memory_id,
            superseded_event_id=event_id,
        )
        store.insert_audit_event(
            conn,
            event_id=event_id,
            tenant_id=caller.tenant_id,
            type=AuditType.MANUAL_SUPERSEDE,
            created_at=now,
            api_key_id=caller.api_key_id,
            memory_id=new_row.memory_id,
            superseded_id=memory_id,
            details={"mode": "link" if linking else "content"},
            user_id=new_row.user_id,
        )
    return SupersedeResult(memory=new_row.to_memory(), superseded=old_row.to_memory())


def _an(event_type: AuditType) -> str:
    """An event type with its article, for messages: "an auto_supersede", "a revert"."""
    return f"{'an' if event_type.value[0] in 'aeiou' else 'a'} {event_type.value}"


_SUPERSESSIONS = (AuditType.AUTO_SUPERSEDE, AuditType.MANUAL_SUPERSEDE, AuditType.PROPOSAL_APPROVED)


def revert(caller: Caller, event_id: UUID, db: Database) -> RevertResult:
    """Undo the supersession an audit event records: the superseded memory is current again,
    the newer one stays, and a revert event records it. History keeps both earlier states."""
    try:
        with db.tenant_transaction(caller.tenant_id) as conn:
            event = store.select_audit_event(conn, caller.tenant_id, event_id)
            if event is None:
                raise NotFound("audit event not found")
            if event.type not in _SUPERSESSIONS:
                raise _invalid("id", f"{_an(event.type)} event is not a supersession and cannot be reverted")
            if store.revert_of(conn, caller.tenant_id, event_id) is not None:
                raise Conflict("this supersession was already reverted")
            store.begin_write(conn, caller.tenant_id)
            if event.superseded_id is None or event.memory_id is None:  # a supersession names both
                raise NotFound("memory not found")
            ids = sorted({event.superseded_id, event.memory_id}, key=str)
            locked = {i: store.lock_believed(conn, caller.tenant_id, i) for i in ids}
            old, newer = locked[event.superseded_id], locked[event.memory_id]
            if old is None or newer is None:
                raise queries.missing(
                    conn, caller.tenant_id, event.superseded_id if old is None else event.memory_id
                )
            if store.revert_of(conn, caller.tenant_id, event_id) is not None:  # won by a concurrent revert
                raise Conflict("this supersession was already reverted")
            if old.superseded_by != newer.memory_id:
                raise Conflict(
                    "the superseded memory has since changed (superseded by another memory, or restored)"
                )
            now = store.write_clock(conn)
            restored = store.revise_version(
                conn, old, now, valid_to=_own_expiry(conn, caller, old), superseded_by=None
            )
            if newer.supersedes == old.memory_id:
                store.revise_version(conn, newer, now, supersedes=None)
            revert_event = store.insert_audit_event(
                conn,
                tenant_id=caller.tenant_id,
                type=AuditType.REVERT,
                created_at=now,
                api_key_id=caller.api_key_id,
                memory_id=restored.memory_id,
                superseded_id=newer.memory_id,
                reverts_event_id=event_id,
                details={"reverted_event_id": str(event_id), "reverted_type": event.type.value},
                user_id=restored.user_id,
            )
    except UniqueViolation as exc:  # a concurrent revert of the same event won
        raise Conflict("this supersession was already reverted") from exc
    return RevertResult(event=revert_event, restored=restored.to_memory())


# ---------------------------------------------------------------- the review queue


def _open_proposal(
    conn: psycopg.Connection, caller: Caller, event_id: UUID, *, dependency_too: bool = False
) -> AuditEvent:
    proposal = store.select_audit_event(conn, caller.tenant_id, event_id)
    if proposal is None:
        raise NotFound("audit event not found")
    if proposal.type == AuditType.DEPENDENCY_PROPOSED and not dependency_too:
        raise _invalid(
            "id",
            "a dependency_proposed event is resolved by dismissing it, or by superseding the memory it names",
        )
    if proposal.type not in (AuditType.SUPERSESSION_PROPOSED, AuditType.DEPENDENCY_PROPOSED):
        raise _invalid("id", f"{_an(proposal.type)} event is not a proposal")
    if proposal.status != ProposalStatus.OPEN:
        resolved = proposal.status.value if proposal.status else "resolved"
        raise Conflict(f"this proposal is no longer open: it was {resolved}")
    if proposal.memory_id is None or proposal.superseded_id is None:
        raise NotFound("memory not found")
    return proposal


def approve(caller: Caller, event_id: UUID, db: Database) -> ApproveResult:
    """Apply a proposal as a manual supersession of its pair, atomic with the
    `proposal_approved` event that records it (and that a revert can undo)."""
    try:
        with db.tenant_transaction(caller.tenant_id) as conn:
            proposal = _open_proposal(conn, caller, event_id)
            store.begin_write(conn, caller.tenant_id)
            older_id, newer_id = proposal.superseded_id, proposal.memory_id
            assert older_id is not None and newer_id is not None  # _open_proposal checked both
            # The same fixed order as every other writer of two memories: no deadlock.
            ids = sorted({older_id, newer_id}, key=str)
            locked = {i: store.lock_believed(conn, caller.tenant_id, i) for i in ids}
            # Re-read with the locks held: a concurrent resolution has committed by now.
            _open_proposal(conn, caller, event_id)
            old, newer = locked[older_id], locked[newer_id]
            if old is None or newer is None:
                raise queries.missing(conn, caller.tenant_id, older_id if old is None else newer_id)
            if not old.is_current or not newer.is_current:
                raise Conflict("a memory of this proposal is no longer current")
            if newer.supersedes is not None:
                raise Conflict("the superseding memory already supersedes another memory")
            if newer.valid_from < old.valid_from:
                raise Conflict(
                    "the superseding memory is valid from earlier than the memory it would replace"
                )
            now = store.write_clock(conn)
            approval_id = new_id()
            new_row = store.revise_version(conn, newer, now, supersedes=old.memory_id)
            old_row = store.revise_version(
                conn,
                old,
                now,
                valid_to=ended_by(old, new_row),
                superseded_by=new_row.memory_id,
                superseded_event_id=approval_id,
            )
            event = store.insert_audit_event(
                conn,
                event_id=approval_id,
                tenant_id=caller.tenant_id,
                type=AuditType.PROPOSAL_APPROVED,
                created_at=now,
                api_key_id=caller.api_key_id,
                memory_id=new_row.memory_id,
                superseded_id=old_row.memory_id,
                classifier=proposal.classifier.value if proposal.classifier else None,
                confidence=proposal.confidence,
                reason=approval_reason(proposal.reason),
                model=proposal.model,
                resolves_event_id=proposal.id,
                details={"proposal_event_id": str(proposal.id)},
                user_id=new_row.user_id,
            )
    except UniqueViolation as exc:  # a concurrent approval or dismissal won
        raise Conflict("this proposal is no longer open") from exc
    return ApproveResult(event=event, memory=new_row.to_memory(), superseded=old_row.to_memory())


def dismiss(caller: Caller, event_id: UUID, db: Database) -> DismissResult:
    """Close a proposal (of a supersession or of a dependency) without acting on it; the
    memories stay as they are."""
    try:
        with db.tenant_transaction(caller.tenant_id) as conn:
            proposal = _open_proposal(conn, caller, event_id, dependency_too=True)
            store.begin_write(conn, caller.tenant_id)
            assert proposal.memory_id is not None  # _open_proposal checked it
            newer = store.select_memory(conn, caller.tenant_id, proposal.memory_id)
            event = store.insert_audit_event(
                conn,
                tenant_id=caller.tenant_id,
                type=AuditType.PROPOSAL_DISMISSED,
                created_at=store.write_clock(conn),
                api_key_id=caller.api_key_id,
                memory_id=proposal.memory_id,
                superseded_id=proposal.superseded_id,
                resolves_event_id=proposal.id,
                details={"proposal_event_id": str(proposal.id)},
                user_id=newer.user_id if newer else None,
            )
    except UniqueViolation as exc:  # a concurrent approval or dismissal won
        raise Conflict("this proposal is no longer open") from exc
    return DismissResult(event=event)
