"""The write pipeline (docs/architecture.md): gates, candidate search, one classifier
call, and one transaction that stores the fact, supersedes what it replaces and audits it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from aws_lambda_powertools.metrics import MetricUnit

from aurra_core import keys, store
from aurra_core.classifiers.base import (
    Candidate,
    Classification,
    Classifier,
    ClassifierVerdict,
    validate_verdicts,
)
from aurra_core.config import CANDIDATE_LIMIT, get_settings
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


def write_memory(caller: Caller, request: WriteRequest, deps: WriteDependencies) -> WriteOutcome:
    settings = get_settings()
    with deps.db.tenant_transaction(caller.tenant_id) as conn:
        key_settings = keys.get_key_settings(conn, caller)

    outcome = AutoSupersedeResult()
    skipped = gate(
        level2_enabled=deps.flags.level2_enabled(),
        requested=request.auto_supersede,
        key_settings=key_settings,
        topic=request.topic,
    )
    embedding = deps.embedder.embed(request.content)

    chosen: ClassifierVerdict | None = None
    act = False
    classification: Classification | None = None
    if skipped is None:
        with deps.db.tenant_transaction(caller.tenant_id) as conn:
            found = store.find_candidates(
                conn,
                caller.tenant_id,
                embedding,
                scope=request.scope,
                excluded_topics=key_settings.excluded_categories,
                limit=CANDIDATE_LIMIT,
                min_similarity=settings.candidate_floor,
            )
        candidates = [Candidate(row.memory_id, row.content, row.topic, sim) for row, sim in found]
        if not candidates:
            skipped = SkippedReason.NO_CANDIDATES
        else:
            outcome.ran = True
            outcome.candidates_examined = len(candidates)
            try:
                classification = _classify(deps.classifier_factory(), request, candidates, key_settings)
            except Exception as exc:  # noqa: BLE001 - no classifier failure may lose a write
                skipped = SkippedReason.CLASSIFIER_ERROR
                metrics.add_metric(name="ClassifierErrors", unit=MetricUnit.Count, value=1)
                logger.warning(
                    "classifier failed; storing the memory without supersession",
                    extra={"error": type(exc).__name__, "detail": str(exc)[:300]},
                )
            else:
                chosen, act = choose(classification.verdicts, key_settings.min_confidence)
                outcome.decision = Decision(
                    candidate_id=chosen.candidate_id,
                    classifier=chosen.verdict,
                    confidence=chosen.confidence,
                    reason=chosen.reason,
                    model=classification.model,
                )
    outcome.skipped_reason = skipped

    with deps.db.tenant_transaction(caller.tenant_id) as conn:
        store.begin_write(conn, caller.tenant_id)
        target = store.lock_believed(conn, caller.tenant_id, chosen.candidate_id) if act and chosen else None
        now = store.write_clock(conn)
        # Lock held; if the target stopped being current meanwhile, don't act on it.
        if target is not None and not target.is_current:
            logger.info(
                "candidate changed while classifying; not acting", extra={"memory_id": str(target.memory_id)}
            )
            target = None
        valid_from = request.valid_from or now
        if (
            target is not None
            and chosen.verdict == Verdict.CONTRADICTS
            and valid_from < target.valid_from
            and target.supersedes is not None
        ):
            # A back-dated fact would have to enter the middle of an existing lineage, which
            # the classifier never judged: precision first, store it without acting.
            logger.info("back-dated fact inside an existing lineage; not acting")
            target = None

        if target is not None and chosen.verdict == Verdict.DUPLICATE:
            store.insert_audit_event(
                conn,
                tenant_id=caller.tenant_id,
                type=AuditType.DUPLICATE_REJECTED,
                created_at=now,
                api_key_id=caller.api_key_id,
                memory_id=target.memory_id,
                classifier=chosen.verdict.value,
                confidence=chosen.confidence,
                reason=chosen.reason,
                model=classification.model,
                candidates_examined=outcome.candidates_examined,
                details={**classification.details, "content": request.content, "topic": request.topic},
                user_id=target.user_id,
            )
            return WriteOutcome(
                200,
                WriteResult(
                    created=False,
                    memory=target.to_memory(),
                    auto_supersede=outcome,
                    duplicate_of=target.memory_id,
                ),
            )

        memory_id = new_id()
        fields = dict(
            memory_id=memory_id,
            tenant_id=caller.tenant_id,
            content=request.content,
            topic=request.topic,
            metadata=request.metadata,
            embedding=embedding,
            valid_from=valid_from,
            recorded_at=now,
            scope=request.scope,
        )
        if target is None:
            created = store.insert_version(conn, valid_to=None, superseded_by=None, supersedes=None, **fields)
            return WriteOutcome(
                201, WriteResult(created=True, memory=created.to_memory(), auto_supersede=outcome)
            )

        details = dict(classification.details)
        if target.valid_from <= valid_from:
            created = store.insert_version(
                conn, valid_to=None, superseded_by=None, supersedes=target.memory_id, **fields
            )
            store.revise_version(conn, target, now, valid_to=valid_from, superseded_by=memory_id)
            newer_id, older_id = memory_id, target.memory_id
        else:
            # Time order: a back-dated fact older than the current one it contradicts is
            # stored already superseded by it.
            created = store.insert_version(
                conn, valid_to=target.valid_from, superseded_by=target.memory_id, supersedes=None, **fields
            )
            store.revise_version(conn, target, now, supersedes=memory_id)
            newer_id, older_id = target.memory_id, memory_id
            details["backdated"] = True
        event = store.insert_audit_event(
            conn,
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
            candidates_examined=outcome.candidates_examined,
            details=details,
            user_id=request.user_id,
        )
    outcome.supersession = SupersessionOutcome(
        superseded_id=older_id,
        classifier=chosen.verdict,
        confidence=chosen.confidence,
        reason=chosen.reason,
        model=classification.model,
        audit_event_id=event.id,
    )
    metrics.add_metric(name="AutoSupersessions", unit=MetricUnit.Count, value=1)
    return WriteOutcome(201, WriteResult(created=True, memory=created.to_memory(), auto_supersede=outcome))
