"""What a deferred import's index build costs with each graph: rows inserted with no graph
(their tenant listed first, as an announced import's is), then the tenant's own index built by
the maintenance job's build with the given m / ef_construction, without calibration.

    .venv/bin/python -m bench.experiments.import_build_graph --facts 100000 --graphs 16/64,24/160

Each graph on a fresh database of its own; the facts are bench/portability.py's, inserted 100 a
transaction over 4 connections, each with its own embedding.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the suite's modules

import portability
from common import Cluster, local_environment, log

CONNECTIONS = 4


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--facts", type=int, default=100_000)
    parser.add_argument("--graphs", default="16/64,24/160", help="m/ef_construction, comma-separated")
    args = parser.parse_args()
    local_environment()
    import psycopg

    from aurra_core.access import keys
    from aurra_core.storage import tenant_indexes

    graphs = [tuple(int(x) for x in g.split("/")) for g in args.graphs.split(",")]
    cluster = Cluster()
    try:
        source = Path(tempfile.mkdtemp(prefix="aurra-exp-build-")) / "facts.jsonl"
        portability.facts_file(source, args.facts)
        rows = [json.loads(line) for line in source.open()]
        vectors = portability._embeddings(rows)
        starts = list(range(0, len(rows), 100))
        for m, ef_construction in graphs:
            url = cluster.create("graph")
            with psycopg.connect(url, autocommit=True) as conn:
                caller, _ = keys.create_key(conn, "graph")
                tenant_indexes.list_tenants(conn, [caller.tenant_id])
            started = time.perf_counter()
            tenant = caller.tenant_id
            with ThreadPoolExecutor(CONNECTIONS) as pool:
                shares = [starts[share::CONNECTIONS] for share in range(CONNECTIONS)]
                list(
                    pool.map(
                        portability._insert_rows,
                        [url] * CONNECTIONS,
                        [tenant] * CONNECTIONS,
                        [rows] * CONNECTIONS,
                        [vectors] * CONNECTIONS,
                        shares,
                    )
                )
            inserts_s = time.perf_counter() - started
            started = time.perf_counter()
            report = tenant_indexes.maintain(url, m=m, ef_construction=ef_construction, calibration_samples=0)
            build_s = time.perf_counter() - started
            (built,) = report.built
            log(
                f"{args.facts:,} rows, m {m} / ef_construction {ef_construction}: inserts {inserts_s:.1f} s "
                f"({args.facts / inserts_s:,.0f} rows/s), build {build_s:.1f} s "
                f"({built['build_memory_mb']} MB, notices {built['notices']})"
            )
            cluster.drop("graph")
    finally:
        cluster.stop()


if __name__ == "__main__":
    main()
