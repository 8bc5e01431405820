"""An import with its index deferred to its end against one into the shared index, alternating.

    .venv/bin/python -m bench.experiments.import_index_ab --facts 100000 --rounds 1

The same N generated facts (bench/portability.py's) imported by `aurra import --format jsonl`
(Level 2 off, 4 batches in flight) into `aurra dev` on a fresh database each time: "deferred",
the import as it is (announced, its tenant's own index built at its end and waited for), and
"shared", the same server with `AURRA_TENANT_INDEX_LIMIT=0`, where the announcement answers
`shared` and every row enters the shared index as it is written (the import before the
announcement existed). Each beside the same host's state: the variants alternate.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[1])]

from common import Cluster, local_environment, log  # noqa: E402
from write_path import DevServerHandle  # noqa: E402


def run(cluster: Cluster, source: Path, work: Path, variant: str) -> dict[str, float | str | None]:
    import psycopg

    from aurra import Aurra
    from aurra_core.access import keys
    from aurra_local import portability

    url = cluster.create(f"ab-{variant}")
    env = {"AURRA_TENANT_INDEX_LIMIT": "0"} if variant == "shared" else {}
    server = DevServerHandle(url, work / f"dev-{variant}", **env)
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            _, raw = keys.create_key(conn, f"ab-{variant}")
        with Aurra(api_key=raw, base_url=f"http://{server.host}:{server.port}", timeout=300) as client:
            report = portability.import_file(client, source, fmt="jsonl", workers=4, progress=None)
    finally:
        server.stop()
        cluster.drop(f"ab-{variant}")
    return {
        "variant": variant,
        "seconds": report.seconds,
        "index_seconds": report.index_seconds,
        "indexing": report.indexing,
        "facts_per_s": report.facts / report.seconds,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--facts", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    local_environment()
    import portability as bench_portability

    cluster = Cluster()
    work = Path(tempfile.mkdtemp(prefix="aurra-exp-import-ab-"))
    try:
        source = work / "facts.jsonl"
        bench_portability.facts_file(source, args.facts)
        for round_ in range(args.rounds):
            order = ("shared", "deferred") if round_ % 2 == 0 else ("deferred", "shared")
            for variant in order:
                result = run(cluster, source, work, variant)
                log(
                    f"round {round_ + 1} {variant:<8} {result['seconds']:.1f} s "
                    f"({result['index_seconds']:.1f} s the index, {result['indexing']}), "
                    f"{result['facts_per_s']:,.0f} facts/s, load {os.getloadavg()[0]:.2f}"
                )
    finally:
        cluster.stop()


if __name__ == "__main__":
    main()
