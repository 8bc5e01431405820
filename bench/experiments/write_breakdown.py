"""Where one write's time goes, round trip by round trip, against its floor (bench/notes/write-latency.md).

    python -m bench.experiments.write_breakdown [--writes 200] [--shapes small,one] [--without check,cache] [--out FILE]
    python -m bench.experiments.write_breakdown --report RESULTS.json...   # runs side by side

Builds the quick profile's 10k stores (100 tenants x ~100, 1 tenant x 10,000) in an embedded
PostgreSQL of its own, then for each store and Level 2 off / on runs the service's writes
(`write_path.run_direct`) and the floor (`write_path.run_floor`) with libpq's own protocol
trace on every connection: nothing in the service is changed or wrapped to measure it. From
the trace, each round trip (the client sends, then waits for ReadyForQuery) is one row: the
statements it carried, the time the client waited for the server (send to ReadyForQuery), and
the time the client spent in Python before its next round trip. Per write: the round trips,
the waits by statement, and the client's own time.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import statistics
import sys
import tempfile
from collections import defaultdict
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the suite's modules

from common import ROOT, Cluster, build_store, local_environment, log, make_keys

# Statement texts as the trace shows them, named for the table (first match wins).
LABELS = (
    (r"^$", "pool check (empty query)"),
    (r"^BEGIN", "BEGIN"),
    (r"^COMMIT", "COMMIT"),
    (r"^ROLLBACK", "ROLLBACK"),
    (r"set_config\('role'.*synchronous_commit", "RLS role + tenant, commit without flush (set_config)"),
    (r"set_config\('role'", "RLS role + tenant (set_config)"),
    (r"FROM pg_index.*set_config\('hnsw", "own index? + hnsw settings"),
    (r"set_config\('hnsw", "hnsw settings (set_config)"),
    (r"FROM key_settings", "key settings"),
    (r"count\(\*\) FROM \(SELECT 1 FROM memory_versions", "tenant size (strategy)"),
    (r"FROM pg_index", "own index? (pg_index)"),
    (r"row_number\(\) OVER \(\) AS rank", "vector list with its kinds"),
    (r"to_tsvector", "kinds (naming a kind)"),
    (r"AND topic = \$", "vector list, same topic"),
    (r"<=> .* LIMIT", "vector list"),
    (r"model_call_counts", "budget reservation"),
    (r"pg_advisory_xact_lock_shared", "tenant write lock (advisory)"),
    (r"idempotency_records", "idempotency bind"),
    (r"FOR UPDATE\) AS locked", "lock target + write clock"),
    (r"FOR UPDATE", "lock target"),
    (r"clock_timestamp", "write clock"),
    (r"^WITH created AS .* revised AS", "insert memory + revise version + audit event"),
    (r"^WITH created AS", "insert memory + audit event"),
    (r"^WITH closed AS", "revise version (close + copy)"),
    (r"^INSERT INTO memory_versions .* SELECT", "revise version (insert)"),
    (r"^UPDATE memory_versions", "revise version (close)"),
    (r"^INSERT INTO memory_versions", "insert memory"),
    (r"^INSERT INTO audit_events", "audit event"),
)


def label_of(sql: str) -> str:
    flat = " ".join(sql.split())
    for pattern, label in LABELS:
        if re.search(pattern, flat):
            return label
    return flat[:60]


_RECORD = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+)\t([FB])\t\d+\t(\w+)\t?(.*)$", re.S)
_QUOTED = re.compile(r'\s*"((?:[^"]|"")*)"')


def _quoted(text: str) -> list[str]:
    """The leading quoted strings of a traced message (statement names, SQL)."""
    found, rest = [], text
    while (match := _QUOTED.match(rest)) is not None:
        found.append(match.group(1))
        rest = rest[match.end() :]
    return found


def parse_trace(path: Path, start: datetime, end: datetime) -> list[dict]:
    """Round trips between `start` and `end`: statements, wait (ms), client time after (ms).

    A message's SQL may span lines; a prepared statement (psycopg prepares a query after
    `prepare_threshold` runs) is sent as a Bind naming the statement, labelled by its Parse."""
    text = path.read_text(errors="replace")
    records = re.split(r"\n(?=\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+\t[FB]\t)", text)
    prepared: dict[str, str] = {}
    trips: list[dict] = []
    sent: list[str] = []
    last_send = last_ready = None
    last_parsed = None
    for record in records:
        match = _RECORD.match(record)
        if match is None:
            continue
        ts = datetime.strptime(match.group(1), "%Y-%m-%d %H:%M:%S.%f")
        direction, message, body = match.group(2), match.group(3), match.group(4)
        statement = None
        if direction == "F" and message == "Parse":
            name, sql = [*_quoted(body), "", ""][:2]
            if name:
                prepared[name] = sql
            last_parsed, statement = name, sql
        elif direction == "F" and message == "Bind":
            names = _quoted(body)
            name = names[1] if len(names) > 1 else ""
            if name and name != last_parsed:
                statement = prepared.get(name, f"prepared {name}")
            last_parsed = None
        elif direction == "F" and message == "Query":
            statement = [*_quoted(body), ""][0]
        if ts < start or ts > end:
            continue
        if direction == "F":
            if not sent and last_ready is not None and trips:
                trips[-1]["client_after_ms"] = (ts - last_ready).total_seconds() * 1000
            if statement is not None:
                sent.append(statement)
            last_send = ts
        elif message == "ReadyForQuery":
            if sent and last_send is not None:
                trips.append(
                    {
                        "statements": [label_of(s) for s in sent],
                        "wait_ms": (ts - last_send).total_seconds() * 1000,
                        "client_after_ms": 0.0,
                    }
                )
                sent = []
            last_ready = ts
    return trips


class Tracing:
    """libpq's protocol trace on every connection the service's pool or the floor opens."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.files: list[tuple[object, object, Path]] = []

    def start(self, conn) -> None:
        path = self.directory / f"trace-{len(self.files)}.txt"
        handle = open(path, "w")  # noqa: SIM115 - closed in stop()
        conn.pgconn.trace(handle.fileno())
        self.files.append((conn, handle, path))

    def stop(self) -> list[Path]:
        paths = []
        for conn, handle, path in self.files:
            with contextlib.suppress(Exception):  # a closed connection: its trace is complete
                conn.pgconn.untrace()
            handle.close()
            paths.append(path)
        self.files = []
        return paths

    def __enter__(self):
        import psycopg

        from aurra_core.storage import db

        self._configure, self._connect = db._configure, psycopg.connect
        configure, connect = self._configure, self._connect

        def traced_configure(conn):
            configure(conn)
            self.start(conn)

        def traced_connect(*args, **kwargs):
            conn = connect(*args, **kwargs)
            self.start(conn)
            return conn

        db._configure = traced_configure
        psycopg.connect = traced_connect
        return self

    def __exit__(self, *exc):
        import psycopg

        from aurra_core.storage import db

        db._configure, psycopg.connect = self._configure, self._connect


def breakdown(trips: list[dict], writes: int) -> dict:
    """Per write: round trips, waits by statement (what each round trip carried), client time."""
    by_label: dict[str, list[float]] = defaultdict(list)
    for trip in trips:
        by_label[" + ".join(trip["statements"])].append(trip["wait_ms"])
    waits = sum(t["wait_ms"] for t in trips)
    client = sum(t["client_after_ms"] for t in trips)
    return {
        "round_trips_per_write": len(trips) / writes,
        "statements_per_write": sum(len(t["statements"]) for t in trips) / writes,
        "server_wait_ms_per_write": waits / writes,
        # Per connection, from one ReadyForQuery to its next message: with two pooled
        # connections it counts the other's time too; the mean minus the waits is the client's.
        "client_between_trips_ms_per_write": client / writes,
        "by_round_trip": {
            label: {
                "per_write": len(v) / writes,
                "mean_ms": statistics.fmean(v),
                "ms_per_write": sum(v) / writes,
            }
            for label, v in sorted(by_label.items(), key=lambda kv: -sum(kv[1]))
        },
    }


def measure(run, writes: int, directory: Path) -> tuple[dict, dict]:
    """Run `run(writes)` (after its own warm-up) with every new connection traced; the trace
    is read from the first timed write on (`run` returns its summary, timings of the writes)."""
    tracing = Tracing(directory)
    with tracing:
        start = datetime.now()
        result = run()
        end = datetime.now()
    paths = tracing.stop()
    trips = [t for p in paths for t in parse_trace(p, start, end)]
    return result, trips


def run_traced(write_path, store, kind: str, level2: bool, writes: int, warmup: int, rng, tmp: Path):
    """The service's writes or the floor's, warmed up untraced (the floor's warm-up and its
    strategy probe are traced, and cut off: each of its writes ends in one COMMIT)."""
    if kind == "write":
        write_path.run_direct(store, warmup, level2, rng, warmup=0)
        return measure(lambda: write_path.run_direct(store, writes, level2, rng, warmup=0), writes, tmp)
    summary, trips = measure(
        lambda: write_path.run_floor(store, writes, level2, rng, warmup=warmup), writes, tmp
    )
    commits = [i for i, t in enumerate(trips) if "COMMIT" in t["statements"]]
    if len(commits) > writes:
        trips = trips[commits[-writes - 1] + 1 :]
    return summary, trips


def without(levers: list[str]) -> None:
    """Turn levers off, to measure each one's share: `check` (the pool checks every loan) and
    `cache` (the candidate strategy is counted on every write)."""
    from aurra_core.storage import db, store

    if "check" in levers:
        db.CHECK_AFTER_IDLE_S = 0.0
    if "cache" in levers:
        store.STRATEGY_TTL_S = 0.0


def report(paths: list[Path]) -> None:
    """Round trips and times of several runs side by side (markdown), one row per configuration."""
    rows = [json.loads(p.read_text()) for p in paths]
    print(
        "| run | store | Level 2 | round trips (floor) | server waits ms | write p50 / mean ms | floor p50 ms | p50 ratio |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for run in rows:
        by = {(r["store"], r["level2"], r["kind"]): r for r in run["runs"]}
        for (store_label, level2, kind), r in by.items():
            if kind != "write":
                continue
            floor = by[(store_label, level2, "floor")]
            print(
                f"| {run['label']} | {store_label} | {'on' if level2 else 'off'} | {r['round_trips_per_write']:.1f} "
                f"({floor['round_trips_per_write']:.0f}) | {r['server_wait_ms_per_write']:.2f} | "
                f"{r['summary']['p50_ms']:.2f} / {r['summary']['mean_ms']:.2f} | {floor['summary']['p50_ms']:.2f} | "
                f"{r['summary']['p50_ms'] / floor['summary']['p50_ms']:.2f}x |"
            )


def main() -> int:
    if sys.argv[1:2] == ["--report"]:
        report([Path(p) for p in sys.argv[2:]])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writes", type=int, default=200)
    parser.add_argument("--shapes", default="small,one")
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--without", default="", help="levers to turn off: check,cache")
    parser.add_argument("--label", default="", help="what this run measures (kept in the results)")
    args = parser.parse_args()
    local_environment()
    levers_off = [x for x in args.without.split(",") if x]
    if levers_off:
        without(levers_off)
    import write_path

    rng = random.Random(args.seed)
    results: dict = {
        "label": args.label,
        "without": levers_off,
        "started_at": datetime.now().isoformat(),
        "load_average": os.getloadavg(),
        "runs": [],
    }
    cluster = Cluster()
    warmup = 10
    try:
        for shape in args.shapes.split(","):
            store = build_store(cluster, shape, args.size, rng)
            make_keys(store, 100, rng)
            log(f"\n## {store.label}")
            for level2 in (False, True):
                for kind in ("write", "floor"):
                    with tempfile.TemporaryDirectory(prefix="aurra-trace-") as tmp:
                        summary, trips = run_traced(
                            write_path, store, kind, level2, args.writes, warmup, rng, Path(tmp)
                        )
                    b = breakdown(trips, args.writes)
                    row = {"store": store.label, "level2": level2, "kind": kind, "summary": summary, **b}
                    results["runs"].append(row)
                    log(
                        f"  Level 2 {'on ' if level2 else 'off'} {kind:<5}: p50 {summary['p50_ms']:.2f} mean "
                        f"{summary['mean_ms']:.2f} ms; {b['round_trips_per_write']:.1f} round trips, "
                        f"{b['statements_per_write']:.1f} statements; waits {b['server_wait_ms_per_write']:.2f} ms, "
                        f"the rest (Python, tracing) {summary['mean_ms'] - b['server_wait_ms_per_write']:.2f} ms per write"
                    )
                    for label, r in b["by_round_trip"].items():
                        log(
                            f"      {r['per_write']:>5.2f} x {r['mean_ms']:>6.3f} ms = {r['ms_per_write']:>6.3f}  {label}"
                        )
    finally:
        cluster.stop()
    results["load_average_at_end"] = os.getloadavg()
    out = args.out or ROOT / "bench" / "results" / "write-breakdown-10k.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2, default=str))
    log(f"\nresults: {out}; load average {results['load_average']} -> {results['load_average_at_end']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
