"""The composition root: each handler makes one call here, and this wires the real parts."""

from __future__ import annotations

from uuid import UUID

from aurra_core import keys, queries, supersession, write_pipeline
from aurra_core.classifiers.factory import get_classifier
from aurra_core.db import get_database
from aurra_core.embeddings import get_embedder
from aurra_core.flags import get_flag_source
from aurra_core.models import (
    AuditEvent,
    AuditPage,
    Caller,
    History,
    KeySettings,
    Memory,
    MemoryPage,
    SettingsPatch,
    SupersedeRequest,
    SupersedeResult,
    WriteRequest,
)


def write(caller: Caller, request: WriteRequest) -> write_pipeline.WriteOutcome:
    deps = write_pipeline.WriteDependencies(
        db=get_database(), embedder=get_embedder(), classifier_factory=get_classifier, flags=get_flag_source()
    )
    return write_pipeline.write_memory(caller, request, deps)


def list_memories(caller: Caller, query: queries.MemoryListQuery) -> MemoryPage:
    return queries.list_memories(caller, query, get_database(), get_embedder())


def get_memory(caller: Caller, memory_id: UUID, when: queries.PointInTime) -> Memory:
    return queries.get_memory(caller, memory_id, when, get_database())


def memory_history(caller: Caller, memory_id: UUID, when: queries.PointInTime) -> History:
    return queries.memory_history(caller, memory_id, when, get_database())


def supersede(caller: Caller, memory_id: UUID, request: SupersedeRequest) -> SupersedeResult:
    return supersession.supersede(caller, memory_id, request, get_database(), get_embedder())


def get_settings(caller: Caller) -> KeySettings:
    with get_database().transaction() as conn:
        return keys.get_key_settings(conn, caller)


def update_settings(caller: Caller, patch: SettingsPatch) -> KeySettings:
    with get_database().transaction() as conn:
        return keys.update_key_settings(conn, caller, patch)


def list_audit_events(caller: Caller, query: queries.AuditListQuery) -> AuditPage:
    return queries.list_audit_events(caller, query, get_database())


def get_audit_event(caller: Caller, event_id: UUID) -> AuditEvent:
    return queries.get_audit_event(caller, event_id, get_database())


def authenticate(raw_key: str) -> Caller:
    with get_database().transaction() as conn:
        return keys.authenticate(conn, raw_key)


def reset(*, database: bool = True) -> None:
    """Forget every per-process singleton (the environment changed: tests, the local CLI)."""
    from aurra_core.config import reset_settings
    from aurra_core.db import reset_database

    reset_settings()
    get_embedder.cache_clear()
    get_flag_source.cache_clear()
    get_classifier.cache_clear()
    if database:
        reset_database()
