"""What the shared HNSW index's build parameters buy in recall at a given size: one tenant of
`--size` memories (the suite's generator and loader), the same queries and exact ground truth,
the service's own search (store.find_candidates, strategy "hnsw") at several ef_search, for the
migration's index (m 16, ef_construction 64) and then each variant rebuilt in its place. A
graph over one tenant's rows is what that tenant's own index is, so the variants choose the
own indexes' build parameters (settings `tenant_index_m`, `tenant_index_ef_construction`) and
the candidate search's `candidate_ef_search`.

    python bench/hnsw_build_params.py --size 1000000 --queries 40 --variants 16:64,32:128 [--inserts 300]
                                      [--shared-buffers 4GB]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import Cluster, build_store, create_shared_index, local_environment, log


def measure(url: str, prepared: list, ef_values: list[int]) -> dict:
    import psycopg
    from pgvector.psycopg import register_vector

    from aurra_core import store

    out = {}
    with psycopg.connect(url) as conn:
        register_vector(conn)
        for ef in ef_values:
            latencies, recalls = [], []
            for tenant_id, q, truth in prepared:
                with conn.transaction():
                    started = time.perf_counter()
                    found = store.find_candidates(
                        conn,
                        tenant_id,
                        q,
                        scope=store.UNSCOPED,
                        excluded_topics=[],
                        limit=3,
                        min_similarity=-1,
                        strategy="hnsw",
                        ef_search=ef,
                    )
                    latencies.append((time.perf_counter() - started) * 1000)
                bar = min(truth) - 1e-6
                recalls.append(min(sum(1 for _, s in found if s >= bar), len(truth)) / len(truth))
            out[ef] = {
                "p50_ms": statistics.median(latencies),
                "recall@3": statistics.mean(recalls),
                "queries_missing_one": sum(1 for r in recalls if r < 1),
            }
    return out


def time_inserts(url: str, tenant_id, names: list[str], how_many: int, rng: random.Random) -> dict:
    """What one memory's insert costs with this index (the index entry is most of it), each
    rolled back so the store and the queries' ground truth stay as they were."""
    from datetime import UTC, datetime
    from uuid import uuid4

    import psycopg
    from candidate_search import fact
    from pgvector.psycopg import register_vector

    from aurra_core import store
    from aurra_core.embeddings import LexicalEmbedder

    embedder, latencies = LexicalEmbedder(384), []
    with psycopg.connect(url) as conn:
        register_vector(conn)
        for _ in range(how_many):
            text = fact(rng, rng.choice(names))
            vector, now = embedder.embed(text), datetime.now(UTC)
            with conn.transaction(force_rollback=True):
                started = time.perf_counter()
                store.insert_version(
                    conn,
                    memory_id=uuid4(),
                    tenant_id=tenant_id,
                    content=text,
                    topic="general",
                    metadata={},
                    embedding=vector,
                    valid_from=now,
                    valid_to=None,
                    superseded_by=None,
                    supersedes=None,
                    recorded_at=now,
                )
                latencies.append((time.perf_counter() - started) * 1000)
    latencies.sort()
    return {"p50_ms": statistics.median(latencies), "p99_ms": latencies[int(0.99 * (len(latencies) - 1))]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--variants", default="16:64,24:128", help="m:ef_construction, the first as migrated")
    parser.add_argument("--ef", default="100,200,400")
    parser.add_argument("--inserts", type=int, default=0, help="also time this many inserts into each index")
    parser.add_argument("--shared-buffers")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    local_environment()
    import psycopg
    from candidate_search import prepare_queries

    from aurra_core.embeddings import LexicalEmbedder
    from aurra_core.tenant_indexes import SHARED_INDEX

    rng = random.Random(args.seed)
    ef_values = [int(x) for x in args.ef.split(",")]
    cluster = Cluster(shared_buffers=args.shared_buffers)
    try:
        log(
            f"# HNSW build parameters: 1 tenant x {args.size:,}, {args.queries} queries, ef_search {ef_values}"
        )
        store_ = build_store(cluster, "one", args.size, rng, tenant_indexes=False)
        with psycopg.connect(store_.url) as conn:
            from pgvector.psycopg import register_vector

            register_vector(conn)
            started = time.perf_counter()
            prepared = prepare_queries(
                conn, store_.tenants, LexicalEmbedder(384), rng, args.queries, store_.names_of
            )
            log(f"ground truth (exact scans): {time.perf_counter() - started:.0f} s")
        for i, variant in enumerate(args.variants.split(",")):
            m, efc = (int(x) for x in variant.split(":"))
            build_s = store_.index_s
            if i:
                with psycopg.connect(store_.url, autocommit=True) as conn:
                    conn.execute(f"DROP INDEX {SHARED_INDEX}")
                    conn.execute("SET maintenance_work_mem = '4GB'")
                    started = time.perf_counter()
                    create_shared_index(conn, m, efc)
                    build_s = time.perf_counter() - started
            with psycopg.connect(store_.url, autocommit=True) as conn:
                size = conn.execute(
                    "SELECT pg_size_pretty(pg_relation_size(%s))", (SHARED_INDEX,)
                ).fetchone()[0]
            if args.inserts:
                tenant_id = store_.tenants[0][0]
                r = time_inserts(store_.url, tenant_id, store_.names_of[tenant_id], args.inserts, rng)
                log(
                    f"  m {m:>2} ef_construction {efc:>3}: {args.inserts} inserts, p50 {r['p50_ms']:.2f} ms, "
                    f"p99 {r['p99_ms']:.2f} ms"
                )
            for ef, r in measure(store_.url, prepared, ef_values).items():
                log(
                    f"  m {m:>2} ef_construction {efc:>3} (build {build_s:6.0f} s, {size}): ef_search {ef:>4}  p50 "
                    f"{r['p50_ms']:6.2f} ms  recall@3 {r['recall@3']:.3f}  ({r['queries_missing_one']} queries missed one)"
                )
    finally:
        cluster.stop()


if __name__ == "__main__":
    main()
