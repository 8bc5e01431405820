"""Level 2 writes of two checkouts against each other and their floor, interleaved (bench/notes/write-latency.md).

    python -m bench.experiments.level2_ab --against BASE_TREE [--steps 300] [--shapes small,ten] [--size 10000]

Builds the stores (an embedded PostgreSQL of its own, as bench/run.py does), then starts one
child process per checkout (this one and `--against`, each importing its own `aurra_core`),
each with the service's write pipeline as `bench/write_path.py` builds it (rules classifier,
`LexicalEmbedder(384)`, Level 2 on, `auto_supersede: true`). Each step sends one Level 2 write to
each child and runs one floor write here (`write_path.run_floor`'s transaction: the top-3 query
and the insert), in random order, so the machine's load falls on each alike. Per variant: the
write's wall time (p50, mean, p90) and the child's CPU time for it (`time.thread_time`).
Only stores whose tenants are read exactly (every tenant under `HNSW_MIN_TENANT_MEMORIES`).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from uuid import UUID

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the suite's modules


def child(url: str) -> int:
    """Read one write a line (JSON), write it, answer its wall and CPU milliseconds."""
    from common import local_environment

    local_environment()
    from aurra_core.classifiers.rules import RulesClassifier
    from aurra_core.embedders import LexicalEmbedder
    from aurra_core.models import Caller, WriteRequest
    from aurra_core.runtime.flags import EnvFlagSource
    from aurra_core.runtime.observability import metrics
    from aurra_core.storage.db import Database
    from aurra_core.write_path.pipeline import WriteDependencies, write_memory

    classifier = RulesClassifier()
    db = Database(url, max_size=2)
    deps = WriteDependencies(
        db=db,
        embedder=LexicalEmbedder(384),
        classifier_factory=lambda: classifier,
        flags=EnvFlagSource(True),
    )
    for line in sys.stdin:
        order = json.loads(line)
        caller = Caller(tenant_id=UUID(order["tenant_id"]), api_key_id=UUID(order["api_key_id"]))
        request = WriteRequest(content=order["content"], topic="general", auto_supersede=True)
        cpu, wall = time.thread_time(), time.perf_counter()
        outcome = write_memory(caller, request, deps)
        wall, cpu = time.perf_counter() - wall, time.thread_time() - cpu
        metrics.clear_metrics()
        print(
            json.dumps(
                {"wall_ms": wall * 1000, "cpu_ms": cpu * 1000, "ran": outcome.result.auto_supersede.ran}
            ),
            flush=True,
        )
    db.close()
    return 0


class Child:
    def __init__(self, tree: Path, url: str) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            [str(tree / "layers/core/python"), str(tree), str(Path(__file__).resolve().parents[1])]
        )
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--child", url],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            cwd=tree,
        )

    def write(self, caller, content: str) -> dict:
        assert self.proc.stdin and self.proc.stdout
        order = {"tenant_id": str(caller.tenant_id), "api_key_id": str(caller.api_key_id), "content": content}
        self.proc.stdin.write(json.dumps(order) + "\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait(timeout=60)


def floor_write(conn, embedder, caller, content: str) -> float:
    """`write_path.run_floor`'s transaction for a tenant read exactly: the top 3, the insert."""
    from aurra_core.storage.ids import new_id

    vector = embedder.embed(content)
    now = datetime.now(UTC)
    started = time.perf_counter()
    with conn.transaction():
        conn.execute(
            """SELECT memory_id, embedding <=> %(q)s FROM memory_versions
               WHERE tenant_id = %(t)s AND recorded_to IS NULL AND valid_to IS NULL
               ORDER BY (embedding <=> %(q)s) + 0 LIMIT %(limit)s""",
            {"t": caller.tenant_id, "q": vector, "limit": 3},
            prepare=False,
        ).fetchall()
        conn.execute(
            """INSERT INTO memory_versions (memory_id, tenant_id, content, topic, metadata,
                   embedding, valid_from, recorded_at)
               VALUES (%s, %s, %s, 'general', '{}', %s, %s, %s)""",
            (new_id(), caller.tenant_id, content, vector, now, now),
        )
    return (time.perf_counter() - started) * 1000


def describe(values: list[float]) -> dict:
    ordered = sorted(values)
    return {
        "p50": statistics.median(ordered),
        "mean": statistics.fmean(ordered),
        "p90": ordered[int(0.9 * (len(ordered) - 1))],
    }


def main() -> int:
    if sys.argv[1:2] == ["--child"]:
        return child(sys.argv[2])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", type=Path, required=True, help="the other checkout's root")
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--shapes", default="small,ten")
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    from common import ROOT, Cluster, build_store, local_environment, log, make_keys, new_fact_for

    local_environment()
    import psycopg
    from pgvector.psycopg import register_vector

    from aurra_core.embedders import LexicalEmbedder

    rng = random.Random(args.seed)
    variants = {"base": args.against.resolve(), "this": ROOT}
    results: dict = {"against": str(args.against), "load_average": os.getloadavg(), "stores": []}
    cluster = Cluster()
    try:
        for shape in args.shapes.split(","):
            store = build_store(cluster, shape, args.size, rng)
            make_keys(store, 100, rng)
            children = {name: Child(tree, store.url) for name, tree in variants.items()}
            conn = psycopg.connect(store.url)
            register_vector(conn)
            embedder = LexicalEmbedder(384)
            wall: dict[str, list[float]] = {name: [] for name in [*variants, "floor"]}
            cpu: dict[str, list[float]] = {name: [] for name in variants}
            load_before = os.getloadavg()
            try:
                for step in range(args.warmup + args.steps):
                    order = [*variants, "floor"]
                    rng.shuffle(order)
                    for name in order:
                        caller, _ = rng.choice(store.callers)
                        content = new_fact_for(store, caller.tenant_id, rng)
                        if name == "floor":
                            ms = floor_write(conn, embedder, caller, content)
                            if step >= args.warmup:
                                wall["floor"].append(ms)
                            continue
                        answer = children[name].write(caller, content)
                        if step >= args.warmup:
                            wall[name].append(answer["wall_ms"])
                            cpu[name].append(answer["cpu_ms"])
            finally:
                conn.close()
                for c in children.values():
                    c.close()
            row = {
                "store": store.label,
                "load_average": [load_before, os.getloadavg()],
                "wall_ms": {name: describe(v) for name, v in wall.items()},
                "cpu_ms": {name: describe(v) for name, v in cpu.items()},
            }
            results["stores"].append(row)
            floor = row["wall_ms"]["floor"]["p50"]
            log(
                f"## {store.label} (load {load_before[0]:.2f} -> {os.getloadavg()[0]:.2f}), {args.steps} steps"
            )
            for name in [*variants, "floor"]:
                w = row["wall_ms"][name]
                c = row["cpu_ms"].get(name)
                log(
                    f"  {name:<5} wall p50 {w['p50']:6.2f} mean {w['mean']:6.2f} p90 {w['p90']:6.2f} ms"
                    f" ({w['p50'] / floor:.2f}x floor)"
                    + (f"; CPU p50 {c['p50']:.2f} mean {c['mean']:.2f} ms" if c else "")
                )
    finally:
        cluster.stop()
    out = args.out or ROOT / "bench" / "results" / "level2-ab.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2))
    log(f"results: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
