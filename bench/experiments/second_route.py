"""Whether a second, independent route to a large tenant's rows reaches what its HNSW walk misses.

    python -m bench.experiments.second_route --size 300000 --queries 600 --lists 300 --probes 1,3,10

A large tenant's candidate search walks its own HNSW graph; its misses are whole clusters of
similar facts the walk never reaches, at any ef_search (bench/experiments/missed_neighbours.py). Every list
the search fuses comes from that one walk, so none can rescue them. An IVFFlat index partitions
the same rows by their nearest centroid instead of linking them in a graph: a query scans the
`probes` lists whose centroids are nearest to it, so a cluster is reached whenever its centroid
is among them, however the graph is linked.

This builds one tenant of `--size` as `bench/run.py` does (its own HNSW index, calibrated by the
maintenance job), then a partial IVFFlat index over the same rows (`--lists`), and for
`--queries` new facts about the tenant's people measures recall@3 (tie-aware, against an exact
scan) of: the service's search (the own index at its calibrated ef_search); the IVFFlat index
alone at each `--probes`; and both, their results merged by similarity. It times the IVFFlat
query (p50, p99) and its build, and reports what the extra index costs a write (the inserts of
`--writes` facts with and without it). Measurements only: the service does not use this index.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from common import (
    Cluster,
    build_one_tenant,
    insert_memory,
    local_environment,
    new_fact_for,
    recall_at_3,
    top3,
)
from embedders import machine


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=300_000)
    parser.add_argument("--queries", type=int, default=600)
    parser.add_argument(
        "--lists", type=int, default=300, help="IVFFlat lists (pgvector suggests rows / 1000 up to 1M)"
    )
    parser.add_argument("--probes", default="1,3,10", help="comma-separated ivfflat.probes values")
    parser.add_argument(
        "--writes", type=int, default=300, help="inserts timed with and without the IVFFlat index"
    )
    parser.add_argument("--shared-buffers", default="4GB")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    local_environment()

    import psycopg
    from pgvector.psycopg import register_vector
    from psycopg import sql

    from aurra_core.embedders import LexicalEmbedder

    print(machine(), flush=True)
    rng = random.Random(args.seed)
    cluster = Cluster(shared_buffers=args.shared_buffers)
    try:
        store = build_one_tenant(cluster, args.size, rng)
        tenant_id = store.tenants[0][0]
        embedder = LexicalEmbedder(384)

        def timed_inserts(conn, count: int) -> float:
            took = []
            for _ in range(count):
                text = new_fact_for(store, tenant_id, rng)
                vector = embedder.embed(text)
                t = time.perf_counter()
                with conn.transaction():
                    insert_memory(conn, tenant_id, text, vector)
                took.append((time.perf_counter() - t) * 1000)
            return statistics.median(took)

        with psycopg.connect(store.url, autocommit=True) as conn:
            register_vector(conn)
            without = timed_inserts(conn, args.writes)
            conn.execute("SET maintenance_work_mem = '1GB'")
            t = time.perf_counter()
            conn.execute(
                sql.SQL(
                    "CREATE INDEX memory_versions_ivf ON memory_versions USING ivfflat "
                    "(embedding vector_cosine_ops) WITH (lists = {}) "
                    "WHERE tenant_id = {} AND recorded_to IS NULL AND valid_to IS NULL"
                ).format(sql.Literal(args.lists), sql.Literal(tenant_id))
            )
            built_s = time.perf_counter() - t
            conn.execute("ANALYZE memory_versions")
            with_ivf = timed_inserts(conn, args.writes)
            print(
                f"IVFFlat over the tenant's current rows, {args.lists} lists: built in {built_s:.1f} s; an insert "
                f"p50 {without:.2f} ms without it, {with_ivf:.2f} ms with it ({args.writes} each)",
                flush=True,
            )

        texts = [new_fact_for(store, tenant_id, rng) for _ in range(args.queries)]
        with psycopg.connect(store.url) as conn:
            register_vector(conn)
            rows = []
            for text in texts:
                q = embedder.embed(text)
                with conn.transaction():
                    exact = [s for _, s in top3(conn, tenant_id, q, "exact")]
                with conn.transaction():
                    walk = {row.memory_id: s for row, s in top3(conn, tenant_id, q, "auto")}
                rows.append((q, exact, walk))
            walk_recall = statistics.mean(recall_at_3(list(w.values()), e) for _, e, w in rows)
            walk_missed = sum(recall_at_3(list(w.values()), e) < 1 for _, e, w in rows)
            print(
                f"own HNSW index (calibrated): recall@3 {walk_recall:.4f}, {walk_missed} of {len(rows)} queries miss"
            )
            for probes in (int(p) for p in args.probes.split(",")):
                ivf_recalls, both_recalls, took, rescued = [], [], [], 0
                for q, exact, walk in rows:
                    with conn.transaction():
                        conn.execute(sql.SQL("SET LOCAL ivfflat.probes = {}").format(sql.Literal(probes)))
                        t = time.perf_counter()
                        found = conn.execute(
                            "SELECT memory_id, 1 - (embedding <=> %(q)s) FROM memory_versions "
                            "WHERE tenant_id = %(t)s AND recorded_to IS NULL AND valid_to IS NULL "
                            "ORDER BY embedding <=> %(q)s LIMIT 3",
                            {"q": q, "t": tenant_id},
                        ).fetchall()
                        took.append((time.perf_counter() - t) * 1000)
                    ivf = {memory_id: float(s) for memory_id, s in found}
                    ivf_recalls.append(recall_at_3(list(ivf.values()), exact))
                    # merged by memory: a row both found counts once
                    both = sorted({**walk, **ivf}.values(), reverse=True)[:3]
                    both_recalls.append(recall_at_3(both, exact))
                    rescued += recall_at_3(list(walk.values()), exact) < 1 and both_recalls[-1] == 1
                took.sort()
                print(
                    f"probes {probes}: IVFFlat alone recall@3 {statistics.mean(ivf_recalls):.4f}, "
                    f"p50 {took[len(took) // 2]:.2f} ms, p99 {took[int(len(took) * 0.99)]:.2f} ms; "
                    f"both merged recall@3 {statistics.mean(both_recalls):.4f}, "
                    f"misses of the walk rescued {rescued} of {walk_missed}",
                    flush=True,
                )
            with conn.transaction():
                plan = conn.execute(
                    "EXPLAIN SELECT 1 FROM memory_versions WHERE tenant_id = %(t)s AND recorded_to IS NULL "
                    "AND valid_to IS NULL ORDER BY embedding <=> %(q)s LIMIT 3",
                    {"q": rows[0][0], "t": tenant_id},
                ).fetchall()
            print("the IVFFlat query's plan:", " / ".join(line.strip()[:60] for (line,) in plan[:2]))
    finally:
        cluster.stop()


if __name__ == "__main__":
    main()
