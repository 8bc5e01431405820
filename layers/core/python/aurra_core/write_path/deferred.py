"""Asynchronous Level 2's decision: a job's fact, already stored, decided about by the same
gates, candidate search and classifier call as a synchronous write (pipeline.prepare), then
acted on in one transaction with the job's completion (docs/architecture.md, "Asynchronous
Level 2").

What it compares with: the memories of the fact's scope current when the job runs, first
recorded before the fact (never the fact itself, a fact of its own request, or a later write,
which is decided by its own write or job). What it does, under the same row locks a
synchronous write takes:

- `contradicts` at >= min_confidence: the stored fact supersedes its candidate (or, back-dated,
  is superseded by it): both memories revised at the decision's transaction time, with the
  `auto_supersede` audit event (so `memory.superseded`). Until then both were current, and
  `known_at` before the decision still says so.
- a proposal: the `supersession_proposed` event (so `proposal.created`), as for a sync write.
- anything else, or a candidate no longer current (`candidate_changed`), or the fact itself
  changed meanwhile (`memory_changed`): an `auto_supersede_completed` audit event and the
  `auto_supersede.completed` change event. A duplicate is reported, not removed: the write
  answered with its memory, which stays (`already_stored`).

Applied once: the job row is locked and checked pending in the decision's transaction, and
marked done there; a second worker (a redelivery, or one whose lease passed) applies nothing.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from uuid import UUID

import psycopg

from aurra_core import metering
from aurra_core.models import (
    AuditType,
    AutoSupersedeResult,
    Caller,
    EventType,
    NotActedReason,
    Scope,
    SkippedReason,
    Verdict,
)
from aurra_core.runtime.observability import logger
from aurra_core.storage import events, level2_jobs, store
from aurra_core.storage.ids import new_id
from aurra_core.write_path import dependents, pipeline
from aurra_core.write_path.supersession import ended_by

# A job's outcomes besides the skipped reasons (no_candidates, excluded_category, ...).
SUPERSEDED = "superseded"
PROPOSED = "proposed"
NOT_ACTED = "not_acted"
CANDIDATE_CHANGED = "candidate_changed"
MEMORY_CHANGED = "memory_changed"
# Its decision failed `level2_max_attempts` times: given up, the memory stays as written.
FAILED = "failed"


def decide(job: level2_jobs.Job, deps: pipeline.WriteDependencies) -> str | None:
    """Run the job's decision and record it; its outcome, or None when another worker had
    completed the job first (nothing applied)."""
    caller = Caller(tenant_id=job.tenant_id, api_key_id=job.api_key_id)
    with deps.db.tenant_transaction(job.tenant_id) as conn:
        row = store.select_memory(conn, job.tenant_id, job.memory_id)
        embedding = level2_jobs.stored_embedding(conn, job.tenant_id, job.memory_id)
    if row is None or embedding is None or not row.is_current or row.supersedes is not None:
        # Erased, superseded, expired or already linked (a manual supersession) meanwhile.
        return _record(caller, job, None, None, deps, outcome=MEMORY_CHANGED)
    fact = pipeline.Fact(
        row.content,
        row.topic,
        row.valid_from,
        row.metadata,
        row.scope,
        provenance=job.provenance,
        source=row.source,
        valid_to=row.valid_to,
    )
    stored = pipeline.StoredFact(job.memory_id, embedding, job.written_at)
    prepared = pipeline.prepare(caller, fact, True, None, deps, deps.flags.level2_enabled(), stored=stored)
    return _record(caller, job, prepared, row, deps)


def give_up(job: level2_jobs.Job, deps: pipeline.WriteDependencies) -> str | None:
    """Complete a job whose decision kept failing, with the outcome `failed` (and its
    `auto_supersede.completed` event); None when another worker completed it first."""
    caller = Caller(tenant_id=job.tenant_id, api_key_id=job.api_key_id)
    with deps.db.tenant_transaction(job.tenant_id) as conn:
        row = store.select_memory(conn, job.tenant_id, job.memory_id)
    return _record(caller, job, None, row, deps, outcome=FAILED)


def _record(
    caller: Caller,
    job: level2_jobs.Job,
    prepared: pipeline.PreparedFact | None,
    row: store.MemoryRow | None,
    deps: pipeline.WriteDependencies,
    *,
    outcome: str | None = None,
) -> str | None:
    with store.write_transaction(deps.db, job.tenant_id) as (conn, now):
        if prepared is not None:
            # The call was made whoever completes the job: its price replaces its hold.
            settled = pipeline.call_settlement(
                prepared.reservation_day, prepared.hold_usd, prepared.outcome.usage
            )
            if settled is not None:
                metering.settle_model_call(conn, caller, *settled)
        if not level2_jobs.lock_pending(conn, job.tenant_id, job.id):
            logger.info("level 2 job already completed; nothing applied", extra={"job_id": str(job.id)})
            return None
        result = prepared.outcome if prepared is not None else AutoSupersedeResult()
        event_id: UUID | None = None
        if prepared is not None and outcome is None:
            outcome, event_id = _apply(conn, caller, job, prepared, now)
        assert outcome is not None
        if event_id is None:
            event_id = _completed(conn, caller, job, prepared, result, outcome, row, now)
        level2_jobs.complete(conn, job.tenant_id, job.id, outcome, event_id)
    return outcome


def _apply(
    conn: psycopg.Connection,
    caller: Caller,
    job: level2_jobs.Job,
    prepared: pipeline.PreparedFact,
    now: datetime,
) -> tuple[str, UUID | None]:
    """Act on the decision, if there is one to act on: the outcome, and the audit event that
    records it (None when nothing was acted on: `_completed` records it)."""
    result = prepared.outcome
    if result.skipped_reason is not None:
        return result.skipped_reason.value, None
    target_id = prepared.target_id
    if target_id is None:
        return NOT_ACTED, None
    contradiction = pipeline.acts_on_contradiction(prepared)
    # Both rows in one fixed order, as every writer of two memories locks them: no deadlock.
    locked: dict[UUID, tuple[store.MemoryRow | None, set[UUID] | None]] = {}
    for memory_id in sorted({job.memory_id, target_id}, key=str):
        row, now, supersessors = store.lock_believed_and_clock(
            conn,
            job.tenant_id,
            memory_id,
            with_reverted_supersessors=contradiction and memory_id == target_id,
        )
        locked[memory_id] = (row, supersessors)
    fact_row = locked[job.memory_id][0]
    if fact_row is None or not fact_row.is_current or fact_row.supersedes is not None:
        return MEMORY_CHANGED, None
    target, supersessors = locked[target_id]
    decision = result.decision
    if target is None:
        return _not_acted(decision, NotActedReason.CANDIDATE_CHANGED, CANDIDATE_CHANGED), None
    blocked = pipeline.why_not(conn, caller, prepared, target, now, supersessors)
    if blocked is not None:
        outcome = CANDIDATE_CHANGED if blocked == NotActedReason.CANDIDATE_CHANGED else NOT_ACTED
        if prepared.act:
            return _not_acted(decision, blocked, outcome), None
        return outcome, None
    if not prepared.act:
        return PROPOSED, _propose(conn, caller, job, prepared, fact_row, target, now)
    assert prepared.chosen is not None
    if prepared.chosen.verdict == Verdict.DUPLICATE:
        return _not_acted(decision, NotActedReason.ALREADY_STORED, NOT_ACTED), None
    return SUPERSEDED, _supersede(conn, caller, job, prepared, fact_row, target, now)


def _not_acted(decision: Any, reason: NotActedReason, outcome: str) -> str:
    if decision is not None:
        decision.not_acted_reason = reason
    return outcome


def _details(
    job: level2_jobs.Job, prepared: pipeline.PreparedFact, not_acted: NotActedReason | None
) -> dict[str, Any]:
    return {**pipeline.pair_details(prepared, not_acted), "job_id": str(job.id), "mode": "async"}


def _supersede(
    conn: psycopg.Connection,
    caller: Caller,
    job: level2_jobs.Job,
    prepared: pipeline.PreparedFact,
    fact_row: store.MemoryRow,
    target: store.MemoryRow,
    now: datetime,
) -> UUID:
    """The stored fact replaces its candidate (back-dated: is replaced by it), with the
    `auto_supersede` event, at the decision's transaction time."""
    chosen, classification = prepared.chosen, prepared.classification
    assert chosen is not None and classification is not None
    event_id = new_id()
    details = _details(job, prepared, None)
    newer: store.MemoryRow | None = None
    if target.valid_from <= fact_row.valid_from:
        newer = store.revise_version(conn, fact_row, now, supersedes=target.memory_id)
        store.revise_version(
            conn,
            target,
            now,
            valid_to=ended_by(target, newer),
            superseded_by=newer.memory_id,
            superseded_event_id=event_id,
        )
        newer_id, older_id = fact_row.memory_id, target.memory_id
    else:
        # Time order: a back-dated fact older than the current memory it contradicts is
        # superseded by it.
        ends = target.valid_from if fact_row.valid_to is None else min(fact_row.valid_to, target.valid_from)
        store.revise_version(
            conn, fact_row, now, valid_to=ends, superseded_by=target.memory_id, superseded_event_id=event_id
        )
        store.revise_version(conn, target, now, supersedes=fact_row.memory_id)
        newer_id, older_id = target.memory_id, fact_row.memory_id
        details["backdated"] = True
    store.insert_audit_event(
        conn,
        event_id=event_id,
        tenant_id=caller.tenant_id,
        type=AuditType.AUTO_SUPERSEDE,
        created_at=now,
        api_key_id=caller.api_key_id,
        memory_id=newer_id,
        superseded_id=older_id,
        classifier=chosen.verdict.value,
        confidence=chosen.confidence,
        reason=chosen.reason,
        model=classification.model,
        candidates_examined=prepared.outcome.candidates_examined,
        details=details,
        user_id=fact_row.user_id,
        **prepared.fact.audit_source(),
    )
    if newer is not None:
        dependents.propose(conn, caller, target, newer, event_id, now)
    return event_id


def _propose(
    conn: psycopg.Connection,
    caller: Caller,
    job: level2_jobs.Job,
    prepared: pipeline.PreparedFact,
    fact_row: store.MemoryRow,
    target: store.MemoryRow,
    now: datetime,
) -> UUID:
    """A contradiction below min_confidence, queued for review: the pair in time order."""
    proposed, classification = prepared.proposed, prepared.classification
    assert proposed is not None and classification is not None
    details = _details(job, prepared, NotActedReason.BELOW_MIN_CONFIDENCE)
    if fact_row.valid_from < target.valid_from:
        newer_id, older_id = target.memory_id, fact_row.memory_id
        details["backdated"] = True
    else:
        newer_id, older_id = fact_row.memory_id, target.memory_id
    event = store.insert_audit_event(
        conn,
        tenant_id=caller.tenant_id,
        type=AuditType.SUPERSESSION_PROPOSED,
        created_at=now,
        api_key_id=caller.api_key_id,
        memory_id=newer_id,
        superseded_id=older_id,
        classifier=proposed.verdict.value,
        confidence=proposed.confidence,
        reason=proposed.reason,
        model=classification.model,
        candidates_examined=prepared.outcome.candidates_examined,
        details=details,
        user_id=fact_row.user_id,
        **prepared.fact.audit_source(),
    )
    return event.id


def _completed(
    conn: psycopg.Connection,
    caller: Caller,
    job: level2_jobs.Job,
    prepared: pipeline.PreparedFact | None,
    result: AutoSupersedeResult,
    outcome: str,
    row: store.MemoryRow | None,
    now: datetime,
) -> UUID:
    """A decision that acted on nothing: its `auto_supersede_completed` audit event and the
    `auto_supersede.completed` change event (with `budget.exhausted` when the key's budget
    left it unrun, as for a sync write). Ids, the verdict and the receipt: no content."""
    decision = result.decision
    details: dict[str, Any] = {
        "job_id": str(job.id),
        "mode": "async",
        "outcome": outcome,
        "skipped_reason": None if result.skipped_reason is None else result.skipped_reason.value,
        "not_acted_reason": None
        if decision is None or decision.not_acted_reason is None
        else decision.not_acted_reason.value,
        **({"usage": result.usage.model_dump(mode="json")} if result.usage else {}),
        **job.provenance,
    }
    if decision is not None and outcome in (NOT_ACTED, CANDIDATE_CHANGED):
        details["candidate_id"] = str(decision.candidate_id)
    scope = row.scope if row is not None else Scope(None, None)
    event = store.insert_audit_event(
        conn,
        tenant_id=caller.tenant_id,
        type=AuditType.AUTO_SUPERSEDE_COMPLETED,
        created_at=now,
        api_key_id=caller.api_key_id,
        memory_id=job.memory_id,
        classifier=None if decision is None else decision.classifier.value,
        confidence=None if decision is None else decision.confidence,
        reason=None if decision is None else decision.reason,
        model=None if decision is None else decision.model,
        candidates_examined=result.candidates_examined,
        details=details,
        user_id=scope.user_id,
        **({} if prepared is None else prepared.fact.audit_source()),
    )
    data: dict[str, Any] = {
        "job_id": str(job.id),
        "event_id": str(event.id),
        "outcome": outcome,
        "candidates_examined": result.candidates_examined,
        "not_acted_reason": details["not_acted_reason"],
    }
    events.insert_event(
        conn,
        caller.tenant_id,
        EventType.AUTO_SUPERSEDE_COMPLETED,
        scope=scope,
        memory_id=job.memory_id,
        data=data,
    )
    if result.skipped_reason == SkippedReason.BUDGET_EXHAUSTED:
        events.insert_event(
            conn,
            caller.tenant_id,
            EventType.BUDGET_EXHAUSTED,
            scope=scope,
            memory_id=job.memory_id,
            data={"api_key_id": str(caller.api_key_id)},
        )
    return event.id
