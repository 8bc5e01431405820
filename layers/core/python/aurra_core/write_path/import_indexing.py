"""How a large import's rows are indexed (POST /agent/imports, POST and GET /agent/imports/index).

Each row written to the shared HNSW index walks the graph to find its neighbours: most of an
insert's cost, and what bounds an import's pace (bench/notes/portability.md). A tenant whose
import takes it past `HNSW_MIN_TENANT_MEMORIES` current memories gets its own index from the
maintenance job anyway (storage/tenant_indexes.py), so an announced import lists it at once:
its rows enter no graph while they arrive, and its own index is built once over all of them
when the import asks (POST /agent/imports/index) or at the job's next run. Meanwhile the
tenant's candidate search and searches read its rows exactly: the same answers, slower.

Level 2's candidate search reads a scope of at most `HNSW_MIN_TENANT_MEMORIES` current memories
exactly whatever the index (`store._vector_strategy`), and a larger one through an index: so an
import with Level 2 is deferred only when it says its largest scope (`largest_scope`) and that,
added to the tenant's largest today, stays at or under the threshold. Not for an import that
leaves the tenant small either (the job would move it back), nor once `tenant_index_limit`
tenants are listed."""

from __future__ import annotations

import psycopg

from aurra_core.errors import NotFound
from aurra_core.models import Caller, ImportAnnouncement, ImportIndexing, IndexingState
from aurra_core.runtime.config import get_config
from aurra_core.storage import index_build_requests, tenant_indexes
from aurra_core.storage.db import Database
from aurra_core.storage.store import HNSW_MIN_TENANT_MEMORIES, count_current, largest_current_scope

_REASONS = {
    "own": "the tenant's own index takes its new memories as they are written",
    "building": "the tenant's own index is being built; until it is, searches read its memories exactly",
    "deferred": "new memories enter no index until the tenant's own is built; until then searches read "
    "them exactly",
    "shared": "new memories enter the shared index as they are written",
}


def _indexing_state(conn: psycopg.Connection, caller: Caller) -> IndexingState:
    """The tenant's indexing state, once its key is known to exist (the tenant's listing has
    the tenant as its key: a caller whose key is gone lists nothing)."""
    if conn.execute("SELECT 1 FROM api_keys WHERE id = %s", (caller.api_key_id,)).fetchone() is None:
        raise NotFound("API key not found")
    return tenant_indexes.indexing_state(conn, caller.tenant_id)


def _answer(state: IndexingState, reason: str | None = None) -> ImportIndexing:
    return ImportIndexing(indexing=state, reason=reason or _REASONS[state])


def _index_level2_needs(conn: psycopg.Connection, caller: Caller, request: ImportAnnouncement) -> str | None:
    """Why an import with Level 2 keeps its rows in the shared index; None when no scope of it
    will be searched through an index."""
    if request.largest_scope is None:
        return (
            "an import with Level 2 searches the tenant's memories as it writes, and did not say its "
            "largest scope: they stay indexed"
        )
    if largest_current_scope(conn, caller.tenant_id) + request.largest_scope > HNSW_MIN_TENANT_MEMORIES:
        return (
            f"an import with Level 2 takes a scope past {HNSW_MIN_TENANT_MEMORIES:,} memories, which its "
            "candidate search reads through an index: they stay indexed"
        )
    return None


def announce(caller: Caller, request: ImportAnnouncement, db: Database) -> ImportIndexing:
    """An import of `request.facts` facts is about to start: defer the index when it pays."""
    limit = get_config().tenant_index_limit
    with db.tenant_transaction(caller.tenant_id) as conn:
        state = _indexing_state(conn, caller)
        if state != "shared":
            return _answer(state)
        current = count_current(conn, caller.tenant_id, at_most=HNSW_MIN_TENANT_MEMORIES + 1)
        if current + request.facts <= HNSW_MIN_TENANT_MEMORIES:
            return _answer(
                "shared",
                f"the tenant stays under {HNSW_MIN_TENANT_MEMORIES} memories, which are read exactly",
            )
        # after the bounded count: the scopes' sizes are read only for an import that could defer
        if request.auto_supersede:
            needed = _index_level2_needs(conn, caller, request)
            if needed is not None:
                return _answer("shared", needed)
        if not tenant_indexes.defer_shared_index(conn, limit):
            return _answer("shared", "no more tenants can have an index of their own")
    return _answer("deferred")


def build(caller: Caller, db: Database) -> tuple[int, ImportIndexing]:
    """Ask for the tenant's own index now: 202 while it is to be built, 200 when there is
    nothing to build (already built, or the tenant is in the shared index)."""
    with db.tenant_transaction(caller.tenant_id) as conn:
        state = _indexing_state(conn, caller)
    if state == "own" or state == "shared":
        return 200, _answer(state)
    if state == "building":
        return 202, _answer(state)
    if not index_build_requests.request():
        return 202, _answer(
            state, "the build could not be asked for now; the maintenance job's next run builds it"
        )
    return 202, _answer(
        state, "the tenant's own index is to be built now; until it is, searches read its memories exactly"
    )


def state(caller: Caller, db: Database) -> ImportIndexing:
    with db.tenant_transaction(caller.tenant_id) as conn:
        return _answer(_indexing_state(conn, caller))
