"""Recall@3 of a tenant's own (half-precision) HNSW index against the re-rank margin and
ef_search, each on its own, and why the true top 3 are missed.

The own index orders its walk in half precision and re-ranks the walk's nearest `limit +
margin` at full precision (tenant_indexes.nearest_sql). For each store (the suite's generator
and loader, bench/common.build_store: the tenants' own indexes built by the maintenance job
with the configured parameters) and the same queries with their exact ground truth, every
setting (margin:ef_search) runs the service's statement through tenant_indexes.route, the
settings interleaved query by query in a shuffled order so a busy machine slows each alike.

The cause, per query, without the graph: the rank, in half precision (an exact scan of the
indexed expression), of the worst of the true top 3 (`half rank`): a walk that were exact in
half precision would need a margin of at least `half rank - 3` to re-rank it. And the same
exact half-precision order re-ranked with the service's margin (`exact half, margin N`).

    python -m bench.experiments.rerank_margin --stores 3x100000,10x10000 --queries 200 \\
        --settings 10:60,30:60,50:60,100:60,10:100,10:200 [--shared-buffers 2GB]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the suite's modules

from common import Cluster, build_store, local_environment, log

WHERE = "tenant_id = %(tenant_id)s AND recorded_to IS NULL AND valid_to IS NULL"


def hits(found: list[float], truth: list[float]) -> float:
    """Recall by similarity (ties with the true third count), as bench/candidate_search.py."""
    bar = min(truth) - 1e-6
    return min(sum(1 for s in found if s >= bar), len(truth)) / len(truth)


def own_search(conn, tenant_id, q, margin: int, ef_search: int) -> tuple[list[float], float]:
    """The service's statement through the tenant's own index: similarities and milliseconds
    (the route's round trip, which sets ef_search, and the search)."""
    from aurra_core.storage import tenant_indexes

    with conn.transaction():
        started = time.perf_counter()
        route = tenant_indexes.route(conn, tenant_id, ef_search=ef_search)
        assert route == "own", route
        sql = tenant_indexes.nearest_sql(route, 384, "memory_id", WHERE, margin=margin)
        rows = conn.execute(sql, {"tenant_id": tenant_id, "q": q, "limit": 3}, prepare=False).fetchall()
        elapsed = (time.perf_counter() - started) * 1000
    return [1.0 - float(r[-1]) for r in rows], elapsed


def half_precision_facts(conn, tenant_id, q, truth: list[float], margin: int) -> dict:
    """Without the graph: the half-precision rank of the worst true top-3 row, how many rows lie
    within that row's half-precision distance's rounding of the true third, and the recall of
    the exact half-precision order re-ranked with `margin`."""
    from aurra_core.storage.tenant_indexes import indexed_expression

    key = indexed_expression(384)
    bar = min(truth) - 1e-6
    with conn.transaction():
        conn.execute("SET LOCAL enable_indexscan = off")  # an exact scan of the indexed expression
        rows = conn.execute(
            f"""SELECT 1 - (embedding <=> %(q)s), {key} <=> %(q)s::halfvec(384) FROM memory_versions
                WHERE {WHERE}""",
            {"tenant_id": tenant_id, "q": q},
        ).fetchall()
    by_half = sorted(rows, key=lambda r: r[1])
    # The true top 3 by similarity (ties at the third all count): the worst half-precision
    # distance among the three best of them.
    true_rows = sorted((r for r in rows if r[0] >= bar), key=lambda r: r[1])[:3]
    worst_half = max(r[1] for r in true_rows)
    rank = sum(1 for r in rows if r[1] <= worst_half)
    # Rows that are not hits but whose half-precision distance is no farther than a hit's.
    tied = sum(1 for r in rows if r[0] < bar and r[1] <= worst_half)
    reranked = sorted(by_half[: 3 + margin], key=lambda r: -r[0])[:3]
    return {
        "half_rank": rank,
        "non_hits_ahead": tied,
        "exact_half_recall": hits([r[0] for r in reranked], truth),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stores", default="3x100000,10x10000", help="tenants x memories, ...")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument(
        "--settings", default="10:60,30:60,50:60,100:60,10:100,10:200", help="margin:ef_search, ..."
    )
    parser.add_argument("--shared-buffers")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", help="the results as JSON")
    args = parser.parse_args()
    local_environment()
    import json
    import os
    import platform

    import psycopg
    from candidate_search import prepare_queries
    from pgvector.psycopg import register_vector

    from aurra_core.embedders import LexicalEmbedder
    from aurra_core.storage import tenant_indexes

    settings = [tuple(int(x) for x in s.split(":")) for s in args.settings.split(",")]
    rng = random.Random(args.seed)
    results: dict = {
        "machine": f"{platform.machine()} {os.cpu_count()} cores, {platform.platform()}",
        "load_average_start": os.getloadavg(),
        "stores": [],
    }
    log(
        f"# {results['machine']}; load average {os.getloadavg()[0]:.1f}; service margin {tenant_indexes.RERANK_MARGIN}"
    )
    cluster = Cluster(shared_buffers=args.shared_buffers)
    try:
        for spec in args.stores.split(","):
            count, memories = (int(x) for x in spec.split("x"))
            tenants = [(uuid.uuid4(), memories) for _ in range(count)]
            started = time.perf_counter()
            store = build_store(cluster, "custom", count * memories, rng, tenants=tenants)
            log(
                f"\n## {store.label}: built in {time.perf_counter() - started:.0f} s "
                f"({store.tenant_indexes} own indexes), load average {os.getloadavg()[0]:.1f}"
            )
            with psycopg.connect(store.url) as conn:
                register_vector(conn)
                prepared = prepare_queries(
                    conn, store.tenants, LexicalEmbedder(384), rng, args.queries, store.names_of
                )
                latencies: dict = {s: [] for s in settings}
                recalls: dict = {s: [] for s in settings}
                order = list(settings)
                load = [os.getloadavg()[0]]
                for i, (tenant_id, q, truth) in enumerate(prepared):
                    rng.shuffle(order)
                    for margin, ef in order:
                        found, ms = own_search(conn, tenant_id, q, margin, ef)
                        latencies[(margin, ef)].append(ms)
                        recalls[(margin, ef)].append(hits(found, truth))
                    if i % 50 == 49:
                        load.append(os.getloadavg()[0])
                facts = [
                    half_precision_facts(conn, tenant_id, q, truth, tenant_indexes.RERANK_MARGIN)
                    for tenant_id, q, truth in prepared
                ]
            base = statistics.median(latencies[settings[0]])
            out = {"store": store.label, "queries": len(prepared), "load_average": load, "settings": {}}
            log(f"load average while measured: {min(load):.1f}-{max(load):.1f}")
            log(
                f"{'margin':>7}{'ef_search':>10}{'recall@3':>10}{'missed':>8}{'p50 ms':>9}{'p50 / first':>12}"
            )
            for margin, ef in settings:
                p50 = statistics.median(latencies[(margin, ef)])
                r = recalls[(margin, ef)]
                missed = sum(1 for x in r if x < 1)
                out["settings"][f"{margin}:{ef}"] = {
                    "recall@3": statistics.mean(r),
                    "queries_missing_one": missed,
                    "p50_ms": p50,
                    "p50_ratio": p50 / base,
                }
                log(
                    f"{margin:>7}{ef:>10}{statistics.mean(r):>10.3f}{missed:>8}{p50:>9.2f}{p50 / base:>11.2f}x"
                )
            ranks = sorted(f["half_rank"] for f in facts)
            exact_half = statistics.mean(f["exact_half_recall"] for f in facts)
            missed_ids = [i for i, x in enumerate(recalls[settings[0]]) if x < 1]
            out["half_precision"] = {
                "half_rank_p50": statistics.median(ranks),
                "half_rank_p95": ranks[int(0.95 * (len(ranks) - 1))],
                "half_rank_max": ranks[-1],
                "queries_half_rank_over_13": sum(1 for r in ranks if r > 13),
                "exact_half_recall": exact_half,
                "missed_by_first_setting": [facts[i] for i in missed_ids],
            }
            log(
                f"without the graph: half rank of the worst true top-3 row p50 {statistics.median(ranks)}, "
                f"p95 {out['half_precision']['half_rank_p95']}, max {ranks[-1]}; over 13 in "
                f"{out['half_precision']['queries_half_rank_over_13']} of {len(ranks)}; exact half precision "
                f"re-ranked with margin {tenant_indexes.RERANK_MARGIN}: recall@3 {exact_half:.3f}"
            )
            log(
                f"queries missed at {settings[0][0]}:{settings[0][1]}: "
                + "; ".join(
                    f"half rank {facts[i]['half_rank']}, non-hits ahead {facts[i]['non_hits_ahead']}"
                    for i in missed_ids
                )
            )
            results["stores"].append(out)
            cluster.drop(store.db_name)
    finally:
        cluster.stop()
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=2, default=str))


if __name__ == "__main__":
    main()
