"""A large erasure: one user's N versions erased through the service, beside a plain-SQL floor.

    .venv/bin/python bench/erasure.py                      # 10,000 versions of the user
    .venv/bin/python bench/erasure.py --versions 100000    # the size the erasure function must take

The store: one tenant; the user to erase has N/2 memories of two versions each (a closed one and
the believed one), one audit event about each memory and one Idempotency-Key record per 100
memories naming it; another user of the same tenant has N/10 versions that stay. Loaded with
COPY, then VACUUM ANALYZE, on an embedded PostgreSQL of the bench's own in a temp dir.

1. The service: `write_path.erasure.erase` of `{"user_id": ...}` as the API runs it (in batches of
   `BATCH_MEMORIES` memories once the selection is larger; `--batch-memories 0`: one transaction,
   as before batches). Meanwhile
   a writer of the same tenant takes the tenant's write lock (shared, as every write does) once
   every 50 ms: its longest wait is how long the erasure held the tenant's writes back.
2. The floor, on a second copy of the same store: the same rows with plain SQL as the tables'
   owner, triggers off, one transaction: tombstones INSERT ... SELECT, DELETE of the versions,
   UPDATE of the events, DELETE of the records.

Reported: versions erased per second and seconds for each, and the ratio service / floor.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import threading
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

from common import Cluster, local_environment, log

USER = "big-user"
OTHER = "other-user"
VECTOR = "[" + ",".join(["1"] + ["0"] * 383) + "]"


def load(url: str, versions: int) -> tuple[uuid.UUID, uuid.UUID]:
    """The store above; returns (tenant_id, api_key_id)."""
    import psycopg

    from aurra_core.access import keys

    with psycopg.connect(url, autocommit=True) as conn:
        caller, _ = keys.create_key(conn, f"bench-{uuid.uuid4().hex[:8]}")
    tenant = caller.tenant_id
    start = datetime(2024, 1, 1, tzinfo=UTC)
    memories = [(uuid.uuid4(), USER) for _ in range(versions // 2)] + [
        (uuid.uuid4(), OTHER) for _ in range(versions // 20)
    ]
    rows = io.StringIO()
    events = io.StringIO()
    for i, (memory, user) in enumerate(memories):
        at = start + timedelta(seconds=i)
        content = f"User {user} fact {i}: prefers option {i % 13} for task {i % 101}"
        for closed in (True, False):
            rows.write(
                "\t".join(
                    (
                        str(memory),
                        str(tenant),
                        content if closed else content + " (edited)",
                        "preferences",
                        "{}",
                        VECTOR,
                        at.isoformat(),
                        at.isoformat() if closed else (at + timedelta(hours=1)).isoformat(),
                        (at + timedelta(hours=1)).isoformat() if closed else "\\N",
                        user,
                    )
                )
                + "\n"
            )
        events.write(
            "\t".join(
                (
                    str(uuid.uuid4()),
                    str(tenant),
                    "duplicate_rejected",
                    at.isoformat(),
                    str(memory),
                    "a duplicate of " + content,
                    json.dumps({"content": content, "topic": "preferences"}),
                    user,
                )
            )
            + "\n"
        )
    with psycopg.connect(url) as conn, conn.cursor() as cur:
        with cur.copy(
            """COPY memory_versions (memory_id, tenant_id, content, topic, metadata, embedding,
                       valid_from, recorded_at, recorded_to, user_id) FROM STDIN"""
        ) as copy:
            copy.write(rows.getvalue())
        with cur.copy(
            """COPY audit_events (id, tenant_id, type, created_at, memory_id, reason, details, user_id)
                   FROM STDIN"""
        ) as copy:
            copy.write(events.getvalue())
        cur.executemany(
            """INSERT INTO idempotency_records (idempotency_key, status, expiry, response_data, tenant_id)
                   VALUES (%s, 'COMPLETED', %s, %s, %s)""",
            [
                (
                    f"bench-{i}",
                    int(time.time()) + 86400,
                    json.dumps({"memory": {"id": str(memories[i][0])}}),
                    tenant,
                )
                for i in range(0, len(memories), 100)
            ],
        )
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE memory_versions")
        conn.execute("VACUUM ANALYZE audit_events")
        conn.execute("VACUUM ANALYZE idempotency_records")
    return tenant, caller.api_key_id


def floor(url: str, tenant: uuid.UUID) -> tuple[float, int]:
    """The same rows erased with plain SQL, triggers off, one transaction: (seconds, versions)."""
    import psycopg

    erasure = uuid.uuid4()
    with psycopg.connect(url) as conn:
        started = time.perf_counter()
        conn.execute("SET LOCAL session_replication_role = replica")
        erased = conn.execute(
            """INSERT INTO memory_tombstones (version_id, memory_id, tenant_id, valid_from, valid_to,
                   superseded_by, supersedes, superseded_event_id, recorded_at, recorded_to, user_id,
                   agent_id, erasure_id, erased_at)
               SELECT version_id, memory_id, tenant_id, valid_from, valid_to, superseded_by, supersedes,
                   superseded_event_id, recorded_at, recorded_to, user_id, agent_id, %s, now()
               FROM memory_versions WHERE tenant_id = %s AND user_id = %s""",
            (erasure, tenant, USER),
        ).rowcount
        conn.execute("DELETE FROM memory_versions WHERE tenant_id = %s AND user_id = %s", (tenant, USER))
        conn.execute(
            """UPDATE audit_events SET reason = NULL, details = '{"erased": true}'
               WHERE tenant_id = %s AND memory_id IN (SELECT memory_id FROM memory_tombstones WHERE erasure_id = %s)""",
            (tenant, erasure),
        )
        conn.execute(
            """DELETE FROM idempotency_records WHERE tenant_id = %s AND response_data LIKE ANY (ARRAY(
                   SELECT DISTINCT '%%' || memory_id::text || '%%' FROM memory_tombstones WHERE erasure_id = %s))""",
            (tenant, erasure),
        )
        conn.commit()
        return time.perf_counter() - started, erased


def service(url: str, tenant: uuid.UUID, api_key_id: uuid.UUID, batch_memories: int) -> dict:
    """The service's erasure, with a writer of the same tenant beside it: seconds, the receipt's
    counts, and the writer's longest wait for the tenant's write lock."""
    from aurra_core.models import Caller, ErasureRequest
    from aurra_core.storage import store
    from aurra_core.storage.db import Database
    from aurra_core.write_path import erasure

    db = Database(url, max_size=4)
    caller = Caller(tenant_id=tenant, api_key_id=api_key_id)
    waits: list[float] = []
    stop = threading.Event()

    def writer() -> None:
        lock_key = store._tenant_lock_key(tenant)
        while not stop.is_set():
            asked = time.perf_counter()
            with db.tenant_writer_transaction(tenant, lock_key):
                waits.append(time.perf_counter() - asked)
            time.sleep(0.05)

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    time.sleep(0.2)
    started = time.perf_counter()
    status, receipt = erasure.erase(caller, ErasureRequest(user_id=USER), db, batch_memories=batch_memories)
    seconds = time.perf_counter() - started
    time.sleep(0.2)
    stop.set()
    thread.join()
    db.close()
    return {
        "status": status,
        "seconds": seconds,
        "counts": receipt.counts.model_dump(),
        "writer_longest_wait_s": max(waits),
        "writer_lock_takes": len(waits),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--versions", type=int, default=10_000, help="versions of the user erased (default 10,000)"
    )
    parser.add_argument(
        "--batch-memories",
        default=None,
        help="memories a batch, comma-separated to compare several in one run "
        "(default the service's; 0: one transaction, as before batches)",
    )
    parser.add_argument("--out", type=Path, default=None, help="the results as JSON")
    args = parser.parse_args()
    local_environment()
    from aurra_core.write_path.erasure import BATCH_MEMORIES

    batches = (
        [BATCH_MEMORIES] if args.batch_memories is None else [int(b) for b in args.batch_memories.split(",")]
    )
    cluster = Cluster()
    try:
        results: dict = {"versions": args.versions, "load_average": os.getloadavg(), "service": []}
        for batch in batches:
            url = cluster.create(f"erasure_service_{batch}")
            tenant, key = load(url, args.versions)
            ran = service(url, tenant, key, batch or 10**9)
            ran["batch_memories"] = batch
            results["service"].append(ran)
            log(
                f"service, {f'batches of {batch:,} memories' if batch else 'one transaction'}: {ran['seconds']:.2f} s, "
                f"{ran['counts']['versions'] / ran['seconds']:,.0f} versions/s; counts {ran['counts']}; "
                f"a writer of the tenant waited at most {ran['writer_longest_wait_s']:.2f} s"
            )
            cluster.drop(f"erasure_service_{batch}")
        floor_url = cluster.create("erasure_floor")
        floor_tenant, _ = load(floor_url, args.versions)
        seconds, erased = floor(floor_url, floor_tenant)
        results["floor"] = {"seconds": seconds, "versions": erased}
        log(f"floor (plain SQL, one transaction): {seconds:.2f} s, {erased / seconds:,.0f} versions/s")
        for ran in results["service"]:
            ran["ratio_to_floor"] = ran["seconds"] / seconds
            log(f"service / floor, batches of {ran['batch_memories']:,}: {ran['ratio_to_floor']:.1f}x")
        results["load_average_after"] = os.getloadavg()
        log(
            f"load average before {results['load_average'][0]:.1f}, after {results['load_average_after'][0]:.1f}"
        )
        if args.out:
            args.out.write_text(json.dumps(results, indent=2, default=str) + "\n")
    finally:
        cluster.stop()


if __name__ == "__main__":
    main()
