"""A Level 2 import into scopes that already hold memories, beside its plain-SQL floor.

    .venv/bin/python -m bench.experiments.level2_floor_at_scale [--before 60000] [--facts 4000] [--runs 2]

The shape `import_classifier.py` measures the classifier on, and `aurra dev` was profiled on:
`bench/portability.py`'s facts (997 users). Each run, alternating, on a fresh database of one
cluster:

- import: `aurra dev` on the database; the first `--before` facts imported with Level 2 off
  (not timed), then the next `--facts` with `--auto-supersede` (the rules classifier), through
  `aurra import`'s code (aurra_local.portability.import_file, the SDK's batch writes, 4 lanes);
- floor: the first `--before` inserted with plain SQL (not timed), then each of the next
  `--facts` after the top-3 query of its scope, 100 a transaction (`portability.sql_level2_floor`):
  what the database alone costs a Level 2 import at that size.

Prints facts/s and rows/s a run, and their ratio.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from common import Cluster, local_environment, log
from portability import facts_file, sql_level2_floor
from write_path import DevServerHandle


def import_at_scale(cluster: Cluster, name: str, source: Path, before: int, facts: int, work: Path) -> float:
    """Seconds of the Level 2 import of the `facts` after the first `before`."""
    import psycopg

    from aurra import Aurra
    from aurra_core.access import keys
    from aurra_local import portability

    url = cluster.create(name)
    first, then = work / f"{name}-first.jsonl", work / f"{name}-then.jsonl"
    with source.open() as f, first.open("w") as a, then.open("w") as b:
        for i, line in enumerate(f):
            (a if i < before else b).write(line)
    with psycopg.connect(url, autocommit=True) as conn:
        _, raw = keys.create_key(conn, "bench-import-at-scale")
    server = DevServerHandle(url, work / name)
    try:
        with Aurra(api_key=raw, base_url=f"http://{server.host}:{server.port}", timeout=300) as client:
            portability.import_file(client, first, fmt="jsonl", workers=4, progress=None)
            report = portability.import_file(
                client, then, fmt="jsonl", auto_supersede=True, workers=4, progress=None
            )
    finally:
        server.stop()
        cluster.drop(name)
    return report.seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=int, default=60000)
    parser.add_argument("--facts", type=int, default=4000)
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    local_environment()
    work = Path(tempfile.mkdtemp(prefix="aurra-bench-floor-"))
    source = work / "facts.jsonl"
    facts_file(source, args.before + args.facts)
    cluster = Cluster()
    try:
        for run in range(1, args.runs + 1):
            imported = args.facts / import_at_scale(
                cluster, f"import{run}", source, args.before, args.facts, work
            )
            url = cluster.create(f"floor{run}")
            floor = args.facts / sql_level2_floor(url, source, args.facts, after=args.before)
            cluster.drop(f"floor{run}")
            log(
                f"run {run}: {args.facts:,} facts after {args.before:,}: import with Level 2 on "
                f"{imported:,.0f} facts/s; floor (top-3 query + insert, plain SQL) {floor:,.0f} rows/s; "
                f"ratio {imported / floor:.2f}"
            )
    finally:
        cluster.stop()


if __name__ == "__main__":
    main()
