"""Large tenants' own HNSW indexes (aurra_core.tenant_indexes) on a real PostgreSQL: which
tenants get one, that runs converge, that an interrupted build is repaired, and that the
candidate search uses a tenant's index, returns what an exact scan does and stays in the
tenant. Each test has a database of its own: the sizes and shares it sets up are the store's."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import ClassVar

import numpy as np
import psycopg
import pytest
from pgvector.psycopg import register_vector
from psycopg.conninfo import make_conninfo

from aurra_core import store, tenant_indexes
from aurra_core.db import Database
from aurra_core.migrate import apply_migrations
from aurra_core.tenant_indexes import existing_indexes, has_own_index, index_name, maintain

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


def load(url: str, sizes: list[int], seed: int = 3) -> list[uuid.UUID]:
    """Tenants of the given sizes, each memory a random unit vector."""
    rng = np.random.default_rng(seed)
    now = datetime.now(UTC)
    tenants = [uuid.uuid4() for _ in sizes]
    with psycopg.connect(url) as conn:
        register_vector(conn)
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


def test_a_tenant_holding_most_of_the_store_is_left_to_the_shared_index(fresh_url):
    dominant, other = load(fresh_url, [150, 60])
    report = maintain(fresh_url, min_memories=40)
    assert report.dominant == [str(dominant)]
    assert [r["tenant_id"] for r in report.built] == [str(other)]


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
        {"tenant_id": str(tenant), "reason": "shrank under the threshold"}
    ]


def test_an_interrupted_build_is_dropped_and_rebuilt(fresh_url):
    (tenant,) = load(fresh_url, [60])
    load(fresh_url, [70], seed=4)  # a larger second tenant: the first is not most of the store
    with psycopg.connect(fresh_url, autocommit=True) as conn:
        # A concurrent build that fails leaves an invalid index behind, as one cut off would.
        with pytest.raises(psycopg.errors.UniqueViolation):
            conn.execute(
                f'CREATE UNIQUE INDEX CONCURRENTLY "{index_name(tenant)}" ON memory_versions (topic)'
            )
        assert existing_indexes(conn) == {tenant: False}
        assert has_own_index(conn, tenant) is False  # the search keeps to the shared index
    report = maintain(fresh_url, min_memories=40)
    assert {"tenant_id": str(tenant), "reason": "invalid (an interrupted build)"} in report.dropped
    assert str(tenant) in [r["tenant_id"] for r in report.built]
    with psycopg.connect(fresh_url) as conn:
        assert existing_indexes(conn)[tenant] is True
        assert has_own_index(conn, tenant) is True
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


def test_the_candidate_search_uses_the_tenants_index_and_stays_exact_and_in_the_tenant(fresh_url):
    # large enough that an HNSW scan beats sorting the tenant (the planner sorts a few thousand)
    sizes = [3 * store.HNSW_MIN_TENANT_MEMORIES, int(2.5 * store.HNSW_MIN_TENANT_MEMORIES), 3000]
    tenants = load(fresh_url, sizes)
    large = tenants[0]
    maintain(fresh_url)
    with psycopg.connect(fresh_url, autocommit=True) as conn:
        conn.execute("ANALYZE memory_versions")
        assert existing_indexes(conn) == dict.fromkeys(tenants, True)

    database = Database(fresh_url)
    rng = np.random.default_rng(9)
    try:
        for _ in range(5):
            q = rng.standard_normal(DIM).astype(np.float32)
            q /= np.linalg.norm(q)
            with database.tenant_transaction(large) as conn:
                conn.cursor_factory = RecordingCursor
                RecordingCursor.statements = []
                found = store.find_candidates(
                    conn, large, q, scope=store.UNSCOPED, excluded_topics=[], limit=3, min_similarity=-1
                )
                ((query, params),) = [(s, p) for s, p in RecordingCursor.statements if "ORDER BY" in s]
                # the service's query, planned as it was (a one-off plan, the tenant id a constant)
                plan = "\n".join(r[0] for r in conn.execute("EXPLAIN " + query, params, prepare=False))
                conn.cursor_factory = psycopg.Cursor
                exact = store.find_candidates(
                    conn,
                    large,
                    q,
                    scope=store.UNSCOPED,
                    excluded_topics=[],
                    limit=3,
                    min_similarity=-1,
                    strategy="exact",
                )
            assert f"Index Scan using {index_name(large)}" in plan
            assert [row.memory_id for row, _ in found] == [row.memory_id for row, _ in exact]
            assert {row.tenant_id for row, _ in found} == {large}
    finally:
        database.close()


def test_the_maintenance_function_builds_them(fresh_url, configure):
    from aurra_local.gateway import LambdaContext
    from aurra_local.lambda_functions import load_handler

    lambda_handler = load_handler("maintenance").lambda_handler

    a, b, _ = load(fresh_url, [2_100, 2_050, 300])
    configure(AURRA_DATABASE_URL=fresh_url, AURRA_TENANT_INDEX_LIMIT="1")
    schedule_tick = {"detail-type": "Scheduled Event", "source": "aws.events", "detail": {}}
    report = lambda_handler(schedule_tick, LambdaContext(function_name="maintenance", aws_request_id="test"))
    assert [r["tenant_id"] for r in report["built"]] == [str(a)]
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
    big, _, _ = load(fresh_url, [40, 30, 30])  # under half the store: it gets its own index
    with psycopg.connect(fresh_url) as blocker:
        blocker.execute("LOCK TABLE memory_versions IN ROW EXCLUSIVE MODE")  # a writer, not committing
        with pytest.raises(psycopg.errors.QueryCanceled):
            maintain(fresh_url, min_memories=35, statement_timeout_s=1)
    with psycopg.connect(fresh_url, autocommit=True) as conn:
        assert existing_indexes(conn) == {big: False}
    report = maintain(fresh_url, min_memories=35)
    assert [d["tenant_id"] for d in report.dropped] == [str(big)]
    assert [b["tenant_id"] for b in report.built] == [str(big)]
