"""Large tenants' own HNSW indexes (aurra_core.storage.tenant_indexes) on a real PostgreSQL: which
tenants get one, that runs converge, that an interrupted build is repaired, that a tenant
with its own index leaves the shared one (and comes back), and that the candidate search
uses the index that holds the tenant's rows, returns what an exact scan does and stays in
the tenant. Each test has a database of its own: the sizes and shares it sets up are the store's."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import ClassVar

import numpy as np
import psycopg
import pytest
from pgvector import Vector
from pgvector.psycopg import register_vector
from psycopg import sql
from psycopg.conninfo import make_conninfo

from aurra_core.storage import store, tenant_indexes
from aurra_core.storage.db import Database
from aurra_core.storage.migrate import apply_migrations
from aurra_core.storage.tenant_indexes import SHARED_INDEX, existing_indexes, index_name, maintain, route

DIM = 32  # small vectors: quick loads and builds; the index logic is the same


@pytest.fixture
def fresh_url(pg_url: str):
    name = f"aurra_tenant_indexes_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = make_conninfo(pg_url, dbname=name)
    apply_migrations(url, DIM)
    yield url
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


def in_shared(conn: psycopg.Connection, tenant: uuid.UUID) -> dict[bool, int]:
    """How many of the tenant's current rows are, and are not, in the shared index."""
    return dict(
        conn.execute(
            """SELECT in_shared_index, count(*) FROM memory_versions
               WHERE tenant_id = %s AND recorded_to IS NULL AND valid_to IS NULL GROUP BY 1""",
            (tenant,),
        ).fetchall()
    )


def load(url: str, sizes: list[int], seed: int = 3) -> list[uuid.UUID]:
    """Tenants of the given sizes, each memory a random unit vector.

    The shared index is built again after the rows are in, as it was defined: the same index
    over the same rows as inserting them one by one into it gives, at a fraction of the time
    (a graph built at once, not walked at each row)."""
    rng = np.random.default_rng(seed)
    now = datetime.now(UTC)
    tenants = [uuid.uuid4() for _ in sizes]
    with psycopg.connect(url) as conn:
        register_vector(conn)
        (shared_index,) = conn.execute("SELECT pg_get_indexdef(to_regclass(%s))", (SHARED_INDEX,)).fetchone()
        conn.execute(sql.SQL("DROP INDEX {}").format(sql.Identifier(SHARED_INDEX)))
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO tenants (id, name) VALUES (%s, %s)", [(t, f"t-{t}") for t in tenants]
            )
            with cur.copy(
                "COPY memory_versions (memory_id, tenant_id, content, topic, embedding, valid_from, "
                "recorded_at) FROM STDIN WITH (FORMAT BINARY)"
            ) as copy:
                copy.set_types(["uuid", "uuid", "text", "text", "vector", "timestamptz", "timestamptz"])
                for tenant, n in zip(tenants, sizes, strict=True):
                    for i in range(n):
                        v = rng.standard_normal(DIM).astype(np.float32)
                        copy.write_row(
                            (uuid.uuid4(), tenant, f"fact {i}", "general", v / np.linalg.norm(v), now, now)
                        )
        conn.execute(shared_index)
    return tenants


def test_the_largest_tenants_over_the_threshold_get_one_up_to_the_limit(fresh_url):
    a, b, c, _small = load(fresh_url, [70, 55, 45, 10])
    report = maintain(fresh_url, min_memories=40, limit=2)
    assert report.ran
    assert [r["tenant_id"] for r in report.built] == [str(a), str(b)]
    assert [r["memories"] for r in report.built] == [70, 55]
    assert report.over_limit == [str(c)]
    with psycopg.connect(fresh_url) as conn:
        assert existing_indexes(conn) == {a: True, b: True}

    again = maintain(fresh_url, min_memories=40, limit=2)
    assert (again.built, again.dropped, again.kept) == ([], [], 2)

    raised = maintain(fresh_url, min_memories=40, limit=3)
    assert [r["tenant_id"] for r in raised.built] == [str(c)]
    lowered = maintain(fresh_url, min_memories=40, limit=1)
    assert sorted(d["tenant_id"] for d in lowered.dropped) == sorted([str(b), str(c)])
    assert {d["reason"] for d in lowered.dropped} == {"over the limit"}
    with psycopg.connect(fresh_url) as conn:
        assert existing_indexes(conn) == {a: True}


def test_a_tenant_holding_the_whole_store_gets_one_and_the_shared_index_none_of_its_rows(fresh_url):
    (whole,) = load(fresh_url, [150])
    report = maintain(fresh_url, min_memories=40)
    assert [(r["tenant_id"], r["memories"], r["moved"]) for r in report.built] == [(str(whole), 150, 150)]
    with psycopg.connect(fresh_url) as conn:
        assert route(conn, whole) == "own"
        assert in_shared(conn, whole) == {False: 150}


def test_an_index_is_kept_until_its_tenant_shrinks_under_half_the_threshold(fresh_url):
    (tenant, _) = load(fresh_url, [50, 60])
    assert str(tenant) in [r["tenant_id"] for r in maintain(fresh_url, min_memories=40).built]

    def close_transaction_time(how_many: int) -> None:
        with psycopg.connect(fresh_url) as conn:
            conn.execute(
                """UPDATE memory_versions SET recorded_to = clock_timestamp() WHERE version_id IN (
                       SELECT version_id FROM memory_versions WHERE tenant_id = %s AND recorded_to IS NULL
                       LIMIT %s)""",
                (tenant, how_many),
            )

    close_transaction_time(25)  # 25 left: under the threshold, over half of it
    assert maintain(fresh_url, min_memories=40).dropped == []
    close_transaction_time(10)  # 15 left
    assert maintain(fresh_url, min_memories=40).dropped == [
        {"tenant_id": str(tenant), "reason": "shrank under the threshold", "moved": 15}
    ]
    with psycopg.connect(fresh_url) as conn:
        assert in_shared(conn, tenant) == {True: 15}  # back in the shared index


def test_an_interrupted_build_is_dropped_and_rebuilt(fresh_url):
    (tenant,) = load(fresh_url, [60])
    with psycopg.connect(fresh_url, autocommit=True) as conn:
        # A concurrent build that fails leaves an invalid index behind, as one cut off would.
        with pytest.raises(psycopg.errors.UniqueViolation):
            conn.execute(
                f'CREATE UNIQUE INDEX CONCURRENTLY "{index_name(tenant)}" ON memory_versions (topic)'
            )
        assert existing_indexes(conn) == {tenant: False}
        assert route(conn, tenant) == "shared"  # not listed, its rows still in the shared index
    report = maintain(fresh_url, min_memories=40)
    assert {"tenant_id": str(tenant), "reason": "invalid (an interrupted build)"} in report.dropped
    assert str(tenant) in [r["tenant_id"] for r in report.built]
    with psycopg.connect(fresh_url) as conn:
        assert existing_indexes(conn)[tenant] is True
        assert route(conn, tenant) == "own"
        method = conn.execute(
            "SELECT am.amname FROM pg_class c JOIN pg_am am ON am.oid = c.relam WHERE c.relname = %s",
            (index_name(tenant),),
        ).fetchone()[0]
    assert method == "hnsw"


def test_one_run_at_a_time(fresh_url):
    load(fresh_url, [60, 60])
    with psycopg.connect(fresh_url, autocommit=True) as holder:
        holder.execute("SELECT pg_advisory_lock(%s)", (tenant_indexes._LOCK,))
        assert maintain(fresh_url, min_memories=40).ran is False
    assert maintain(fresh_url, min_memories=40).ran is True


class RecordingCursor(psycopg.Cursor):
    """Keeps the statements run through it, to plan the service's own query again."""

    statements: ClassVar[list[tuple[object, object]]] = []

    def execute(self, query, params=None, **kwargs):
        RecordingCursor.statements.append((query, params))
        return super().execute(query, params, **kwargs)


def test_the_maintenance_function_builds_them(fresh_url, configure):
    from aurra_local.gateway import LambdaContext
    from aurra_local.lambda_functions import load_handler

    lambda_handler = load_handler("maintenance").lambda_handler

    a, b, _ = load(fresh_url, [2_100, 2_050, 300])
    configure(
        AURRA_DATABASE_URL=fresh_url, AURRA_TENANT_INDEX_LIMIT="1", AURRA_TENANT_INDEX_BUILD_MEMORY_MB="2"
    )
    schedule_tick = {"detail-type": "Scheduled Event", "source": "aws.events", "detail": {}}
    report = lambda_handler(schedule_tick, LambdaContext(function_name="maintenance", aws_request_id="test"))
    assert [r["tenant_id"] for r in report["built"]] == [str(a)]
    assert report["built"][0]["build_memory_mb"] == 2.0  # the configured cap, under the graph's ~11 MB
    assert report["over_limit"] == [str(b)]
    with psycopg.connect(fresh_url) as conn:
        assert existing_indexes(conn) == {a: True}


def test_aurra_tenant_indexes_builds_them_from_the_command_line(fresh_url, tmp_path):
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    a, b, _ = load(fresh_url, [2_100, 2_050, 500])
    env = dict(os.environ, AURRA_DATABASE_URL=fresh_url, AURRA_EMBEDDING_DIM=str(DIM))
    env["PYTHONPATH"] = os.pathsep.join([str(root / "layers" / "core" / "python"), str(root)])
    proc = subprocess.run(
        [sys.executable, "-m", "aurra_local.cli", "tenant-indexes", "--data-dir", str(tmp_path)],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout[proc.stdout.index("{") :])
    assert sorted(r["tenant_id"] for r in report["built"]) == sorted([str(a), str(b)])
    with psycopg.connect(fresh_url) as conn:
        assert existing_indexes(conn) == {a: True, b: True}


def test_a_build_that_would_outlast_the_function_stops_at_the_statement_timeout(fresh_url: str) -> None:
    """CREATE INDEX CONCURRENTLY waits for writes in flight; one held open stands for a build
    too slow to finish. The statement timeout stops it (the run fails, reported), and a later
    run drops the invalid leftover and builds it."""
    big, _, _ = load(fresh_url, [40, 30, 30])  # the only one over the threshold
    with psycopg.connect(fresh_url) as blocker:
        blocker.execute("LOCK TABLE memory_versions IN ROW EXCLUSIVE MODE")  # a writer, not committing
        with pytest.raises(psycopg.errors.QueryCanceled):
            maintain(fresh_url, min_memories=35, statement_timeout_s=1)
    with psycopg.connect(fresh_url, autocommit=True) as conn:
        assert existing_indexes(conn) == {big: False}
    report = maintain(fresh_url, min_memories=35)
    assert [d["tenant_id"] for d in report.dropped] == [str(big)]
    assert [b["tenant_id"] for b in report.built] == [str(big)]


def unit_vectors(count: int, seed: int) -> list[Vector]:
    rng = np.random.default_rng(seed)
    vectors = rng.standard_normal((count, DIM)).astype(np.float32)
    return [Vector(v / np.linalg.norm(v)) for v in vectors]


def candidates(database: Database, tenant: uuid.UUID, q: Vector, strategy: str = "auto") -> tuple[list, str]:
    """The candidate search's top 3 for the tenant, as the service runs it, and the plan of its
    vector query (planned again as it was: a one-off plan, the tenant id a constant)."""
    with database.tenant_transaction(tenant) as conn:
        conn.cursor_factory = RecordingCursor
        RecordingCursor.statements = []
        found = store.find_candidates(
            conn,
            tenant,
            q,
            scope=store.UNSCOPED,
            excluded_topics=[],
            limit=3,
            min_similarity=-1,
            strategy=strategy,
        )
        conn.cursor_factory = psycopg.Cursor
        ((query, params),) = [(s, p) for s, p in RecordingCursor.statements if "ORDER BY" in s]
        plan = "\n".join(r[0] for r in conn.execute("EXPLAIN " + query, params, prepare=False))
    return found, plan


def assert_served_by(database: Database, tenant: uuid.UUID, index: str, queries: list[Vector]) -> None:
    """The candidate search reads the tenant through `index` and finds what an exact scan does,
    in the tenant."""
    for q in queries:
        found, plan = candidates(database, tenant, q)
        exact, _ = candidates(database, tenant, q, strategy="exact")
        assert f"Index Scan using {index}" in plan, plan
        assert [row.memory_id for row, _ in found] == [row.memory_id for row, _ in exact]
        assert {row.tenant_id for row, _ in found} == {tenant}


def write(database: Database, url: str, tenant: uuid.UUID, vector: Vector) -> bool:
    """A memory written through the service's own insert, as the service role; whether it went
    into the shared index."""
    now = datetime.now(UTC)
    with database.tenant_transaction(tenant) as conn:
        row = store.insert_version(
            conn,
            memory_id=uuid.uuid4(),
            tenant_id=tenant,
            content="a new fact",
            topic="general",
            metadata={},
            embedding=vector,
            valid_from=now,
            valid_to=None,
            superseded_by=None,
            supersedes=None,
            recorded_at=now,
        )
    with psycopg.connect(url) as conn:
        return bool(
            conn.execute(
                "SELECT in_shared_index FROM memory_versions WHERE version_id = %s", (row.version_id,)
            ).fetchone()[0]
        )


def test_a_tenant_moves_from_the_shared_index_to_its_own_and_back_and_every_search_stays_right(fresh_url):
    # Large enough that the planner prefers an HNSW scan to sorting the tenant's rows.
    mover, neighbour = load(
        fresh_url, [3 * store.HNSW_MIN_TENANT_MEMORIES, int(2.5 * store.HNSW_MIN_TENANT_MEMORIES)]
    )
    with psycopg.connect(fresh_url, autocommit=True) as conn:
        conn.execute("ANALYZE memory_versions")
    database = Database(fresh_url)
    queries = unit_vectors(4, seed=11)

    def check(tenant: uuid.UUID, expected_route: str, index: str | None) -> None:
        with psycopg.connect(fresh_url) as conn:
            assert route(conn, tenant) == expected_route
        for q in queries:
            found, plan = candidates(database, tenant, q)
            exact, _ = candidates(database, tenant, q, strategy="exact")
            if index is None:
                assert "Index Scan using memory_versions_embedding" not in plan, plan
            else:
                assert f"Index Scan using {index}" in plan, plan
            assert [row.memory_id for row, _ in found] == [row.memory_id for row, _ in exact]
            assert {row.tenant_id for row, _ in found} == {tenant}

    def past(tenant: uuid.UUID, known_at: datetime) -> tuple[list, list]:
        """What a q= search and a listing answered at `known_at` (time travel): exact reads."""
        with database.tenant_transaction(tenant) as conn:
            ranked = store.search_memories(
                conn,
                tenant,
                queries[0],
                "fact",
                known_at=known_at,
                as_of=known_at,
                include_superseded=False,
                topic=None,
            )
            listed = store.select_memories(
                conn,
                tenant,
                known_at=known_at,
                as_of=known_at,
                include_superseded=False,
                topic=None,
                after=None,
                limit=50,
            )
        return [(r.row.version_id, r.fused_score) for r in ranked], [r.version_id for r in listed]

    try:
        check(mover, "shared", SHARED_INDEX)
        check(neighbour, "shared", SHARED_INDEX)
        known_at = datetime.now(UTC)
        before = {tenant: past(tenant, known_at) for tenant in (mover, neighbour)}

        report = maintain(fresh_url, limit=1)  # the larger tenant only
        assert [(r["tenant_id"], r["moved"]) for r in report.built] == [
            (str(mover), 3 * store.HNSW_MIN_TENANT_MEMORIES)
        ]
        with psycopg.connect(fresh_url, autocommit=True) as conn:
            assert in_shared(conn, mover) == {False: 3 * store.HNSW_MIN_TENANT_MEMORIES}
            assert in_shared(conn, neighbour) == {True: int(2.5 * store.HNSW_MIN_TENANT_MEMORIES)}
            conn.execute("ANALYZE memory_versions")
        check(mover, "own", index_name(mover))
        check(neighbour, "shared", SHARED_INDEX)
        # New writes go into the graph that holds their tenant, and nowhere else.
        assert write(database, fresh_url, mover, queries[1]) is False
        assert write(database, fresh_url, neighbour, queries[1]) is True
        # Moving rows between indexes changes no fact: the past reads as it did.
        assert {tenant: past(tenant, known_at) for tenant in (mover, neighbour)} == before

        # A move under way (listed, its index not built yet): read exactly, still right.
        with psycopg.connect(fresh_url, autocommit=True) as conn:
            conn.execute(f'DROP INDEX "{index_name(mover)}"')
        check(mover, "exact", None)
        rebuilt = maintain(fresh_url, limit=1)
        assert [(r["tenant_id"], r["moved"]) for r in rebuilt.built] == [(str(mover), 0)]
        check(mover, "own", index_name(mover))

        # Back: its index dropped, its rows (the new one too) in the shared index again.
        out = maintain(fresh_url, limit=0)
        assert out.dropped == [
            {
                "tenant_id": str(mover),
                "reason": "over the limit",
                "moved": 3 * store.HNSW_MIN_TENANT_MEMORIES + 1,
            }
        ]
        with psycopg.connect(fresh_url, autocommit=True) as conn:
            assert in_shared(conn, mover) == {True: 3 * store.HNSW_MIN_TENANT_MEMORIES + 1}
            assert existing_indexes(conn) == {}
            assert conn.execute("SELECT count(*) FROM tenant_own_indexes").fetchone()[0] == 0
            conn.execute("ANALYZE memory_versions")
        check(mover, "shared", SHARED_INDEX)
        assert write(database, fresh_url, mover, queries[2]) is True
        assert {tenant: past(tenant, known_at) for tenant in (mover, neighbour)} == before
    finally:
        database.close()


def test_the_list_of_moved_tenants_is_each_tenants_own_and_the_services_to_read_only(fresh_url):
    listed, other = load(fresh_url, [60, 10])
    maintain(fresh_url, min_memories=40)
    database = Database(fresh_url)
    try:
        with database.tenant_transaction(listed) as conn:
            assert conn.execute("SELECT tenant_id FROM tenant_own_indexes").fetchall() == [(listed,)]
            assert route(conn, listed) == "own"
        with database.tenant_transaction(other) as conn:
            assert conn.execute("SELECT tenant_id FROM tenant_own_indexes").fetchall() == []
        with pytest.raises(psycopg.errors.InsufficientPrivilege), database.tenant_transaction(other) as conn:
            conn.execute("INSERT INTO tenant_own_indexes (tenant_id) VALUES (%s)", (other,))
    finally:
        database.close()


def test_index_membership_is_set_at_insert_and_changed_by_the_owner_alone(fresh_url):
    listed, other = load(fresh_url, [60, 10])
    maintain(fresh_url, min_memories=40)
    database = Database(fresh_url)
    try:
        # Whatever the inserting statement says, the list decides.
        for tenant, says, expected in ((other, False, True), (listed, True, False)):
            with database.tenant_transaction(tenant) as conn:
                conn.execute(
                    """INSERT INTO memory_versions (memory_id, tenant_id, content, topic, embedding, valid_from,
                           recorded_at, in_shared_index)
                       VALUES (%s, %s, 'x', 'general', %s, now(), now(), %s)""",
                    (uuid.uuid4(), tenant, unit_vectors(1, seed=5)[0], says),
                )
            with psycopg.connect(fresh_url) as conn:
                assert in_shared(conn, tenant).get(expected) == (61 if tenant == listed else 11)
        # The service role cannot change it at all (it may update recorded_to alone).
        with pytest.raises(psycopg.errors.InsufficientPrivilege), database.tenant_transaction(other) as conn:
            conn.execute("UPDATE memory_versions SET in_shared_index = false WHERE tenant_id = %s", (other,))
    finally:
        database.close()
    with psycopg.connect(fresh_url) as conn:
        # The owner can, but not together with a fact or with the close of transaction time.
        for also in ("content = 'rewritten'", "topic = 'other'", "recorded_to = clock_timestamp()"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(
                    f"UPDATE memory_versions SET in_shared_index = false, {also} WHERE tenant_id = %s",
                    (other,),
                )
            conn.rollback()
        moved = conn.execute(
            "UPDATE memory_versions SET in_shared_index = false WHERE tenant_id = %s", (other,)
        ).rowcount
        assert moved == 11


def full_precision_index(conn: psycopg.Connection, tenant: uuid.UUID) -> None:
    """A tenant's own index as built before half precision (vector, full precision)."""
    conn.execute(
        f'CREATE INDEX "{tenant_indexes.full_precision_index_name(tenant)}" ON memory_versions USING hnsw '
        f"({tenant_indexes.full_precision_expression(DIM)} vector_cosine_ops) WITH (m = 16, ef_construction = 64) "
        f"WHERE tenant_id = '{tenant}' AND recorded_to IS NULL AND valid_to IS NULL"
    )


def test_the_own_index_is_half_precision_and_the_search_reads_it_right_and_in_its_tenant(fresh_url):
    big, other = load(
        fresh_url, [3 * store.HNSW_MIN_TENANT_MEMORIES, 3 * store.HNSW_MIN_TENANT_MEMORIES], seed=5
    )
    maintain(fresh_url)
    with psycopg.connect(fresh_url, autocommit=True) as conn:
        conn.execute("ANALYZE memory_versions")
        definition = conn.execute("SELECT pg_get_indexdef(to_regclass(%s))", (index_name(big),)).fetchone()[0]
    assert f"(l2_normalize(embedding))::halfvec({DIM})" in definition
    assert "halfvec_cosine_ops" in definition
    database = Database(fresh_url)
    try:
        for q in unit_vectors(6, seed=21):
            for tenant in (big, other):
                found, plan = candidates(database, tenant, q)
                exact, _ = candidates(database, tenant, q, strategy="exact")
                assert f"Index Scan using {index_name(tenant)}" in plan, plan
                assert f"halfvec({DIM})" in plan, plan
                # Right: the exact scan's top 3, each with its full-precision similarity.
                assert [row.memory_id for row, _ in found] == [row.memory_id for row, _ in exact]
                assert [s for _, s in found] == pytest.approx([s for _, s in exact], abs=1e-6)
                assert {row.tenant_id for row, _ in found} == {tenant}
            # A tenant's own index never answers for another: the other tenant's query, with the
            # first one's nearest memory as its vector, finds none of the first one's rows.
            nearest_of_big, _ = candidates(database, big, q)
            with psycopg.connect(fresh_url) as conn:
                register_vector(conn)
                v = conn.execute(
                    "SELECT embedding FROM memory_versions WHERE version_id = %s",
                    (nearest_of_big[0][0].version_id,),
                ).fetchone()[0]
            crossed, _ = candidates(database, other, v)
            assert {row.tenant_id for row, _ in crossed} == {other}
    finally:
        database.close()


def test_a_full_precision_own_index_is_read_until_the_maintenance_job_replaces_it(fresh_url):
    """An own index built before half precision (an upgrade): the search keeps reading it (its
    tenant listed, so not in the shared index) until the next maintenance run has built the
    half-precision one beside it, then that run drops it."""
    tenant, neighbour = load(
        fresh_url, [3 * store.HNSW_MIN_TENANT_MEMORIES, int(2.5 * store.HNSW_MIN_TENANT_MEMORIES)], seed=8
    )
    with psycopg.connect(fresh_url, autocommit=True) as conn:
        tenant_indexes.list_tenants(conn, [tenant])
        tenant_indexes._set_membership(conn, tenant, in_shared_index=False)
        full_precision_index(conn, tenant)
        conn.execute("ANALYZE memory_versions")
        assert route(conn, tenant) == "own_full_precision"
        assert existing_indexes(conn) == {}
        assert existing_indexes(conn, tenant_indexes.FULL_PRECISION_PREFIX) == {tenant: True}
    database = Database(fresh_url)
    queries = unit_vectors(4, seed=13)
    try:
        assert_served_by(database, tenant, tenant_indexes.full_precision_index_name(tenant), queries)
        report = maintain(fresh_url, limit=1)
        assert [(r["tenant_id"], r["moved"], r.get("replaced")) for r in report.built] == [
            (str(tenant), 0, "full precision")
        ]
        with psycopg.connect(fresh_url, autocommit=True) as conn:
            assert existing_indexes(conn) == {tenant: True}
            assert existing_indexes(conn, tenant_indexes.FULL_PRECISION_PREFIX) == {}
            assert route(conn, tenant) == "own"
            assert route(conn, neighbour) == "shared"
            conn.execute("ANALYZE memory_versions")
        assert_served_by(database, tenant, index_name(tenant), queries)
        assert maintain(fresh_url, limit=1).kept == 1
    finally:
        database.close()


def test_moving_out_drops_a_full_precision_own_index_too(fresh_url):
    (tenant,) = load(fresh_url, [60])
    with psycopg.connect(fresh_url, autocommit=True) as conn:
        tenant_indexes.list_tenants(conn, [tenant])
        tenant_indexes._set_membership(conn, tenant, in_shared_index=False)
        full_precision_index(conn, tenant)
    report = maintain(fresh_url, min_memories=40, limit=0)
    assert report.dropped == [{"tenant_id": str(tenant), "reason": "over the limit", "moved": 60}]
    with psycopg.connect(fresh_url) as conn:
        assert existing_indexes(conn, tenant_indexes.FULL_PRECISION_PREFIX) == {}
        assert route(conn, tenant) == "shared"
        assert in_shared(conn, tenant) == {True: 60}


def test_an_own_index_built_with_other_parameters_is_replaced_beside_itself_and_read_meanwhile(fresh_url):
    """A change of the build settings (or of their defaults, by an upgrade) reaches the own
    indexes already built: the next run renames the index to its retiring name, builds the
    replacement under the own index's name and drops the old one. Until the replacement is
    valid the search reads the retiring index (a run that stopped there), never exact scans."""
    from aurra_core.runtime.config import get_config

    tenant, neighbour = load(
        fresh_url, [3 * store.HNSW_MIN_TENANT_MEMORIES, int(2.5 * store.HNSW_MIN_TENANT_MEMORIES)], seed=23
    )
    config = get_config()
    assert (config.tenant_index_m, config.tenant_index_ef_construction) != (8, 32)
    first = maintain(fresh_url, limit=1, m=8, ef_construction=32)
    assert [r["tenant_id"] for r in first.built] == [str(tenant)]
    assert maintain(fresh_url, limit=1, m=8, ef_construction=32).built == []  # the same settings: kept
    database = Database(fresh_url)
    queries = unit_vectors(4, seed=29)
    try:
        # A run that stopped after the rename, before its build: the retiring index serves.
        with psycopg.connect(fresh_url, autocommit=True) as conn:
            assert tenant_indexes._retire(conn, tenant)
            assert existing_indexes(conn) == {}
            assert existing_indexes(conn, tenant_indexes.RETIRING_PREFIX) == {tenant: True}
            assert route(conn, tenant) == "own"
            assert route(conn, neighbour) == "shared"
            conn.execute("ANALYZE memory_versions")
        assert_served_by(database, tenant, tenant_indexes.retiring_index_name(tenant), queries)

        report = maintain(fresh_url, limit=1)  # the configured parameters
        assert [(r["tenant_id"], r["moved"], r.get("replaced")) for r in report.built] == [
            (str(tenant), 0, "built with m = 8, ef_construction = 32")
        ]
        assert report.kept == 0
        with psycopg.connect(fresh_url, autocommit=True) as conn:
            assert existing_indexes(conn) == {tenant: True}
            assert existing_indexes(conn, tenant_indexes.RETIRING_PREFIX) == {}
            assert tenant_indexes.build_parameters(conn, tenant) == tenant_indexes.parameters_comment(
                config.tenant_index_m, config.tenant_index_ef_construction
            )
            assert in_shared(conn, tenant) == {False: 3 * store.HNSW_MIN_TENANT_MEMORIES}
            conn.execute("ANALYZE memory_versions")
        assert_served_by(database, tenant, index_name(tenant), queries)
        # Calibrated again: the calibration was the old index's.
        assert [c["tenant_id"] for c in report.calibrated] == [str(tenant)]
        again = maintain(fresh_url, limit=1)
        assert (again.built, again.kept, again.replacement_deferred) == ([], 1, [])
    finally:
        database.close()


def test_one_own_index_is_replaced_a_run_the_largest_first_and_a_locked_one_waits(fresh_url):
    larger, smaller = load(fresh_url, [70, 60], seed=31)
    maintain(fresh_url, min_memories=40, m=8, ef_construction=32)
    first = maintain(fresh_url, min_memories=40)
    assert [(r["tenant_id"], r.get("replaced")) for r in first.built] == [
        (str(larger), "built with m = 8, ef_construction = 32")
    ]
    assert (first.kept, first.replacement_deferred) == (1, [str(smaller)])

    # A lock on the index that the rename must wait for: the rename gives up in time, the
    # index keeps serving as it is, and the run after replaces it.
    with psycopg.connect(fresh_url) as holder:
        holder.execute(f'ALTER INDEX "{index_name(smaller)}" SET (ef_construction = 100)')
        blocked = maintain(fresh_url, min_memories=40)
        holder.rollback()
    assert (blocked.built, blocked.replacement_deferred) == ([], [str(smaller)])
    with psycopg.connect(fresh_url) as conn:
        assert existing_indexes(conn) == {larger: True, smaller: True}
        assert existing_indexes(conn, tenant_indexes.RETIRING_PREFIX) == {}
    second = maintain(fresh_url, min_memories=40)
    assert [r["tenant_id"] for r in second.built] == [str(smaller)]
    assert maintain(fresh_url, min_memories=40).kept == 2


def test_moving_out_drops_a_retiring_own_index_too(fresh_url):
    (tenant,) = load(fresh_url, [60], seed=37)
    maintain(fresh_url, min_memories=40, m=8, ef_construction=32)
    with psycopg.connect(fresh_url, autocommit=True) as conn:
        assert tenant_indexes._retire(conn, tenant)
    report = maintain(fresh_url, min_memories=40, limit=0)
    assert report.dropped == [{"tenant_id": str(tenant), "reason": "over the limit", "moved": 60}]
    with psycopg.connect(fresh_url) as conn:
        assert existing_indexes(conn, tenant_indexes.RETIRING_PREFIX) == {}
        assert route(conn, tenant) == "shared"
        assert in_shared(conn, tenant) == {True: 60}


def test_each_build_gets_the_memory_its_graph_needs_and_a_graph_past_the_cap_is_reported(fresh_url):
    """pgvector builds the graph in maintenance_work_mem and, past it, goes on inserting on
    disk (slower) with a NOTICE: the sized memory keeps the graph in it; a cap under the
    graph's size is obeyed and the NOTICE reaches the run's report."""
    from aurra_core.runtime.config import get_config

    first, second = load(fresh_url, [6_000, 5_000], seed=11)
    sized = maintain(fresh_url, limit=1)
    (built,) = sized.built
    assert built["tenant_id"] == str(first)
    config = get_config()
    expected_kb = tenant_indexes.build_memory_kb(
        6_000, DIM, config.tenant_index_m, config.tenant_index_build_memory_mb
    )
    assert built["build_memory_mb"] == round(expected_kb / 1024, 1)
    assert built["notices"] == []

    capped = maintain(fresh_url, limit=2, build_memory_cap_mb=2)
    (built,) = capped.built
    assert (built["tenant_id"], built["build_memory_mb"]) == (str(second), 2.0)
    assert any("no longer fits into maintenance_work_mem" in notice for notice in built["notices"]), built
    with psycopg.connect(fresh_url) as conn:
        assert existing_indexes(conn) == {first: True, second: True}


def reloptions(conn: psycopg.Connection, tenant: uuid.UUID) -> list[str]:
    return conn.execute(
        "SELECT reloptions FROM pg_class WHERE oid = to_regclass(%s)", (index_name(tenant),)
    ).fetchone()[0]


def test_an_own_index_is_built_with_the_build_parameters_and_then_inserts_with_the_insert_ones(
    fresh_url, configure
):
    from aurra_core.runtime.config import get_config

    big, _ = load(fresh_url, [3 * store.HNSW_MIN_TENANT_MEMORIES, 10], seed=17)
    configure(AURRA_TENANT_INDEX_INSERT_EF_CONSTRUCTION="64")  # unlike the default 128
    config = get_config()
    assert (config.tenant_index_insert_ef_construction, config.tenant_index_ef_construction) == (64, 160)
    report = maintain(fresh_url)  # the configured parameters
    assert [r["tenant_id"] for r in report.built] == [str(big)]
    assert report.insert_ef_construction_set == [
        {
            "tenant_id": str(big),
            "from": config.tenant_index_ef_construction,
            "to": config.tenant_index_insert_ef_construction,
        }
    ]
    with psycopg.connect(fresh_url, autocommit=True) as conn:
        assert tenant_indexes.build_parameters(conn, big) == (
            f"built with m = {config.tenant_index_m}, ef_construction = {config.tenant_index_ef_construction}"
        )
        assert sorted(reloptions(conn, big)) == sorted(
            [f"m={config.tenant_index_m}", f"ef_construction={config.tenant_index_insert_ef_construction}"]
        )
        assert tenant_indexes.insert_ef_construction(conn, big) == config.tenant_index_insert_ef_construction
        conn.execute("ANALYZE memory_versions")
    again = maintain(fresh_url)
    assert (again.built, again.kept, again.insert_ef_construction_set) == ([], 1, [])

    # Writes still enter the graph: each just-written memory is the search's nearest, through it.
    database = Database(fresh_url)
    try:
        for q in unit_vectors(3, seed=29):
            assert write(database, fresh_url, big, q) is False
            found, plan = candidates(database, big, q)
            assert f"Index Scan using {index_name(big)}" in plan, plan
            assert found[0][0].content == "a new fact"
            assert found[0][1] == pytest.approx(1.0, abs=1e-6)
    finally:
        database.close()


def test_maintenance_sets_the_insert_ef_construction_on_an_index_built_without_it(fresh_url):
    (tenant,) = load(fresh_url, [60])
    maintain(fresh_url, min_memories=40, m=8, ef_construction=40, insert_ef_construction=40)
    with psycopg.connect(fresh_url, autocommit=True) as conn:
        assert sorted(reloptions(conn, tenant)) == ["ef_construction=40", "m=8"]
        # As an index built before the setting may be: no ef_construction of its own (pgvector's
        # default, 64, at each insert).
        conn.execute(f'ALTER INDEX "{index_name(tenant)}" RESET (ef_construction)')
        assert tenant_indexes.insert_ef_construction(conn, tenant) is None

    # A transaction that has read the table holds its indexes: the ALTER waits its lock_timeout
    # and leaves the index for the next run rather than queue the table's queries behind it.
    with psycopg.connect(fresh_url) as reader:
        reader.execute("SELECT count(*) FROM memory_versions WHERE tenant_id = %s", (tenant,))
        held = maintain(fresh_url, min_memories=40, m=8, ef_construction=40, insert_ef_construction=12)
        assert (held.built, held.kept, held.insert_ef_construction_set) == ([], 1, [])
        assert held.insert_ef_construction_deferred == [str(tenant)]
    with psycopg.connect(fresh_url, autocommit=True) as conn:
        assert tenant_indexes.insert_ef_construction(conn, tenant) is None

    report = maintain(fresh_url, min_memories=40, m=8, ef_construction=40, insert_ef_construction=12)
    assert (report.built, report.kept) == ([], 1)
    assert report.insert_ef_construction_set == [{"tenant_id": str(tenant), "from": None, "to": 12}]
    assert report.insert_ef_construction_deferred == []
    with psycopg.connect(fresh_url, autocommit=True) as conn:
        assert sorted(reloptions(conn, tenant)) == ["ef_construction=12", "m=8"]
        assert tenant_indexes.build_parameters(conn, tenant) == "built with m = 8, ef_construction = 40"
    # A change of the setting reaches the index the same way.
    changed = maintain(fresh_url, min_memories=40, m=8, ef_construction=40, insert_ef_construction=16)
    assert changed.insert_ef_construction_set == [{"tenant_id": str(tenant), "from": 12, "to": 16}]


def test_near_tied_memories_come_out_of_the_own_index_in_their_full_precision_order(fresh_url):
    """Near-identical memories (the same fact in nearly the same words) whose distances to a new
    fact differ by less than half precision's rounding: the half-precision walk orders them
    arbitrarily, and the re-rank at full precision of the walk's nearest (`RERANK_MARGIN` more
    than asked) puts the exact top 3 first."""
    (tenant,) = load(fresh_url, [3 * store.HNSW_MIN_TENANT_MEMORIES], seed=11)
    rng = np.random.default_rng(17)
    base = rng.standard_normal(DIM)
    base /= np.linalg.norm(base)
    now = datetime.now(UTC)
    with psycopg.connect(fresh_url) as conn:
        register_vector(conn)
        with (
            conn.cursor() as cur,
            cur.copy(
                "COPY memory_versions (memory_id, tenant_id, content, topic, embedding, valid_from, recorded_at) "
                "FROM STDIN WITH (FORMAT BINARY)"
            ) as copy,
        ):
            copy.set_types(["uuid", "uuid", "text", "text", "vector", "timestamptz", "timestamptz"])
            for i in range(10):  # no more than the margin re-ranks past the third
                v = base + rng.standard_normal(DIM) * 2e-5
                v = (v / np.linalg.norm(v)).astype(np.float32)
                copy.write_row((uuid.uuid4(), tenant, f"near-tie {i}", "general", v, now, now))
    maintain(fresh_url)
    queries = []
    for _ in range(12):
        q = base + rng.standard_normal(DIM) * 0.05
        queries.append(Vector((q / np.linalg.norm(q)).astype(np.float32)))
    key = tenant_indexes.indexed_expression(DIM)
    database = Database(fresh_url)
    try:
        with psycopg.connect(fresh_url, autocommit=True) as conn:
            register_vector(conn)
            conn.execute("ANALYZE memory_versions")
            assert route(conn, tenant) == "own"
            # The ties are real: in half precision the farthest of the exact top 3 ranks below
            # the third for some of the queries (how many rows are as near or nearer).
            half_ranks = []
            for q in queries:
                exact, _ = candidates(database, tenant, q, strategy="exact")
                half_ranks.append(
                    conn.execute(
                        f"""SELECT count(*) FROM memory_versions
                            WHERE tenant_id = %(t)s AND recorded_to IS NULL AND valid_to IS NULL
                              AND {key} <=> %(q)s::halfvec({DIM}) <= (
                                  SELECT max({key} <=> %(q)s::halfvec({DIM}))
                                  FROM memory_versions WHERE memory_id = ANY(%(top)s))""",
                        {"t": tenant, "q": q, "top": [row.memory_id for row, _ in exact]},
                    ).fetchone()[0]
                )
            assert max(half_ranks) > 3, half_ranks
        for q in queries:
            found, plan = candidates(database, tenant, q)
            exact, _ = candidates(database, tenant, q, strategy="exact")
            assert f"Index Scan using {index_name(tenant)}" in plan, plan
            assert [row.memory_id for row, _ in found] == [row.memory_id for row, _ in exact]
    finally:
        database.close()


# ---------------------------------------------------------------- each own index's ef_search


def stored_calibration(conn: psycopg.Connection, tenant: uuid.UUID) -> tuple:
    return conn.execute(
        """SELECT ef_search, calibrated_rows, calibrated_recall, calibrated_index = to_regclass(%s)::oid
           FROM tenant_own_indexes WHERE tenant_id = %s""",
        (index_name(tenant), tenant),
    ).fetchone()


def ef_search_set_by_route(database: Database, tenant: uuid.UUID, **how) -> tuple[str, str]:
    """The route and the hnsw.ef_search it leaves in the service's transaction."""
    with database.tenant_transaction(tenant) as conn:
        taken = route(conn, tenant, **how)
        return taken, conn.execute("SELECT current_setting('hnsw.ef_search')").fetchone()[0]


def analyzed(url: str) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("ANALYZE memory_versions")


def test_the_job_calibrates_each_index_it_builds_and_the_candidate_search_uses_that_ef_search(fresh_url):
    tenant, small = load(fresh_url, [2_500, 30])
    analyzed(fresh_url)
    report = maintain(fresh_url, min_memories=40, calibration_samples=60)
    ((calibrated,),) = [report.calibrated]
    assert (calibrated["tenant_id"], calibrated["reason"], calibrated["memories"]) == (
        str(tenant),
        "not calibrated",
        2_500,
    )
    assert calibrated["through_index"], "the planner did not search the own index"
    assert calibrated["samples"] == 60
    # The rung above the lowest that reaches the target; every one tried below that fell short.
    ef, lowest = calibrated["ef_search"], calibrated["lowest_reaching"]
    ladder = tenant_indexes.EF_SEARCH_LADDER
    assert ef == ladder[ladder.index(lowest) + tenant_indexes.CALIBRATION_MARGIN_RUNGS]
    tried = {int(e): r for e, r in calibrated["recall_by_ef_search"].items()}
    assert list(tried) == [e for e in ladder if e <= ef]
    assert tried[lowest] >= tenant_indexes.CALIBRATION_RECALL and calibrated["reached"]
    assert all(r < tenant_indexes.CALIBRATION_RECALL for e, r in tried.items() if e < lowest)
    with psycopg.connect(fresh_url) as conn:
        ef_stored, rows, recall, current = stored_calibration(conn, tenant)
    assert (ef_stored, rows, current) == (ef, 2_500, True)
    assert recall == pytest.approx(calibrated["recall@3"], abs=1e-4)

    # Stored values the ladder's lowest can hide: say one no ladder has, and read it back.
    with psycopg.connect(fresh_url) as conn:
        conn.execute("UPDATE tenant_own_indexes SET ef_search = 137 WHERE tenant_id = %s", (tenant,))
    database = Database(fresh_url)
    try:
        assert ef_search_set_by_route(database, tenant, ef_search=150, calibrated=True) == ("own", "137")
        # Asked for a value, the caller gets it (the bench's fixed ef_search rows).
        assert ef_search_set_by_route(database, tenant, ef_search=150) == ("own", "150")
        # A calibration above the setting is capped by it: the setting is the most any index walks.
        with psycopg.connect(fresh_url) as conn:
            conn.execute("UPDATE tenant_own_indexes SET ef_search = 400 WHERE tenant_id = %s", (tenant,))
        assert ef_search_set_by_route(database, tenant, ef_search=150, calibrated=True) == ("own", "150")
        assert ef_search_set_by_route(database, tenant, ef_search=500, calibrated=True) == ("own", "400")
        with psycopg.connect(fresh_url) as conn:
            conn.execute("UPDATE tenant_own_indexes SET ef_search = 137 WHERE tenant_id = %s", (tenant,))
        # The fallback: no own index, the setting.
        assert ef_search_set_by_route(database, small, ef_search=150, calibrated=True) == ("shared", "150")
        # The candidate search of a write, as the service runs it.
        q = unit_vectors(1, seed=21)[0]
        for given, expected in ((None, "137"), (120, "120")):
            with database.tenant_transaction(tenant) as conn:
                store.find_candidates(
                    conn,
                    tenant,
                    q,
                    scope=store.UNSCOPED,
                    excluded_topics=[],
                    limit=3,
                    min_similarity=-1,
                    strategy="hnsw",
                    ef_search=given,
                )
                assert conn.execute("SELECT current_setting('hnsw.ef_search')").fetchone()[0] == expected
        # The next run leaves a calibrated index alone (at the least a calibration keeps, or
        # more: 137 is under it, below).
        with psycopg.connect(fresh_url) as conn:
            conn.execute("UPDATE tenant_own_indexes SET ef_search = 150 WHERE tenant_id = %s", (tenant,))
        assert maintain(fresh_url, min_memories=40).calibrated == []
        # A value under the least a calibration keeps (kept by a version that chose lower: a
        # ladder from 40, or no margin when no rung reached the target): calibrated again.
        least = tenant_indexes.LEAST_CALIBRATED_EF_SEARCH
        assert least == ladder[tenant_indexes.CALIBRATION_MARGIN_RUNGS] == 150
        for kept in (60, 100):
            with psycopg.connect(fresh_url) as conn:
                conn.execute(
                    "UPDATE tenant_own_indexes SET ef_search = %s WHERE tenant_id = %s", (kept, tenant)
                )
            again = maintain(fresh_url, min_memories=40, calibration_samples=60)
            assert [c["reason"] for c in again.calibrated] == [
                f"calibrated at {kept}, under the least a calibration keeps, 150"
            ]
            with psycopg.connect(fresh_url) as conn:
                assert stored_calibration(conn, tenant)[0] >= least
    finally:
        database.close()


def test_a_rebuilt_index_is_searched_with_the_setting_until_calibrated_again_and_growth_recalibrates(
    fresh_url,
):
    (tenant,) = load(fresh_url, [2_200])
    analyzed(fresh_url)
    maintain(fresh_url, min_memories=40, calibration_samples=30)
    database = Database(fresh_url)
    try:
        with psycopg.connect(fresh_url, autocommit=True) as conn:
            conn.execute("UPDATE tenant_own_indexes SET ef_search = 77 WHERE tenant_id = %s", (tenant,))
            # A rebuild (what a change of build parameters or a repair does): a new index.
            conn.execute(f'DROP INDEX "{index_name(tenant)}"')
            tenant_indexes.build_index(conn, tenant, DIM, m=8, ef_construction=32)
        # Measured on another graph: not this one's.
        assert ef_search_set_by_route(database, tenant, ef_search=150, calibrated=True) == ("own", "150")
        report = maintain(fresh_url, min_memories=40, calibration_samples=30)
        assert [(c["tenant_id"], c["reason"]) for c in report.calibrated] == [(str(tenant), "index rebuilt")]
        ef = report.calibrated[0]["ef_search"]
        assert ef_search_set_by_route(database, tenant, ef_search=150, calibrated=True) == (
            "own",
            str(min(ef, 150)),
        )  # capped by the setting

        # Grown to twice the memories it was calibrated at: calibrated again.
        with psycopg.connect(fresh_url, autocommit=True) as conn:
            conn.execute(
                "UPDATE tenant_own_indexes SET calibrated_rows = 1_101 WHERE tenant_id = %s", (tenant,)
            )
        assert maintain(fresh_url, min_memories=40, calibration_samples=30).calibrated == []
        with psycopg.connect(fresh_url, autocommit=True) as conn:
            conn.execute(
                "UPDATE tenant_own_indexes SET calibrated_rows = 1_100 WHERE tenant_id = %s", (tenant,)
            )
        again = maintain(fresh_url, min_memories=40, calibration_samples=30)
        assert [c["reason"] for c in again.calibrated] == ["grew from 1100 to 2200 memories"]
        with psycopg.connect(fresh_url) as conn:
            assert stored_calibration(conn, tenant)[1] == 2_200
    finally:
        database.close()


def test_calibration_walks_up_the_ladder_and_keeps_the_highest_when_none_reaches_the_target(fresh_url):
    (tenant,) = load(fresh_url, [3_000])
    analyzed(fresh_url)
    # A sparse graph (m 6, ef_construction 16): a walk with a candidate list of 1 misses.
    maintain(fresh_url, min_memories=40, m=6, ef_construction=16, calibration_samples=0)
    with psycopg.connect(fresh_url, autocommit=True) as conn:
        walked = tenant_indexes.calibrate(conn, tenant, DIM, rows=3_000, samples=100, ladder=(1, 1000))
        assert walked["through_index"]
        assert walked["recall_by_ef_search"]["1"] < tenant_indexes.CALIBRATION_RECALL, walked
        assert (walked["ef_search"], walked["reached"]) == (1000, True), walked
        assert stored_calibration(conn, tenant)[0] == 1000

        # A target no ladder reaches: a rung above the lowest with the best recall measured (the
        # top at most), and the report says so. Here the longer walk finds more: it is kept.
        short = tenant_indexes.calibrate(
            conn, tenant, DIM, rows=3_000, samples=100, ladder=(1, 1000), target=1.01
        )
        assert short["recall_by_ef_search"]["1"] < short["recall_by_ef_search"]["1000"], short
        assert (short["ef_search"], short["reached"]) == (1000, False)
        assert list(short["recall_by_ef_search"]) == ["1", "1000"]
        assert stored_calibration(conn, tenant)[0] == 1000
        # Walks that all find the same: the rung above the shortest, not the ladder's top. (New
        # facts are harder than the memories: a 1M tenant whose memories read the same at every
        # rung read more new facts at the second.)
        flat = tenant_indexes.calibrate(
            conn, tenant, DIM, rows=3_000, samples=100, ladder=(998, 999, 1000), target=1.01
        )
        assert len(set(flat["recall_by_ef_search"].values())) == 1, flat
        assert list(flat["recall_by_ef_search"]) == ["998", "999", "1000"]
        assert (flat["ef_search"], flat["reached"]) == (999, False)
        assert stored_calibration(conn, tenant)[0] == 999


def test_the_exact_pass_finds_each_querys_k_nearest_of_the_tenant_its_excluded_row_left_out(fresh_url):
    # Another tenant's rows beside them, as near as the tenant's own: never among the answers.
    tenant, _other_tenant = load(fresh_url, [300, 300])
    with psycopg.connect(fresh_url, autocommit=True) as conn:
        register_vector(conn)
        rows = conn.execute(
            "SELECT version_id, embedding FROM memory_versions WHERE tenant_id = %s ORDER BY version_id",
            (tenant,),
        ).fetchall()
        ids = np.array([version_id for version_id, _ in rows])
        vectors = np.stack([v.to_numpy() for _, v in rows]).astype(np.float64)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        # Ten of the tenant's rows, each excluded from its own answer, and two new vectors.
        queries = [(int(ids[i]), vectors[i]) for i in range(0, 300, 30)]
        queries += [(tenant_indexes.NO_ROW, v.to_numpy()) for v in unit_vectors(2, seed=9)]
        distances, found = tenant_indexes.exact_nearest(conn, tenant, queries, None, k=5)
        assert distances.shape == found.shape == (12, 5)
        for (excluded, q), got_distances, got_ids in zip(queries, distances, found, strict=True):
            expected = 1 - vectors @ (q / np.linalg.norm(q))
            expected[ids == excluded] = np.inf
            order = np.argsort(expected)[:5]
            assert got_ids.tolist() == ids[order].tolist()
            assert got_distances == pytest.approx(expected[order], abs=1e-5)
        # A tenant with fewer rows than asked for: inf and NO_ROW fill the rest.
        (small,) = load(fresh_url, [2], seed=4)
        distances, found = tenant_indexes.exact_nearest(conn, small, queries[-1:], None, k=3)
        assert np.isinf(distances[0, 2]) and found[0, 2] == tenant_indexes.NO_ROW
        assert (found[0, :2] != tenant_indexes.NO_ROW).all()


def test_calibration_stops_at_the_runs_time_limit_and_the_next_run_does_it(fresh_url):
    (tenant,) = load(fresh_url, [2_100])
    report = maintain(fresh_url, min_memories=40, time_limit_s=1e-6)
    assert [b["tenant_id"] for b in report.built] == [str(tenant)]  # builds are never cut short
    assert (report.calibrated, report.calibration_deferred) == ([], [str(tenant)])
    with psycopg.connect(fresh_url) as conn:
        assert stored_calibration(conn, tenant)[0] is None
    later = maintain(fresh_url, min_memories=40, calibration_samples=20)
    assert [c["tenant_id"] for c in later.calibrated] == [str(tenant)]


def test_a_tenant_reads_its_own_calibration_never_another_tenants(fresh_url):
    a, b, c = load(fresh_url, [60, 55, 10])
    maintain(fresh_url, min_memories=40, calibration_samples=10)
    with psycopg.connect(fresh_url) as conn:
        for tenant, ef in ((a, 77), (b, 133)):
            conn.execute("UPDATE tenant_own_indexes SET ef_search = %s WHERE tenant_id = %s", (ef, tenant))
    database = Database(fresh_url)
    try:
        assert ef_search_set_by_route(database, a, ef_search=150, calibrated=True) == ("own", "77")
        assert ef_search_set_by_route(database, b, ef_search=150, calibrated=True) == ("own", "133")
        # Asked about another tenant's index, row-level security hides its calibration: the fallback.
        with database.tenant_transaction(c) as conn:
            assert route(conn, a, ef_search=150, calibrated=True) == "own"  # the catalog is public
            assert conn.execute("SELECT current_setting('hnsw.ef_search')").fetchone()[0] == "150"
            assert conn.execute("SELECT count(*) FROM tenant_own_indexes").fetchone()[0] == 0
        with database.tenant_transaction(a) as conn:
            assert conn.execute("SELECT tenant_id, ef_search FROM tenant_own_indexes").fetchall() == [(a, 77)]
        # Only the owner (the maintenance job) sets it.
        with pytest.raises(psycopg.errors.InsufficientPrivilege), database.tenant_transaction(a) as conn:
            conn.execute("UPDATE tenant_own_indexes SET ef_search = 40 WHERE tenant_id = %s", (a,))
    finally:
        database.close()


def test_the_calibration_migration_on_a_database_with_own_indexes(pg_url):
    from aurra_core.storage.migrate import load_migrations

    name = f"aurra_calibration_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = make_conninfo(pg_url, dbname=name)
    try:
        before = [m for m in load_migrations(DIM) if m.version < "0013"]
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("CREATE TABLE schema_migrations (version text PRIMARY KEY, checksum text NOT NULL)")
            for migration in before:
                conn.execute(migration.sql)
                conn.execute(
                    "INSERT INTO schema_migrations VALUES (%s, %s)", (migration.version, migration.checksum)
                )
        (tenant,) = load(url, [60])
        build_as_before_0013(url, tenant)

        assert apply_migrations(url, DIM) == [m.version for m in load_migrations(DIM) if m.version >= "0013"]
        database = Database(url)
        try:
            # Its index, built before, is not calibrated: searched with the setting.
            assert ef_search_set_by_route(database, tenant, ef_search=150, calibrated=True) == ("own", "150")
            report = maintain(url, min_memories=40, calibration_samples=10)
            assert [(c["tenant_id"], c["reason"]) for c in report.calibrated] == [
                (str(tenant), "not calibrated")
            ]
            ef = report.calibrated[0]["ef_search"]
            assert ef_search_set_by_route(database, tenant, ef_search=150, calibrated=True) == (
                "own",
                str(ef),
            )
        finally:
            database.close()
    finally:
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


def build_as_before_0013(url: str, tenant: uuid.UUID) -> None:
    """What the job did before calibration: list the tenant, move its rows, build its index."""
    with psycopg.connect(url, autocommit=True) as conn:
        tenant_indexes.list_tenants(conn, [tenant])
        conn.execute("UPDATE memory_versions SET in_shared_index = false WHERE tenant_id = %s", (tenant,))
        tenant_indexes.build_index(conn, tenant, DIM, m=16, ef_construction=64)
        assert existing_indexes(conn) == {tenant: True}
