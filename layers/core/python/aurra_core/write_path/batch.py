"""POST /agent/memories/batch: up to 100 facts, stored as one transaction (all or none).

Every fact goes through the same pipeline as a content write (pipeline.prepare, then
pipeline.store_facts), but every step of every fact runs on the batch's one connection, inside
the batch's one transaction: a fact's candidate search sees the facts of the batch stored
before it, so a backfilled history ("uses Vim" in 2021, "uses Emacs" in 2023) supersedes
itself as it happened. Facts are taken in `valid_from` order (a fact without one is valid from
now, so after every dated fact; ties in the request's order); the results come back in the
request's order.

What that costs, and why it is still one transaction:

- With Level 2 off or not asked for, no fact reads another: the batch is its inserts, a few
  milliseconds, and the tenant's write lock (store.py: the shared advisory lock every writer
  holds until it commits) is held that long.
- With Level 2 on, each fact's classifier call is made inside the transaction, so the lock is
  held through the model calls. Writers are not held up (the lock is shared), but a read that
  pins "now" for a first page (`believed_now`, the exclusive lock) waits for the batch to
  commit. The batch answers by its deadline as a messages write does (the same form:
  AURRA_MESSAGES_WRITE_DEADLINE_S from its start, `answer_by`): a call starts only while it
  can end by then (`classification_limit_s` before it) and is abandoned there whatever it
  does; later facts are stored unclassified (`skipped_reason: "classifier_error"`), never lost.
- The batch's model calls are taken from the key's budget before its transaction, one for each
  fact the gates let Level 2 classify, and what it did not use is given back after it
  (metering/budget.py): taken inside it, each call would hold the key's counter row until the
  batch commits, and every other Level 2 write of the key would wait for the whole batch.
- A fact superseded by a later fact of the same batch has two versions recorded in the same
  transaction: the one believed from its insert until the later fact's, which no reader could
  ever see (it never committed on its own), and the superseded one.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from uuid import UUID

import psycopg

from aurra_core import metering
from aurra_core.access import keys
from aurra_core.classifiers.factory import classification_limit_s
from aurra_core.embedders import Precomputed
from aurra_core.errors import ValidationFailed
from aurra_core.models import (
    BatchFact,
    BatchWriteRequest,
    BatchWriteResult,
    Caller,
    SkippedReason,
    WriteResult,
)
from aurra_core.runtime.config import get_config
from aurra_core.runtime.observability import logger
from aurra_core.storage import idempotency_claim, store
from aurra_core.storage.db import Database, one_row
from aurra_core.write_path import pipeline
from aurra_core.write_path.gating import decides_later, gate, gate_before_settings


class _OneTransaction(Database):
    """A Database whose every transaction is the batch's: the pipeline's steps, written for a
    transaction each, run as statements of the one the batch holds open."""

    def __init__(self, conn: psycopg.Connection) -> None:  # no pool: the connection is lent
        self._conn = conn

    @contextmanager
    def tenant_transaction(
        self, tenant_id: UUID | None, *, flush_on_commit: bool = True
    ) -> Iterator[psycopg.Connection]:
        yield self._conn

    @contextmanager
    def tenant_writer_transaction(
        self, tenant_id: UUID, lock_key: int
    ) -> Iterator[tuple[psycopg.Connection, datetime]]:
        # The lock is the batch's already; the clock is read afresh, as a transaction's would be.
        now: datetime = one_row(self._conn.execute("SELECT clock_timestamp()").fetchone())[0]
        yield self._conn, now

    @contextmanager
    def tenant_row_writer_transaction(self, tenant_id: UUID, lock_key: int) -> Iterator[psycopg.Connection]:
        yield self._conn  # the lock is the batch's already; the clock comes with the row locks


def _fact(item: BatchFact) -> pipeline.Fact:
    return pipeline.Fact(
        item.content,
        item.topic,
        item.valid_from,
        item.metadata,
        item.scope,
        source=pipeline.source_record(item.source),
        valid_to=item.valid_to,
    )


def check_expiries(facts: list[BatchFact]) -> None:
    """Each fact's expiry after its valid time (by default now), before anything is done: a
    422 naming the fact (`facts[i].valid_to`)."""
    for index, item in enumerate(facts):
        try:
            pipeline.check_expiry(item.valid_from, item.valid_to)
        except ValidationFailed as exc:
            raise ValidationFailed(
                str(exc), [{**d, "field": f"facts[{index}].{d['field']}"} for d in exc.details]
            ) from None


def application_order(facts: list[BatchFact]) -> list[int]:
    """The facts' indexes in the order they are applied: by `valid_from` (none: now, so after
    every dated fact), ties in the request's order."""
    return sorted(
        range(len(facts)),
        key=lambda i: (facts[i].valid_from is None, facts[i].valid_from or datetime.min, i),
    )


def write_batch(
    caller: Caller, request: BatchWriteRequest, deps: pipeline.WriteDependencies
) -> BatchWriteResult:
    config = get_config()
    answer_by = time.monotonic() + config.messages_write_deadline_s
    classify_until = answer_by - classification_limit_s(config)
    check_expiries(request.facts)
    level2_enabled = deps.flags.level2_enabled()
    # With Level 2 off or not asked for, no fact reads another: each is embedded and they are
    # stored together (their inserts sent at once, no clock read between them).
    independent = gate_before_settings(level2_enabled=level2_enabled, requested=request.auto_supersede)
    prepaid = None if independent is not None else _take_calls(caller, request, deps.db, level2_enabled)
    try:
        return _write(caller, request, deps, prepaid, level2_enabled, independent, classify_until, answer_by)
    finally:
        if prepaid is not None:
            _return_calls(caller, prepaid, deps.db)


def _take_calls(
    caller: Caller, request: BatchWriteRequest, db: Database, level2_enabled: bool
) -> metering.PrepaidCalls:
    """The batch's model calls, taken from the key's budget in a transaction of their own:
    one for each fact the gates let Level 2 classify now (metering/budget.py)."""
    with db.tenant_transaction(caller.tenant_id, flush_on_commit=False) as conn:
        settings = keys.get_key_settings(conn, caller)
        wanted = sum(
            gate(
                level2_enabled=level2_enabled,
                requested=request.auto_supersede,
                key_settings=settings,
                topic=f.topic,
                content=f.content,
            )
            is None
            and not decides_later(request.auto_supersede, settings)
            for f in request.facts
        )
        return metering.reserve_model_calls(
            conn,
            caller,
            wanted,
            settings.daily_model_calls_limit,
            settings.daily_model_cost_limit_usd,
            pipeline.classification_hold(settings),
        )


def _return_calls(caller: Caller, prepaid: metering.PrepaidCalls, db: Database) -> None:
    """What the batch did not use back to the budget, and the settlements of what it did."""
    try:
        with db.tenant_transaction(caller.tenant_id) as conn:
            metering.return_model_calls(conn, caller, prepaid)
    except Exception:  # noqa: BLE001 - the batch's answer stands; the budget keeps the calls
        logger.warning("a batch's unused model calls were not given back", exc_info=True)


def _write(
    caller: Caller,
    request: BatchWriteRequest,
    deps: pipeline.WriteDependencies,
    prepaid: metering.PrepaidCalls | None,
    level2_enabled: bool,
    independent: SkippedReason | None,
    classify_until: float,
    answer_by: float,
) -> BatchWriteResult:
    order = application_order(request.facts)
    results: list[WriteResult | None] = [None] * len(request.facts)
    with store.write_transaction(deps.db, caller.tenant_id) as (conn, _):
        # The batch's transaction has bound its Idempotency-Key record (idempotency_claim);
        # the pipeline's steps below run in that transaction and must not bind it again.
        claimed = idempotency_claim.current()
        idempotency_claim.clear()
        try:
            bound = _OneTransaction(conn)
            in_batch = pipeline.WriteDependencies(
                db=bound,
                # The batch's facts embedded together where the embedder can (a sentence model
                # in one padded batch), then each fact's vector read from them.
                embedder=Precomputed(deps.embedder, [item.content for item in request.facts]),
                classifier_factory=deps.classifier_factory,
                flags=deps.flags,
                extractor_factory=deps.extractor_factory,
                prepaid=prepaid,
            )
            if independent is not None:
                prepared = [
                    pipeline.prepare(
                        caller,
                        _fact(request.facts[i]),
                        request.auto_supersede,
                        None,
                        in_batch,
                        level2_enabled,
                    )
                    for i in order
                ]
                for i, outcome in zip(order, pipeline.store_facts(caller, prepared, bound), strict=True):
                    results[i] = outcome.result
            else:
                key_settings = keys.get_key_settings(conn, caller)
                for i in order:
                    one = pipeline.prepare(
                        caller,
                        _fact(request.facts[i]),
                        request.auto_supersede,
                        key_settings,
                        in_batch,
                        level2_enabled,
                        classify_until,
                        answer_by,
                    )
                    (outcome,) = pipeline.store_facts(caller, [one], bound)
                    results[i] = outcome.result
        finally:
            if claimed is not None:
                idempotency_claim.claim(*claimed)
    return BatchWriteResult(results=[r for r in results if r is not None])
