"""Asynchronous Level 2: what a write waits for, and how long until its decision.

A local stand-in of the Anthropic Messages API (tests/soak/fake_model.py, in its `slow` mode:
every answer after `--model-ms`) is the classifier's model, reached through the real Claude
classifier and the SDK's own ANTHROPIC_BASE_URL. Writes go through the service's composition
root in process (aurra_core.service.write_memory: the same call the write function makes), on
an embedded PostgreSQL of the bench's own.

1. Write latency, one writer, each write a contradiction of the memory before it in its own
   scope ("uN editor is vim" then "uN editor is emacs"): Level 2 off, sync and async; the floor
   beside them is a plain psycopg transaction inserting the same row (the insert alone).
2. Time from the write's call to its decision's change-stream event (its `created_at`, stamped
   at the decision's commit), at 1, 4 and 16 writers writing async at once, with the worker
   thread `aurra dev` runs (`level2_worker_concurrency` jobs at a time) deciding in process.

    .venv/bin/python bench/async_level2.py            # about a minute
    .venv/bin/python bench/async_level2.py --json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
import uuid
from datetime import UTC, datetime

from common import ROOT, Cluster, insert_memory, local_environment, log, summary

sys.path.insert(0, str(ROOT / "tests" / "soak"))


class Floor:
    """The insert alone: one psycopg transaction per write on a connection of its own, the row
    the write path stores (its embedding computed before the clock starts)."""

    def __init__(self, url: str, tenant_id, embedder) -> None:
        import psycopg
        from pgvector.psycopg import register_vector

        self.conn = psycopg.connect(url)
        register_vector(self.conn)
        self.tenant_id, self.embedder = tenant_id, embedder

    def insert_ms(self, text: str) -> float:
        vector = self.embedder.embed(text)
        started = time.perf_counter()
        with self.conn.transaction():
            insert_memory(self.conn, self.tenant_id, text, vector)
        return (time.perf_counter() - started) * 1000


def _write(caller, content: str, user: str, mode):
    from aurra_core import service
    from aurra_core.models import WriteRequest

    return service.write_memory(
        caller, WriteRequest(content=content, topic="preferences", user_id=user, auto_supersede=mode)
    )[1]


MODES = {"off": False, "sync": True, "async": "async"}


def latency(
    caller, writes: int, tag: str, floor: Floor
) -> tuple[list[float], dict[str, tuple[list[float], dict[str, int]]]]:
    """The floor's and each mode's write wall times, taking turns write by write (the host's
    load drifts: a mode timed minutes after another would carry the drift); each write after
    its scope's older memory (written with Level 2 off)."""
    found: dict[str, tuple[list[float], dict[str, int]]] = {
        label: ([], {"superseded": 0, "pending": 0, "other": 0}) for label in MODES
    }
    floor_ms = []
    for i in range(writes):
        floor_ms.append(floor.insert_ms(f"{tag}-floor-{i} editor is emacs"))
        for label, mode in MODES.items():
            user = f"{tag}-{label}-{i}"
            _write(caller, f"{user} editor is vim", user, False)
            started = time.perf_counter()
            result = _write(caller, f"{user} editor is emacs", user, mode)
            times, outcomes = found[label]
            times.append((time.perf_counter() - started) * 1000)
            block = result.auto_supersede
            key = "superseded" if block.supersession else "pending" if block.status == "pending" else "other"
            outcomes[key] += 1
    return floor_ms, found


def decisions(
    caller, writers: int, per_writer: int, tag: str, pace_s: float
) -> tuple[list[float], list[float], int]:
    """`writers` threads writing async at once, each one write every `pace_s` (an agent's pace,
    not a flood); (write ms, write-to-decision ms, undecided)."""
    from aurra_core.storage.db import get_database

    started_at: dict[uuid.UUID, datetime] = {}
    write_ms: list[float] = []
    lock = threading.Lock()

    def one_writer(w: int) -> None:
        time.sleep(pace_s * w / writers)  # spread the writers' starts over one period
        for i in range(per_writer):
            user = f"{tag}-{w}-{i}"
            _write(caller, f"{user} editor is vim", user, False)
            due = time.perf_counter() + pace_s
            wall = datetime.now(UTC)
            started = time.perf_counter()
            result = _write(caller, f"{user} editor is emacs", user, "async")
            elapsed = (time.perf_counter() - started) * 1000
            with lock:
                write_ms.append(elapsed)
                started_at[result.auto_supersede.job_id] = wall
            time.sleep(max(0.0, due - time.perf_counter()))

    threads = [threading.Thread(target=one_writer, args=(w,)) for w in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    db = get_database()
    deadline = time.monotonic() + 120
    while True:
        with db.tenant_transaction(caller.tenant_id) as conn:
            rows = conn.execute(
                """SELECT j.id, e.created_at FROM level2_jobs j
                   JOIN change_events e ON e.tenant_id = j.tenant_id
                    AND e.data->>'event_id' = j.audit_event_id::text
                    AND e.type IN ('memory.superseded', 'proposal.created', 'auto_supersede.completed')
                   WHERE j.tenant_id = %s AND j.id = ANY(%s) AND j.status = 'done'""",
                (caller.tenant_id, list(started_at)),
            ).fetchall()
        if len(rows) == len(started_at) or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    decided = [(at - started_at[job_id]).total_seconds() * 1000 for job_id, at in rows]
    return write_ms, decided, len(started_at) - len(rows)


def _drain(caller, timeout_s: float = 120) -> None:
    """Wait until the tenant has no pending job (the latency section's, decided by the worker)."""
    from aurra_core.storage.db import get_database

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with get_database().tenant_transaction(caller.tenant_id) as conn:
            pending = conn.execute(
                "SELECT count(*) FROM level2_jobs WHERE tenant_id = %s AND status = 'pending'",
                (caller.tenant_id,),
            ).fetchone()[0]
        if pending == 0:
            return
        time.sleep(0.2)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-ms", type=int, default=300, help="the stand-in model's answer time")
    parser.add_argument("--writes", type=int, default=30, help="writes per mode in the latency section")
    parser.add_argument("--pace-ms", type=int, default=500, help="each writer's time between two writes")
    parser.add_argument(
        "--worker-concurrency",
        type=int,
        help="jobs the worker decides at once (AURRA_LEVEL2_WORKER_CONCURRENCY)",
    )
    parser.add_argument("--json", action="store_true", help="print the results as one JSON object")
    args = parser.parse_args()

    from fake_model import FakeMessagesAPI

    local_environment()
    if args.worker_concurrency:
        os.environ["AURRA_LEVEL2_WORKER_CONCURRENCY"] = str(args.worker_concurrency)
    model = FakeMessagesAPI(slow_s=args.model_ms / 1000)
    model.set_mode("slow")
    cluster = Cluster()
    try:
        url = cluster.create("async_level2")
        os.environ.update(
            {
                "AURRA_DATABASE_URL": url,
                "AURRA_CLASSIFIER": "anthropic",
                "AURRA_LEVEL2_ENABLED": "true",
                "ANTHROPIC_BASE_URL": model.url,
                "ANTHROPIC_API_KEY": "sk-ant-bench-stand-in",
            }
        )
        from aurra_core import service
        from aurra_core.access import keys
        from aurra_core.embedders import get_embedder
        from aurra_core.runtime.config import get_config
        from aurra_core.storage.db import Database, get_database

        service.reset()
        with get_database().transaction() as conn:
            caller, _ = keys.create_key(conn, "bench")
        # The write path's imports and first connections, before anything is timed.
        floor = Floor(url, caller.tenant_id, get_embedder())
        latency(caller, 2, "warm", floor)
        floor_ms, modes = latency(caller, args.writes, "lat", floor)
        results: dict = {"model_ms": args.model_ms, "floor_insert": summary(floor_ms)}
        # No worker yet: the async writes of the latency section are timed alone, their jobs
        # wait (the worker, once started, decides them before the decision section counts).
        for label, (times, outcomes) in modes.items():
            results[f"write_{label}"] = {**summary(times), "outcomes": outcomes}
            log(f"write, Level 2 {label}: {summary(times)} {outcomes}")
        worker = service.level2_worker(Database(url, max_size=get_config().level2_worker_concurrency + 1))
        worker.start()
        _drain(caller)
        for writers, per_writer in ((1, 12), (4, 6), (16, 4)):
            write_ms, decided, undecided = decisions(
                caller, writers, per_writer, f"dec-{writers}", args.pace_ms / 1000
            )
            results[f"decision_{writers}_writers"] = {
                "writes": summary(write_ms),
                "write_to_decision": summary(decided),
                "undecided": undecided,
            }
            log(
                f"{writers} writers: write {summary(write_ms)} decision {summary(decided)} undecided {undecided}"
            )
        worker.stop()
        off, asynchronous = results["write_off"]["p50_ms"], results["write_async"]["p50_ms"]
        results["async_over_off_p50"] = asynchronous / off
        results["off_over_floor_p50"] = off / results["floor_insert"]["p50_ms"]
        results["async_over_floor_p50"] = asynchronous / results["floor_insert"]["p50_ms"]
        results["model_requests"] = model.requests
        results["pace_ms"] = args.pace_ms
        results["worker_concurrency"] = get_config().level2_worker_concurrency
        if args.json:
            print(json.dumps(results, indent=2, default=str))
        else:
            log(json.dumps({k: v for k, v in results.items() if not isinstance(v, dict)}, indent=2))
    finally:
        service.reset()
        model.close()
        cluster.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
