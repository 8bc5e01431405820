"""Import and export at scale through `aurra dev`, each beside its floor in plain SQL.

    .venv/bin/python bench/portability.py                  # 100,000 facts
    .venv/bin/python bench/portability.py --facts 20000    # a loaded machine: say so with the figures

1. Import: `aurra import --format jsonl` (aurra_local.portability.import_file, the SDK's batch
   writes, Level 2 off) of N generated facts into `aurra dev` on a fresh database, its time
   until the tenant's own index is built (the import defers it to its end: POST /agent/imports).
   Target: at least 1,000 facts/s. Floor: the same N rows inserted into memory_versions with
   plain SQL (one multi-row INSERT of 100 rows a transaction, each fact's own embedding
   precomputed), the tenant listed first as the import's announcement does, then the same
   build of its own index, in the same run, on the same server: what the database alone costs;
   and the same over as many connections as the import has batches in flight
   (`--shared-floor`: also the rows into the shared index, as imports were before).
2. Import with Level 2 on (`--auto-supersede`, the rules classifier) of the same file into
   `aurra dev` on another fresh database: every fact compared with its scope's earlier facts. Target: at least
   200 facts/s. Floor: for each row, the top-3 query of its scope through the same index and
   its insert, 100 a transaction, with plain SQL: what the database alone costs.
3. Export: `aurra export` (aurra_local.portability.export_to_file) of the N versions, once the
   maintenance job has calibrated the import's index (its queries would share the host). Target:
   under 30 s. Floor: the same rows read with one plain SELECT and each written as a JSON line.

Everything runs on 127.0.0.1 against an embedded PostgreSQL of the bench's own in a temp dir.
Each import and each floor inserts into a database of its own, so every one starts from an empty
index: a floor run after the import into the same table would insert into a larger index, a
harder job than the import's.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from common import Cluster, local_environment, log
from write_path import DevServerHandle

IMPORT_TARGET_FACTS_PER_S = 1000.0
LEVEL2_IMPORT_TARGET_FACTS_PER_S = 200.0
EXPORT_TARGET_S = 30.0


def facts_file(path: Path, n: int) -> None:
    start = datetime(2020, 1, 1, tzinfo=UTC)
    with path.open("w") as f:
        for i in range(n):
            fact = {
                "content": f"User {i % 997} noted item {i}: prefers option {i % 13} for task {i % 101}",
                "topic": ("preferences", "work", "general")[i % 3],
                "valid_from": (start + timedelta(minutes=i)).isoformat().replace("+00:00", "Z"),
                "user_id": f"user-{i % 997}",
                "metadata": {"row": i},
            }
            f.write(json.dumps(fact) + "\n")


def _embeddings(rows: list[dict]) -> list:
    """Each fact's own embedding, by the embedder `aurra dev` runs here (computed before the
    clock starts): the index a floor row goes into then does the work an imported fact's does.
    One vector for every row, as the floors once used, is several times cheaper to insert."""
    from aurra_core.embedders import LexicalEmbedder

    embedder = LexicalEmbedder(384)
    return [embedder.embed(r["content"]) for r in rows]


def sql_insert_floor(
    url: str, path: Path, connections: int = 1, deferred: bool = True
) -> tuple[float, float]:
    """The same rows, inserted with plain SQL, 100 a transaction, over `connections`
    connections at once (each its share of the transactions): seconds of the inserts, and of
    the tenant's own index built after them. `deferred`, as the import does it: the tenant
    listed first (its rows enter no graph), then its own index built by the maintenance job's
    build with the import's graph (tenant_indexes.IMPORT_BUILD), without the calibration that follows it (the import waits for the index to be
    valid, not calibrated). Otherwise every row enters the shared index, and nothing is built."""
    from concurrent.futures import ThreadPoolExecutor

    import psycopg

    from aurra_core.access import keys
    from aurra_core.storage import tenant_indexes

    rows = [json.loads(line) for line in path.open()]
    vectors = _embeddings(rows)
    with psycopg.connect(url, autocommit=True) as conn:
        caller, _ = keys.create_key(conn, f"floor-{uuid.uuid4().hex[:8]}")
    if deferred:
        # Listed as the import's announcement lists it: the same function, for the tenant the
        # transaction is confined to.
        with psycopg.connect(url) as conn:
            conn.execute("SELECT set_config('aurra.tenant_id', %s, true)", (str(caller.tenant_id),))
            assert tenant_indexes.defer_shared_index(conn, tenant_indexes.DEFAULT_LIMIT)
    starts = list(range(0, len(rows), 100))
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=connections) as pool:
        list(
            pool.map(
                lambda share: _insert_rows(url, caller.tenant_id, rows, vectors, starts[share::connections]),
                range(connections),
            )
        )
    inserts_s = time.perf_counter() - started
    if not deferred:
        return inserts_s, 0.0
    started = time.perf_counter()
    report = tenant_indexes.maintain(url, calibration_samples=0)
    assert [b["tenant_id"] for b in report.built] == [str(caller.tenant_id)], report
    return inserts_s, time.perf_counter() - started


_FLOOR_COLUMNS = 9


def _insert_rows(url: str, tenant_id: uuid.UUID, rows: list[dict], vectors: list, starts: list[int]) -> None:
    """Each 100 rows as one multi-row INSERT, as the import's batch inserts them
    (store.insert_versions), through a RawCursor: psycopg would otherwise parse the statement
    at every execution."""
    import psycopg
    from pgvector.psycopg import register_vector
    from psycopg.types.json import Jsonb

    def statement(count: int) -> str:
        values = ", ".join(
            "(" + ", ".join(f"${row * _FLOOR_COLUMNS + column + 1}" for column in range(_FLOOR_COLUMNS)) + ")"
            for row in range(count)
        )
        return f"""INSERT INTO memory_versions (memory_id, tenant_id, content, topic, metadata, embedding,
                       valid_from, recorded_at, user_id) VALUES {values}"""

    statements: dict[int, str] = {}
    with psycopg.connect(url) as conn:
        register_vector(conn)
        for i in starts:
            now = datetime.now(UTC)
            batch = rows[i : i + 100]
            query = statements.setdefault(len(batch), statement(len(batch)))
            with conn.transaction(), psycopg.RawCursor(conn) as cur:
                cur.execute(
                    query,
                    [
                        value
                        for j, r in enumerate(batch)
                        for value in (
                            uuid.uuid4(),
                            tenant_id,
                            r["content"],
                            r["topic"],
                            Jsonb(r["metadata"]),
                            vectors[i + j],
                            r["valid_from"],
                            now,
                            r["user_id"],
                        )
                    ],
                )


def _wait_for_calibration(url: str, tenant_id: uuid.UUID, timeout_s: float = 600.0) -> float:
    """Seconds until the maintenance job has calibrated the import's own index (it does so
    right after the build, which the import waits for; the calibration it does not): the export
    is then timed alone, not beside the calibration's queries. 0 when the tenant has no own index."""
    import psycopg

    started = time.perf_counter()
    with psycopg.connect(url, autocommit=True) as conn:
        while time.perf_counter() - started < timeout_s:
            row = conn.execute(
                "SELECT calibrated_index IS NOT NULL FROM tenant_own_indexes WHERE tenant_id = %s",
                (tenant_id,),
            ).fetchone()
            if row is None or row[0]:
                break
            time.sleep(0.5)
    return time.perf_counter() - started


def sql_level2_floor(url: str, path: Path, n: int, after: int = 0) -> float:
    """The first `n` rows (or the `n` after the first `after`, which are inserted first and
    not timed, so the scopes already hold them), each after the top-3 query of its scope
    (current memories, through the shared index), 100 a transaction, with plain SQL: seconds."""
    import psycopg
    from pgvector.psycopg import register_vector
    from psycopg.types.json import Jsonb

    from aurra_core.access import keys

    every = [json.loads(line) for _, line in zip(range(after + n), path.open(), strict=False)]
    with psycopg.connect(url, autocommit=True) as conn:
        caller, _ = keys.create_key(conn, f"floor-l2-{uuid.uuid4().hex[:8]}")
    if after:
        before = every[:after]
        _insert_rows(url, caller.tenant_id, before, _embeddings(before), list(range(0, after, 100)))
    rows = every[after:]
    vectors = _embeddings(rows)
    started = time.perf_counter()
    with psycopg.connect(url) as conn:
        register_vector(conn)
        for i in range(0, len(rows), 100):
            with conn.transaction(), conn.cursor() as cur:
                for j, r in enumerate(rows[i : i + 100]):
                    vector = vectors[i + j]
                    cur.execute(
                        """SELECT memory_id, content FROM memory_versions
                           WHERE tenant_id = %s AND user_id = %s AND agent_id IS NULL
                             AND recorded_to IS NULL AND valid_to IS NULL
                           ORDER BY embedding <=> %s LIMIT 3""",
                        (caller.tenant_id, r["user_id"], vector),
                    )
                    cur.fetchall()
                    cur.execute(
                        """INSERT INTO memory_versions (memory_id, tenant_id, content, topic, metadata,
                               embedding, valid_from, recorded_at, user_id)
                           VALUES (%s, %s, %s, %s, %s, %s, %s, clock_timestamp(), %s)""",
                        (
                            uuid.uuid4(),
                            caller.tenant_id,
                            r["content"],
                            r["topic"],
                            Jsonb(r["metadata"]),
                            vector,
                            r["valid_from"],
                            r["user_id"],
                        ),
                    )
    return time.perf_counter() - started


def sql_export_floor(url: str, tenant_id: uuid.UUID, out: Path) -> tuple[float, int]:
    """The tenant's versions read with one SELECT, each written as a JSON line: seconds, rows."""
    import psycopg
    from psycopg.rows import dict_row

    started = time.perf_counter()
    n = 0
    with (
        psycopg.connect(url) as conn,
        conn.cursor(name="floor", row_factory=dict_row) as cur,
        out.open("w") as f,
    ):
        cur.itersize = 5000
        cur.execute(
            """SELECT memory_id, content, topic, metadata, valid_from, valid_to, superseded_by, supersedes,
                      recorded_at, recorded_to, user_id, agent_id, superseded_event_id
               FROM memory_versions WHERE tenant_id = %s ORDER BY version_id""",
            (tenant_id,),
        )
        for row in cur:
            f.write(json.dumps({"kind": "memory_version", **row}, default=str) + "\n")
            n += 1
    return time.perf_counter() - started, n


def import_with_level2(
    url: str, base_url: str, floor_url: str, source: Path, n: int, work: Path, workers: int
) -> dict[str, float]:
    """The first `n` facts of `source` with --auto-supersede into a fresh database, beside its
    floor in another."""
    import psycopg

    from aurra import Aurra
    from aurra_core.access import keys
    from aurra_local import portability

    part = work / "facts-level2.jsonl"
    with source.open() as f, part.open("w") as out:
        out.writelines(line for _, line in zip(range(n), f, strict=False))
    with psycopg.connect(url, autocommit=True) as conn:
        _, raw = keys.create_key(conn, "bench-import-level2")
    log(f"import: {n:,} facts, Level 2 on (rules classifier), {workers} lanes of scopes in flight")
    with Aurra(api_key=raw, base_url=base_url, timeout=300) as client:
        report = portability.import_file(
            client, part, fmt="jsonl", auto_supersede=True, workers=workers, progress=None
        )
    rate = report.facts / report.seconds
    floor_s = sql_level2_floor(floor_url, part, n)
    log(
        f"  aurra import --auto-supersede: {report.seconds:.1f} s, {rate:,.0f} facts/s "
        f"(target >= {LEVEL2_IMPORT_TARGET_FACTS_PER_S:,.0f}); plain SQL floor (top-3 query + insert): "
        f"{floor_s:.1f} s, {n / floor_s:,.0f} rows/s; {report.duplicates:,} duplicates"
    )
    return {
        "level2_facts": n,
        "level2_import_s": report.seconds,
        "level2_import_facts_per_s": rate,
        "level2_import_floor_s": floor_s,
        "level2_duplicates": report.duplicates,
    }


def level2_off(cluster: Cluster, source: Path, work: Path, args: argparse.Namespace) -> dict[str, Any]:
    """1 and 3: the import with Level 2 off and the export, each beside its floors."""
    import psycopg

    from aurra import Aurra
    from aurra_core.access import keys
    from aurra_local import portability

    # Every import and every floor goes into a database of its own, so each inserts into
    # an index that starts as empty as the others'.
    url = cluster.create("portability")
    server = DevServerHandle(url, work / "dev")
    try:
        base_url = f"http://{server.host}:{server.port}"
        with psycopg.connect(url, autocommit=True) as conn:
            caller, raw = keys.create_key(conn, "bench-import")
        log(f"import: {args.facts:,} facts, {args.workers} batches in flight, Level 2 off")
        with Aurra(api_key=raw, base_url=base_url, timeout=300) as client:
            report = portability.import_file(client, source, fmt="jsonl", workers=args.workers, progress=None)
            import_rate = report.facts / report.seconds
            calibration_s = _wait_for_calibration(url, caller.tenant_id)
            out = work / "export.ndjson"
            started = time.perf_counter()
            records = portability.export_to_file(client, out)
            export_s = time.perf_counter() - started
        floor_export_s, floor_rows = sql_export_floor(url, caller.tenant_id, work / "floor.ndjson")
    finally:
        server.stop()
    floor_inserts_s, floor_build_s = sql_insert_floor(cluster.create("floor"), source)
    floor_s = floor_inserts_s + floor_build_s
    cluster.drop("floor")
    parallel_inserts_s, parallel_build_s = sql_insert_floor(
        cluster.create("floor-parallel"), source, connections=args.workers
    )
    parallel_floor_s = parallel_inserts_s + parallel_build_s
    cluster.drop("floor-parallel")
    shared_floor_s = 0.0
    if args.shared_floor:
        shared_floor_s, _ = sql_insert_floor(
            cluster.create("floor-shared"), source, connections=args.workers, deferred=False
        )
        cluster.drop("floor-shared")
    log(
        f"  aurra import: {report.seconds:.1f} s ({report.index_seconds:.1f} s of it the index, "
        f"{report.indexing}), {import_rate:,.0f} facts/s (target >= {IMPORT_TARGET_FACTS_PER_S:,.0f}); "
        f"plain SQL floor, the same rows and build: {floor_s:.1f} s ({floor_build_s:.1f} s the build), "
        f"{args.facts / floor_s:,.0f} rows/s; over {args.workers} connections at once: "
        f"{parallel_floor_s:.1f} s ({parallel_build_s:.1f} s the build), {args.facts / parallel_floor_s:,.0f} rows/s"
        + (
            f"; into the shared index, {args.workers} connections: {shared_floor_s:.1f} s, "
            f"{args.facts / shared_floor_s:,.0f} rows/s"
            if shared_floor_s
            else ""
        )
    )
    log(
        f"  aurra export (after the index's calibration, {calibration_s:.1f} s): "
        f"{records:,} records in {export_s:.1f} s (target < {EXPORT_TARGET_S:.0f} s); "
        f"plain SQL floor: {floor_rows:,} rows in {floor_export_s:.1f} s"
    )
    cluster.drop("portability")
    return {
        "import_s": report.seconds,
        "import_facts_per_s": import_rate,
        "import_indexing": report.indexing,
        "import_index_s": report.index_seconds,
        "import_floor_s": floor_s,
        "import_floor_build_s": floor_build_s,
        "import_parallel_floor_s": parallel_floor_s,
        "import_parallel_floor_build_s": parallel_build_s,
        "import_shared_index_floor_s": shared_floor_s,
        "export_after_calibration_s": calibration_s,
        "export_records": records,
        "export_s": export_s,
        "export_floor_s": floor_export_s,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--facts", type=int, default=100_000)
    parser.add_argument("--workers", type=int, default=4, help="batches in flight during the import")
    parser.add_argument(
        "--level2-facts", type=int, help="facts of the Level 2 import (default: --facts; 0: skip it)"
    )
    parser.add_argument(
        "--level2-only", action="store_true", help="the Level 2 import alone (2), without 1 and 3"
    )
    parser.add_argument(
        "--shared-buffers", help="the cluster's shared_buffers (default: the embedded server's)"
    )
    parser.add_argument("--out", type=Path, help="the results as JSON")
    parser.add_argument(
        "--shared-floor",
        action="store_true",
        help="also the floor of the rows inserted into the shared index (as before imports deferred it)",
    )
    args = parser.parse_args()
    local_environment()
    cluster = Cluster(shared_buffers=args.shared_buffers)
    work = Path(tempfile.mkdtemp(prefix="aurra-bench-portability-"))
    try:
        source = work / "facts.jsonl"
        facts_file(source, args.facts)
        results: dict[str, Any] = {
            "facts": args.facts,
            "workers": args.workers,
            "cpus": os.cpu_count(),
            **({} if args.level2_only else level2_off(cluster, source, work, args)),
        }
        level2_n = args.facts if args.level2_facts is None else args.level2_facts
        if level2_n:
            level2_url = cluster.create("level2")
            server = DevServerHandle(level2_url, work / "dev-level2")
            try:
                results |= import_with_level2(
                    level2_url,
                    f"http://{server.host}:{server.port}",
                    cluster.create("level2-floor"),
                    source,
                    level2_n,
                    work,
                    args.workers,
                )
            finally:
                server.stop()
        results |= {"loadavg": os.getloadavg(), **cluster.facts()}
        if args.out:
            args.out.write_text(json.dumps(results, indent=2) + "\n")
        log(json.dumps(results))
    finally:
        cluster.stop()


if __name__ == "__main__":
    main()
