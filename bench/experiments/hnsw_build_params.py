"""What a tenant's own HNSW index buys in recall and costs per insert and search, by build
parameters and precision: one tenant of `--size` memories (the suite's generator and loader),
listed as the maintenance job lists a large tenant (its rows out of the shared index), the
same queries and exact ground truth, the service's own search (store.find_candidates,
strategy "hnsw", through tenant_indexes.route) at several ef_search, for each variant built in
turn as the tenant's own index. A variant is m:ef_construction[:precision]: "half" (the
default) is the service's index (tenant_indexes.build_index, halfvec), "full" the
full-precision kind it replaced (read by the service until the maintenance job replaces it).
The variants choose the settings `tenant_index_m`, `tenant_index_ef_construction` and
`candidate_ef_search`. `--inserts` time inserts with the build's own ef_construction (each
variant is built here, not by the maintenance job); what a lower insert ef_construction
(`tenant_index_insert_ef_construction`) does is bench/experiments/hnsw_insert_ef.py's.

    python -m bench.experiments.hnsw_build_params --size 1000000 --queries 200 --variants 32:128,32:128:full \
                                      [--ef 40,100,200] [--inserts 300] [--shared-buffers 4GB] \
                                      [--parallel-workers 1]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the suite's modules

from common import Cluster, build_store, insert_memory, local_environment, log, recall_at_3, top3


def measure(url: str, prepared: list, ef_values: list[int]) -> dict:
    import psycopg
    from pgvector.psycopg import register_vector

    out = {}
    with psycopg.connect(url) as conn:
        register_vector(conn)
        for ef in ef_values:
            latencies, recalls = [], []
            for tenant_id, q, truth in prepared:
                with conn.transaction():
                    started = time.perf_counter()
                    found = top3(conn, tenant_id, q, "hnsw", ef_search=ef)
                    latencies.append((time.perf_counter() - started) * 1000)
                recalls.append(recall_at_3([s for _, s in found], truth))
            out[ef] = {
                "p50_ms": statistics.median(latencies),
                "recall@3": statistics.mean(recalls),
                "queries_missing_one": sum(1 for r in recalls if r < 1),
            }
    return out


def time_inserts(url: str, tenant_id, names: list[str], how_many: int, rng: random.Random) -> dict:
    """What one memory's insert costs with this index (the index entry is most of it), each
    rolled back so the store and the queries' ground truth stay as they were."""

    import psycopg
    from candidate_search import fact
    from pgvector.psycopg import register_vector

    from aurra_core.embedders import LexicalEmbedder

    embedder, latencies = LexicalEmbedder(384), []
    with psycopg.connect(url) as conn:
        register_vector(conn)
        for _ in range(how_many):
            text = fact(rng, rng.choice(names))
            vector = embedder.embed(text)
            with conn.transaction(force_rollback=True):
                started = time.perf_counter()
                insert_memory(conn, tenant_id, text, vector)
                latencies.append((time.perf_counter() - started) * 1000)
    latencies.sort()
    return {"p50_ms": statistics.median(latencies), "p99_ms": latencies[int(0.99 * (len(latencies) - 1))]}


def build_variant(
    url: str, tenant_id, m: int, efc: int, precision: str, parallel_workers: int
) -> tuple[float, str]:
    """Drop the tenant's own indexes and build this one as the maintenance job would
    (CONCURRENTLY); its build seconds and size."""
    import psycopg
    from psycopg import sql

    from aurra_core.storage import tenant_indexes

    with psycopg.connect(url, autocommit=True) as conn:
        for name in (
            tenant_indexes.index_name(tenant_id),
            tenant_indexes.full_precision_index_name(tenant_id),
        ):
            conn.execute(sql.SQL("DROP INDEX IF EXISTS {}").format(sql.Identifier(name)))
        conn.execute("SET maintenance_work_mem = '4GB'")
        conn.execute(
            sql.SQL("SET max_parallel_maintenance_workers = {}").format(sql.Literal(parallel_workers))
        )
        started = time.perf_counter()
        if precision == "half":
            tenant_indexes.build_index(conn, tenant_id, 384, m=m, ef_construction=efc)
            name = tenant_indexes.index_name(tenant_id)
        else:  # the kind built before half precision
            name = tenant_indexes.full_precision_index_name(tenant_id)
            conn.execute(
                sql.SQL(
                    "CREATE INDEX CONCURRENTLY {} ON memory_versions USING hnsw ({} vector_cosine_ops) "
                    "WITH (m = {}, ef_construction = {}) "
                    "WHERE tenant_id = {} AND recorded_to IS NULL AND valid_to IS NULL"
                ).format(
                    sql.Identifier(name),
                    sql.SQL(tenant_indexes.full_precision_expression(384)),
                    sql.Literal(m),
                    sql.Literal(efc),
                    sql.Literal(tenant_id),
                )
            )
        build_s = time.perf_counter() - started
        size = conn.execute("SELECT pg_size_pretty(pg_relation_size(%s))", (name,)).fetchone()[0]
    return build_s, size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--variants", default="32:128,32:128:full", help="m:ef_construction[:half|full], ...")
    parser.add_argument("--ef", default="40,100,200")
    parser.add_argument("--inserts", type=int, default=0, help="also time this many inserts into each index")
    parser.add_argument("--shared-buffers")
    parser.add_argument("--parallel-workers", type=int, default=1, help="max_parallel_maintenance_workers")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    local_environment()
    import psycopg
    from candidate_search import prepare_queries
    from pgvector.psycopg import register_vector

    from aurra_core.embedders import LexicalEmbedder
    from aurra_core.storage import tenant_indexes

    rng = random.Random(args.seed)
    ef_values = [int(x) for x in args.ef.split(",")]
    variants = []
    for variant in args.variants.split(","):
        m, efc, *rest = variant.split(":")
        precision = rest[0] if rest else "half"
        if precision not in ("half", "full"):
            parser.error(f"precision {precision!r}: half or full")
        variants.append((int(m), int(efc), precision))
    cluster = Cluster(shared_buffers=args.shared_buffers)
    try:
        log(
            f"# HNSW own index: 1 tenant x {args.size:,}, {args.queries} queries, ef_search {ef_values}, "
            f"max_parallel_maintenance_workers {args.parallel_workers}"
        )
        store_ = build_store(cluster, "one", args.size, rng, build_own_indexes=False)
        tenant_id = store_.tenants[0][0]
        with psycopg.connect(store_.url) as conn:
            register_vector(conn)
            assert tenant_indexes.route(conn, tenant_id) == "exact"  # listed, no index yet
            started = time.perf_counter()
            prepared = prepare_queries(
                conn, store_.tenants, LexicalEmbedder(384), rng, args.queries, store_.names_of
            )
            log(f"ground truth (exact scans): {time.perf_counter() - started:.0f} s")
        for m, efc, precision in variants:
            label = f"m {m:>2} ef_construction {efc:>3} {precision}"
            build_s, size = build_variant(store_.url, tenant_id, m, efc, precision, args.parallel_workers)
            with psycopg.connect(store_.url) as conn:
                expected = "own" if precision == "half" else "own_full_precision"
                assert tenant_indexes.route(conn, tenant_id) == expected
            log(f"  {label}: build {build_s:.0f} s, {size}")
            if args.inserts:
                r = time_inserts(store_.url, tenant_id, store_.names_of[tenant_id], args.inserts, rng)
                log(f"  {label}: {args.inserts} inserts, p50 {r['p50_ms']:.2f} ms, p99 {r['p99_ms']:.2f} ms")
            for ef, r in measure(store_.url, prepared, ef_values).items():
                log(
                    f"  {label}: ef_search {ef:>4}  p50 {r['p50_ms']:6.2f} ms  recall@3 {r['recall@3']:.3f}  "
                    f"({r['queries_missing_one']} queries missed one)"
                )
    finally:
        cluster.stop()


if __name__ == "__main__":
    main()
