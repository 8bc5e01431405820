"""What asks for the tenants' own HNSW indexes to be built now rather than at the maintenance
job's next scheduled run (POST /agent/imports/index, after a large import): in AWS an
asynchronous invoke of the maintenance function (the setting `maintenance_function_name`), under
`aurra dev` the listeners of this process (a thread that runs the job). A request is only a
hint: the scheduled run builds whatever a lost one asked for, and the job takes one run at a
time (an advisory lock), so a request while one runs is a run that finds nothing to do."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from aurra_core.runtime.config import get_config
from aurra_core.runtime.listeners import Listeners
from aurra_core.runtime.observability import logger

# The maintenance function's event for a run of the index builds alone (functions/maintenance).
TENANT_INDEXES_EVENT = {"aurra": "tenant_indexes"}

Listener = Callable[[], None]
_listeners: Listeners[Listener] = Listeners()


listen = _listeners.add
unlisten = _listeners.remove


@lru_cache(maxsize=1)
def _lambda() -> Any:
    import boto3  # only a request for a build, in AWS, loads it

    return boto3.client("lambda")


def request() -> bool:
    """Ask for a run of the index builds. Never raises; False when no run could be asked for
    (then the scheduled run builds the index)."""
    listeners = _listeners.current()
    for listener in listeners:
        listener()
    function_name = get_config().maintenance_function_name
    if not function_name:
        return bool(listeners)
    try:
        _lambda().invoke(
            FunctionName=function_name,
            InvocationType="Event",
            Payload=json.dumps(TENANT_INDEXES_EVENT).encode(),
        )
    except Exception as exc:  # noqa: BLE001 - the scheduled run builds it
        logger.warning(
            "index build not requested; the scheduled run will build it", extra={"error": type(exc).__name__}
        )
        return False
    return True


def forget() -> None:
    """Drop the cached Lambda client (tests, a changed environment)."""
    _lambda.cache_clear()
