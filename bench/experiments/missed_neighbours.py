"""What an own index's search misses, and why: rows written after the build, or the walk.

    python -m bench.experiments.missed_neighbours --size 100000 --writes 1600 --queries 300 --ef 60,150,400

Builds one tenant of `--size` memories as `bench/run.py` does (its own HNSW index built and
calibrated by the maintenance job), writes `--writes` new facts through the write path (Level 2
off, as `bench/run.py`'s first pass leaves the store for its second), then draws `--queries` new
facts about the tenant's people. For each ef_search: recall@3 of the service's vector search
(tie-aware, against an exact scan), how many queries missed a neighbour, how many of their true
top 3 held a row written after the build and how many misses were such a row; then, for each
query the vector search misses, whether the write path's own candidate list (the vector list
fused with the lists of the fact's topic and kinds, `store.find_candidates` with `text`) still
has the missed memory in its top 3. Prints every miss: the similarity missed and what the walk returned.
"""

from __future__ import annotations

import argparse
import random

from common import Cluster, build_one_tenant, local_environment, make_keys, new_fact_for, recall_at_3, top3
from embedders import machine


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--writes", type=int, default=1600)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--ef", default="60,150,400", help="comma-separated ef_search values")
    parser.add_argument("--shared-buffers", default="2GB")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    local_environment()

    import psycopg
    import write_path
    from pgvector.psycopg import register_vector

    from aurra_core.embedders import LexicalEmbedder
    from aurra_core.storage import store as memory_store

    print(machine(), flush=True)
    rng = random.Random(args.seed)
    cluster = Cluster(shared_buffers=args.shared_buffers)
    try:
        store = build_one_tenant(cluster, args.size, rng)
        make_keys(store, 1, rng)
        with psycopg.connect(store.url) as conn:
            built_at = conn.execute("SELECT max(recorded_at) FROM memory_versions").fetchone()[0]
        written = write_path.run_direct(store, args.writes, False, rng, warmup=0)
        print(f"wrote {args.writes} facts (Level 2 off), p50 {written['p50_ms']:.2f} ms", flush=True)

        embedder = LexicalEmbedder(384)
        tenant_id = store.tenants[0][0]
        texts = [new_fact_for(store, tenant_id, rng) for _ in range(args.queries)]
        with psycopg.connect(store.url) as conn:
            register_vector(conn)
            queries = []
            for text in texts:
                q = embedder.embed(text)
                with conn.transaction():
                    exact = top3(conn, tenant_id, q, "exact")
                queries.append((text, q, exact))
            # Whose true top 3 holds a row written after the build: the same at every ef_search.
            fresh_truth = sum(any(row.recorded_at > built_at for row, _ in exact) for _, _, exact in queries)
            for ef in (int(x) for x in args.ef.split(",")):
                recalls, missed, fresh_missed, rescued = [], 0, 0, 0
                for text, q, exact in queries:
                    truth = [s for _, s in exact]
                    with conn.transaction():
                        got = top3(conn, tenant_id, q, "auto", ef_search=ef)
                    similarities = [s for _, s in got]
                    recall = recall_at_3(similarities, truth)
                    recalls.append(recall)
                    if recall == 1:
                        continue
                    missed += 1
                    lost = [(row, s) for row, s in exact if not any(g >= s - 1e-6 for g in similarities)]
                    fresh_missed += any(row.recorded_at > built_at for row, _ in lost)
                    with conn.transaction():
                        fused = memory_store.find_candidates(
                            conn,
                            tenant_id,
                            q,
                            text=text,
                            topic="general",
                            scope=memory_store.UNSCOPED,
                            excluded_topics=[],
                            limit=3,
                            min_similarity=-1,
                            ef_search=ef,
                        )
                    fused_ids = {row.memory_id for row, _ in fused}
                    found = all(row.memory_id in fused_ids for row, _ in lost)
                    rescued += found
                    for row, s in lost:
                        print(
                            f"  ef_search {ef}: missed {s:.4f} {row.content[:48]!r} "
                            f"(written after the build: {row.recorded_at > built_at}); the walk returned "
                            f"{[round(x, 4) for x in similarities]}; in the write path's fused top 3: {found}"
                        )
                print(
                    f"ef_search {ef}: recall@3 {sum(recalls) / len(recalls):.4f}; queries missing a neighbour "
                    f"{missed} of {len(queries)}; queries whose true top 3 holds a row written after the build "
                    f"{fresh_truth}; misses of such a row {fresh_missed}; misses the fused list still finds "
                    f"{rescued} of {missed}",
                    flush=True,
                )
    finally:
        cluster.stop()


if __name__ == "__main__":
    main()
