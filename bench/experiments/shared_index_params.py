"""What the shared HNSW index's build parameters do to the import's floor and to a large
tenant's recall: whether the Level 2 off import could reach its target by a cheaper index.

1. Inserts: `--facts` rows of the portability bench (bench/portability.py facts_file, each
   fact's own embedding) inserted with plain SQL over `--connections` connections, 100 a
   transaction (portability.sql_insert_floor), into a fresh database whose shared index is each
   variant in turn: rows/s.
2. Recall: 300 tenants of 100 memories and one of `--large` (bench/candidate_search.py's load),
   the shared index built as each variant, then the service's top-3 search for the large tenant
   (strategy "hnsw") at ef_search 40 and 150 (the service's `candidate_ef_search`): recall@3
   against an exact scan.

A variant is "m:ef_construction" ("16:64" is pgvector's default and the service's index),
"nohnsw" (no vector index: what the index costs) or "nogin" (no full-text index).

    .venv/bin/python -m bench.experiments.shared_index_params --facts 20000 --large 100000 \
        --variants 16:64,nohnsw,nogin,16:32,16:40,12:64,12:32
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the suite's modules

import candidate_search
import portability
from common import Cluster, local_environment, log

_PREDICATE = "WHERE in_shared_index AND recorded_to IS NULL AND valid_to IS NULL"


def _index_statements(variant: str) -> list[str]:
    drop = "DROP INDEX memory_versions_embedding_shared"
    if variant == "nohnsw":
        return [drop]
    if variant == "nogin":
        return ["DROP INDEX memory_versions_current_content_words"]
    m, ef = (int(v) for v in variant.split(":"))
    return [
        drop,
        f"CREATE INDEX memory_versions_embedding_shared ON memory_versions USING hnsw "
        f"(embedding vector_cosine_ops) WITH (m = {m}, ef_construction = {ef}) {_PREDICATE}",
    ]


def insert_rates(variants: list[str], facts: int, connections: int) -> None:
    import psycopg

    cluster = Cluster()
    try:
        source = Path(tempfile.mkdtemp(prefix="aurra-exp-")) / "facts.jsonl"
        portability.facts_file(source, facts)
        for variant in variants:
            url = cluster.create("variant")
            with psycopg.connect(url, autocommit=True) as conn:
                for statement in _index_statements(variant):
                    conn.execute(statement)
            seconds, _ = portability.sql_insert_floor(url, source, connections=connections, deferred=False)
            log(f"inserts  {variant:<8} {facts / seconds:>8,.0f} rows/s over {connections} connections")
            cluster.drop("variant")
    finally:
        cluster.stop()


def recall(variants: list[str], large: int, queries: int) -> None:
    import psycopg
    from pgvector.psycopg import register_vector

    from aurra_core.embedders import LexicalEmbedder
    from aurra_core.storage.migrate import apply_migrations
    from aurra_local.embedded_postgres import EmbeddedPostgres

    rng, embedder = random.Random(7), LexicalEmbedder(384)
    pg = EmbeddedPostgres(Path(tempfile.mkdtemp(prefix="aurra-exp-")))
    try:
        apply_migrations(pg.url, 384)
        small = [(uuid.uuid4(), 100) for _ in range(300)]
        big = [(uuid.uuid4(), large)]
        with psycopg.connect(pg.url) as conn:
            register_vector(conn)
            conn.execute("DROP INDEX memory_versions_embedding_shared")
            conn.commit()
            names_of = candidate_search.load(conn, small + big, embedder, rng)
            prepared = candidate_search.prepare_queries(conn, big, embedder, rng, queries, names_of)
            conn.execute("SET maintenance_work_mem = '1GB'")
            for variant in (v for v in variants if ":" in v):
                conn.execute("DROP INDEX IF EXISTS memory_versions_embedding_shared")
                for statement in _index_statements(variant)[1:]:
                    conn.execute(statement)
                conn.execute("ANALYZE memory_versions")
                conn.commit()
                for ef in (40, 150):
                    r = candidate_search.measure(
                        conn, big, embedder, rng, queries, "hnsw", ef, prepared=prepared
                    )
                    log(
                        f"recall   {variant:<8} ef_search {ef:>3}: recall@3 {r['recall@3']:.3f} (1 x {large:,})"
                    )
    finally:
        pg.stop()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--facts", type=int, default=20_000)
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument("--large", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--variants", default="16:64,nohnsw,nogin,16:32,16:40,12:64,12:32")
    args = parser.parse_args()
    local_environment()
    variants = args.variants.split(",")
    insert_rates(variants, args.facts, args.connections)
    if args.large:
        recall(variants, args.large, args.queries)


if __name__ == "__main__":
    main()
