"""Where a write's insert goes in a large tenant, and what its own index's build costs.

One tenant of `--size` memories (the suite's generator and loader), listed as the maintenance
job lists a large tenant, its own index built by tenant_indexes.build_index (the configured
m / ef_construction, half precision, CONCURRENTLY) once per `--build-mem` value of
maintenance_work_mem: build seconds, pgvector's NOTICEs (when the graph outgrows the memory it
goes on building on disk), the index's size, and recall@3 at `--ef` (same parameters, so recall
must not move). Then the floor's insert (the INSERT a write makes, committed one a transaction)
in rounds, each variant after a CHECKPOINT: per insert its time, WAL bytes and full-page images
(pg_stat_wal, the only writer in this server), early (the first `--early` inserts after the
checkpoint) and late; and `EXPLAIN (ANALYZE, BUFFERS, WAL)` of a few inserts. Variants:
`fpw` (the server as is), `pglz` (wal_compression = pglz: this server has no lz4), `nofpw` (full_page_writes off: what
Aurora's storage does, which writes no full-page images; a reference, not a setting to use on
a server with PostgreSQL's own storage).

    python -m bench.experiments.write_anatomy --size 300000 --build-mem 24MB,1GB --inserts 200 --rounds 2 \
                                  [--shared-buffers 4GB] [--parallel-workers 0]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the suite's modules

from common import Cluster, build_store, local_environment, log, new_fact_for

INSERT = """INSERT INTO memory_versions (memory_id, tenant_id, content, topic, metadata,
                embedding, valid_from, recorded_at)
            VALUES (%s, %s, %s, 'general', '{}', %s, %s, %s)"""


def lsn(conn) -> int:
    return int(conn.execute("SELECT pg_current_wal_insert_lsn() - '0/0'::pg_lsn").fetchone()[0])


def wal_totals(conn) -> tuple[int, int]:
    """(records, full-page images) this server wrote so far: the backend's counters are flushed
    to pg_stat_wal at most once a second unless forced."""
    conn.execute("SELECT pg_stat_force_next_flush()")
    conn.commit()
    conn.execute("SELECT 1")
    conn.commit()
    return tuple(conn.execute("SELECT wal_records, wal_fpi FROM pg_stat_wal").fetchone())


def inserts(conn, store_, tenant_id, how_many: int, rng: random.Random) -> dict:
    """`how_many` committed inserts: their time and WAL bytes each, their records and
    full-page images together."""
    from datetime import UTC, datetime

    from aurra_core.embedders import LexicalEmbedder
    from aurra_core.storage.ids import new_id

    embedder, ms, wal_bytes = LexicalEmbedder(384), [], []
    records0, fpi0 = wal_totals(conn)
    for _ in range(how_many):
        content = new_fact_for(store_, tenant_id, rng)
        vector, now = embedder.embed(content), datetime.now(UTC)
        before = lsn(conn)
        conn.commit()
        started = time.perf_counter()
        with conn.transaction():
            conn.execute(INSERT, (new_id(), tenant_id, content, vector, now, now))
        ms.append((time.perf_counter() - started) * 1000)
        wal_bytes.append(lsn(conn) - before)
        conn.commit()
    records1, fpi1 = wal_totals(conn)
    return {
        "n": how_many,
        "p50_ms": round(statistics.median(ms), 2),
        "mean_ms": round(statistics.fmean(ms), 2),
        "wal_kb": round(statistics.fmean(wal_bytes) / 1024, 1),
        "fpi": round((fpi1 - fpi0) / how_many, 1),
        "records": round((records1 - records0) / how_many, 1),
    }


def explain(conn, store_, tenant_id, rng: random.Random, how_many: int) -> list[dict]:
    from datetime import UTC, datetime

    from aurra_core.embedders import LexicalEmbedder
    from aurra_core.storage.ids import new_id

    embedder, out = LexicalEmbedder(384), []
    for _ in range(how_many):
        content = new_fact_for(store_, tenant_id, rng)
        vector, now = embedder.embed(content), datetime.now(UTC)
        with conn.transaction():
            plan = conn.execute(
                "EXPLAIN (ANALYZE, BUFFERS, WAL, FORMAT JSON) " + INSERT,
                (new_id(), tenant_id, content, vector, now, now),
            ).fetchone()[0][0]
        node = plan["Plan"]
        out.append(
            {
                "execution_ms": plan["Execution Time"],
                "triggers": {t["Trigger Name"]: round(t["Time"], 3) for t in plan.get("Triggers", [])},
                **{
                    k: node.get(k)
                    for k in (
                        "Shared Hit Blocks",
                        "Shared Read Blocks",
                        "Shared Dirtied Blocks",
                        "Shared Written Blocks",
                        "WAL Records",
                        "WAL FPI",
                        "WAL Bytes",
                    )
                },
            }
        )
    return out


def set_server(url: str, variant: str) -> None:
    import psycopg

    wanted = {
        "fpw": ("on", "off"),
        "pglz": ("on", "pglz"),
        "nofpw": ("off", "off"),
    }[variant]
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"ALTER SYSTEM SET full_page_writes = {wanted[0]}")
        conn.execute(f"ALTER SYSTEM SET wal_compression = {wanted[1]}")
        conn.execute("SELECT pg_reload_conf()")
        time.sleep(0.5)
        conn.execute("CHECKPOINT")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=300_000)
    parser.add_argument("--build-mem", default="1GB", help="maintenance_work_mem of each build, in turn")
    parser.add_argument("--parallel-workers", type=int, default=0, help="max_parallel_maintenance_workers")
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--ef", default="40,150")
    parser.add_argument("--inserts", type=int, default=200)
    parser.add_argument("--early", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--variants", default="fpw,pglz,nofpw")
    parser.add_argument("--explain", type=int, default=5)
    parser.add_argument("--shared-buffers")
    parser.add_argument("--out")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    local_environment()
    import psycopg
    from candidate_search import prepare_queries
    from hnsw_build_params import measure
    from pgvector.psycopg import register_vector
    from psycopg import sql

    from aurra_core.embedders import LexicalEmbedder
    from aurra_core.runtime.config import get_config
    from aurra_core.storage import tenant_indexes

    rng = random.Random(args.seed)
    config = get_config()
    results: dict = {"size": args.size, "builds": [], "inserts": {}, "explain": {}}
    cluster = Cluster(shared_buffers=args.shared_buffers)
    try:
        results["machine"] = cluster.facts()
        started = time.perf_counter()
        store_ = build_store(cluster, "one", args.size, rng, build_own_indexes=False)
        tenant_id = store_.tenants[0][0]
        log(
            f"# 1 tenant x {args.size:,}: loaded {store_.load_s:.0f} s ({time.perf_counter() - started:.0f} s)"
        )
        with psycopg.connect(store_.url) as conn:
            register_vector(conn)
            prepared = prepare_queries(
                conn, store_.tenants, LexicalEmbedder(384), rng, args.queries, store_.names_of
            )
        for mem in args.build_mem.split(","):
            notices: list[str] = []
            with psycopg.connect(store_.url, autocommit=True) as conn:
                conn.add_notice_handler(lambda d, kept=notices: kept.append(d.message_primary))
                conn.execute(
                    sql.SQL("DROP INDEX IF EXISTS {}").format(
                        sql.Identifier(tenant_indexes.index_name(tenant_id))
                    )
                )
                conn.execute("CHECKPOINT")
                conn.execute(sql.SQL("SET maintenance_work_mem = {}").format(sql.Literal(mem)))
                conn.execute(
                    sql.SQL("SET max_parallel_maintenance_workers = {}").format(
                        sql.Literal(args.parallel_workers)
                    )
                )
                started = time.perf_counter()
                tenant_indexes.build_index(
                    conn,
                    tenant_id,
                    384,
                    m=config.tenant_index_m,
                    ef_construction=config.tenant_index_ef_construction,
                )
                build_s = time.perf_counter() - started
                size = conn.execute(
                    "SELECT pg_relation_size(%s)", (tenant_indexes.index_name(tenant_id),)
                ).fetchone()[0]
            recall = measure(store_.url, prepared, [int(x) for x in args.ef.split(",")])
            row = {
                "maintenance_work_mem": mem,
                "parallel_workers": args.parallel_workers,
                "build_s": round(build_s, 1),
                "index_mb": round(size / 2**20),
                "notices": notices,
                "recall": {ef: round(r["recall@3"], 3) for ef, r in recall.items()},
            }
            results["builds"].append(row)
            log(json.dumps(row))
        with psycopg.connect(store_.url, autocommit=True) as conn:
            conn.execute("VACUUM ANALYZE memory_versions")
        conn = psycopg.connect(store_.url)
        register_vector(conn)
        try:
            inserts(conn, store_, tenant_id, 20, rng)  # warm the connection and the graph's top
            for round_ in range(args.rounds):
                for variant in args.variants.split(","):
                    set_server(store_.url, variant)
                    early = inserts(conn, store_, tenant_id, args.early, rng)
                    late = inserts(conn, store_, tenant_id, args.inserts - args.early, rng)
                    results["inserts"].setdefault(variant, []).append({"early": early, "late": late})
                    log(f"round {round_ + 1} {variant:6} early {json.dumps(early)}")
                    log(f"round {round_ + 1} {variant:6} late  {json.dumps(late)}")
            for variant in ("fpw", "nofpw"):
                set_server(store_.url, variant)
                results["explain"][variant] = explain(conn, store_, tenant_id, rng, args.explain)
                for e in results["explain"][variant]:
                    log(f"explain {variant}: {json.dumps(e)}")
            set_server(store_.url, "fpw")
        finally:
            conn.close()
    finally:
        cluster.stop()
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
