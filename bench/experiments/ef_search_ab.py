"""What an own index's ef_search costs a Level 2 write: two values, interleaved on one store.

    python -m bench.experiments.ef_search_ab --size 1000000 --ef 60,150 --steps 300 [--shared-buffers 4GB]

Builds one tenant of `--size` as `bench/run.py` does (its own HNSW index built and calibrated by
the maintenance job), then writes `--steps` rounds of Level 2 writes through the service's write
pipeline (`write_path.timed_dependencies`: rules classifier, `LexicalEmbedder(384)`, Level 2 on): each
round stores each `--ef` value in turn as the index's calibrated ef_search (what `route` sets
for the write's candidate search), in a random order, and times one write at it, so the
machine's load falls on each value alike. Prints each value's p50, p90, p99 and mean, the
candidate search's part of it, and the p50 of the paired differences.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the suite's modules

from common import (
    Cluster,
    PartTimer,
    TimedFindCandidates,
    build_one_tenant,
    local_environment,
    make_keys,
    new_fact_for,
    pct,
)
from embedders import machine


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--ef", default="60,150", help="comma-separated ef_search values")
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--shared-buffers", default="4GB")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    local_environment()

    import psycopg
    from write_path import timed_dependencies

    from aurra_core.models import WriteRequest
    from aurra_core.runtime.observability import metrics
    from aurra_core.write_path.pipeline import write_memory

    print(machine(), flush=True)
    values = [int(x) for x in args.ef.split(",")]
    rng = random.Random(args.seed)
    cluster = Cluster(shared_buffers=args.shared_buffers)
    try:
        store = build_one_tenant(cluster, args.size, rng)
        (caller, _), *_ = make_keys(store, 1, rng)
        timer = PartTimer()
        deps = timed_dependencies(store, True, timer)
        totals: dict[int, list[float]] = {v: [] for v in values}
        searches: dict[int, list[float]] = {v: [] for v in values}
        with psycopg.connect(store.url, autocommit=True) as owner, TimedFindCandidates(timer):
            for step in range(args.warmup + args.steps):
                for ef in rng.sample(values, len(values)):
                    owner.execute(
                        "UPDATE tenant_own_indexes SET ef_search = %s WHERE tenant_id = %s",
                        (ef, caller.tenant_id),
                    )
                    request = WriteRequest(
                        content=new_fact_for(store, caller.tenant_id, rng),
                        topic="general",
                        auto_supersede=True,
                    )
                    timer.reset()
                    started = time.perf_counter()
                    write_memory(caller, request, deps)
                    total = time.perf_counter() - started
                    metrics.clear_metrics()
                    if step >= args.warmup:
                        totals[ef].append(total * 1000)
                        searches[ef].append(timer.parts.get("search", 0.0) * 1000)
        deps.db.close()
        print(
            f"# 1 tenant x {args.size:,}: {args.steps} rounds of Level 2 writes, each value once a round",
            flush=True,
        )
        for ef in values:
            t = totals[ef]
            print(
                f"  ef_search {ef:>4}: p50 {statistics.median(t):6.2f}  p90 {pct(t, 90):6.2f}  p99 {pct(t, 99):6.2f}  "
                f"mean {statistics.fmean(t):6.2f} ms; candidate search p50 {statistics.median(searches[ef]):5.2f} ms",
                flush=True,
            )
        base = values[0]
        for ef in values[1:]:
            differences = [b - a for a, b in zip(totals[base], totals[ef], strict=True)]
            print(
                f"  {ef} - {base}, paired by round: p50 {statistics.median(differences):+.2f} ms", flush=True
            )
    finally:
        cluster.stop()


if __name__ == "__main__":
    main()
