"""The write pipeline (docs/architecture.md): gates, candidate search, one classifier
call, and one transaction that stores the fact, supersedes what it replaces and audits it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

import numpy as np
import psycopg
from aws_lambda_powertools.metrics import MetricUnit

from aurra_core import keys, store
from aurra_core.classifiers.base import (
    Candidate,
    Classification,
    Classifier,
    ClassifierVerdict,
    validate_verdicts,
)
from aurra_core.config import CANDIDATE_LIMIT, get_config
from aurra_core.db import Database
from aurra_core.embeddings import Embedder
from aurra_core.flags import FlagSource
from aurra_core.gating import gate
from aurra_core.ids import new_id
from aurra_core.models import (
    AuditType,
    AutoSupersedeResult,
    Caller,
    Decision,
    KeySettings,
    Scope,
    SkippedReason,
    SupersessionOutcome,
    Verdict,
    WriteRequest,
    WriteResult,
)
from aurra_core.observability import logger, metrics

_RANK = {Verdict.DUPLICATE: 0, Verdict.CONTRADICTS: 1, Verdict.SUPPLEMENTS: 2, Verdict.NEW_FACT: 3}


@dataclass(frozen=True)
class WriteDependencies:
    db: Database
    embedder: Embedder
    # Called only when a classifier is needed, so model SDKs load only then.
    classifier_factory: Callable[[], Classifier]
    flags: FlagSource


@dataclass(frozen=True)
class WriteOutcome:
    status_code: int
    result: WriteResult


def choose(verdicts: list[ClassifierVerdict], min_confidence: float) -> tuple[ClassifierVerdict, bool]:
    """The verdict to report, and whether to act on it.

    An actionable verdict (duplicate or contradicts at >= min_confidence) wins; a duplicate
    before a contradiction, since writing nothing can never corrupt anything. Otherwise the
    most confident verdict is reported and nothing happens.
    """
    actionable = [
        v
        for v in verdicts
        if v.verdict in (Verdict.DUPLICATE, Verdict.CONTRADICTS) and v.confidence >= min_confidence
    ]
    if actionable:
        return min(actionable, key=lambda v: (_RANK[v.verdict], -v.confidence)), True
    return min(verdicts, key=lambda v: (-v.confidence, _RANK[v.verdict])), False


def _classify(
    classifier: Classifier, request: WriteRequest, candidates: list[Candidate], key_settings: KeySettings
) -> Classification:
    classification = classifier.classify(
        request.content, request.topic, candidates, key_settings.classifier_model
    )
    # Whatever a classifier says is untrusted: re-validate against the candidates we sent.
    raw = [
        {
            "candidate_id": str(v.candidate_id),
            "classifier": v.verdict.value,
            "confidence": v.confidence,
            "reason": v.reason,
        }
        for v in classification.verdicts
    ]
    return Classification(validate_verdicts(raw, candidates), classification.model, classification.details)


@dataclass(frozen=True)
class _Action:
    """A verdict the write acts on (duplicate or contradicts at >= min_confidence)."""

    verdict: ClassifierVerdict
    model: str
    details: dict[str, Any]


def write_memory(caller: Caller, request: WriteRequest, deps: WriteDependencies) -> WriteOutcome:
    """Store one fact; supersede what it replaces, or store nothing for a duplicate."""
    with deps.db.tenant_transaction(caller.tenant_id) as conn:
        key_settings = keys.get_key_settings(conn, caller)
    outcome = AutoSupersedeResult()
    outcome.skipped_reason = gate(
        level2_enabled=deps.flags.level2_enabled(),
        requested=request.auto_supersede,
        key_settings=key_settings,
        topic=request.topic,
    )
    embedding = deps.embedder.embed(request.content)
    action = None
    if outcome.skipped_reason is None:
        action = _decide(caller, request, embedding, key_settings, deps, outcome)
    with deps.db.tenant_transaction(caller.tenant_id) as conn:
        return _record(conn, caller, request, embedding, action, outcome)


def _decide(
    caller: Caller,
    request: WriteRequest,
    embedding: np.ndarray,
    key_settings: KeySettings,
    deps: WriteDependencies,
    outcome: AutoSupersedeResult,
) -> _Action | None:
    """Candidate search and one classifier call. Reports on `outcome`; returns what to act on."""
    candidates = _find_candidates(caller, request.scope, embedding, key_settings, deps)
    if not candidates:
        outcome.skipped_reason = SkippedReason.NO_CANDIDATES
        return None
    outcome.ran = True
    outcome.candidates_examined = len(candidates)
    try:
        classification = _classify(deps.classifier_factory(), request, candidates, key_settings)
    except Exception as exc:  # noqa: BLE001 - no classifier failure may lose a write
        outcome.skipped_reason = SkippedReason.CLASSIFIER_ERROR
        metrics.add_metric(name="ClassifierErrors", unit=MetricUnit.Count, value=1)
        logger.warning(
            "classifier failed; storing the memory without supersession",
            extra={"error": type(exc).__name__, "detail": str(exc)[:300]},
        )
        return None
    chosen, act = choose(classification.verdicts, key_settings.min_confidence)
    outcome.decision = Decision(
        candidate_id=chosen.candidate_id,
        classifier=chosen.verdict,
        confidence=chosen.confidence,
        reason=chosen.reason,
        model=classification.model,
    )
    return _Action(chosen, classification.model, classification.details) if act else None


def _find_candidates(
    caller: Caller, scope: Scope, embedding: np.ndarray, key_settings: KeySettings, deps: WriteDependencies
) -> list[Candidate]:
    with deps.db.tenant_transaction(caller.tenant_id) as conn:
        found = store.find_candidates(
            conn,
            caller.tenant_id,
            embedding,
            scope=scope,
            excluded_topics=key_settings.excluded_categories,
            limit=CANDIDATE_LIMIT,
            min_similarity=get_config().candidate_floor,
        )
    return [Candidate(row.memory_id, row.content, row.topic, sim) for row, sim in found]


def _record(
    conn: psycopg.Connection,
    caller: Caller,
    request: WriteRequest,
    embedding: np.ndarray,
    action: _Action | None,
    outcome: AutoSupersedeResult,
) -> WriteOutcome:
    """The one transaction of a write: a duplicate, a plain insert, or a supersession."""
    store.begin_write(conn, caller.tenant_id)
    target = store.lock_believed(conn, caller.tenant_id, action.verdict.candidate_id) if action else None
    now = store.write_clock(conn)
    valid_from = request.valid_from or now
    if action is None or target is None or not _still_actionable(action, target, valid_from):
        created = _insert(conn, caller, request, embedding, valid_from, now)
        return WriteOutcome(
            201, WriteResult(created=True, memory=created.to_memory(), auto_supersede=outcome)
        )
    if action.verdict.verdict == Verdict.DUPLICATE:
        return _reject_duplicate(conn, caller, request, action, target, now, outcome)
    return _supersede(conn, caller, request, embedding, action, target, valid_from, now, outcome)


def _still_actionable(action: _Action, target: store.MemoryRow, valid_from: datetime) -> bool:
    """Checked under the target's lock, after the classifier answered."""
    if not target.is_current:
        logger.info(
            "candidate changed while classifying; not acting", extra={"memory_id": str(target.memory_id)}
        )
        return False
    if (
        action.verdict.verdict == Verdict.CONTRADICTS
        and valid_from < target.valid_from
        and target.supersedes is not None
    ):
        # A back-dated fact would have to enter the middle of an existing lineage, which
        # the classifier never judged: precision first, store it without acting.
        logger.info("back-dated fact inside an existing lineage; not acting")
        return False
    return True


def _reject_duplicate(
    conn: psycopg.Connection,
    caller: Caller,
    request: WriteRequest,
    action: _Action,
    target: store.MemoryRow,
    now: datetime,
    outcome: AutoSupersedeResult,
) -> WriteOutcome:
    """Nothing is written but the audit event; the answer is the memory that already says it."""
    store.insert_audit_event(
        conn,
        tenant_id=caller.tenant_id,
        type=AuditType.DUPLICATE_REJECTED,
        created_at=now,
        api_key_id=caller.api_key_id,
        memory_id=target.memory_id,
        classifier=action.verdict.verdict.value,
        confidence=action.verdict.confidence,
        reason=action.verdict.reason,
        model=action.model,
        candidates_examined=outcome.candidates_examined,
        details={**action.details, "content": request.content, "topic": request.topic},
        user_id=target.user_id,
    )
    return WriteOutcome(
        200,
        WriteResult(
            created=False, memory=target.to_memory(), auto_supersede=outcome, duplicate_of=target.memory_id
        ),
    )


def _insert(
    conn: psycopg.Connection,
    caller: Caller,
    request: WriteRequest,
    embedding: np.ndarray,
    valid_from: datetime,
    now: datetime,
    *,
    memory_id: UUID | None = None,
    valid_to: datetime | None = None,
    superseded_by: UUID | None = None,
    supersedes: UUID | None = None,
) -> store.MemoryRow:
    return store.insert_version(
        conn,
        memory_id=memory_id or new_id(),
        tenant_id=caller.tenant_id,
        content=request.content,
        topic=request.topic,
        metadata=request.metadata,
        embedding=embedding,
        valid_from=valid_from,
        recorded_at=now,
        valid_to=valid_to,
        superseded_by=superseded_by,
        supersedes=supersedes,
        scope=request.scope,
    )


def _supersede(
    conn: psycopg.Connection,
    caller: Caller,
    request: WriteRequest,
    embedding: np.ndarray,
    action: _Action,
    target: store.MemoryRow,
    valid_from: datetime,
    now: datetime,
    outcome: AutoSupersedeResult,
) -> WriteOutcome:
    """Store the new fact, close the one it contradicts and audit it, in time order."""
    memory_id = new_id()
    details = dict(action.details)
    if target.valid_from <= valid_from:
        created = _insert(
            conn,
            caller,
            request,
            embedding,
            valid_from,
            now,
            memory_id=memory_id,
            supersedes=target.memory_id,
        )
        store.revise_version(conn, target, now, valid_to=valid_from, superseded_by=memory_id)
        newer_id, older_id = memory_id, target.memory_id
    else:
        # Time order: a back-dated fact older than the current one it contradicts is
        # stored already superseded by it.
        created = _insert(
            conn,
            caller,
            request,
            embedding,
            valid_from,
            now,
            memory_id=memory_id,
            valid_to=target.valid_from,
            superseded_by=target.memory_id,
        )
        store.revise_version(conn, target, now, supersedes=memory_id)
        newer_id, older_id = target.memory_id, memory_id
        details["backdated"] = True
    verdict = action.verdict
    event = store.insert_audit_event(
        conn,
        tenant_id=caller.tenant_id,
        type=AuditType.AUTO_SUPERSEDE,
        created_at=now,
        api_key_id=caller.api_key_id,
        memory_id=newer_id,
        superseded_id=older_id,
        classifier=verdict.verdict.value,
        confidence=verdict.confidence,
        reason=verdict.reason,
        model=action.model,
        candidates_examined=outcome.candidates_examined,
        details=details,
        user_id=request.user_id,
    )
    outcome.supersession = SupersessionOutcome(
        superseded_id=older_id,
        classifier=verdict.verdict,
        confidence=verdict.confidence,
        reason=verdict.reason,
        model=action.model,
        audit_event_id=event.id,
    )
    metrics.add_metric(name="AutoSupersessions", unit=MetricUnit.Count, value=1)
    return WriteOutcome(201, WriteResult(created=True, memory=created.to_memory(), auto_supersede=outcome))
