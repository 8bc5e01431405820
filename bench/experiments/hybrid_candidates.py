"""Hybrid candidate search's cost: what a write pays to find its candidates with the fact's topic
and kinds (store.find_candidates with text and topic) against the vector list alone, for an
ordinary tenant (exact scan) and a large one (HNSW), with the service's own strategy choice.

    python -m bench.experiments.hybrid_candidates [--small-tenants 200 --per-tenant 100 --large 20000 --queries 200]

Each memory is one of bench/candidate_search.py's templated facts (editors, cities, cars, pets,
plans...), so nearly every query names a kind and the kind list always runs. Prints p50 and
p99 per shape and retrieval, and the machine it ran on.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import shutil
import tempfile
import time
import uuid
from pathlib import Path

import psycopg

from aurra_core.embedders import LexicalEmbedder
from aurra_core.storage import store
from aurra_core.storage.migrate import apply_migrations
from aurra_core.text_analysis import kinds
from aurra_local.embedded_postgres import EmbeddedPostgres
from bench.candidate_search import NAMES, fact, load


def measure(
    conn, tenants, names_of, embedder, rng, queries: int, hybrid: bool, topic: str | None
) -> dict[str, float]:
    latencies = []
    for _ in range(queries):
        tenant_id, _ = rng.choice(tenants)
        text = fact(rng, rng.choice(names_of.get(tenant_id) or NAMES))
        q = embedder.embed(text)
        with conn.transaction():
            started = time.perf_counter()
            store.find_candidates(
                conn,
                tenant_id,
                q,
                scope=store.UNSCOPED,
                excluded_topics=[],
                limit=3,
                min_similarity=0.15,
                text=text if hybrid else None,
                topic=topic if hybrid else None,
            )
            latencies.append((time.perf_counter() - started) * 1000)
    latencies.sort()
    return {
        "p50": latencies[len(latencies) // 2],
        "p99": latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))],
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--small-tenants", type=int, default=200)
    parser.add_argument("--per-tenant", type=int, default=100)
    parser.add_argument("--large", type=int, default=20_000)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()

    rng = random.Random(7)
    embedder = LexicalEmbedder(384)
    data_dir = Path(tempfile.mkdtemp(prefix="aurra-bench-"))
    pg = EmbeddedPostgres(data_dir)
    apply_migrations(pg.url, 384)
    print(
        f"machine: {platform.machine()} {platform.processor() or ''} {os.cpu_count()} cores, "
        f"load average {os.getloadavg()[0]:.1f}, python {platform.python_version()}"
    )
    small = [(uuid.uuid4(), args.per_tenant) for _ in range(args.small_tenants)]
    large = [(uuid.uuid4(), args.large)]
    named = sum(1 for _ in range(200) if kinds.kinds_of(fact(rng, "alice")))
    print(f"{named / 2:.0f}% of the templated facts name a kind")
    try:
        with psycopg.connect(pg.url) as conn:
            from pgvector.psycopg import register_vector

            register_vector(conn)
            names_of = load(conn, small + large, embedder, rng)
            conn.execute("ANALYZE memory_versions")
            conn.commit()
            print(f"{'shape':<28}{'retrieval':<32}{'p50 ms':>9}{'p99 ms':>9}")
            for shape, tenants in (
                (f"{args.small_tenants} tenants x {args.per_tenant}", small),
                (f"1 tenant x {args.large}", large),
            ):
                for label, hybrid, topic in (
                    ("vector", False, None),
                    ("hybrid, a topic none has", True, "preferences"),
                    ("hybrid, no topic", True, None),
                ):
                    r = measure(conn, tenants, names_of, embedder, rng, args.queries, hybrid, topic)
                    print(f"{shape:<28}{label:<32}{r['p50']:>9.2f}{r['p99']:>9.2f}", flush=True)
    finally:
        pg.stop()
        shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
