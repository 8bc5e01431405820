"""The write pipeline (docs/architecture.md): gates, candidate search, one classifier call, and
one transaction that stores the fact, supersedes what it replaces and audits it.

A write runs in two steps. `prepare` does everything that happens outside the database
transaction (the gates, the embedding, the candidate search, the model call); `store_facts`
does everything inside it (lock, decide, insert, supersede, audit). A content write is one
fact through both; a messages write extracts its facts first, prepares each, and stores all
of them in one transaction, so that the request is one unit: all of its facts or none.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, Any
from uuid import UUID

import psycopg
from aws_lambda_powertools.metrics import MetricUnit

from aurra_core import metering
from aurra_core.access import keys
from aurra_core.classifiers.base import (
    Candidate,
    Classification,
    Classifier,
    ClassifierVerdict,
    validate_verdicts,
)
from aurra_core.classifiers.factory import classification_limit_s
from aurra_core.embedders import Embedder
from aurra_core.errors import (
    BudgetExhausted,
    ClassifierError,
    ExtractionError,
    ExtractionUnavailable,
    ValidationFailed,
)
from aurra_core.extractors.base import Extraction, Extractor
from aurra_core.extractors.factory import extraction_limit_s
from aurra_core.models import (
    MAX_CONTENT_CHARS,
    AuditType,
    AutoSupersede,
    AutoSupersedeResult,
    Caller,
    Decision,
    EventType,
    ExtractionReport,
    KeySettings,
    MessagesWriteRequest,
    MessagesWriteResult,
    NotActedReason,
    Scope,
    SkippedReason,
    SourceRequest,
    SupersessionOutcome,
    Usage,
    Verdict,
    WriteRequest,
    WriteResult,
)
from aurra_core.runtime import deadline
from aurra_core.runtime.config import CANDIDATE_LIMIT, get_config
from aurra_core.runtime.flags import FlagSource
from aurra_core.runtime.observability import logger, metrics
from aurra_core.storage import events, level2_jobs, store
from aurra_core.storage.db import Database
from aurra_core.storage.ids import new_id
from aurra_core.text_analysis import slots
from aurra_core.text_analysis.sensitive_topics import fact_topic
from aurra_core.text_analysis.text import fold
from aurra_core.write_path import dependents
from aurra_core.write_path.gating import (
    decides_later,
    gate,
    gate_before_settings,
    gate_topic,
    outside_the_gate,
)
from aurra_core.write_path.redaction import Screened, redact_text, refuse_if_asked, screen

if TYPE_CHECKING:
    from pgvector import Vector

# A scope of at most this many current memories is compared whole, under the similarity floor
# too, when the classifier is the offline `rules` one (its verdicts cost nothing). A model
# classifier keeps the floor and the 3 nearest: comparing a whole scope would cost one call
# with up to SMALL_SCOPE candidates instead of 3 (about 60 input tokens a candidate, so some
# 1,300 more input tokens a fact) and, where nothing clears the floor today, a call where there
# is none (docs/architecture.md, "Candidates in small scopes").
SMALL_SCOPE = 25
# Facts of one messages write prepared at once (each holds a pooled connection while it searches).
PARALLEL_FACTS = 3

_RANK = {Verdict.DUPLICATE: 0, Verdict.CONTRADICTS: 1, Verdict.SUPPLEMENTS: 2, Verdict.NEW_FACT: 3}


def _no_extractor() -> Extractor:
    raise ExtractionError("no extractor is configured")


@dataclass(frozen=True)
class WriteDependencies:
    db: Database
    embedder: Embedder
    # Called only when a classifier is needed, so model SDKs load only then.
    classifier_factory: Callable[[], Classifier]
    flags: FlagSource
    extractor_factory: Callable[[], Extractor] = _no_extractor
    # A batch's calls, taken from the key's budget before its transaction (metering/budget.py).
    prepaid: metering.PrepaidCalls | None = None


@dataclass(frozen=True)
class WriteOutcome:
    status_code: int
    result: WriteResult


@dataclass(frozen=True)
class MessagesOutcome:
    status_code: int
    result: MessagesWriteResult


@dataclass(frozen=True)
class Fact:
    """One fact to write, however it arrived (a content write, or extracted from messages)."""

    content: str
    topic: str
    valid_from: datetime | None
    metadata: dict[str, Any]
    scope: Scope
    # Recorded with the audit event of a fact that came from a conversation.
    provenance: dict[str, Any] = field(default_factory=dict)
    # Where the fact came from (the memory's `source`), and when it stops being true by itself.
    source: store.SourceRecord | None = None
    valid_to: datetime | None = None

    def audit_source(self) -> dict[str, str | None]:
        """The source its audit events name (`conversation_id`, `source_id` filters)."""
        if self.source is None:
            return {}
        return {"conversation_id": self.source.conversation_id, "source_id": self.source.id}


@dataclass(frozen=True)
class StoredFact:
    """A fact already stored, decided about by asynchronous Level 2: its memory, the embedding
    its write computed, and its write's transaction time (its candidates are memories first
    recorded before it: `level2_jobs.first_recorded_since`)."""

    memory_id: UUID
    embedding: Vector
    written_at: datetime


@dataclass
class PreparedFact:
    """A fact with everything decided outside the transaction."""

    fact: Fact
    embedding: Vector
    outcome: AutoSupersedeResult
    # Level 2 passed its gates and decides after the write (a job, asynchronous Level 2).
    decide_later: bool = False
    # Asked "async" with no settings read yet: the one gate that needs them (the topic) runs in
    # the statement that writes the job (a round trip fewer than a transaction of its own).
    gate_when_stored: bool = False
    chosen: ClassifierVerdict | None = None
    act: bool = False
    # A contradiction below min_confidence, queued for review instead of acted on.
    proposed: ClassifierVerdict | None = None
    classification: Classification | None = None
    # The model call taken from the key's budget (its UTC day) and the dollars held for it,
    # settled with the receipt's price in the write's transaction (metering/budget.py).
    reservation_day: date | None = None
    hold_usd: float = 0.0

    @property
    def target_id(self) -> UUID | None:
        """The memory the transaction will act on or propose about."""
        if self.act and self.chosen is not None:
            return self.chosen.candidate_id
        return self.proposed.candidate_id if self.proposed is not None else None


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
    classifier: Classifier, fact: Fact, candidates: list[Candidate], key_settings: KeySettings
) -> Classification:
    classification = classifier.classify(fact.content, fact.topic, candidates, _model(key_settings))
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
    return Classification(
        validate_verdicts(raw, candidates),
        classification.model,
        classification.details,
        classification.input_tokens,
        classification.output_tokens,
        classification.cache_read_input_tokens,
        classification.cache_creation_input_tokens,
    )


def not_acted_reason(chosen: ClassifierVerdict, act: bool) -> NotActedReason | None:
    """Why `choose` did not act on its verdict (None when it did)."""
    if act:
        return None
    if chosen.verdict in (Verdict.CONTRADICTS, Verdict.DUPLICATE):
        return NotActedReason.BELOW_MIN_CONFIDENCE
    return NotActedReason.NOT_CONTRADICTS


def proposal_verdict(
    verdicts: list[ClassifierVerdict], key_settings: KeySettings
) -> ClassifierVerdict | None:
    """The contradiction to queue for review: the most confident `contradicts` below the key's
    min_confidence and at or above its proposal_min_confidence (None disables proposals).
    Any candidate's, not only the reported decision's: a confident `new_fact` about one memory
    says nothing about a contradiction of another, and the queue is how recall comes back."""
    floor = key_settings.proposal_min_confidence
    if floor is None:
        return None
    proposable = [
        v
        for v in verdicts
        if v.verdict == Verdict.CONTRADICTS and floor <= v.confidence < key_settings.min_confidence
    ]
    return max(proposable, key=lambda v: v.confidence, default=None)


def _receipt_details(outcome: AutoSupersedeResult) -> dict[str, Any]:
    return {"usage": outcome.usage.model_dump(mode="json")} if outcome.usage else {}


# ---------------------------------------------------------------- step 1: outside the transaction


def _candidates(
    conn: psycopg.Connection,
    caller: Caller,
    prepared: PreparedFact,
    key_settings: KeySettings,
    reservation: store.CallReservation | None = None,
    excluded_ids: list[UUID] | None = None,
) -> list[Candidate]:
    found = store.find_candidates(
        conn,
        caller.tenant_id,
        prepared.embedding,
        text=prepared.fact.content,
        topic=prepared.fact.topic,
        scope=prepared.fact.scope,
        excluded_topics=key_settings.excluded_categories,
        limit=CANDIDATE_LIMIT,
        min_similarity=get_config().candidate_floor,
        reservation=reservation,
        excluded_ids=excluded_ids,
    )
    return outside_the_gate(
        [Candidate(row.memory_id, row.content, row.topic, sim) for row, sim in found], key_settings
    )


def _small_scope(
    conn: psycopg.Connection,
    caller: Caller,
    prepared: PreparedFact,
    key_settings: KeySettings,
    deps: WriteDependencies,
    excluded_ids: list[UUID] | None = None,
) -> list[Candidate] | None:
    """With the offline classifier, every memory of a small scope (SMALL_SCOPE) that candidate
    search could find, the nearest first, whatever their similarity. None when the classifier
    is a model's (or any other that does not say it is offline) or the scope is larger. The
    configuration is read first, so that a model's SDK is never loaded here."""
    if get_config().classifier != "rules" or not getattr(deps.classifier_factory(), "offline", False):
        return None
    found = store.small_scope_memories(
        conn,
        caller.tenant_id,
        prepared.embedding,
        scope=prepared.fact.scope,
        excluded_topics=key_settings.excluded_categories,
        at_most=SMALL_SCOPE,
        excluded_ids=excluded_ids,
    )
    if found is None:
        return None
    return outside_the_gate(
        [Candidate(row.memory_id, row.content, row.topic, sim) for row, sim in found], key_settings
    )


def _model(key_settings: KeySettings) -> str:
    """The Claude model a key's calls go to: its setting, when the deployment allows it."""
    return get_config().allowed_model(key_settings.classifier_model)


# What the most a call can cost is taken from: its largest prompt at two characters a token
# (prose runs 3.5-4.5, JSON about 2), every input token priced as a cache write.
_CHARS_PER_TOKEN_AT_MOST = 2
# A fact or candidate in the classifier's message: its text and the line around it.
_CLASSIFIED_TEXT_CHARS = MAX_CONTENT_CHARS + 200


def _billed(provider: str, key_settings: KeySettings) -> str | None:
    """The priced model a call of `provider` bills, None when it has no price here."""
    return _model(key_settings) if provider in ("anthropic", "bedrock") else None


def classification_hold(key_settings: KeySettings) -> float:
    """The most one classification of this key can cost (metering/budget.py: its hold)."""
    model = _billed(get_config().classifier, key_settings)
    if model is None:
        return 0.0
    from aurra_core.classifiers.claude import max_output_tokens
    from aurra_core.classifiers.prompt import SYSTEM_PROMPT, TOOL

    chars = len(SYSTEM_PROMPT) + len(json.dumps(TOOL)) + (CANDIDATE_LIMIT + 1) * _CLASSIFIED_TEXT_CHARS
    return metering.most_usd(model, chars // _CHARS_PER_TOKEN_AT_MOST + 1, max_output_tokens(CANDIDATE_LIMIT))


def _extraction_hold(request: MessagesWriteRequest, key_settings: KeySettings) -> float:
    """The most the extraction of this conversation can cost."""
    model = _billed(get_config().resolved_extractor, key_settings)
    if model is None:
        return 0.0
    from aurra_core.extractors.claude import MAX_OUTPUT_TOKENS
    from aurra_core.extractors.prompt import SYSTEM_PROMPT, TOOL

    chars = len(SYSTEM_PROMPT) + len(json.dumps(TOOL)) + sum(len(m.content) + 200 for m in request.messages)
    return metering.most_usd(model, chars // _CHARS_PER_TOKEN_AT_MOST + 1, MAX_OUTPUT_TOKENS)


def _reserve(
    conn: psycopg.Connection, caller: Caller, key_settings: KeySettings, hold_usd: float
) -> date | None:
    """Take one call from the key's budget for today, holding `hold_usd` of its dollars
    (metering/budget.py): the day it was counted on, None when the budget is used up."""
    day = metering.reserve_model_call(
        conn,
        caller,
        key_settings.daily_model_calls_limit,
        key_settings.daily_model_cost_limit_usd,
        hold_usd,
    )
    if day is None:
        metrics.add_metric(name="BudgetExhausted", unit=MetricUnit.Count, value=1)
    return day


def _reserve_model_call(
    caller: Caller, key_settings: KeySettings, hold_usd: float, deps: WriteDependencies
) -> date | None:
    """`_reserve` in a transaction of its own, committed before the call it pays for (without
    waiting for its flush: metering/budget.py)."""
    with deps.db.tenant_transaction(caller.tenant_id, flush_on_commit=False) as conn:
        return _reserve(conn, caller, key_settings, hold_usd)


def call_settlement(day: date | None, hold_usd: float, usage: Usage | None) -> tuple[date, float] | None:
    """What a taken call's receipt changes in its day's spend: its price instead of its hold.
    A call whose cost is unknown (it failed) keeps its hold."""
    if day is None or usage is None or usage.cost_usd is None:
        return None
    return day, usage.cost_usd - hold_usd


def _run_classifier(
    caller: Caller,
    prepared: PreparedFact,
    candidates: list[Candidate],
    key_settings: KeySettings,
    deps: WriteDependencies,
    *,
    reserved: bool,
    answer_by: float | None = None,
) -> None:
    """One classifier call, if the key's budget allowed it (`reserved`), with its receipt on
    the outcome. Whatever the classifier does, the write stops waiting for it at its time limit
    (`classification_limit_s`) or at `answer_by` (time.monotonic(), the request's deadline),
    whichever comes first, and goes on as after a classifier error (runtime/deadline.py)."""
    outcome = prepared.outcome
    if not reserved:
        outcome.skipped_reason = SkippedReason.BUDGET_EXHAUSTED
        return
    outcome.ran = True
    outcome.candidates_examined = len(candidates)
    stopwatch = metering.Stopwatch()
    stop_at = time.monotonic() + classification_limit_s(get_config())
    if answer_by is not None:
        stop_at = min(stop_at, answer_by)
    try:
        classifier = deps.classifier_factory()

        def classify() -> Classification:
            return _classify(classifier, prepared.fact, candidates, key_settings)

        if getattr(classifier, "stops_at_deadline", False):
            # Offline work that checks the deadline between its steps (runtime/deadline.py)
            # ends within a step of it by itself: run here, without a thread to start and
            # wait for (on a loaded host that costs more than the classification).
            with deadline.until(stop_at):
                classification = classify()
        else:
            classification = deadline.call_until(stop_at, classify, ClassifierError, "the classifier")
    except Exception as exc:  # noqa: BLE001 - no classifier failure may lose a write
        outcome.skipped_reason = SkippedReason.CLASSIFIER_ERROR
        outcome.usage = metering.failed_call_receipt(stopwatch.elapsed_ms)
        metering.emit_usage_metrics(caller, outcome.usage, source="classifier", model=None)
        metrics.add_metric(name="ClassifierErrors", unit=MetricUnit.Count, value=1)
        logger.warning(
            "classifier failed; storing the memory without supersession",
            extra={"error": type(exc).__name__, "detail": str(exc)[:300]},
        )
        return
    outcome.usage = metering.receipt(
        classification.model,
        classification.input_tokens,
        classification.output_tokens,
        stopwatch.elapsed_ms,
        cache_read_input_tokens=classification.cache_read_input_tokens,
        cache_creation_input_tokens=classification.cache_creation_input_tokens,
    )
    metering.emit_usage_metrics(caller, outcome.usage, source="classifier", model=classification.model)
    chosen, act = choose(classification.verdicts, key_settings.min_confidence)
    prepared.classification, prepared.chosen, prepared.act = classification, chosen, act
    prepared.proposed = None if act else proposal_verdict(classification.verdicts, key_settings)
    outcome.decision = Decision(
        candidate_id=chosen.candidate_id,
        classifier=chosen.verdict,
        confidence=chosen.confidence,
        reason=chosen.reason,
        model=classification.model,
        not_acted_reason=not_acted_reason(chosen, act),
    )


def prepare(
    caller: Caller,
    fact: Fact,
    requested: AutoSupersede | None,
    key_settings: KeySettings | None,
    deps: WriteDependencies,
    level2_enabled: bool,
    classify_until: float | None = None,
    answer_by: float | None = None,
    stored: StoredFact | None = None,
) -> PreparedFact:
    """The gates (plain code, before any model), the embedding, the candidates of the fact's
    scope and, when there are some, one classifier call: only if it can end by
    `classify_until` (time.monotonic()), else the fact is stored as after a classifier error.
    The call itself ends at its time limit or at `answer_by` (the request's deadline), whichever
    comes first (`_run_classifier`).

    `key_settings` None: the key's settings are read here, and only when a gate needs them (a
    write with Level 2 off or not requested never reads them). What the model call needs is one
    transaction, committed before the call: the settings, the candidates and the call taken
    from the key's budget, the last two in one statement unless `classify_until` must be
    checked between them (each its own transaction would pay its round trips for BEGIN, the
    row-level security settings and COMMIT again). Its commit does not wait for the flush of
    the reservation, the one thing it writes (metering/budget.py).

    Asynchronous Level 2 (`requested` "async", or the key's `auto_supersede_mode`): once the
    gates let it run, nothing more happens here; the fact is stored with a job
    (`decide_later`). The job's worker prepares the `stored` fact through the same gates (with
    the settings of its run) and the same candidate search and classifier call, never deferred
    again, its candidates first recorded before the fact."""
    embedding = stored.embedding if stored is not None else deps.embedder.embed(fact.content)
    prepared = PreparedFact(fact, embedding, AutoSupersedeResult())
    skipped = gate_before_settings(level2_enabled=level2_enabled, requested=requested)
    if skipped is not None:
        prepared.outcome.skipped_reason = skipped
        return prepared
    if stored is None and requested == "async" and key_settings is None:
        prepared.decide_later = prepared.gate_when_stored = True
        return prepared
    with deps.db.tenant_transaction(caller.tenant_id, flush_on_commit=False) as conn:
        settings = key_settings if key_settings is not None else keys.get_key_settings(conn, caller)
        skipped = gate(
            level2_enabled=level2_enabled,
            requested=requested,
            key_settings=settings,
            topic=fact.topic,
            content=fact.content,
        )
        if skipped is not None:
            prepared.outcome.skipped_reason = skipped
            return prepared
        if stored is None and decides_later(requested, settings):
            prepared.decide_later = True
            return prepared
        excluded_ids = (
            None
            if stored is None
            else level2_jobs.first_recorded_since(conn, caller.tenant_id, stored.written_at)
        )
        # With no deadline to check between them, the candidates' statement also takes the
        # call from the budget, when it finds a candidate (one round trip instead of two).
        hold = classification_hold(settings)
        reservation = (
            store.CallReservation(
                caller, settings.daily_model_calls_limit, settings.daily_model_cost_limit_usd, hold
            )
            if classify_until is None and deps.prepaid is None
            else None
        )
        # A small scope is read first: when it is empty, candidate search would find nothing
        # either (it reads the same memories), and is not run (the first fact of each scope).
        small = _small_scope(conn, caller, prepared, settings, deps, excluded_ids)
        candidates = (
            [] if small == [] else _candidates(conn, caller, prepared, settings, reservation, excluded_ids)
        )
        if small:
            if reservation is not None and not candidates:
                reservation = None  # nothing cleared the floor: the call is taken below
            # the candidates found, then the rest of the scope, whatever their similarity
            seen = {c.id for c in candidates}
            candidates = candidates + [c for c in small if c.id not in seen]
        if not candidates:
            prepared.outcome.skipped_reason = SkippedReason.NO_CANDIDATES
            return prepared
        if classify_until is not None and time.monotonic() > classify_until:
            # The request's time is spent: a model call now could outlast the function. The
            # fact is kept, unclassified, as a classifier failure would leave it.
            prepared.outcome.ran = True
            prepared.outcome.candidates_examined = len(candidates)
            prepared.outcome.skipped_reason = SkippedReason.CLASSIFIER_ERROR
            metrics.add_metric(name="ClassifierErrors", unit=MetricUnit.Count, value=1)
            logger.warning("messages write out of time; storing the fact without classifying it")
            return prepared
        if deps.prepaid is not None:
            day = deps.prepaid.take()
            if day is None:
                metrics.add_metric(name="BudgetExhausted", unit=MetricUnit.Count, value=1)
        elif reservation is None:
            day = _reserve(conn, caller, settings, hold)
        else:
            day = reservation.day
            if day is None:
                metrics.add_metric(name="BudgetExhausted", unit=MetricUnit.Count, value=1)
        if day is not None and deps.prepaid is None:
            prepared.reservation_day, prepared.hold_usd = day, hold
    _run_classifier(
        caller, prepared, candidates, settings, deps, reserved=day is not None, answer_by=answer_by
    )
    if deps.prepaid is not None:
        # a batch's call is settled with the batch's calls, after its transaction
        deps.prepaid.settle(call_settlement(day, hold, prepared.outcome.usage))
    return prepared


# ---------------------------------------------------------------- step 2: inside the transaction


def _target(
    conn: psycopg.Connection,
    caller: Caller,
    prepared: PreparedFact,
    now: datetime,
    locked: dict[UUID, tuple[store.MemoryRow | None, set[UUID] | None]],
) -> store.MemoryRow | None:
    """The memory to act on (or propose about), locked, or None when nothing is to be done to
    one. A decision not acted on for a reason found here says so in `not_acted_reason`.

    `locked`: the rows `store_facts` locked, each as read when its lock was granted, with its
    reverted supersessors when a contradiction needs them; a row is taken from there once, by
    the first fact that targets it, and read again by any later one (an earlier fact of the
    request may have replaced it)."""
    target_id = prepared.target_id
    if target_id is None:
        return None
    supersessors: set[UUID] | None = None
    if target_id in locked:
        target, supersessors = locked.pop(target_id)
    else:
        target = store.lock_believed(conn, caller.tenant_id, target_id)
    if target is None:
        return None
    blocked = why_not(conn, caller, prepared, target, now, supersessors)
    if blocked is None:
        return target
    decision = prepared.outcome.decision
    if prepared.act and decision is not None:
        logger.info("not acting on the decision", extra={"not_acted_reason": blocked.value})
        decision.not_acted_reason = blocked
    return None


def acts_on_contradiction(prepared: PreparedFact) -> bool:
    """Whether the verdict the transaction acts on or proposes is a contradiction."""
    verdict = prepared.chosen if prepared.act else prepared.proposed
    return verdict is not None and verdict.verdict == Verdict.CONTRADICTS


def why_not(
    conn: psycopg.Connection,
    caller: Caller,
    prepared: PreparedFact,
    target: store.MemoryRow,
    now: datetime,
    supersessors: set[UUID] | None = None,
) -> NotActedReason | None:
    """Why the write must not act on (or propose) its verdict about `target`, checked under the
    target's lock after the classifier answered; None when it may. `supersessors`: the
    target's reverted supersessors as read with its lock (else read here when needed)."""
    if not target.is_current:
        # It stopped being current while we classified (or an earlier fact of this request
        # replaced it).
        logger.info(
            "candidate changed while classifying; not acting", extra={"memory_id": str(target.memory_id)}
        )
        return NotActedReason.CANDIDATE_CHANGED
    verdict = prepared.chosen if prepared.act else prepared.proposed
    if verdict is None or verdict.verdict != Verdict.CONTRADICTS or prepared.classification is None:
        return None
    backdated = (prepared.fact.valid_from or now) < target.valid_from
    if backdated and target.supersedes is not None:
        # A back-dated fact would have to enter the middle of an existing lineage, which
        # the classifier never judged: precision first, store it without acting.
        return NotActedReason.LATER_FACT_EXISTS
    verdicts = prepared.classification.verdicts
    if reverted_before(
        conn, caller, prepared.fact.content, verdicts, target, backdated=backdated, supersessors=supersessors
    ):
        return NotActedReason.REVERTED_BEFORE
    return None


def reverted_before(
    conn: psycopg.Connection,
    caller: Caller,
    content: str,
    verdicts: list[ClassifierVerdict],
    target: store.MemoryRow,
    *,
    backdated: bool,
    supersessors: set[UUID] | None = None,
) -> bool:
    """A revert sticks: once a supersession of a memory by another was reverted, the service
    never again supersedes the restored memory automatically with the other, nor with a fact
    that restates it. Written forward, the new fact would supersede `target`: it must not
    restate a memory whose supersession of `target` was reverted. Back-dated, `target` would
    supersede the new fact: it must not restate a memory restored from `target`.
    `supersessors`: `target`'s reverted supersessors when already read (with its lock)."""
    if backdated:
        related = store.restored_from(conn, caller.tenant_id, target.memory_id)
    elif supersessors is not None:
        related = supersessors
    else:
        related = store.reverted_supersessors(conn, caller.tenant_id, target.memory_id)
    return bool(related) and _restates(conn, caller, content, verdicts, related)


def _restates(
    conn: psycopg.Connection,
    caller: Caller,
    content: str,
    verdicts: list[ClassifierVerdict],
    memory_ids: set[UUID],
) -> bool:
    """Whether the new fact restates one of `memory_ids`: the classifier called it a duplicate
    of one (at any confidence: when in doubt, don't supersede), or it says the same words."""
    if any(v.verdict == Verdict.DUPLICATE and v.candidate_id in memory_ids for v in verdicts):
        return True
    said = _words(content)
    rows = store.select_memories_by_id(conn, caller.tenant_id, list(memory_ids))
    return any(_words(row.content) == said for row in rows)


def _words(text: str) -> list[str]:
    """The words of a text, case and punctuation aside: "Alice switched to Emacs." says the
    same words as "alice switched to emacs"."""
    return re.findall(r"\w+", fold(text).casefold())


def _reject_duplicate(
    conn: psycopg.Connection, caller: Caller, prepared: PreparedFact, target: store.MemoryRow, now: datetime
) -> WriteOutcome:
    chosen, classification, fact = prepared.chosen, prepared.classification, prepared.fact
    assert chosen is not None and classification is not None
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
        candidates_examined=prepared.outcome.candidates_examined,
        details={
            **classification.details,
            **fact.provenance,
            **_receipt_details(prepared.outcome),
            "content": fact.content,
            "topic": fact.topic,
            "not_acted_reason": None,
        },
        user_id=target.user_id,
        **fact.audit_source(),
    )
    result = WriteResult(
        created=False,
        memory=target.to_memory(),
        auto_supersede=prepared.outcome,
        duplicate_of=target.memory_id,
    )
    return WriteOutcome(200, result)


def _version(
    caller: Caller,
    prepared: PreparedFact,
    now: datetime,
    *,
    valid_to: datetime | None = None,
    superseded_by: UUID | None = None,
    supersedes: UUID | None = None,
    superseded_event_id: UUID | None = None,
) -> dict[str, Any]:
    """The new version of the fact (store.insert_version's keywords). Its `valid_to` is the
    earlier of `valid_to` (a supersession's) and the fact's own expiry."""
    fact = prepared.fact
    valid_from = fact.valid_from or now
    if fact.valid_to is not None:
        if fact.valid_to <= valid_from:
            # Checked before anything was done (`check_expiry`), but against the process's
            # clock: the write's own, read under its lock, decides.
            raise expiry_error()
        valid_to = fact.valid_to if valid_to is None else min(valid_to, fact.valid_to)
    return {
        "memory_id": new_id(),
        "tenant_id": caller.tenant_id,
        "content": fact.content,
        "topic": fact.topic,
        "metadata": fact.metadata,
        "embedding": prepared.embedding,
        "valid_from": valid_from,
        "valid_to": valid_to,
        "superseded_by": superseded_by,
        "supersedes": supersedes,
        "superseded_event_id": superseded_event_id,
        "recorded_at": now,
        "scope": fact.scope,
        "source": fact.source,
    }


def expiry_error() -> ValidationFailed:
    problem = "valid_to must be later than valid_from (which defaults to the time of the write)"
    return ValidationFailed(problem, [{"field": "valid_to", "problem": problem}])


def check_expiry(valid_from: datetime | None, valid_to: datetime | None) -> None:
    """A fact's expiry must come after its valid time (by default now): refused before any
    model is called or anything is written."""
    if valid_to is not None and valid_to <= (valid_from or datetime.now(UTC)):
        raise expiry_error()


def _supersede(
    conn: psycopg.Connection, caller: Caller, prepared: PreparedFact, target: store.MemoryRow, now: datetime
) -> WriteOutcome:
    """The new version, the target's revision and the audit event, in one statement."""
    chosen, fact = prepared.chosen, prepared.fact
    assert chosen is not None
    valid_from = fact.valid_from or now
    details = pair_details(prepared, None)
    event_id = new_id()
    if target.valid_from <= valid_from:
        version = _version(caller, prepared, now, supersedes=target.memory_id)
        changes: dict[str, Any] = {
            "valid_to": valid_from,
            "superseded_by": version["memory_id"],
            "superseded_event_id": event_id,
        }
        newer_id, older_id = version["memory_id"], target.memory_id
    else:
        # Time order: a back-dated fact older than the current one it contradicts is
        # stored already superseded by it.
        version = _version(
            caller,
            prepared,
            now,
            valid_to=target.valid_from,
            superseded_by=target.memory_id,
            superseded_event_id=event_id,
        )
        changes = {"supersedes": version["memory_id"]}
        newer_id, older_id = target.memory_id, version["memory_id"]
        details["backdated"] = True
    created, prepared.outcome.supersession = _record_pair(
        conn,
        caller,
        prepared,
        version,
        chosen,
        AuditType.AUTO_SUPERSEDE,
        newer_id=newer_id,
        older_id=older_id,
        details=details,
        event_id=event_id,
        revise=(target, changes),
    )
    if newer_id == created.memory_id:
        dependents.propose(conn, caller, target, created, event_id, now)
    return WriteOutcome(
        201, WriteResult(created=True, memory=created.to_memory(), auto_supersede=prepared.outcome)
    )


def pair_details(prepared: PreparedFact, not_acted: NotActedReason | None) -> dict[str, Any]:
    classification = prepared.classification
    assert classification is not None
    details = {**classification.details, **prepared.fact.provenance, **_receipt_details(prepared.outcome)}
    details["not_acted_reason"] = None if not_acted is None else not_acted.value
    return details


def _record_pair(
    conn: psycopg.Connection,
    caller: Caller,
    prepared: PreparedFact,
    version: dict[str, Any],
    verdict: ClassifierVerdict,
    event_type: AuditType,
    *,
    newer_id: UUID,
    older_id: UUID,
    details: dict[str, Any],
    event_id: UUID | None = None,
    revise: tuple[store.MemoryRow, dict[str, Any]] | None = None,
) -> tuple[store.MemoryRow, SupersessionOutcome]:
    """The new version and the audit event of a pair the classifier named (acted on or
    proposed), with the other version's revision when it is acted on: one statement
    (store.insert_version_audited). Returns the new version and the outcome the caller is told."""
    classification = prepared.classification
    assert classification is not None
    created, event = store.insert_version_audited(
        conn,
        version,
        {
            "event_id": event_id,
            "tenant_id": caller.tenant_id,
            "type": event_type,
            "api_key_id": caller.api_key_id,
            "memory_id": newer_id,
            "superseded_id": older_id,
            "classifier": verdict.verdict.value,
            "confidence": verdict.confidence,
            "reason": verdict.reason,
            "model": classification.model,
            "candidates_examined": prepared.outcome.candidates_examined,
            "details": details,
            "user_id": prepared.fact.scope.user_id,
            **prepared.fact.audit_source(),
        },
        revise=revise,
    )
    return created, SupersessionOutcome(
        superseded_id=older_id,
        classifier=verdict.verdict,
        confidence=verdict.confidence,
        reason=verdict.reason,
        model=classification.model,
        audit_event_id=event.id,
    )


def _propose(
    conn: psycopg.Connection, caller: Caller, prepared: PreparedFact, target: store.MemoryRow, now: datetime
) -> WriteOutcome:
    """Below min_confidence: store the fact as it is and queue the pair for a person. The pair
    is named in time order, as a supersession would be (a back-dated fact is the older one)."""
    proposed = prepared.proposed
    assert proposed is not None
    version = _version(caller, prepared, now)
    details = pair_details(prepared, NotActedReason.BELOW_MIN_CONFIDENCE)
    if version["valid_from"] < target.valid_from:
        newer_id, older_id = target.memory_id, version["memory_id"]
        details["backdated"] = True
    else:
        newer_id, older_id = version["memory_id"], target.memory_id
    created, prepared.outcome.proposal = _record_pair(
        conn,
        caller,
        prepared,
        version,
        proposed,
        AuditType.SUPERSESSION_PROPOSED,
        newer_id=newer_id,
        older_id=older_id,
        details=details,
    )
    return WriteOutcome(
        201, WriteResult(created=True, memory=created.to_memory(), auto_supersede=prepared.outcome)
    )


def _store_one(
    conn: psycopg.Connection,
    caller: Caller,
    prepared: PreparedFact,
    now: datetime,
    locked: dict[UUID, tuple[store.MemoryRow | None, set[UUID] | None]],
) -> WriteOutcome:
    return _after_insert(conn, caller, prepared, _store_fact(conn, caller, prepared, now, locked))


def _after_insert(
    conn: psycopg.Connection, caller: Caller, prepared: PreparedFact, outcome: WriteOutcome
) -> WriteOutcome:
    """What follows a fact's insert in its transaction, however it was inserted (on its own,
    `_store_one`, or with the request's other facts, `_store_unrelated`): its asynchronous
    Level 2 job, and its change-stream events."""
    if prepared.decide_later:
        # The job commits with the memory: a decision is never lost, whatever happens to the
        # nudge sent after the commit (a sweeper finds jobs whose nudge was lost).
        memory = outcome.result.memory
        job: dict[str, Any] = {
            "tenant_id": caller.tenant_id,
            "api_key_id": caller.api_key_id,
            "memory_id": memory.id,
            "written_at": memory.recorded_at,
            "provenance": prepared.fact.provenance,
        }
        if prepared.gate_when_stored:
            # An explicit "async" needs only the topic gate of the key's settings: in the
            # job's own statement.
            job_id = level2_jobs.insert_job_unless_excluded(
                conn, **job, topic=gate_topic(prepared.fact.topic, prepared.fact.content)
            )
        else:
            job_id = level2_jobs.insert_job(conn, **job)
        if job_id is None:
            prepared.outcome.skipped_reason = SkippedReason.EXCLUDED_CATEGORY
        else:
            prepared.outcome.status, prepared.outcome.job_id = "pending", job_id
    _record_level2_events(conn, caller, prepared, outcome)
    return outcome


def _record_level2_events(
    conn: psycopg.Connection, caller: Caller, prepared: PreparedFact, outcome: WriteOutcome
) -> None:
    """The change-stream events of a write that no audit event or new memory says
    (`_level2_event`). In the write's transaction."""
    result = outcome.result
    if not result.created:
        return
    memory = result.memory
    event = _level2_event(caller, prepared, memory.id, Scope(memory.user_id, memory.agent_id))
    if event is not None:
        conn.execute(*event)


def _level2_event(
    caller: Caller, prepared: PreparedFact, memory_id: UUID, scope: Scope
) -> tuple[str, tuple[Any, ...]] | None:
    """The statement of a new memory's change-stream event that no audit event or new memory
    says, with ids only: Level 2 ran and acted on nothing (auto_supersede.completed), or the
    key's budget left it unrun (budget.exhausted). None when it has none."""
    ran = prepared.outcome
    data: dict[str, Any]
    if ran.skipped_reason == SkippedReason.BUDGET_EXHAUSTED:
        event_type, data = EventType.BUDGET_EXHAUSTED, {"api_key_id": str(caller.api_key_id)}
    elif ran.ran and ran.supersession is None and ran.proposal is None:
        event_type, data = (
            EventType.AUTO_SUPERSEDE_COMPLETED,
            {"candidates_examined": ran.candidates_examined},
        )
    else:
        return None
    return events.event_statement(caller.tenant_id, event_type, scope=scope, memory_id=memory_id, data=data)


def _store_unrelated(
    conn: psycopg.Connection, caller: Caller, prepared: list[PreparedFact], now: datetime
) -> list[WriteOutcome]:
    """Facts that act on no memory (none has a target): their versions inserted as
    `_store_fact` would insert each, sent together in one round trip (store.insert_versions)."""
    versions = [_version(caller, p, now) for p in prepared]
    if len(prepared) == 1 and not prepared[0].decide_later:
        # One memory and no job (a single write; a batch's fact with Level 2 on): its
        # change-stream event, when it has one, is sent with its insert, one round trip.
        (one,), (version,) = prepared, versions
        event = _level2_event(caller, one, version["memory_id"], one.fact.scope)
        row = store.insert_version(conn, **version, then=event)
        return [
            WriteOutcome(201, WriteResult(created=True, memory=row.to_memory(), auto_supersede=one.outcome))
        ]
    created = store.insert_versions(conn, versions)
    return [
        _after_insert(
            conn,
            caller,
            p,
            WriteOutcome(201, WriteResult(created=True, memory=row.to_memory(), auto_supersede=p.outcome)),
        )
        for p, row in zip(prepared, created, strict=True)
    ]


def _store_fact(
    conn: psycopg.Connection,
    caller: Caller,
    prepared: PreparedFact,
    now: datetime,
    locked: dict[UUID, tuple[store.MemoryRow | None, set[UUID] | None]],
) -> WriteOutcome:
    target = _target(conn, caller, prepared, now, locked)
    if target is None:
        created = store.insert_version(conn, **_version(caller, prepared, now))
        return WriteOutcome(
            201, WriteResult(created=True, memory=created.to_memory(), auto_supersede=prepared.outcome)
        )
    if not prepared.act:
        return _propose(conn, caller, prepared, target, now)
    assert prepared.chosen is not None
    if prepared.chosen.verdict == Verdict.DUPLICATE:
        return _reject_duplicate(conn, caller, prepared, target, now)
    return _supersede(conn, caller, prepared, target, now)


def _settle(conn: psycopg.Connection, caller: Caller, settle: dict[date, float]) -> None:
    for day, delta in settle.items():
        metering.settle_model_call(conn, caller, day, delta)


def store_facts(
    caller: Caller,
    prepared: list[PreparedFact],
    db: Database,
    settlements: list[tuple[date, float] | None] | None = None,
) -> list[WriteOutcome]:
    """Store prepared facts in order, in one transaction: all of them or none. The same
    transaction settles the dollars held for their model calls (and `settlements`, the
    request's other calls) with the calls' receipts."""
    settle: dict[date, float] = {}
    for settlement in [
        *(settlements or []),
        *(call_settlement(p.reservation_day, p.hold_usd, p.outcome.usage) for p in prepared),
    ]:
        if settlement is not None:
            settle[settlement[0]] = settle.get(settlement[0], 0.0) + settlement[1]
    if not prepared:
        if settle:
            with db.tenant_transaction(caller.tenant_id) as conn:
                _settle(conn, caller, settle)
        return []
    # Lock every memory the facts may act on first, in a fixed order, so two requests acting on
    # the same memories cannot deadlock; the clock is read after the locks, by the last lock's
    # statement, once every lock is granted (not when the transaction begins: in a batch's
    # transaction that would be a round trip of its own). A target of a contradiction is read
    # with its reverted supersessors (the revert check).
    targets = sorted({p.target_id for p in prepared if p.target_id is not None}, key=str)
    if not targets:
        with store.write_transaction(db, caller.tenant_id) as (conn, now):
            _settle(conn, caller, settle)
            outcomes = _store_unrelated(conn, caller, prepared, now)
    else:
        contradicted = {p.target_id for p in prepared if acts_on_contradiction(p)}
        with store.row_write_transaction(db, caller.tenant_id) as conn:
            _settle(conn, caller, settle)
            locked: dict[UUID, tuple[store.MemoryRow | None, set[UUID] | None]] = {}
            for memory_id in targets:
                row, now, supersessors = store.lock_believed_and_clock(
                    conn, caller.tenant_id, memory_id, with_reverted_supersessors=memory_id in contradicted
                )
                locked[memory_id] = (row, supersessors)
            outcomes = [_store_one(conn, caller, p, now, locked) for p in prepared]
    supersessions = sum(1 for o in outcomes if o.result.auto_supersede.supersession is not None)
    if supersessions:
        metrics.add_metric(name="AutoSupersessions", unit=MetricUnit.Count, value=supersessions)
    proposals = sum(1 for o in outcomes if o.result.auto_supersede.proposal is not None)
    if proposals:
        metrics.add_metric(name="SupersessionsProposed", unit=MetricUnit.Count, value=proposals)
    return outcomes


# ---------------------------------------------------------------- the two kinds of write


def _key_settings(caller: Caller, db: Database) -> KeySettings:
    with db.tenant_transaction(caller.tenant_id) as conn:
        return keys.get_key_settings(conn, caller)


def source_record(given: SourceRequest | None) -> store.SourceRecord | None:
    """The stored `source` of a fact whose writer named it (a content write, a batch's fact)."""
    if given is None:
        return None
    # A source of type "conversation" names one: its id is the conversation's.
    conversation_id = given.id if given.type == "conversation" else None
    return store.SourceRecord(given.type, given.id, given.uri, conversation_id)


def write_memory(
    caller: Caller, request: WriteRequest | Screened[WriteRequest], deps: WriteDependencies
) -> WriteOutcome:
    """One fact (the `content` form of POST /memories). First its credentials are redacted, or
    the write refused (redaction.py): `request` may come screened already (the service screens
    it for its Idempotency-Key record)."""
    screened = request if isinstance(request, Screened) else screen(request)
    key_settings = refuse_if_asked(caller, screened, deps.db)
    request = screened.request
    check_expiry(request.valid_from, request.valid_to)
    fact = Fact(
        request.content,
        request.topic,
        request.valid_from,
        request.metadata,
        request.scope,
        source=source_record(request.source),
        valid_to=request.valid_to,
    )
    prepared = prepare(caller, fact, request.auto_supersede, key_settings, deps, deps.flags.level2_enabled())
    (outcome,) = store_facts(caller, [prepared], deps.db)
    return outcome


def extract(
    caller: Caller,
    request: MessagesWriteRequest,
    key_settings: KeySettings,
    deps: WriteDependencies,
    answer_by: float | None = None,
) -> tuple[Extraction, Usage, tuple[date, float] | None]:
    """The conversation's facts, the receipt of the call that found them and what it changes in
    the key's spend (`store_facts` settles it); BudgetExhausted (429) when the key's daily
    budget is used up, ExtractionUnavailable (503) when the extractor fails or has not answered
    by its time limit (`extraction_limit_s`) or `answer_by` (time.monotonic(), the request's
    deadline): either way before anything is written."""
    hold = _extraction_hold(request, key_settings)
    day = _reserve_model_call(caller, key_settings, hold, deps)
    if day is None:
        limits = []
        if key_settings.daily_model_calls_limit is not None:
            limits.append(f"daily_model_calls_limit ({key_settings.daily_model_calls_limit} model calls)")
        if key_settings.daily_model_cost_limit_usd is not None:
            limits.append(f"daily_model_cost_limit_usd (${key_settings.daily_model_cost_limit_usd:g})")
        raise BudgetExhausted(
            f"the key's {' or '.join(limits) or 'daily budget'} per UTC day is used up; "
            "nothing was written. Retry after 00:00 UTC or raise the limit"
        )
    stopwatch = metering.Stopwatch()
    stop_at = time.monotonic() + extraction_limit_s(get_config())
    if answer_by is not None:
        stop_at = min(stop_at, answer_by)
    try:
        extractor = deps.extractor_factory()
        relations = _relations_for(extractor, caller, request, deps)
        extraction = deadline.call_until(
            stop_at,
            lambda: extractor.extract(request.messages, _model(key_settings), relations=relations),
            ExtractionError,
            "the extractor",
        )
    except Exception as exc:  # any failure: nothing written, the client retries
        metering.emit_usage_metrics(
            caller, metering.failed_call_receipt(stopwatch.elapsed_ms), source="extraction", model=None
        )
        metrics.add_metric(name="ExtractionErrors", unit=MetricUnit.Count, value=1)
        logger.warning(
            "extraction failed; nothing written",
            extra={"error": type(exc).__name__, "detail": str(exc)[:300]},
        )
        raise ExtractionUnavailable("fact extraction failed; nothing was written. Retry shortly") from exc
    usage = metering.receipt(
        extraction.model, extraction.input_tokens, extraction.output_tokens, stopwatch.elapsed_ms
    )
    metering.emit_usage_metrics(caller, usage, source="extraction", model=extraction.model)
    return extraction, usage, call_settlement(day, hold, usage)


def _relations_for(
    extractor: Extractor, caller: Caller, request: MessagesWriteRequest, deps: WriteDependencies
) -> set[tuple[str, str]]:
    """Whom the user's memories are about (store.relations_named), read only for an extractor
    that says it reads them (`reads_relations`): a model's write pays no statement for them."""
    if not getattr(extractor, "reads_relations", False):
        return set()
    with deps.db.tenant_transaction(caller.tenant_id) as conn:
        return store.relations_named(conn, caller.tenant_id, request.scope)


def _extracted_metadata(metadata: dict[str, Any], method: str | None) -> dict[str, Any]:
    """The request's metadata, and for a fact kept as said (`verbatim`: the extractor's rules
    could not rewrite it) `extraction.method`, so that a reader can tell it from a rewritten
    fact (docs/api.md, "Extraction"). A key `extraction` of the request's own wins."""
    if method != "verbatim" or "extraction" in metadata:
        return metadata
    return {**metadata, "extraction": {"method": "verbatim"}}


def _extraction_info(content: str, method: str | None) -> dict[str, Any]:
    """What the audit event of an extracted fact records of how it was found: the extractor's
    method, when it said one, and the fact's slots (text_analysis/slots.py), when plain code can
    tell them."""
    info: dict[str, Any] = {}
    if method is not None:
        info["extraction_method"] = method
    found = slots.slots_of(content)
    if found:
        info["slots"] = [slot.as_dict() for slot in found]
    return info


def write_messages(
    caller: Caller, request: MessagesWriteRequest | Screened[MessagesWriteRequest], deps: WriteDependencies
) -> MessagesOutcome:
    """A conversation (the `messages` form of POST /memories): redact its credentials (or
    refuse it), extract its facts, put each through the pipeline as if it had been sent as
    `content`, store them all in one transaction. A fact's candidates are memories that
    existed before the request, never one of its own facts. The request answers by its
    deadline (AURRA_MESSAGES_WRITE_DEADLINE_S from its start) and the time its one transaction
    takes: the extraction and every classification are abandoned there whatever they do; a
    fact's classification starts only while it can end by then, and a fact not classified in
    time is kept unclassified (`classifier_error`)."""
    config = get_config()
    answer_by = time.monotonic() + config.messages_write_deadline_s
    classify_until = answer_by - classification_limit_s(config)
    screened = request if isinstance(request, Screened) else screen(request)
    key_settings = refuse_if_asked(caller, screened, deps.db) or _key_settings(caller, deps.db)
    request = screened.request
    # Every fact's valid time is a message's created_at, the request's valid_from or now.
    check_expiry(request.valid_from, request.valid_to)
    extraction, usage, settlement = extract(caller, request, key_settings, deps, answer_by)
    level2_enabled = deps.flags.level2_enabled()
    conversation_id = request.conversation_id or str(new_id())
    provenance = {"extractor": extraction.extractor, "extraction_model": extraction.model}
    methods = extraction.details.get("methods") or []
    facts = []
    for number, extracted in enumerate(extraction.facts):
        message = request.messages[extracted.message_index]
        # The extractor saw the messages redacted; its facts are scanned all the same (a model
        # may put together what no message held whole).
        content = redact_text(extracted.content)
        method = methods[number] if number < len(methods) else None
        facts.append(
            Fact(
                content=content,
                topic=fact_topic(content, extracted.topic, request.topic),
                valid_from=message.created_at or request.valid_from,
                metadata=_extracted_metadata(request.metadata, method),
                scope=request.scope,
                provenance={
                    **provenance,
                    "message_index": extracted.message_index,
                    **_extraction_info(content, method),
                },
                source=store.SourceRecord(
                    type="conversation",
                    id=conversation_id,
                    conversation_id=conversation_id,
                    message_indexes=extracted.message_indexes,
                    quote=extracted.quote,
                ),
                valid_to=request.valid_to,
            )
        )

    def prepare_one(fact: Fact) -> PreparedFact:
        return prepare(
            caller,
            fact,
            request.auto_supersede,
            key_settings,
            deps,
            level2_enabled,
            classify_until,
            answer_by,
        )

    # The facts are independent until they are stored (each compares only with memories that
    # existed before the request), so their model calls run side by side, a few at a time:
    # one fact's wait for the model is not the next fact's.
    with ThreadPoolExecutor(max_workers=PARALLEL_FACTS, thread_name_prefix="aurra-fact") as pool:
        prepared = list(pool.map(prepare_one, facts))
    outcomes = store_facts(caller, prepared, deps.db, [settlement])
    report = ExtractionReport(
        extractor=extraction.extractor,
        model=extraction.model,
        facts_found=len(extraction.facts),
        prompt_version=extraction.prompt_version,
        usage=usage,
        facts_dropped=extraction.dropped,
        conversation_id=conversation_id,
    )
    result = MessagesWriteResult(facts=[o.result for o in outcomes], extraction=report)
    status = 201 if any(o.result.created for o in outcomes) else 200
    return MessagesOutcome(status, result)
