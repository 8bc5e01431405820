"""What a lower insert ef_construction buys per insert into a tenant's own HNSW index, and what
it costs the rows it links: one tenant of `--size` memories built as the service builds it
(bench/common.py build_store: the maintenance job's own build, m and ef_construction from the
settings), then, interleaved in `--rounds` rounds of a shuffled order, each insert
ef_construction of `--values` set on the index (tenant_indexes.set_insert_ef_construction,
the ALTER the job makes) and `--batch` memories written through store.insert_version, each
committed and timed. Then, for each value, queries about its freshly inserted rows (a new fact
about the same person in the same words, kept when its exact top 3 holds one of that value's
rows): the service's top-3 search (store.find_candidates, "hnsw", the configured ef_search)
timed, and its recall@3 against an exact scan (ties count as hits, bench/common.py recall_at_3).
Besides wall-clock times (which carry whatever else the machine runs), each statement's CPU
time in its server process (/proc, so the server must be local): the work it costs.

    python -m bench.experiments.hnsw_insert_ef --size 100000 --values 128,96,64,48,32 --rounds 8 --batch 50 \
                                   --queries 100 [--shared-buffers 1GB]
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path
from uuid import uuid4

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the suite's modules

from common import Cluster, build_store, insert_memory, local_environment, log, pct, recall_at_3, top3


def same_words_pair(rng: random.Random, name: str) -> tuple[str, str]:
    """Two facts about `name` in one template, one of its values drawn again: the written one
    and a later fact that would find it as a candidate (an update of it)."""
    from string import Formatter

    from candidate_search import FACTS, VALUES

    template = rng.choice(FACTS)
    values = {k: rng.choice(v) for k, v in VALUES.items()}
    changed = rng.choice([f for _, f, _, _ in Formatter().parse(template) if f and f != "n"])
    later = {**values, changed: rng.choice(VALUES[changed])}
    return template.format(n=name, **values), template.format(n=name, **later)


def backend_cpu_ms(pid: int) -> float:
    """CPU time (user + system) the server process `pid` has used: the work a statement costs,
    whatever else the machine runs (in clock ticks, 10 ms on Linux: read over many statements)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=300_000)
    parser.add_argument("--values", default="128,96,64,48,32", help="insert ef_construction values")
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--batch", type=int, default=40, help="inserts per value and round")
    parser.add_argument("--queries", type=int, default=120, help="recall queries per value")
    parser.add_argument("--shared-buffers")
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    local_environment()
    import psycopg
    from pgvector.psycopg import register_vector

    from aurra_core.embedders import LexicalEmbedder
    from aurra_core.runtime.config import get_config
    from aurra_core.storage import tenant_indexes

    config = get_config()
    values = [int(v) for v in args.values.split(",")]
    rng = random.Random(args.seed)
    embedder = LexicalEmbedder(384)
    cluster = Cluster(shared_buffers=args.shared_buffers)
    try:
        facts = cluster.facts()
        log(
            f"# insert ef_construction: 1 tenant x {args.size:,}, own index m {config.tenant_index_m} / "
            f"ef_construction {config.tenant_index_ef_construction} (half precision), values {values}, "
            f"{args.rounds} rounds x {args.batch} inserts each, ef_search {config.candidate_ef_search}"
        )
        log(
            f"# {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
            f"PostgreSQL {facts['postgres']}, pgvector {facts['pgvector']}, load average "
            f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}"
        )
        started = time.perf_counter()
        built = build_store(cluster, "one", args.size, rng)
        tenant_id = built.tenants[0][0]
        names = built.names_of[tenant_id]
        log(f"store built in {time.perf_counter() - started:.0f} s (own index {built.tenant_index_s:.0f} s)")
        inserts: dict[int, list[float]] = {v: [] for v in values}
        insert_cpu_ms: dict[int, float] = {v: 0.0 for v in values}
        search_cpu_ms: dict[int, float] = {v: 0.0 for v in values}
        written: dict[int, list[tuple]] = {v: [] for v in values}  # (memory id, the later fact)
        with psycopg.connect(built.url, autocommit=True) as admin, psycopg.connect(built.url) as conn:
            register_vector(conn)
            assert tenant_indexes.route(conn, tenant_id) == "own"
            backend = conn.info.backend_pid
            conn.commit()
            log(f"build parameters: {tenant_indexes.build_parameters(admin, tenant_id)}")
            for round_ in range(args.rounds):
                order = values[:]
                rng.shuffle(order)
                for value in order:
                    assert tenant_indexes.set_insert_ef_construction(admin, tenant_id, value)
                    assert tenant_indexes.insert_ef_construction(admin, tenant_id) == value
                    cpu_before = backend_cpu_ms(backend)
                    for _ in range(args.batch):
                        text, later = same_words_pair(rng, rng.choice(names))
                        vector, memory_id = embedder.embed(text), uuid4()
                        started = time.perf_counter()
                        with conn.transaction():
                            insert_memory(conn, tenant_id, text, vector, memory_id)
                        inserts[value].append((time.perf_counter() - started) * 1000)
                        written[value].append((memory_id, later))
                    insert_cpu_ms[value] += backend_cpu_ms(backend) - cpu_before
                log(f"round {round_ + 1}: load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
            # Each value's queries: those whose exact top 3 holds one of its fresh rows.
            queries: dict[int, list[tuple]] = {v: [] for v in values}
            for value in values:
                ids = {memory_id for memory_id, _ in written[value]}
                for _, later in rng.sample(written[value], len(written[value])):
                    if len(queries[value]) == args.queries:
                        break
                    q = embedder.embed(later)
                    with conn.transaction():
                        exact = top3(conn, tenant_id, q, "exact")
                    if any(row.memory_id in ids for row, _ in exact):
                        queries[value].append((q, [s for _, s in exact]))
            # The service's search, the values interleaved query by query.
            latencies: dict[int, list[float]] = {v: [] for v in values}
            recalls: dict[int, list[float]] = {v: [] for v in values}
            for i in range(max(len(qs) for qs in queries.values())):
                order = values[:]
                rng.shuffle(order)
                for value in order:
                    if i >= len(queries[value]):
                        continue
                    q, truth = queries[value][i]
                    cpu_before, started = backend_cpu_ms(backend), time.perf_counter()
                    with conn.transaction():
                        found = top3(conn, tenant_id, q, "hnsw")
                    latencies[value].append((time.perf_counter() - started) * 1000)
                    search_cpu_ms[value] += backend_cpu_ms(backend) - cpu_before
                    recalls[value].append(recall_at_3([s for _, s in found], truth))
            # Wall-clock times carry the machine's load; the server's CPU per statement does not.
            log(
                "insert ef_construction | inserts | insert p50 / p99 ms | insert server CPU ms (mean) "
                "| queries | top-3 p50 / p99 ms | top-3 server CPU ms (mean) | recall@3 | queries missing one"
            )
            for value in values:
                n_inserts, n_queries = len(inserts[value]), len(queries[value])
                log(
                    f"{value:>23} | {n_inserts:>7} | {statistics.median(inserts[value]):6.2f} / "
                    f"{pct(inserts[value], 99):6.2f} | {insert_cpu_ms[value] / n_inserts:6.2f} | {n_queries:>7} | "
                    f"{statistics.median(latencies[value]):5.2f} / {pct(latencies[value], 99):5.2f} | "
                    f"{search_cpu_ms[value] / max(1, n_queries):5.2f} | "
                    f"{statistics.mean(recalls[value]):.3f} | {sum(1 for r in recalls[value] if r < 1)}"
                )
            log(f"load average at the end {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    finally:
        cluster.stop()


if __name__ == "__main__":
    main()
