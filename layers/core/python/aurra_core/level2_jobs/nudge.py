"""What wakes a Level 2 worker once a write with jobs has committed: the queue (AWS, the
setting `level2_queue_url`) and the threads of this process that listen (`aurra dev`). A nudge
is only a hint: the job row committed with the write, and a lost nudge delays its decision
until the sweeper finds it, never more."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

from aurra_core.models import Level2JobMessage
from aurra_core.runtime.config import get_config
from aurra_core.runtime.listeners import Listeners
from aurra_core.runtime.observability import logger
from aurra_core.storage.level2_jobs import JobRef

Listener = Callable[[list[JobRef]], None]
_listeners: Listeners[Listener] = Listeners()
# SQS takes at most 10 messages a batch.
_SQS_BATCH = 10


listen = _listeners.add
unlisten = _listeners.remove


def message_body(ref: JobRef) -> str:
    return Level2JobMessage(job_id=ref.job_id, tenant_id=ref.tenant_id).model_dump_json()


@lru_cache(maxsize=1)
def _sqs() -> Any:
    import boto3  # only a write with jobs, in AWS, loads it

    return boto3.client("sqs")


def send(refs: list[JobRef]) -> None:
    """Nudge the workers about `refs`. Never raises: a nudge that fails is the sweeper's."""
    if not refs:
        return
    listeners = _listeners.current()
    for listener in listeners:
        listener(refs)
    queue_url = get_config().level2_queue_url
    if not queue_url:
        return
    try:
        for start in range(0, len(refs), _SQS_BATCH):
            batch = refs[start : start + _SQS_BATCH]
            answer = _sqs().send_message_batch(
                QueueUrl=queue_url,
                Entries=[{"Id": str(i), "MessageBody": message_body(r)} for i, r in enumerate(batch)],
            )
            if answer.get("Failed"):
                logger.warning(
                    "level 2 nudges not sent; the sweeper will find them",
                    extra={"failed": len(answer["Failed"])},
                )
    except Exception as exc:  # noqa: BLE001 - the write has committed; its jobs are the sweeper's now
        logger.warning(
            "level 2 nudge failed; the sweeper will find the jobs", extra={"error": type(exc).__name__}
        )


def forget() -> None:
    """Drop the cached queue client (tests, a changed environment)."""
    _sqs.cache_clear()
