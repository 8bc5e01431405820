"""Nothing is committed that the service cannot read back and serialise: the largest values
validation allows round-trip through every read, and a row that could not make a response is
refused inside its transaction."""

from datetime import UTC, datetime

import numpy as np
import pytest
from pipeline_support import ScriptedClassifier, deps

from aurra_core.models import MemoryListQuery, PointInTime, WriteRequest
from aurra_core.request_json import MAX_METADATA_DEPTH
from aurra_core.storage import queries, store
from aurra_core.storage.ids import new_id
from aurra_core.write_path.pipeline import write_memory


def nested(levels: int) -> dict:
    value: object = [2**63 - 1, -(2**63 - 1), 123.456, 5e-324, "\u2603"]
    for level in range(levels - 2):
        value = [value] if level % 2 == 0 else {"k": value}
    return {"k": value}


def test_the_largest_allowed_values_read_back_through_every_read(db, new_key):
    caller, _ = new_key()
    dependencies = deps(ScriptedClassifier(), level2=False)
    embedder = dependencies.embedder
    request = WriteRequest(
        content="the most deeply nested fact allowed",
        metadata=nested(MAX_METADATA_DEPTH),
        valid_from="0001-01-01T00:00:00Z",
    )
    written = write_memory(caller, request, dependencies).result.memory
    assert written.metadata == nested(MAX_METADATA_DEPTH)
    for page in (
        queries.read_memory_page(caller, MemoryListQuery(), db, embedder),
        queries.read_memory_page(caller, MemoryListQuery(q="deeply nested fact"), db, embedder),
        queries.read_memory_page(caller, MemoryListQuery(include_superseded=True), db, embedder),
    ):
        assert page.memories[0].metadata == written.metadata
        page.model_dump_json()
    queries.read_memory(caller, written.id, PointInTime(), db).model_dump_json()
    queries.read_memory_history(caller, written.id, PointInTime(), db).model_dump_json()
    # jsonb keeps numbers as decimals: the largest double comes back as the integer it is.
    huge = write_memory(
        caller, WriteRequest(content="huge", metadata={"x": 1.7976931348623157e308}), dependencies
    )
    assert float(huge.result.memory.metadata["x"]) == 1.7976931348623157e308


def test_a_row_that_cannot_make_a_response_is_not_committed(db, new_key):
    caller, _ = new_key()
    memory_id = new_id()
    too_deep: object = 1
    for _ in range(300):
        too_deep = [too_deep]
    with pytest.raises(ValueError, match=r"recursion|depth"), db.tenant_transaction(caller.tenant_id) as conn:
        store.insert_version(
            conn,
            memory_id=memory_id,
            tenant_id=caller.tenant_id,
            content="bypassing validation",
            topic="general",
            metadata={"k": too_deep},
            embedding=np.zeros(384, dtype=np.float32),
            valid_from=datetime.now(UTC),
            valid_to=None,
            superseded_by=None,
            supersedes=None,
            recorded_at=datetime.now(UTC),
        )
    with db.tenant_transaction(caller.tenant_id) as conn:
        assert store.select_memory(conn, caller.tenant_id, memory_id) is None
