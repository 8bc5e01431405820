"""A large import's index deferred to its end (POST /agent/imports, POST and GET
/agent/imports/index) on a real PostgreSQL: an announced import keeps the tenant's new rows out
of the shared index, its searches find the same memories before and after its own index is
built, and nothing of it reaches another tenant. Each test has a database of its own, so the
listing's limit counts its tenants alone."""

from __future__ import annotations

import psycopg
import pytest
from pipeline_support import ScriptedClassifier, contradicts_when, deps

from aurra_core.access import keys
from aurra_core.embedders import LexicalEmbedder
from aurra_core.models import (
    BatchFact,
    BatchWriteRequest,
    ErasureRequest,
    ImportAnnouncement,
    MemoryListQuery,
)
from aurra_core.runtime.config import get_config
from aurra_core.storage import index_build_requests, queries, store, tenant_indexes
from aurra_core.storage.db import get_database
from aurra_core.write_path import import_indexing
from aurra_core.write_path.batch import write_batch

pytestmark = pytest.mark.integration

# Past the threshold at which a scope is searched through an HNSW index at all.
LARGE = store.HNSW_MIN_TENANT_MEMORIES + 100


def _key(name: str):
    with get_database().transaction() as conn:
        return keys.create_key(conn, name)[0]


def _write(caller, contents: list[str], user_id: str = "u1") -> None:
    dependencies = deps(ScriptedClassifier(), level2=False)
    for start in range(0, len(contents), 100):
        facts = [BatchFact(content=c, user_id=user_id) for c in contents[start : start + 100]]
        write_batch(caller, BatchWriteRequest(facts=facts, auto_supersede=False), dependencies)


def _membership(url: str, caller) -> dict[bool, int]:
    with psycopg.connect(url) as conn:
        return dict(
            conn.execute(
                "SELECT in_shared_index, count(*) FROM memory_versions WHERE tenant_id = %s GROUP BY 1",
                (caller.tenant_id,),
            ).fetchall()
        )


def _search(caller, q: str, user_id: str = "u1") -> list[str]:
    store.forget_strategies()
    page = queries.read_memory_page(
        caller, MemoryListQuery(q=q, user_id=user_id, limit=3), get_database(), LexicalEmbedder(384)
    )
    return [m.content for m in page.memories]


def _facts(n: int) -> list[str]:
    return [f"User's project {i} uses the library number {i * 7919 % 10007}" for i in range(n)]


def test_an_announced_import_enters_no_graph_and_is_searched_the_same_before_and_after_its_build(
    own_database, configure
):
    configure(AURRA_DATABASE_URL=own_database)
    db = get_database()
    importer, neighbour = _key("importer"), _key("neighbour")
    answer = import_indexing.announce(importer, ImportAnnouncement(facts=LARGE), db)
    assert answer.indexing == "deferred"
    assert import_indexing.state(neighbour, db).indexing == "shared"

    _write(importer, _facts(LARGE))
    _write(neighbour, ["User's project 7 uses the library number 42"])
    assert _membership(own_database, importer) == {False: LARGE}
    assert _membership(own_database, neighbour) == {True: 1}
    with db.tenant_transaction(importer.tenant_id) as conn:
        assert tenant_indexes.route(conn, importer.tenant_id) == "exact"

    before = _search(importer, "project 1234 library")
    assert before[0] == _facts(LARGE)[1234]

    requested: list[int] = []

    def asked() -> None:
        requested.append(1)

    index_build_requests.listen(asked)
    try:
        status, built = import_indexing.build(importer, db)
        assert (status, built.indexing, requested) == (202, "deferred", [1])
        # What the request starts (the maintenance job, as the table's owner).
        report = tenant_indexes.maintain(own_database, calibration_samples=0)
        assert [b["tenant_id"] for b in report.built] == [str(importer.tenant_id)]
        assert import_indexing.state(importer, db).indexing == "own"
        assert import_indexing.build(importer, db)[0] == 200
        assert requested == [1]  # nothing left to build: no second request
    finally:
        index_build_requests.unlisten(asked)
    with db.tenant_transaction(importer.tenant_id) as conn:
        assert tenant_indexes.route(conn, importer.tenant_id) == "own"
    assert _search(importer, "project 1234 library") == before
    # Built with the shared index's graph, then replaced by the next run with the settings'.
    assert report.built[0]["import_build"] == tenant_indexes.parameters_comment(16, 64)
    with psycopg.connect(own_database) as conn:
        assert tenant_indexes.build_parameters(conn, importer.tenant_id) == tenant_indexes.parameters_comment(
            16, 64
        )
    replaced = tenant_indexes.maintain(own_database, calibration_samples=0)
    assert [(b["tenant_id"], "import_build" in b) for b in replaced.built] == [
        (str(importer.tenant_id), False)
    ]
    config = get_config()
    with psycopg.connect(own_database) as conn:
        assert tenant_indexes.build_parameters(conn, importer.tenant_id) == tenant_indexes.parameters_comment(
            config.tenant_index_m, config.tenant_index_ef_construction
        )
    assert import_indexing.state(importer, db).indexing == "own"
    assert _search(importer, "project 1234 library") == before
    # The neighbour's search never sees the import's rows, nor the import the neighbour's.
    assert _search(neighbour, "project 7 library") == ["User's project 7 uses the library number 42"]
    assert "User's project 7 uses the library number 42" not in _search(importer, "project 7 library")


def test_an_import_stays_in_the_shared_index_when_deferring_does_not_pay(own_database, configure):
    configure(AURRA_DATABASE_URL=own_database, AURRA_TENANT_INDEX_LIMIT="1")
    db = get_database()
    small, level2, first, second = (_key(name) for name in ("small", "level2", "first", "second"))
    small_answer = import_indexing.announce(small, ImportAnnouncement(facts=10), db)
    assert (small_answer.indexing, "read exactly" in small_answer.reason) == ("shared", True)
    with_level2 = import_indexing.announce(level2, ImportAnnouncement(facts=LARGE, auto_supersede=True), db)
    assert with_level2.indexing == "shared"
    assert import_indexing.announce(first, ImportAnnouncement(facts=LARGE), db).indexing == "deferred"
    # The limit of own indexes is reached: the next tenant's import goes to the shared index.
    full = import_indexing.announce(second, ImportAnnouncement(facts=LARGE), db)
    assert (full.indexing, full.reason) == ("shared", "no more tenants can have an index of their own")
    # Announcing again changes nothing; building has nothing to do for a tenant in the shared index.
    assert import_indexing.announce(first, ImportAnnouncement(facts=LARGE), db).indexing == "deferred"
    assert import_indexing.build(second, db)[0] == 200
    _write(second, ["User likes tea"])
    assert _membership(own_database, second) == {True: 1}


def test_an_import_with_level2_is_deferred_only_when_no_scope_will_pass_the_threshold(
    own_database, configure
):
    configure(AURRA_DATABASE_URL=own_database)
    db = get_database()
    unsaid, large, grown, fresh = (_key(name) for name in ("unsaid", "large", "grown", "fresh"))
    threshold = store.HNSW_MIN_TENANT_MEMORIES
    answer = import_indexing.announce(unsaid, ImportAnnouncement(facts=LARGE, auto_supersede=True), db)
    assert (answer.indexing, "did not say its largest scope" in answer.reason) == ("shared", True)
    answer = import_indexing.announce(
        large, ImportAnnouncement(facts=LARGE, auto_supersede=True, largest_scope=threshold + 1), db
    )
    assert (answer.indexing, "past 2,000 memories" in answer.reason) == ("shared", True)
    # A scope already holding 30 counts with what the import adds to it (whichever scope that is).
    _write(grown, _facts(30))
    over = ImportAnnouncement(facts=LARGE, auto_supersede=True, largest_scope=threshold - 29)
    assert import_indexing.announce(grown, over, db).indexing == "shared"
    # Another tenant's scope of 30 does not count for this one.
    at_most = ImportAnnouncement(facts=LARGE, auto_supersede=True, largest_scope=threshold - 20)
    assert import_indexing.announce(fresh, at_most, db).indexing == "deferred"
    within = ImportAnnouncement(facts=LARGE, auto_supersede=True, largest_scope=threshold - 30)
    assert import_indexing.announce(grown, within, db).indexing == "deferred"

    # Level 2 acts as it did: a scope under the threshold is read exactly whatever the index.
    old = "User's project 3 uses the library number 5"
    new = "User's project 3 now uses the library number 8"
    facts = [BatchFact(content=old, user_id="u9"), BatchFact(content=new, user_id="u9")]
    written = write_batch(
        grown,
        BatchWriteRequest(facts=facts, auto_supersede=True),
        deps(ScriptedClassifier(contradicts_when(old))),
    )
    moved = written.results[1].auto_supersede.supersession
    assert moved is not None and moved.superseded_id == written.results[0].memory.id
    # The 30 written before the announcement are in the shared index; what came after is not:
    # the two written, and the old one's closed version.
    assert _membership(own_database, grown) == {True: 30, False: 3}


def test_an_abandoned_import_goes_back_to_the_shared_index_and_an_erasure_meanwhile_is_complete(
    own_database, configure
):
    configure(AURRA_DATABASE_URL=own_database)
    db = get_database()
    caller = _key("abandoned")
    assert import_indexing.announce(caller, ImportAnnouncement(facts=LARGE), db).indexing == "deferred"
    _write(caller, _facts(30))
    _write(caller, ["User's secret hobby is falconry"], user_id="u2")
    assert _search(caller, "falconry hobby", user_id="u2") == ["User's secret hobby is falconry"]
    from aurra_core import service

    service.create_erasure(caller, ErasureRequest(user_id="u2"))
    assert _search(caller, "falconry hobby", user_id="u2") == []
    # The import stopped at 31 facts: the job moves the tenant back instead of building.
    report = tenant_indexes.maintain(own_database, calibration_samples=0)
    assert report.built == []
    assert [d["tenant_id"] for d in report.dropped] == [str(caller.tenant_id)]
    assert import_indexing.state(caller, db).indexing == "shared"
    assert _membership(own_database, caller) == {True: 30}
    with psycopg.connect(own_database) as conn:
        assert conn.execute(
            "SELECT count(*) FROM memory_versions WHERE content LIKE '%%falconry%%'"
        ).fetchone() == (0,)


def test_the_service_role_lists_its_own_tenant_only(own_database, configure):
    configure(AURRA_DATABASE_URL=own_database)
    db = get_database()
    mine, other = _key("mine"), _key("other")
    with db.tenant_transaction(mine.tenant_id) as conn:
        assert tenant_indexes.defer_shared_index(conn, 10)
    # The listing is the owner's table: the service role cannot write it directly.
    with db.tenant_transaction(mine.tenant_id) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute("INSERT INTO tenant_own_indexes (tenant_id) VALUES (%s)", (other.tenant_id,))
    with db.tenant_transaction(None) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        tenant_indexes.defer_shared_index(conn, 10)
    assert import_indexing.state(mine, db).indexing == "deferred"
    assert import_indexing.state(other, db).indexing == "shared"
