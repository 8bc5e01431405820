"""The composition root: each handler makes one call here, and this wires the real parts.

One function per API operation, named as the operation and its handler (`list_memories` is
GET /agent/memories). Below this layer names say their layer: `queries.read_*` answer reads
on a database, `store.select_*` / `insert_*` / `revise_*` are single SQL statements."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar
from uuid import UUID

from pydantic import BaseModel

from aurra_core.access import key_check, keys
from aurra_core.classifiers.factory import get_classifier
from aurra_core.embedders import get_embedder
from aurra_core.models import (
    ApproveResult,
    AuditEvent,
    AuditListQuery,
    AuditPage,
    BatchWriteRequest,
    BatchWriteResult,
    Caller,
    DeliveryListQuery,
    DeliveryPage,
    DismissResult,
    ErasureReceipt,
    ErasureRequest,
    EventListQuery,
    EventPage,
    ExportQuery,
    History,
    ImportAnnouncement,
    ImportIndexing,
    JobListQuery,
    JobPage,
    KeySettings,
    Level2Job,
    Memory,
    MemoryListQuery,
    MemoryPage,
    MessagesWriteResult,
    PointInTime,
    RevertResult,
    SettingsPatch,
    SupersedeRequest,
    SupersedeResult,
    WebhookDelivery,
    WriteBody,
    WriteRequest,
    WriteResult,
)
from aurra_core.runtime.flags import get_flag_source
from aurra_core.storage import events, queries
from aurra_core.storage.db import Database, get_database
from aurra_core.write_path import supersession

if TYPE_CHECKING:
    from aurra_core.level2_jobs.worker import Worker
    from aurra_core.write_path import pipeline as write_pipeline
    from aurra_core.write_path.redaction import Screened

Result = TypeVar("Result", bound=BaseModel)


# What a function imports at its start, every cold start of it pays. The write path (the write
# pipeline, the fact extractors, the text analysis they share) is imported by `write_memory`,
# so that the functions that never write never load it; the write function loads it at its
# start with this, so that its first request does not pay for the imports.


def load_write_path() -> None:
    """Import everything a write uses (the write function calls this at its start)."""
    from aurra_core.write_path import pipeline as write_pipeline  # noqa: F401


def _once(
    operation: str,
    caller: Caller,
    key: str | None,
    request: dict[str, Any],
    call: Callable[[], tuple[int, Result]],
    result_type: type[Result],
) -> tuple[int, Result]:
    """`call`, at most once per Idempotency-Key; a replay with the same `request` gets the
    first response, whatever happened since."""
    if key is None:
        return call()
    answered: list[tuple[int, Result]] = []

    def recorded() -> dict[str, Any]:
        status, result = call()
        answered.append((status, result))
        return {"status": status, "body": result.model_dump(mode="json")}

    # Imported here: the idempotency utility brings boto3, which no request without a key needs.
    from aurra_core.write_path import idempotency

    stored = idempotency.run_once(operation, caller, key, request, recorded)
    if answered:  # this request ran it: its own result, not the record read back
        return answered[0]
    return stored["status"], result_type.model_validate(stored["body"])


def _write_dependencies(db: Database | None = None) -> write_pipeline.WriteDependencies:
    from aurra_core.extractors.factory import get_extractor
    from aurra_core.write_path import pipeline as write_pipeline

    return write_pipeline.WriteDependencies(
        db=db or get_database(),
        embedder=get_embedder(),
        classifier_factory=get_classifier,
        flags=get_flag_source(),
        extractor_factory=get_extractor,
    )


def _nudge_level2(caller: Caller, results: list[WriteResult]) -> None:
    """After the write's commit: wake a worker for each job it wrote (asynchronous Level 2)."""
    job_ids = [r.auto_supersede.job_id for r in results if r.auto_supersede.job_id is not None]
    if not job_ids:
        return
    from aurra_core.level2_jobs import nudge
    from aurra_core.storage.level2_jobs import JobRef

    nudge.send([JobRef(job_id=job_id, tenant_id=caller.tenant_id) for job_id in job_ids])


def write_memory(
    caller: Caller, body: WriteBody | WriteRequest, idempotency_key: str | None = None
) -> tuple[int, WriteResult | MessagesWriteResult]:
    """POST /agent/memories: one fact, or the facts of a conversation. Either way the whole
    request is one idempotent unit."""
    from aurra_core.write_path import pipeline as write_pipeline
    from aurra_core.write_path.redaction import screen

    request = body.request() if isinstance(body, WriteBody) else body
    # The write's first step (write_path/redaction.py): its credentials redacted. The
    # Idempotency-Key record keeps the request as it will be stored, never a credential: a
    # retry that differs only in a redacted value is the same write. Fields added since the
    # first release count only when given: a retry of a request recorded before them keeps its
    # identity.
    later = {
        name for name in ("valid_to", "source", "conversation_id") if getattr(request, name, None) is None
    }
    if isinstance(request, WriteRequest):
        fact_request = screen(request)

        def call_fact() -> tuple[int, WriteResult]:
            outcome = write_pipeline.write_memory(caller, fact_request, _write_dependencies())
            _nudge_level2(caller, [outcome.result])
            return outcome.status_code, outcome.result

        identity = fact_request.request.model_dump(mode="json", exclude=later)
        return _once("write", caller, idempotency_key, identity, call_fact, WriteResult)

    messages_request = screen(request)

    def call_messages() -> tuple[int, MessagesWriteResult]:
        outcome = write_pipeline.write_messages(caller, messages_request, _write_dependencies())
        _nudge_level2(caller, outcome.result.facts)
        return outcome.status_code, outcome.result

    identity = messages_request.request.model_dump(mode="json", exclude=later)

    return _once("write", caller, idempotency_key, identity, call_messages, MessagesWriteResult)


def write_batch(
    caller: Caller, request: BatchWriteRequest, idempotency_key: str | None = None
) -> tuple[int, BatchWriteResult]:
    """POST /agent/memories/batch: 1..100 facts in one transaction, one idempotent unit. Its
    first step, as a single write's: every fact's credentials redacted, or the batch refused."""
    from aurra_core.write_path import batch
    from aurra_core.write_path.redaction import refuse_if_asked, screen_each

    screened = screen_each(request, "facts")
    refuse_if_asked(caller, screened, get_database())
    request = screened.request

    def call() -> tuple[int, BatchWriteResult]:
        result = batch.write_batch(caller, request, _write_dependencies())
        _nudge_level2(caller, result.results)
        return 201, result

    identity = request.model_dump(mode="json")
    for fact in identity["facts"]:
        # Fields a fact gained after the first release count only when given (as for a single
        # write): a retry of a batch recorded before them keeps its identity.
        for name in ("valid_to", "source"):
            if fact.get(name) is None:
                fact.pop(name, None)
    return _once("write_batch", caller, idempotency_key, identity, call, BatchWriteResult)


def announce_import(caller: Caller, request: ImportAnnouncement) -> ImportIndexing:
    """POST /agent/imports: a large import defers the tenant's index to its end."""
    from aurra_core.write_path import import_indexing

    return import_indexing.announce(caller, request, get_database())


def build_import_index(caller: Caller) -> tuple[int, ImportIndexing]:
    """POST /agent/imports/index: the tenant's own index, built now."""
    from aurra_core.write_path import import_indexing

    return import_indexing.build(caller, get_database())


def import_indexing_state(caller: Caller) -> ImportIndexing:
    """GET /agent/imports/index."""
    from aurra_core.write_path import import_indexing

    return import_indexing.state(caller, get_database())


def list_memories(caller: Caller, query: MemoryListQuery) -> MemoryPage:
    return queries.read_memory_page(caller, query, get_database(), get_embedder())


def export(caller: Caller, query: ExportQuery) -> str:
    """GET /agent/export: one response of the tenant's export, as NDJSON."""
    return queries.read_export_page(caller, query, get_database())


def get_memory(caller: Caller, memory_id: UUID, when: PointInTime) -> Memory:
    return queries.read_memory(caller, memory_id, when, get_database())


def memory_history(caller: Caller, memory_id: UUID, when: PointInTime) -> History:
    return queries.read_memory_history(caller, memory_id, when, get_database())


def supersede_memory(
    caller: Caller, memory_id: UUID, request: SupersedeRequest, idempotency_key: str | None = None
) -> tuple[int, SupersedeResult]:
    given: SupersedeRequest | Screened[SupersedeRequest] = request
    if request.content is not None:
        # A new memory's credentials redacted first, as a write's (and in the Idempotency-Key
        # record). Imported here: the link form, and the functions that never write, never
        # load the detector.
        from aurra_core.write_path.redaction import screen

        given = screen(request)
        request = given.request

    def call() -> tuple[int, SupersedeResult]:
        return 201, supersession.supersede(caller, memory_id, given, get_database(), get_embedder())

    # The memory id is part of the request: the same key on another memory is a conflict.
    identity = {"memory_id": str(memory_id), **request.model_dump(mode="json")}
    return _once("supersede", caller, idempotency_key, identity, call, SupersedeResult)


def revert_supersession(
    caller: Caller, event_id: UUID, idempotency_key: str | None = None
) -> tuple[int, RevertResult]:
    def call() -> tuple[int, RevertResult]:
        return 200, supersession.revert(caller, event_id, get_database())

    return _once("revert", caller, idempotency_key, {"event_id": str(event_id)}, call, RevertResult)


def approve_proposal(
    caller: Caller, event_id: UUID, idempotency_key: str | None = None
) -> tuple[int, ApproveResult]:
    def call() -> tuple[int, ApproveResult]:
        return 201, supersession.approve(caller, event_id, get_database())

    return _once("approve", caller, idempotency_key, {"event_id": str(event_id)}, call, ApproveResult)


def dismiss_proposal(
    caller: Caller, event_id: UUID, idempotency_key: str | None = None
) -> tuple[int, DismissResult]:
    def call() -> tuple[int, DismissResult]:
        return 200, supersession.dismiss(caller, event_id, get_database())

    return _once("dismiss", caller, idempotency_key, {"event_id": str(event_id)}, call, DismissResult)


def get_settings(caller: Caller) -> KeySettings:
    with get_database().tenant_transaction(caller.tenant_id) as conn:
        return keys.get_key_settings(conn, caller)


def update_settings(caller: Caller, patch: SettingsPatch) -> KeySettings:
    with get_database().tenant_transaction(caller.tenant_id) as conn:
        return keys.update_key_settings(conn, caller, patch)


def list_audit_events(caller: Caller, query: AuditListQuery) -> AuditPage:
    return queries.read_audit_page(caller, query, get_database())


def get_audit_event(caller: Caller, event_id: UUID) -> AuditEvent:
    return queries.read_audit_event(caller, event_id, get_database())


def create_erasure(caller: Caller, request: ErasureRequest) -> tuple[int, ErasureReceipt]:
    """POST /agent/erasures: 201 with a new receipt, or 200 with the earlier one when nothing
    new matched. Naturally idempotent: no Idempotency-Key needed."""
    from aurra_core.write_path import erasure

    return erasure.erase(caller, request, get_database())


def get_erasure(caller: Caller, erasure_id: UUID) -> ErasureReceipt:
    from aurra_core.write_path import erasure

    return erasure.get_receipt(caller, erasure_id, get_database())


def list_events(caller: Caller, query: EventListQuery) -> EventPage:
    return events.read_event_page(caller, query, get_database())


def list_jobs(caller: Caller, query: JobListQuery) -> JobPage:
    return queries.read_job_page(caller, query, get_database())


def get_job(caller: Caller, job_id: UUID) -> Level2Job:
    return queries.read_job(caller, job_id, get_database())


def list_webhook_deliveries(caller: Caller, query: DeliveryListQuery) -> DeliveryPage:
    from aurra_core.webhooks import delivery

    return delivery.list_deliveries(caller, query, get_database())


def replay_webhook_delivery(caller: Caller, delivery_id: UUID) -> WebhookDelivery:
    from aurra_core.webhooks import delivery

    return delivery.replay(caller, delivery_id, get_database())


_level2_worker_warm = False


def warm_up_level2_worker() -> None:
    """Load the configured classifier's SDK and client once per process, before the first job,
    not within that job's classification time limit."""
    global _level2_worker_warm
    if _level2_worker_warm:
        return
    from aurra_core.level2_jobs import worker

    worker.warm_up(_write_dependencies())
    _level2_worker_warm = True


def run_level2_job(job_id: UUID, tenant_id: UUID) -> str | None:
    """Decide one asynchronous Level 2 job (a queue message): its outcome, None when there was
    nothing to do (decided already, or held by another worker)."""
    from aurra_core.level2_jobs import worker
    from aurra_core.storage.level2_jobs import JobRef

    return worker.run_job(JobRef(job_id=job_id, tenant_id=tenant_id), _write_dependencies())


def sweep_level2_jobs() -> int:
    """Nudge again every pending job nobody holds whose nudge was lost; how many."""
    from aurra_core.level2_jobs import nudge, worker

    found = worker.sweep(get_database())
    nudge.send(found)
    return len(found)


def level2_worker(db: Database) -> Worker:
    """A Level 2 worker thread (`aurra dev`, `aurra worker`) over its own `db`."""
    from aurra_core.level2_jobs.worker import Worker

    return Worker(_write_dependencies(db))


def authenticate(raw_key: str) -> Caller:
    return key_check.authenticate(get_database(), raw_key)


def reset(*, database: bool = True) -> None:
    """Forget every per-process singleton (the environment changed: tests, the local CLI)."""
    from aurra_core.extractors.factory import get_extractor
    from aurra_core.runtime.config import reset_config
    from aurra_core.storage.db import reset_database

    reset_config()
    get_embedder.cache_clear()
    get_flag_source.cache_clear()
    if get_classifier.cache_info().currsize:
        close = getattr(get_classifier(), "close", None)  # its worker processes, if any
        if close is not None:
            close()
    get_classifier.cache_clear()
    get_extractor.cache_clear()
    key_check.forget()
    from aurra_core.level2_jobs import nudge

    nudge.forget()
    if database:
        reset_database()
